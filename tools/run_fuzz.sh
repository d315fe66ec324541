#!/usr/bin/env bash
# Runs a fuzzer for SECONDS with a persistent corpus under the InferLab
# cache: fuzz_model seeded from small ONNX test models, fuzz_infer_request
# from KServe v2 request bodies and model configs. Crash inputs are written
# to the corpus directory's artifacts/ folder.
#   tools/run_fuzz.sh build-fuzz/fuzz_model 600
#   tools/run_fuzz.sh build-fuzz/fuzz_infer_request 600
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
mkdir -p "$artifacts"

if [[ $(basename "$binary") == fuzz_infer_request ]]; then
  # Byte 0 bit 0 clear: a JSON-only body; set: bytes 1-2 are the JSON's
  # length (little-endian) and binary tensor data follows. Bit 1: decoded
  # with an owner, so aligned binary tensors are views into the body.
  seeds=$corpus/requests
  mkdir -p "$seeds"
  printf '\x00\x00\x00{"id":"a","inputs":[{"name":"x","shape":[2,2],"datatype":"FP32","data":[[1,2],[3,4]]}],"outputs":[{"name":"y"}]}' \
    > "$seeds/json.bin"
  json='{"inputs":[{"name":"x","shape":[2],"datatype":"INT32","parameters":{"binary_data_size":8}}],"parameters":{"binary_data_output":true}}'
  { printf '\x01'; printf "\\x$(printf %02x $((${#json} % 256)))\\x$(printf %02x $((${#json} / 256)))"; \
    printf '%s' "$json"; printf '\x01\x00\x00\x00\x02\x00\x00\x00'; } > "$seeds/binary.bin"
  # The same with the JSON padded to a multiple of 4 bytes, so its INT32s
  # start aligned in the owner's buffer: a view, not a copy.
  padded=$json$(printf '%*s' $(((4 - ${#json} % 4) % 4)) '')
  { printf '\x03'; printf "\\x$(printf %02x $((${#padded} % 256)))\\x$(printf %02x $((${#padded} / 256)))"; \
    printf '%s' "$padded"; printf '\x01\x00\x00\x00\x02\x00\x00\x00'; } > "$seeds/binary_owned.bin"
  printf '\x00\x00\x00name: "fuzz" max_batch_size: 4 input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ] dynamic_batching { priority_levels: 2 default_priority_level: 1 }' \
    > "$seeds/config.bin"
  printf '\x00\x00\x00/v2/models/res%%2Dnet/versions/3/infer?x=1' > "$seeds/route.bin"
  exec "$binary" "$seeds" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
    -timeout=10 -artifact_prefix="$artifacts/request-" -print_final_stats=1
fi

mkdir -p "$corpus/models"

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
