#!/usr/bin/env bash
# Host time of one inference on sidra-y1 against ONNX Runtime measured in the
# same run: vp-run with and without the trace (and without it with the
# deployment on the simulation thread alone), medians over RUNS runs, each
# vp-run time also divided by the ONNX Runtime time of its own round (the
# machine may be shared: the same-round ratio and CPU time are the figures
# to compare). Checks every output against the golden model.
#   bash bench/platform/resnet_speed.sh [BUILD_DIR] [MODELS_DIR] [RUNS] [MODEL...]
#   defaults: build out/models 5 resnet50 (bench/bench_args.sh)
# MODELS_DIR is scripts/models/export_models.py's output (manifest.json).
# VP_RUN_ARGS adds arguments to every vp-run (e.g. --no-deploy).
set -euo pipefail
BENCH_DEFAULT_MODELS="resnet50"
source "$(dirname "$0")/../bench_args.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
PY=/usr/bin/python3
read -r -a EXTRA <<< "${VP_RUN_ARGS:-}"

echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
for m in "${MODELS[@]}"; do
  d=$W/$m
  mkdir -p "$d"
  read -r test calib < <($PY -c "
import json,sys
e=json.load(open('$M/manifest.json'))['models']['$m']
print('$M/'+e['test'][0], ' '.join('--calib $M/'+c for c in e['calib']))")
  stem=$(basename "$test" .npy)
  # vp-cc RUNS times (the first may read the model from a cold page cache).
  for i in $(seq 1 "$RUNS"); do
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %U %S %M" -o "$d/cc.$i" "$B/vp-cc" "$M/$m.onnx" -o "$d/$m.asm" --chip sidra-y1 \
      $calib --test "$test" > "$d/cc.log" 2>&1
  done
  for i in $(seq 1 "$RUNS"); do
    /usr/bin/time -f "%e %U %S %M" -o "$d/ort.$i" node "$ROOT/scripts/models/run_ort.js" "$M/$m.onnx" \
      --each "$test" --out-dir "$d/ort" --threads 1 > /dev/null
    /usr/bin/time -f "%e %U %S %M" -o "$d/trace.$i" "$B/vp-run" -q --chip sidra-y1 --model "$d/$m.asm" \
      --input "$d/$stem.in.bin" --output "$d/y.trace.bin" --trace "$d/t.trace" "${EXTRA[@]}" > /dev/null
    /usr/bin/time -f "%e %U %S %M" -o "$d/plain.$i" "$B/vp-run" -q --chip sidra-y1 --model "$d/$m.asm" \
      --input "$d/$stem.in.bin" --output "$d/y.plain.bin" "${EXTRA[@]}" > /dev/null
    # The deployment's rows all on the simulation thread (no DeployAhead):
    # the same run, for the same-round ratio of what the second thread buys.
    VP_DEPLOY_AHEAD=0 /usr/bin/time -f "%e %U %S %M" -o "$d/serial.$i" "$B/vp-run" -q --chip sidra-y1 \
      --model "$d/$m.asm" --input "$d/$stem.in.bin" --output "$d/y.serial.bin" "${EXTRA[@]}" > /dev/null
    cmp -s "$d/y.trace.bin" "$d/$stem.golden.bin" && cmp -s "$d/y.plain.bin" "$d/$stem.golden.bin" &&
      cmp -s "$d/y.serial.bin" "$d/$stem.golden.bin" ||
      { echo "$m: run $i: the output differs from the golden model" >&2; exit 1; }
  done
  $PY - "$d" "$m" "$RUNS" "$(stat -c %s "$d/t.trace")" <<'EOF'
import statistics as st, sys
d, m, runs, trace_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def rd(name):
    wall, user, sys_, rss = open(f"{d}/{name}").read().split()[-4:]
    return float(wall), float(user) + float(sys_), int(rss)
ort = [rd(f"ort.{i}") for i in range(1, runs + 1)]
cc = [rd(f"cc.{i}") for i in range(1, runs + 1)]
print(f"{m}: vp-cc (8 calibration inputs, golden test): median {st.median(c[0] for c in cc):.2f} s wall "
      f"(from {min(c[0] for c in cc):.2f} to {max(c[0] for c in cc):.2f}), {st.median(c[1] for c in cc):.2f} s cpu, "
      f"{max(c[2] for c in cc)/1024:.0f} MiB peak, over {runs} runs")
print(f"{m}: ONNX Runtime (1 thread, with start-up): median {st.median(o[0] for o in ort):.2f} s wall, "
      f"{st.median(o[1] for o in ort):.2f} s cpu over {runs} runs")
for kind, label in (("trace", "vp-run with the trace"), ("plain", "vp-run without trace")):
    r = [rd(f"{kind}.{i}") for i in range(1, runs + 1)]
    ratio = [r[i][0] / ort[i][0] for i in range(runs)]
    cratio = [r[i][1] / ort[i][1] for i in range(runs)]
    print(f"{m}: {label}: median {st.median(x[0] for x in r):.2f} s wall, {st.median(x[1] for x in r):.2f} s cpu, "
          f"x{st.median(ratio):.1f} ONNX Runtime wall (x{st.median(cratio):.1f} cpu), "
          f"peak RSS {max(x[2] for x in r)/1024:.0f} MiB")
serial = [rd(f"serial.{i}") for i in range(1, runs + 1)]
plain = [rd(f"plain.{i}") for i in range(1, runs + 1)]
print(f"{m}: vp-run without trace, deployment on the simulation thread alone (VP_DEPLOY_AHEAD=0): "
      f"median {st.median(x[0] for x in serial):.2f} s wall, {st.median(x[1] for x in serial):.2f} s cpu; "
      f"same-round wall ratio to the default x{st.median(serial[i][0] / plain[i][0] for i in range(runs)):.2f}")
print(f"{m}: trace {trace_bytes} bytes; every output equals the golden model")
EOF
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
