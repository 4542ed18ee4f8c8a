#!/usr/bin/env bash
# Time vp-sweep takes to read and plan a sweep file with one long axis: a
# list of N values and a range of N steps (N = 100,000, the most a range may
# hold, by default), `--dry-run`, medians over RUNS runs. Reading the axis is
# linear in N; the same-run ratio to N/10 values shows it (about 10; a
# quadratic duplicate check gave about 100 and 9 s for 100,000 values).
#   bash bench/platform/sweep_axis.sh [BUILD_DIR] [N] [RUNS]
#   defaults: build 100000 5
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-build}" && pwd)/bin
N=${2:-100000}
RUNS=${3:-5}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cp "$ROOT/examples/loop.s" "$W/"

# sweep file: NAME N FORM (list|range)
write() {
  python3 - "$W/$1.yaml" "$2" "$3" <<'EOF'
import sys
path, n, form = sys.argv[1], int(sys.argv[2]), sys.argv[3]
axis = (f"{{from: 1, to: {n}, steps: {n}}}" if form == "range"
        else "[" + ", ".join(str(i) for i in range(1, n + 1)) + "]")
open(path, "w").write(f"model: loop.s\npreset: small\nparameters:\n  xbar.read_ns: {axis}\nmetrics: [run.cycles]\n")
EOF
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

seconds() {  # one --dry-run, wall seconds; fails unless it plans every point
  local t0 t1 out
  t0=$(date +%s.%N)
  out=$("$B/vp-sweep" "$1" --dry-run | tail -1)
  t1=$(date +%s.%N)
  case "$out" in "$2 points"*) ;; *) echo "unexpected: $out" >&2; exit 1 ;; esac
  echo "$t1 - $t0" | bc -l
}

echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at start"
echo "| axis | values | median s | median s at N/10 | ratio |"
echo "|---|---:|---:|---:|---:|"
for form in list range; do
  write "$form" "$N" "$form"
  write "$form-tenth" $((N / 10)) "$form"
  big=() small=()
  for _ in $(seq "$RUNS"); do
    small+=("$(seconds "$W/$form-tenth.yaml" $((N / 10)))")
    big+=("$(seconds "$W/$form.yaml" "$N")")
  done
  mb=$(printf '%s\n' "${big[@]}" | median)
  ms=$(printf '%s\n' "${small[@]}" | median)
  printf '| %s | %d | %.3f | %.3f | %.1f |\n' "$form" "$N" "$mb" "$ms" "$(echo "$mb / $ms" | bc -l)"
done
