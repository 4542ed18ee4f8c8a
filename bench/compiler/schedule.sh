#!/usr/bin/env bash
# The schedule's figures on sidra-y1 at default timing (docs/compiler.md,
# "Figures of the schedule"): for each model, vp-cc's whole-model estimate
# and MVM bound, and the cycles per inference the platform measures (one
# test input, weights preloaded with --no-deploy; the simulation is
# deterministic, so one run is the figure). Exits non-zero when the platform
# differs from the golden model.
#   bash bench/compiler/schedule.sh BUILD_DIR MODELS_DIR [MODEL...] [-- VP-CC ARGS...]
#   (MODELS_DIR: scripts/models/export_models.py's output; default models:
#    tiny_cnn mlp resnet18 mobilenet_v2 resnet50)
set -euo pipefail
B=$(cd "${1:?build dir}" && pwd)/bin
M=$(cd "${2:?models dir}" && pwd)
shift 2
models=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do models+=("$1"); shift; done
[ $# -gt 0 ] && shift
cc_args=()
for a in "$@"; do cc_args+=("--vp-cc-arg=$a"); done
[ ${#models[@]} -gt 0 ] || models=(tiny_cnn mlp resnet18 mobilenet_v2 resnet50)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
printf "%-14s %14s %14s %14s %10s\n" model measured estimate "MVM bound" crossbars
for m in "${models[@]}"; do
  /usr/bin/python3 "$ROOT/compiler/tools/check_model.py" "$m" --models "$M" --out "$W/$m" --bin "$B" \
    --max-tests 1 --report --json "$W/$m.json" --vp-run-arg=--no-deploy "${cc_args[@]}" > "$W/$m.log"
  /usr/bin/python3 - "$W/$m.log" "$W/$m.json" "$m" <<'PY'
import json, re, sys
log = open(sys.argv[1]).read()
tot = re.search(r"^total: .*?(\d+) of \d+ crossbars.*est\. (\d+) cycles.*?, MVM bound (\d+)", log, re.M)
chip = json.load(open(sys.argv[2]))["chip_figures"]
print("%-14s %14d %14s %14s %10s" % (sys.argv[3], chip["inference_cycles"], tot.group(2), tot.group(3), tot.group(1)))
PY
done
