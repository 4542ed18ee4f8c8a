# The command line schedule.sh and steady_state.sh share, sourced after
# `set -euo pipefail` with their arguments:
#   BUILD_DIR MODELS_DIR [MODEL...] [-- VP-CC ARGS...]
# Sets B (the build's bin/), M (the models), models (default: the five
# export_models.py writes), cc_args (each VP-CC ARG as check_model.py's
# --vp-cc-arg=), W (a work folder removed at exit) and ROOT (the project).
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
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
