#!/usr/bin/env bash
# Compile time of ResNet-50 and host time of one inference on sidra-y1, with
# and without the trace; checks the platform output against the golden model.
#   bash bench/compiler/resnet50.sh [BUILD_DIR] [MODELS_DIR]   (default: build)
# With MODELS_DIR (scripts/models/export_models.py's output holding
# resnet50), the torchvision export with its calibration images; otherwise
# vp-cc-modelgen's ResNet-50 and the default calibration.
set -euo pipefail
B=$(cd "${1:-build}" && pwd)/bin
M=${2:+$(cd "$2" && pwd)}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
calib=()
if [ -n "$M" ]; then
  cp "$M/resnet50.onnx" resnet50.onnx
  cp "$M/resnet50/test_000.npy" x.npy
  for f in "$M"/resnet50/calib_*.npy; do calib+=(--calib "$f"); done
else
  "$B/vp-cc-modelgen" resnet50 resnet50.onnx
  "$B/vp-cc-modelgen" input x.npy --seed 3
fi
/usr/bin/time -f "compile: %e s wall, %U s user, %M KB" "$B/vp-cc" resnet50.onnx -o resnet50.asm "${calib[@]}"
/usr/bin/time -f "compile with one golden test input: %e s wall, %U s user, %M KB" \
  "$B/vp-cc" resnet50.onnx -o resnet50.asm "${calib[@]}" --test x.npy
/usr/bin/time -f "vp-run: %e s wall, %U s user, %M KB" "$B/vp-run" --model resnet50.asm \
  --input x.in.bin --output y.bin --stats stats.json | head -1
/usr/bin/time -f "vp-run --trace: %e s wall, %U s user, %M KB" "$B/vp-run" -q --model resnet50.asm \
  --input x.in.bin --output y2.bin --trace run.trace
ls -l run.trace | awk '{print "trace: " $5 " bytes"}'
cmp x.golden.bin y.bin && cmp x.golden.bin y2.bin && echo "output equals the golden model"
