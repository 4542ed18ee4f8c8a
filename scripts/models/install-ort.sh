#!/usr/bin/env bash
# Installs onnxruntime-node (the FP32 reference runtime) into
# scripts/models/node_modules, exactly as pinned by package-lock.json.
# Idempotent: does nothing when the pinned version is present and loads.
#
# --ignore-scripts: the package's postinstall only fetches GPU (CUDA/TensorRT)
# execution-provider binaries from NuGet; the CPU library
# (bin/napi-v6/linux/x64/libonnxruntime.so.1) ships inside the npm tarball,
# and the GPU download would fail offline anyway.
set -euo pipefail
cd "$(dirname "$0")"

want=$(node -p "require('./package-lock.json').packages['node_modules/onnxruntime-node'].version" 2>/dev/null || true)
[ -n "$want" ] || { echo "install-ort: cannot read the pinned version from package-lock.json" >&2; exit 1; }

loads() {
  node -e "
    const v = require('./node_modules/onnxruntime-node/package.json').version;
    if (v !== '$want') process.exit(1);
    require('onnxruntime-node');  // loads the native binding and libonnxruntime
  " >/dev/null 2>&1
}

if loads; then
  echo "install-ort: onnxruntime-node $want present"
  exit 0
fi

if ! command -v npm >/dev/null; then
  # nodejs from other sources (e.g. NodeSource) bundles npm; Debian's does not.
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm
fi

echo "install-ort: installing onnxruntime-node $want (npm ci --ignore-scripts)"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

if ! loads; then
  echo "install-ort: onnxruntime-node $want installed but does not load:" >&2
  node -e "require('onnxruntime-node')" >&2 || true
  exit 1
fi
echo "install-ort: onnxruntime-node $want ready"
