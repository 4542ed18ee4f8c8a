#!/usr/bin/env bash
# Runs every libFuzzer target of a fuzz build for a long, bounded time and
# writes one table row per target: executions, exec/s, coverage (libFuzzer's
# cov: and ft: from its last status line), corpus size, crashes.
#
#   bench/fuzz/run_fuzzers.sh BUILD_DIR [-n RUNS] [-t SECONDS] [-o REPORT.md]
#                             [-w WORK_DIR] [-f TARGET_REGEX] [-- LIBFUZZER_FLAGS...]
#
# BUILD_DIR is a build configured with -DVP_FUZZ=ON (clang); this script
# builds nothing. Targets are found by name: every executable *_fuzz in
# BUILD_DIR/bin, so targets added later are run without editing this file.
# Each runs until RUNS executions (default 10,000,000) or SECONDS seconds
# (default 3600), whichever comes first, on a scratch copy of its committed
# corpus tests/fuzz/corpus/<name without _fuzz>/ (the repository's corpus is
# never modified). Logs, the grown corpora and any crash inputs stay in
# WORK_DIR (default BUILD_DIR/fuzz-bench). Exit status: 0 when no target
# crashed, 1 when one did, 2 usage.
set -u

usage() {
  sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; esac
build=$1
shift
runs=10000000
seconds=3600
report=
work=
only=.
while [ $# -gt 0 ]; do
  case "$1" in
    -n) runs=${2:-}; shift 2 ;;
    -t) seconds=${2:-}; shift 2 ;;
    -o) report=${2:-}; shift 2 ;;
    -w) work=${2:-}; shift 2 ;;
    -f) only=${2:-}; shift 2 ;;
    --) shift; break ;;
    *) echo "run_fuzzers.sh: unknown option $1" >&2; usage ;;
  esac
done
extra=("$@")
for v in "$runs" "$seconds"; do
  case "$v" in ''|*[!0-9]*) echo "run_fuzzers.sh: -n and -t take a positive whole number, got '$v'" >&2; exit 2 ;; esac
  [ "$v" -gt 0 ] || { echo "run_fuzzers.sh: -n and -t must be at least 1" >&2; exit 2; }
done

src=$(cd "$(dirname "$0")/../.." && pwd)
[ -d "$build/bin" ] || { echo "run_fuzzers.sh: $build/bin: no such folder (give a fuzz build directory)" >&2; exit 2; }
build=$(cd "$build" && pwd)
bin=$build/bin
work=${work:-$build/fuzz-bench}
mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)

targets=()
for f in "$bin"/*_fuzz; do
  [ -f "$f" ] && [ -x "$f" ] || continue
  name=$(basename "$f")
  [[ $name =~ $only ]] || continue
  targets+=("$name")
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "run_fuzzers.sh: no *_fuzz executable in $bin (configure with -DVP_FUZZ=ON and build the fuzz targets)" >&2
  exit 2
fi

table=$work/report.md
{
  echo "Fuzzing: up to $runs executions or ${seconds}s per target, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
  echo
  echo "| target | executions | exec/s | cov | ft | corpus (seed -> end) | crashes | seconds |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
} > "$table"

any_crash=0
for name in "${targets[@]}"; do
  dir=$work/$name
  rm -rf "$dir"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  seed=$src/tests/fuzz/corpus/${name%_fuzz}
  if [ -d "$seed" ]; then
    cp -R "$seed/." "$dir/corpus/"
  else
    echo "run_fuzzers.sh: $name: no committed corpus at $seed, starting empty" >&2
  fi
  seeds=$(find "$dir/corpus" -type f | wc -l)
  echo "run_fuzzers.sh: $name: $runs runs or ${seconds}s on $seeds seed inputs" >&2
  start=$(date +%s)
  # Started from the target's folder: targets that write scratch files
  # relative to the working directory keep them there.
  (cd "$dir" && "$bin/$name" -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" ${extra[@]+"${extra[@]}"} corpus) > "$dir/log.txt" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  # The last status line ("#N DONE cov: X ft: Y corp: Z/..."), then the
  # final statistics libFuzzer prints with -print_final_stats=1.
  status=$(grep -E '^#[0-9]+[[:space:]]+(DONE|NEW|REDUCE|pulse|INITED|RELOAD)' "$dir/log.txt" | tail -n 1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$status")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$status")
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$dir/log.txt" | tail -n 1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$dir/log.txt" | tail -n 1)
  [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$status")
  corpus=$(find "$dir/corpus" -type f | wc -l)
  crashes=$(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes="exit $rc"; fi
  [ "$crashes" = 0 ] || any_crash=1
  echo "| $name | ${execs:-?} | ${eps:-?} | ${cov:-?} | ${ft:-?} | $seeds -> $corpus | $crashes | $elapsed |" >> "$table"
  echo "run_fuzzers.sh: $name: ${execs:-?} executions, ${eps:-?}/s, cov ${cov:-?}, ft ${ft:-?}, crashes $crashes ($dir/log.txt)" >&2
done

cat "$table"
if [ -n "$report" ]; then cp "$table" "$report" || exit 2; fi
exit $any_crash
