#!/usr/bin/env bash
# The schedule's figures on sidra-y1 at default timing (docs/compiler.md,
# "Figures of the schedule"): for each model, the cycles per inference the
# platform measures (one test input, weights preloaded with --no-deploy; the
# simulation is deterministic, so one run is the figure), vp-cc's estimate,
# the report's MVM bound (the slowest layer's MVMs with the layers
# overlapped), the chip bound (every crossbar activation of the run spread
# over all the chip's crossbars) and the share of the chip's peak MVM rate
# it makes, crossbars used, energy per inference with and without leakage,
# the cost model's slowest stage and, for a stream (-- --batch N), the
# cycles per image once it is full (vp-run's firmware.stream_period_cycles).
# Exits non-zero when the platform differs from the golden model.
#   bash bench/compiler/schedule.sh BUILD_DIR MODELS_DIR [MODEL...] [-- VP-CC ARGS...]
#   (MODELS_DIR: scripts/models/export_models.py's output; default models:
#    tiny_cnn mlp resnet18 mobilenet_v2 resnet50)
set -euo pipefail
. "$(dirname "$0")/model_args.sh"
printf "%-14s %10s %10s %10s %10s %9s %9s %7s %9s %9s %9s\n" model measured estimate "MVM bound" "chip bound" "MVM share" crossbars "mJ/inf" "mJ dyn" slowest period
for m in "${models[@]}"; do
  /usr/bin/python3 "$ROOT/compiler/tools/check_model.py" "$m" --models "$M" --out "$W/$m" --bin "$B" \
    --max-tests 1 --report --json "$W/$m.json" --stats "$W/$m.stats.json" --vp-run-arg=--no-deploy "${cc_args[@]}" > "$W/$m.log"
  /usr/bin/python3 - "$W/$m.log" "$W/$m.json" "$m" "$W/$m.stats.json" <<'PY'
import json, re, sys
log = open(sys.argv[1]).read()
tot = re.search(r"^total: .*?(\d+) of \d+ crossbars.*est\. (\d+) cycles.*?, MVM bound (\d+) cycles \(MVM (\d+) cycles\), slowest stage (\d+)", log, re.M)
chip = json.load(open(sys.argv[2]))["chip_figures"]
st = json.load(open(sys.argv[4]))
# Every crossbar activation of one inference (the run's over its images)
# spread over all the chip's crossbars.
acts = st["crossbar"]["crossbar_activations"] / max(1, st["firmware"].get("inferences", 1))
mvm = int(tot.group(4))
chip_bound = int(acts * mvm // st["crossbar"]["crossbars_total"])
cyc = chip["inference_cycles"]
# A stream's cycles per image once full (vp-cc --batch N): the measured
# column averages over its N images, filling and draining included.
period = chip.get("stream_period_cycles") or 0
print("%-14s %10d %10s %10s %10d %8.1f%% %9s %7.2f %9.2f %9s %9s" % (
    sys.argv[3], cyc, tot.group(2), tot.group(3), chip_bound, 100.0 * chip_bound / cyc, tot.group(1),
    chip["energy_per_inference_uj"] / 1e3, chip["dynamic_energy_per_inference_uj"] / 1e3, tot.group(5),
    "%.0f" % period if period else "-"))
PY
done
