#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine:
#   1. install the dependencies (idempotent),
#   2. release build with gcc, warnings as errors: every test,
#   3. clang build with AddressSanitizer + UndefinedBehaviorSanitizer: every
#      test again except those labelled `slow` (whole torchvision models
#      against ONNX Runtime, minutes under an unoptimised sanitizer build;
#      they ran in step 2), plus the libFuzzer targets for a bounded time each.
# Set VP_SKIP_SANITIZE=1 to run only step 2 (quick local iterations).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

jobs=$(nproc)
bash scripts/build.sh build -DCMAKE_BUILD_TYPE=RelWithDebInfo
(cd build && ctest --output-on-failure -j "$jobs")

if [ "${VP_SKIP_SANITIZE:-0}" != 1 ]; then
  # Benchmarks are not built here: they measure the release build. -O1, as
  # AddressSanitizer's documentation recommends for a usable speed: the
  # suite ran in 333 s against 715 s at -O0, with the same tests passing.
  CC=clang CXX=clang++ bash scripts/build.sh build-asan -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
    -DVP_SANITIZE=ON -DVP_FUZZ=ON -DVP_BENCH=OFF
  (cd build-asan &&
   ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0 UBSAN_OPTIONS=print_stacktrace=1 \
   ctest --output-on-failure -j "$jobs" -LE slow)
fi
