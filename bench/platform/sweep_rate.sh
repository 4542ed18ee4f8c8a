#!/usr/bin/env bash
# Sweep points per hour on this machine: examples/sweeps/resnet50_adc_read.yaml
# (ResNet-50 on sidra-y1, 6 points: ADC bits x crossbar read latency, each a
# vp-run with deployment; vp-sweep compiles the model once) with `vp-sweep
# -j2`, RUNS times; prints each run's wall time, the median and the points
# per hour it gives. The model is export_models.py's ResNet-50 and its first
# test image.
#   bash bench/platform/sweep_rate.sh [BUILD_DIR] [MODELS_DIR] [RUNS]
#   defaults: build out/models 3
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-build}" && pwd)/bin
M=$(cd "${2:-out/models}" && pwd)
RUNS=${3:-3}
for f in "$M/resnet50.onnx" "$M/resnet50/test_000.npy"; do
  [ -f "$f" ] || { echo "sweep_rate: $f missing (scripts/models/export_models.py --models resnet50)" >&2; exit 1; }
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp "$ROOT/examples/sweeps/resnet50_adc_read.yaml" "$W/"
ln -s "$M/resnet50.onnx" "$W/resnet50.onnx"
# The input's codes and the FP32 reference at the scales of vp-sweep's own
# compile (vp-cc's default calibration).
"$B/vp-cc" "$W/resnet50.onnx" --quantize-input "$M/resnet50/test_000.npy" -o "$W/resnet50.x.bin" > /dev/null
"$B/vp-cc" "$W/resnet50.onnx" --reference "$M/resnet50/test_000.npy" -o "$W/resnet50.ref.npy" > /dev/null
times=()
for r in $(seq 1 "$RUNS"); do
  echo "run $r: load $(cut -d' ' -f1-3 /proc/loadavg)"
  start=$(date +%s.%N)
  "$B/vp-sweep" "$W/resnet50_adc_read.yaml" -j2 -o "$W/run$r" -q
  end=$(date +%s.%N)
  t=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')
  times+=("$t")
  points=$(($(wc -l < "$W/run$r/results.csv") - 1))
  done_points=$(grep -c ',completed,' "$W/run$r/results.csv" || true)
  [ "$done_points" -eq "$points" ] || { echo "sweep_rate: run $r completed $done_points of $points points" >&2; exit 1; }
  printf 'run %d: %d points in %.2f s\n' "$r" "$points" "$t"
done
median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
awk -v m="$median" -v n="$points" 'BEGIN {printf "median %.2f s for %d points: %.0f points per hour (vp-sweep -j2)\n", m, n, 3600 * n / m}'
