#!/usr/bin/env bash
# A model on 1, 2 and 4 chips (vp-cc --chips N, vp-run --system) with the
# PCIe-class and the die-to-die link: latency of one inference and the
# interval between results of a batch flowing through the chips, link
# traffic and energy; then a vp-sweep of the interval against the link's
# lane rate, plotted. Every run's outputs are checked against the golden
# model. Simulated cycles are deterministic: one run per point.
#   bash bench/platform/multichip.sh [BUILD_DIR] [MODELS_DIR] [BATCH] [MODEL]
#   defaults: build out/models 8 resnet50
# VP_MULTICHIP_SWEEP=0 skips the sweep; VP_MULTICHIP_OUT=DIR keeps the runs
# (default: a temporary folder); VP_MULTICHIP_CHIPS="2 3" picks the chip
# counts (default "1 2 4": a model bigger than one chip starts at 2) and
# VP_MULTICHIP_LINKS="pcie" the links (default "pcie d2d").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-$ROOT/build}" && pwd)/bin
M=$(cd "${2:-$ROOT/out/models}" && pwd)
BATCH=${3:-8}
MODEL=${4:-resnet50}
PY=/usr/bin/python3
if [ -n "${VP_MULTICHIP_OUT:-}" ]; then
  W=$VP_MULTICHIP_OUT
  mkdir -p "$W"
else
  W=$(mktemp -d)
  trap 'rm -rf "$W"' EXIT
fi

read -r test calib < <($PY -c "
import json
e=json.load(open('$M/manifest.json'))['models']['$MODEL']
print('$M/'+e['test'][0], ' '.join('--calib $M/'+c for c in e['calib']))")
stem=$(basename "$test" .npy)
echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "model $MODEL, batch $BATCH for the interval; --no-deploy (inference only)"
printf '| chips | link | crossbars | latency (cycles) | interval at batch %s (cycles) | inferences/s at 1 GHz | link bytes per inference | link energy per inference (uJ) | energy per inference (uJ) |\n' "$BATCH"
echo '|---|---|---|---|---|---|---|---|---|'
for n in ${VP_MULTICHIP_CHIPS:-1 2 4}; do
  d=$W/chips$n
  mkdir -p "$d"
  chips_arg=()
  [ "$n" -gt 1 ] && chips_arg=(--chips "$n")
  # shellcheck disable=SC2086
  "$B/vp-cc" "$M/$MODEL.onnx" -o "$d/m.asm" $calib --test "$test" "${chips_arg[@]}" > "$d/cc.log" 2>&1
  program=$d/m.asm
  [ "$n" -gt 1 ] && program=$d/m.system.json
  ins=()
  for _ in $(seq "$BATCH"); do ins+=(--input "$d/$stem.in.bin"); done
  read -r -a links <<< "${VP_MULTICHIP_LINKS:-pcie d2d}"
  [ "$n" -eq 1 ] && links=(none)
  for link in "${links[@]}"; do
    link_arg=()
    [ "$link" != none ] && link_arg=(--link "$link")
    for b in 1 "$BATCH"; do
      run=$d/$link-b$b
      mkdir -p "$run"
      args=(--input "$d/$stem.in.bin")
      [ "$b" -gt 1 ] && args=("${ins[@]}")
      "$B/vp-run" -q --no-deploy --model "$program" "${link_arg[@]}" "${args[@]}" \
        --output "$run/y.bin" --stats "$run/stats.json" > "$run/log" 2>&1
      $PY - "$run/y.bin" "$d/$stem.golden.bin" "$b" <<'EOF'
import sys
y, g, b = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), int(sys.argv[3])
if y != g * b:
    sys.exit("multichip: %s differs from the golden model" % sys.argv[1])
EOF
    done
    $PY - "$d" "$link" "$BATCH" "$n" <<'EOF'
import json, sys
d, link, batch, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
one = json.load(open("%s/%s-b1/stats.json" % (d, link)))
many = json.load(open("%s/%s-b%d/stats.json" % (d, link, batch)))
def figures(s):
    if "system" in s:
        sysd = s["system"]
        xb = sum(c["crossbar"]["crossbars_used"] for c in s["chips"])
        lb = sum(l["bytes"] for l in sysd["link"]["links"]) / sysd["elements"]
        return (xb, sysd.get("latency_cycles"), sysd.get("interval_cycles"), lb,
                sysd["link"]["energy_pj"] / sysd["elements"] * 1e-6, sysd["energy_pj"] / sysd["elements"] * 1e-6)
    fw = s["firmware"]
    times = fw["inference_cycles"]
    return (s["crossbar"]["crossbars_used"], times[0], sum(times) / len(times), 0, 0.0,
            s["energy_pj"]["total"] / fw["inferences"] * 1e-6)
xb, lat, _, lb, le, _ = figures(one)
_, _, interval, _, _, e = figures(many)
print("| %d | %s | %s | %s | %s | %.0f | %s | %.2f | %.1f |" % (
    n, link, format(xb, ","), format(lat, ","), format(int(interval), ","), 1e9 / interval,
    format(int(lb), ","), le, e))
EOF
  done
done

[ "${VP_MULTICHIP_SWEEP:-1}" = 0 ] && exit 0
# The interval against the link's lane rate (GT/s per lane, PCIe-class
# x16 lanes otherwise): where the link, not the chips, sets the pace.
for n in ${VP_MULTICHIP_CHIPS:-1 2 4}; do
  [ "$n" -eq 1 ] && continue
  d=$W/chips$n
  sweep=$d/lane_rate.yaml
  inputs=""
  for _ in $(seq 4); do inputs="$inputs, $d/$stem.in.bin"; done
  cat > "$sweep" <<EOF
name: $MODEL-chips$n-lane-rate
model: $d/m.system.json
preset: sidra-y1
inputs: [${inputs#, }]
outputs: [y.bin]
inferences_per_run: 4
parameters:
  link.lane_gtps: {from: 0.125, to: 32, factor: 4}
metrics:
  - system.interval_cycles
  - system.latency_cycles
  - system.energy_pj
  - system.link.energy_pj
plots:
  - {metric: system.interval_cycles, x: link.lane_gtps}
EOF
  "$B/vp-sweep" "$sweep" -o "$d/sweep" -j 1 > "$d/sweep.log" 2>&1 || { cat "$d/sweep.log"; exit 1; }
  echo "chips $n: interval (cycles) against link.lane_gtps (x16 lanes, 128b/130b):"
  $PY - "$d/sweep/results.csv" <<'EOF'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print("  %8s GT/s: interval %s, latency %s, status %s" % (
        r["link.lane_gtps"], r["system.interval_cycles"], r["system.latency_cycles"], r["status"]))
EOF
  echo "  plot: $d/sweep/plots/"
done
