#!/usr/bin/env bash
# The accuracy tables of docs/analog.md on the digits CNN, each row one
# vp-eval run (four calibration images, deployment by ISPP, the default
# seed; deterministic, so one run is the figure): every mitigation alone and
# together on sidra-y1-analog, redundant weights against programming noise,
# IR-drop pre-distortion against the wires' resistance, input bits per
# layer, weight bits and the signed encoding per layer. Trains the model first when MODELS_DIR has none (about 4 s).
#   bash bench/analog/mitigations.sh [BUILD_DIR] [MODELS_DIR] [TABLE...]
#   TABLE: mitigations redundancy ir-drop input-bits weight-formats (default: all)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-$ROOT/build}" && pwd)/bin
M=${2:-$ROOT/out/models}
shift $(( $# > 2 ? 2 : $# ))
tables=("$@")
[ ${#tables[@]} -gt 0 ] || tables=(mitigations redundancy ir-drop input-bits weight-formats)
[ -f "$M/digits_cnn.onnx" ] || /usr/bin/python3 "$ROOT/scripts/models/train_digits.py" "$M"
D=$M/digits
calib=()
for i in 0 1 2 3; do calib+=(--calib "$D/calib_00$i.npy"); done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"

# One row: LABEL, then vp-eval arguments. Prints accuracy, images equal to
# the golden model, cycles, uJ per inference and crossbars.
row() {
  local label=$1
  shift
  "$B/vp-eval" "$M/digits_cnn.onnx" --data "$D/test_x.npy" --labels "$D/test_y.npy" "${calib[@]}" \
    "$@" --json "$W/r.json" -q
  /usr/bin/python3 - "$W/r.json" "$label" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a = r["accuracy"]
print(f"| {sys.argv[2]} | {100 * a['chip']:.2f} % | {100 * a['golden']:.2f} % | {r['chip_equals_golden']} | "
      f"{r['cycles_per_inference']:,.0f} | {r['energy_uj_per_inference']:.2f} | {r['crossbars']:,} |")
PY
}
header() {
  echo
  echo "$1"
  echo
  echo "| setting | chip accuracy | golden | images equal to golden | cycles per inference | uJ per inference | crossbars |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
}

for t in "${tables[@]}"; do
  case $t in
    mitigations)
      header "sidra-y1-analog, 1 s after programming: each mitigation alone and together"
      A=(--chip "$ROOT/configs/sidra-y1-analog.yaml")
      for m in none averaging redundancy encoding ir-drop adc-range adc-range,ir-drop adc-range,encoding \
               adc-range,encoding,redundancy adc-range,encoding,averaging adc-range,encoding,redundancy,averaging; do
        if [ $m = none ]; then row "$m" "${A[@]}"; else row "\`$m\`" "${A[@]}" --mitigate "$m"; fi
      done ;;
    redundancy)
      header "sidra-y1, programming noise 0.3 levels: redundant weights and averaged reads"
      P=(--set nonideal.prog_noise_sigma=0.3)
      row "none" "${P[@]}"
      row "4 reads averaged" "${P[@]}" --mitigate averaging --average-reads 4
      for n in 2 4 8; do row "$n copies" "${P[@]}" --mitigate redundancy --redundancy "$n"; done ;;
    ir-drop)
      header "sidra-y1, IR drop: without and with the pre-distortion"
      for r in 1 2 4 8; do
        row "$r Ohm per cell" --set nonideal.ir_drop_ohm_per_cell=$r
        row "$r Ohm per cell, \`ir-drop\`" --set nonideal.ir_drop_ohm_per_cell=$r --mitigate ir-drop
      done ;;
    input-bits)
      header "sidra-y1: input bits per layer"
      row "8 everywhere"
      for n in 6 4; do row "$n everywhere" --input-bits "$n"; done
      for b in 0.003 0.01 0.03; do row "auto, budget $b" --input-bits auto --input-bits-budget "$b"; done ;;
    weight-formats)
      header "sidra-y1: weight bits per layer"
      row "8 everywhere"
      for n in 6 4; do row "$n everywhere" --weight-bits "$n"; done
      for b in 0.00001 0.003 0.01 0.03; do row "auto, budget $b" --weight-bits auto --weight-bits-budget "$b"; done
      header "sidra-y1-analog, 1 s after programming: the signed encoding per layer, with calibrated ADC ranges"
      A=(--chip "$ROOT/configs/sidra-y1-analog.yaml")
      row "offset slices everywhere (\`adc-range\`)" "${A[@]}" --mitigate adc-range
      row "differential pairs everywhere (\`adc-range,encoding\`)" "${A[@]}" --mitigate adc-range,encoding
      row "per layer, measured (\`--encoding-layers auto\`)" "${A[@]}" --mitigate adc-range,encoding --encoding-layers auto ;;
    *) echo "unknown table '$t': expected mitigations, redundancy, ir-drop, input-bits or weight-formats" >&2; exit 2 ;;
  esac
done
