#!/usr/bin/env bash
# How far vp-cc --report's whole-model estimate is from the cycles the
# platform measures (docs/compiler.md, "Cost model"), one row per model:
# measured cycles of one inference (one test input, --no-deploy;
# deterministic, so one run is the figure; a decoder's whole sequence), the
# estimate, and estimate / measured. Exits
# non-zero when the platform differs from the golden model.
#   bash bench/compiler/estimate_accuracy.sh BUILD_DIR DIR:MODEL... [-- VP-CC ARGS...]
#   (each --set K=V among them also goes to vp-run: the chip's timing)
#   e.g. bash bench/compiler/estimate_accuracy.sh build \
#          build/tests/references/models:tiny_cnn out/models:resnet50
set -euo pipefail
B=$(cd "${1:?build dir}" && pwd)/bin
shift
specs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do specs+=("$1"); shift; done
[ $# -gt 0 ] && shift
# A --set K=V after the -- goes to vp-run too: the estimate is of the chip
# the program runs on (vp-cc plans for its timing, docs/compiler.md).
cc_args=()
stream=0
while [ $# -gt 0 ]; do
  cc_args+=("--vp-cc-arg=$1")
  # A stream's estimate is per inference, as the platform's mean is.
  if [ "$1" = --batch ] && [ $# -gt 1 ] && [ "$2" != 1 ]; then stream=1; fi
  if [ "$1" = --set ] && [ $# -gt 1 ]; then
    cc_args+=("--vp-cc-arg=$2" "--vp-run-arg=--set" "--vp-run-arg=$2")
    shift
  fi
  shift
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
printf "%-22s %11s %11s %7s\n" model measured estimate ratio
for s in "${specs[@]}"; do
  dir=${s%%:*}
  m=${s#*:}
  /usr/bin/python3 "$ROOT/compiler/tools/check_model.py" "$m" --models "$dir" --out "$W/$m" --bin "$B" \
    --max-tests 1 --report --json "$W/$m.json" --vp-run-arg=--no-deploy ${cc_args[@]+"${cc_args[@]}"} > "$W/$m.log" ||
    { echo "$m: check_model failed (log follows)" >&2; tail -20 "$W/$m.log" >&2; exit 1; }
  STREAM=$stream /usr/bin/python3 - "$W/$m.log" "$W/$m.json" "$m" "$W/$m/stats.json" <<'PY'
import json, os, re, sys
log = open(sys.argv[1]).read()
est = [int(x) for x in re.findall(r"^total: .*?est\. (\d+) cycles", log, re.M)]
res = json.load(open(sys.argv[2]))
if not res["platform_equals_golden"]:
    sys.exit(sys.argv[3] + ": the platform differs from the golden model")
# Per start: a decoder counts each token as an inference (docs/firmware.md);
# a stream's figure is per image.
fw = json.load(open(sys.argv[4]))["firmware"]
cyc = fw["inference_cycles_mean"] * (1 if os.environ.get("STREAM") == "1" else fw["images_per_start"])
# Over several chips the report has one total per chip; the latency is
# their sum along the chain.
e = sum(est)
print("%-22s %11.0f %11d %7.2f" % (sys.argv[3], cyc, e, e / cyc))
PY
done
