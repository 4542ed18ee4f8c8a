#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install, build the tools,
# export torchvision's ResNet-50 (random weights, nothing is downloaded) to
# ONNX, compile it with vp-cc, run it on the default sidra-y1 chip with the
# firmware deploying the weights (vp-run's default), write the trace and the
# statistics, and compare the output with ONNX Runtime and with the golden
# model (bit-exact).
#   VP_MAIN_MODEL=resnet18 bash scripts/run-main.sh   another exported model
#   VP_MAIN_CALIB=N                                    calibration inputs (default 8, as export_models.py)
#   VP_MAIN_STREAM=N                                   then N images streamed in one start (default 16, 0: skip)
# Thresholds: logit cosine >= 0.97 against ONNX Runtime (measured 0.98 on the
# untrained ResNet-50, see docs/compiler.md "Accuracy") and ORT's top-1 among
# the top 5; the platform must equal the golden model byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
model=${VP_MAIN_MODEL:-resnet50}
calib=${VP_MAIN_CALIB:-8}

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DVP_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target vp-run vp-as vp-objdump vp-trace vp-cc firmware
t_build=$(date +%s)

# 1. The model: torchvision ResNet-50, BN statistics from seeded images,
#    opset 13, with calibration and test inputs (scripts/models/, docs/references.md).
models=out/models
if [ ! -f "$models/$model.onnx" ] || [ ! -f "$models/manifest.json" ] ||
   ! grep -q "\"$model\"" "$models/manifest.json"; then
  /usr/bin/python3 scripts/models/export_models.py "$models" --models "$model" --calib "$calib" --test 1
fi
t_export=$(date +%s)

# 2.-4. vp-cc (calibrated on the exported inputs), vp-run on sidra-y1 with
#    the trace and statistics, ONNX Runtime on the same input, the comparison.
out=out/$model
mkdir -p "$out"
/usr/bin/python3 compiler/tools/check_model.py "$model" --models "$models" --out "$out" --bin build/bin \
  --max-tests 1 --trace "$out/$model.trace" --stats "$out/stats.json" --json "$out/result.json" \
  --min-cosine 0.97 --min-top5 1
./build/bin/vp-trace "$out/$model.trace" --stats > "$out/trace-stats.txt"
# Throughput: a stream of VP_MAIN_STREAM images through the pipeline in one
# start (vp-cc --batch), the weights as deployed above (--no-deploy), every
# shared-memory access checked for races (--check-races); 0 skips.
stream=${VP_MAIN_STREAM:-16}
if [ "$stream" -gt 1 ]; then
  /usr/bin/python3 compiler/tools/check_model.py "$model" --models "$models" --out "$out/stream$stream" \
    --bin build/bin --max-tests 1 --stats "$out/stream$stream/stats.json" --json "$out/stream$stream/result.json" \
    --label "$model-stream$stream" --vp-cc-arg=--batch --vp-cc-arg="$stream" --vp-run-arg=--no-deploy \
    --vp-run-arg=--check-races \
    --min-cosine 0.97 --min-top5 1
fi
t_end=$(date +%s)

echo "files: $out/$model.asm (+ .xbar weight image, .io.json), trace $out/$model.trace" \
     "($(du -h "$out/$model.trace" | cut -f1)), statistics $out/stats.json, $out/trace-stats.txt," \
     "comparison $out/compare.json, summary $out/result.json"
echo "wall time: $((t_end - t0)) s (install+build $((t_build - t0)) s, export $((t_export - t_build)) s," \
     "compile+run+compare $((t_end - t_export)) s)"
