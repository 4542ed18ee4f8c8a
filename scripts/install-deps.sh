#!/usr/bin/env bash
# Installs everything the build and the tests need on a Debian 12 machine.
# Idempotent: packages already present are not fetched again, and apt-get
# update runs only when something is missing.
set -euo pipefail

# Build and test toolchain, plus the libraries the CMake build finds.
PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev llvm
  binutils
  libsystemc-dev
  verilator
  libboost-program-options-dev
  libgtest-dev libgmock-dev googletest
  libbenchmark-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libyaml-cpp-dev libfmt-dev
  libelf-dev zlib1g-dev libzstd-dev
  python3
  # vcd2fst (GTKWave) checks that the VCD files open; parallel for scripts.
  gtkwave parallel
  # FP32 references (scripts/models/): PyTorch/torchvision to build and export
  # the models, python3-onnx for the node conformance tests, Node.js for
  # onnxruntime-node. npm is not listed: NodeSource's nodejs ships its own and
  # conflicts with Debian's npm; scripts/models/install-ort.sh adds Debian's
  # npm only when no npm exists.
  python3-numpy python3-torch python3-torchvision python3-onnx python3-sklearn
  nodejs
  # The Python module (python/, docs/python.md) is built with pybind11
  # against Debian's python3.
  pybind11-dev python3-dev
  # vp-sweep's Slurm test starts its own single-node cluster from these.
  slurmctld slurmd slurm-client munge
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all Debian packages present"
fi

# onnxruntime-node from the npm registry, pinned by scripts/models/package-lock.json.
bash "$(dirname "$0")/models/install-ort.sh"
