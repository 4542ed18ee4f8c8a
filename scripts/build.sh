#!/usr/bin/env bash
# Configures and builds one build tree. usage: build.sh DIR [cmake args...]
# Warnings are errors here: the tree must stay warning-clean.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
shift
cmake -S . -B "$dir" -G Ninja -DVP_WERROR=ON "$@"
cmake --build "$dir" -j "$(nproc)"
