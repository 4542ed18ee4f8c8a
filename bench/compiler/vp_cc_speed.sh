#!/usr/bin/env bash
# Compile time of vp-cc on the exported models (each model's calibration
# inputs and its first test input from manifest.json): medians over RUNS
# runs of wall and CPU time (user + system), and vp-cc's own split of the
# time. Checks that every run's outputs (.asm, .xbar, .io.json, the golden
# model's .in.bin and .golden.bin) are byte for byte those of a stored list
# or of a second build.
#   bash bench/compiler/vp_cc_speed.sh [BUILD_DIR] [MODELS_DIR] [RUNS] [MODEL...]
#   defaults: build out/models 5 resnet50 resnet18 (bench/bench_args.sh)
# VP_CC_REF=DIR     also run DIR/bin/vp-cc (a build of another commit) in
#                   every round, check its outputs equal, and print its
#                   medians and the median of the per-round time ratios
#                   (the figure to compare on a shared machine)
# VP_CC_ARGS=...    more arguments for this build's vp-cc (e.g. --threads 1);
#                   not for the reference's, which may not know them
# VP_CC_RECORD=1    write the list (bench/compiler/vp_cc_outputs.sha256)
#                   from this build's outputs instead of checking
# The stored list holds each model's ONNX sha256 first: a different export
# of the models is reported as such, not as a changed result.
set -euo pipefail
BENCH_DEFAULT_MODELS="resnet50 resnet18"
source "$(dirname "$0")/../bench_args.sh"
LIST=$ROOT/bench/compiler/vp_cc_outputs.sha256
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
PY=/usr/bin/python3

# sha256 lines of one compile's outputs, named by model and file kind.
compile() {  # compile BIN DIR MODEL [ARGS...] -> hashes on stdout
  local bin=$1 d=$2 m=$3 test calib
  shift 3
  mkdir -p "$d"
  read -r test calib < <($PY -c "
import json
e=json.load(open('$M/manifest.json'))['models']['$m']
print('$M/'+e['test'][0], ' '.join('--calib $M/'+c for c in e['calib']))")
  # shellcheck disable=SC2086
  (cd "$d" && /usr/bin/time -f "%e %U %S %M" -o time "$bin/vp-cc" "$M/$m.onnx" -o "$m.asm" $calib \
    --test "$test" "$@" > log 2>&1) || { cat "$d/log" >&2; exit 1; }
  local stem
  stem=$(basename "$test" .npy)
  echo "$(sha256sum < "$M/$m.onnx" | cut -d' ' -f1) $m onnx"
  for f in "$m.asm" "$m.xbar" "$m.io.json" "$stem.in.bin" "$stem.golden.bin"; do
    echo "$(sha256sum < "$d/$f" | cut -d' ' -f1) $m ${f#"$m".}"
    rm -f "$d/$f"  # a ResNet-50 image is 100 MB a run
  done
}

echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
[ -n "${VP_CC_RECORD:-}" ] && : > "$W/record"
read -r -a ARGS <<< "${VP_CC_ARGS:-}"
REF=${VP_CC_REF:+$(cd "${VP_CC_REF:-.}" && pwd)/bin}
for m in "${MODELS[@]}"; do
  for i in $(seq 1 "$RUNS"); do
    compile "$B" "$W/$m.$i" "$m" "${ARGS[@]}" > "$W/$m.$i.sha"
    cmp -s "$W/$m.1.sha" "$W/$m.$i.sha" || { echo "$m: run $i: outputs differ from run 1" >&2; exit 1; }
    if [ -n "$REF" ]; then
      compile "$REF" "$W/$m.ref$i" "$m" > "$W/$m.ref$i.sha"
      diff "$W/$m.ref$i.sha" "$W/$m.$i.sha" >&2 || { echo "$m: run $i: outputs differ from $VP_CC_REF's" >&2; exit 1; }
    fi
  done
  if [ -n "$REF" ]; then
    echo "$m: outputs equal those of $VP_CC_REF in all $RUNS rounds"
  elif [ -n "${VP_CC_RECORD:-}" ]; then
    cat "$W/$m.1.sha" >> "$W/record"
  else
    want=$(grep " $m " "$LIST" || true)
    if [ -z "$want" ]; then
      echo "$m: not in $LIST, outputs not checked"
    elif [ "$(head -1 <<< "$want")" != "$(head -1 "$W/$m.1.sha")" ]; then
      echo "$m: $M/$m.onnx is not the export $LIST was made from, outputs not checked"
    else
      diff <(echo "$want") "$W/$m.1.sha" >&2 || { echo "$m: outputs differ from $LIST" >&2; exit 1; }
      echo "$m: outputs equal $LIST"
    fi
  fi
  $PY - "$W" "$m" "$RUNS" "${REF:+ref}" <<'EOF'
import re, statistics as st, sys
w, m, runs, ref = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def summary(tag, label):
    t = [open(f"{w}/{m}.{tag}{i}/time").read().split()[-4:] for i in range(1, runs + 1)]
    wall = [float(x[0]) for x in t]
    cpu = [float(x[1]) + float(x[2]) for x in t]
    parts = {}
    for i in range(1, runs + 1):
        log = open(f"{w}/{m}.{tag}{i}/log").read().strip()
        # "... 12.08 s (parse+canonicalize 0.54 s, calibrate+quantize 8.45 s on 8 input(s), ...)"
        for piece in log[log.index(" s (") + 4:].rstrip(")").split(", "):
            name, sec = re.match(r"(.*?) ?([0-9.]+) s", piece).groups()
            parts.setdefault(name, []).append(float(sec))
    split = ", ".join(f"{k} {st.median(v):.2f} s" for k, v in parts.items())
    print(f"{m}: {label} median of {runs}: {st.median(wall):.2f} s wall, {st.median(cpu):.2f} s cpu "
          f"(min {min(wall):.2f} / max {max(wall):.2f} s wall), peak RSS {max(int(x[3]) for x in t)/1024:.0f} MiB")
    print(f"{m}: {label} split (medians): {split}")
    return wall, cpu
wall, cpu = summary("", "vp-cc")
if ref:
    rwall, rcpu = summary("ref", "reference vp-cc")
    print(f"{m}: per-round ratio, median: x{st.median(r / n for r, n in zip(rwall, wall)):.1f} wall, "
          f"x{st.median(r / n for r, n in zip(rcpu, cpu)):.1f} cpu faster than the reference")
EOF
done
if [ -n "${VP_CC_RECORD:-}" ]; then
  cp "$W/record" "$LIST"
  echo "wrote $LIST"
fi
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at end"
