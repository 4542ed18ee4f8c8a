#!/usr/bin/env bash
# A stream's steady state on sidra-y1 (docs/compiler.md, "Figures of the
# schedule"): cycles per inference averaged over a stream of N images
# include the pipeline's filling and draining; what a stream sustains is
# the period between images once it is full. Each model is compiled and run
# as a stream of N and of 2N images (one test input, weights preloaded with
# --no-deploy; the simulation is deterministic, so one run is a figure), and
#   period = (cycles of 2N images - cycles of N images) / N
#   fill   = cycles of N images - (N - 1) x period
# (the first image's latency with the pipeline's filling and draining, as
# if every later image took one period), beside vp-cc's estimate of each
# (the report's stream line: "the first image's F then one per P"), and
# the 2N run's own `firmware.stream_period_cycles` (vp-run --stats: the
# cycles per image from image N/2's result to image 3N/2's, one run), and
# the bound the mesh sets: the busiest link's busy cycles per image
# (`noc.busiest_link`; when both runs name the same link, (busy of 2N -
# busy of N) / N, else the 2N run's mean) and that over the period (a
# link busy 90 % of the period leaves the period no room to fall).
# Exits non-zero when the platform differs from the golden model.
#   bash bench/compiler/steady_state.sh BUILD_DIR MODELS_DIR [MODEL...] [-- VP-CC ARGS...]
#   (MODELS_DIR: scripts/models/export_models.py's output; default models:
#    tiny_cnn mlp resnet18 mobilenet_v2 resnet50; STREAM=N sets N, default 16)
set -euo pipefail
. "$(dirname "$0")/model_args.sh"
N=${STREAM:-16}
case "$N" in '' | *[!0-9]* | 0 | 1) echo "steady_state.sh: STREAM must be a whole number above 1, got '$N'" >&2; exit 2 ;; esac
printf "%-14s %7s %12s %12s %10s %10s %7s %10s %10s %7s %10s %10s %6s  %s\n" model stream "per inf. N" "per inf. 2N" \
  period "est." ratio fill "est." ratio "one run" "link/img" "/per." "busiest link"
for m in "${models[@]}"; do
  for b in "$N" $((2 * N)); do
    /usr/bin/python3 "$ROOT/compiler/tools/check_model.py" "$m" --models "$M" --out "$W/$m.$b" --bin "$B" \
      --max-tests 1 --report --json "$W/$m.$b.json" --vp-run-arg=--no-deploy --vp-cc-arg=--batch \
      --vp-cc-arg="$b" "${cc_args[@]}" > "$W/$m.$b.log"
  done
  /usr/bin/python3 - "$m" "$N" "$W/$m.$N.json" "$W/$m.$((2 * N)).json" "$W/$m.$N.log" \
    "$W/$m.$((2 * N))/stats.json" "$W/$m.$N/stats.json" <<'PY'
import json, re, sys
m, n = sys.argv[1], int(sys.argv[2])
stats = [json.load(open(p)) for p in (sys.argv[7], sys.argv[6])]
one_run = stats[1]["firmware"].get("stream_period_cycles", 0)
links = [s["noc"].get("busiest_link", {}) for s in stats]
per = [json.load(open(p))["chip_figures"]["inference_cycles"] for p in sys.argv[3:5]]
t1, t2 = per[0] * n, per[1] * 2 * n
period = (t2 - t1) / n
fill = t1 - (n - 1) * period
est = re.search(r"^stream of \d+ images: .*the first image's (\d+) then one per (\d+)", open(sys.argv[5]).read(), re.M)
ef, ep = (int(est.group(1)), int(est.group(2))) if est else (0, 0)
ratio = lambda e, v: "%.2f" % (e / v) if e and v > 0 else "-"
name = links[1].get("link", "-")
if name != "-" and links[0].get("link") == name:
    link = (links[1]["busy_cycles"] - links[0]["busy_cycles"]) / n
else:
    link = links[1].get("busy_cycles", 0) / (2 * n)
print("%-14s %7d %12.0f %12.0f %10.0f %10s %7s %10.0f %10s %7s %10.0f %10.0f %6s  %s" % (
    m, n, per[0], per[1], period, ep or "-", ratio(ep, period), fill, ef or "-", ratio(ef, fill), one_run,
    link, ratio(link, period), name))
PY
done
