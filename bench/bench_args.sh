# The arguments every host-time benchmark takes, sourced by them:
#   [BUILD_DIR] [MODELS_DIR] [RUNS] [MODEL...]
# Sets ROOT (the repository), B (BUILD_DIR/bin), M (MODELS_DIR: the output
# of scripts/models/export_models.py, default out/models, where
# scripts/run-main.sh exports), RUNS (default 5) and MODELS (default:
# BENCH_DEFAULT_MODELS, set by the caller).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$(cd "${1:-$ROOT/build}" && pwd)/bin
M=$(cd "${2:-$ROOT/out/models}" && pwd)
RUNS=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
MODELS=("$@")
if [ ${#MODELS[@]} -eq 0 ]; then read -r -a MODELS <<< "$BENCH_DEFAULT_MODELS"; fi
