#!/usr/bin/env bash
# Compile time of ResNet-50 and host time of one inference on sidra-y1, with
# and without the trace; checks the platform output against the golden model.
#   bash bench/compiler/resnet50.sh [BUILD_DIR]   (default: build)
set -euo pipefail
B=$(cd "${1:-build}" && pwd)/bin
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
"$B/vp-cc-modelgen" resnet50 resnet50.onnx
"$B/vp-cc-modelgen" input x.npy --seed 3
/usr/bin/time -f "compile: %e s wall, %U s user, %M KB" "$B/vp-cc" resnet50.onnx -o resnet50.asm
"$B/vp-cc" resnet50.onnx --quantize-input x.npy -o x.bin
"$B/vp-cc" resnet50.onnx --reference x.npy -o ref.npy
IN=$(sed -n 's/^\.input "[^"]*", \([0-9]*\),.*/\1/p' resnet50.asm)
OUT=$(sed -n 's/^\.output "[^"]*", \([0-9]*\), \([0-9]*\),.*/\1:\2/p' resnet50.asm)
/usr/bin/time -f "vp-run: %e s wall, %U s user, %M KB" "$B/vp-run" --model resnet50.asm \
  --input "x.bin@$IN" --output "y.bin@$OUT:int8" --stats stats.json | head -1
/usr/bin/time -f "vp-run --trace: %e s wall, %U s user, %M KB" "$B/vp-run" -q --model resnet50.asm \
  --input "x.bin@$IN" --output "y2.bin@$OUT:int8" --trace run.trace
N=$(stat -c %s y.bin)
tail -c "$N" ref.npy | cmp - y.bin && echo "output equals the golden model"
