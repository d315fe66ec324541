#!/usr/bin/env bash
# Runs the model-loading fuzzer for SECONDS with a persistent corpus under the
# InferLab cache, seeded from small ONNX test models. Crash inputs are written
# to the corpus directory's artifacts/ folder.
#   tools/run_fuzz.sh build-fuzz/fuzz_model 600
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 FUZZ_BINARY SECONDS" >&2
  exit 2
fi
binary=$1
seconds=$2
cache=${INFERLAB_CACHE:-$HOME/.cache/inferlab}
corpus=$cache/fuzz-corpus
artifacts=$corpus/artifacts
mkdir -p "$corpus/models" "$artifacts"

# Seed with a few small, varied models (elementwise, conv, control flow, reshape).
testdata=/usr/share/libonnx-testdata/data/node
for case in test_add test_relu test_conv_with_strides_padding test_if test_loop11 \
            test_reshape_extended_dims test_gather_0 test_maxpool_2d_default \
            test_slice test_concat_2d_axis_0 test_resize_upsample_scales_nearest; do
  if [[ -f $testdata/$case/model.onnx && ! -f $corpus/models/$case.onnx ]]; then
    cp "$testdata/$case/model.onnx" "$corpus/models/$case.onnx"
  fi
done

exec "$binary" "$corpus/models" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
  -timeout=10 -artifact_prefix="$artifacts/" -print_final_stats=1
