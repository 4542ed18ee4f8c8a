#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install, build the tools, run
# the two-layer MLP example on the platform with its trace and statistics,
# and check the logits against the example's integer reference.
# (Once vp-cc exists this becomes ResNet-50 on the default sidra-y1 chip.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DVP_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target vp-run vp-as vp-objdump vp-trace

out=out/mlp
mkdir -p "$out"
./build/bin/vp-run --chip small examples/mlp.s \
  --input examples/data/mlp.x.bin@0 \
  --output "$out/logits.bin@0x1000:80:int32" \
  --trace "$out/mlp.trace" --stats "$out/stats.json"
if cmp -s "$out/logits.bin" examples/data/mlp.expected.bin; then
  echo "logits equal the integer reference (examples/data/mlp.expected.bin)"
else
  echo "logits differ from the integer reference" >&2
  exit 1
fi
echo "trace: $out/mlp.trace ($(wc -l < "$out/mlp.trace") instructions), statistics: $out/stats.json"
