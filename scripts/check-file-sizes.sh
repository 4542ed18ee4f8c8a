#!/usr/bin/env bash
# Every source file under a folder's src/ stays under a size a reader can hold
# in mind: 700 lines. Prints each file over the limit and exits 1.
#   check-file-sizes.sh [ROOT] [LIMIT]
set -euo pipefail
root=${1:-$(dirname "$0")/..}
limit=${2:-700}
cd "$root"
over=0
while IFS= read -r -d '' f; do
  n=$(wc -l < "$f")
  if [ "$n" -gt "$limit" ]; then
    echo "$f: $n lines, over the limit of $limit: split it along its seams"
    over=1
  fi
done < <(git ls-files -z -- '*/src/*.cpp' '*/src/*.h' '*/src/*.hpp' '*/src/*.cc' 2>/dev/null ||
         find . -path '*/src/*' \( -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print0)
exit $over
