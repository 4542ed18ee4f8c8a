#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then use what it installed:
# the tools (moved to another folder first: an installed tree finds its own
# firmware and presets wherever it lies), a consumer project built with
# find_package(SidraVP) that instantiates the chip, and the Python package.
#   install_test.sh BUILD_DIR SOURCE_DIR PYTHON(or "") [CMAKE_ARG...]   (for the consumer)
set -euo pipefail
build=$1 src=$2 python=${3:-}
shift 3
consumer_args=("$@")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sidra-vp-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/staged" > "$tmp/install.log"
mv "$tmp/staged" "$tmp/prefix"
P=$tmp/prefix
for f in bin/vp-run bin/vp-cc bin/vp-as bin/vp-trace share/sidra-vp/firmware/sidra_fw.vpo \
         share/sidra-vp/configs/sidra-y1.yaml share/sidra-vp/configs/small.yaml include/vp/hw/chip/chip.h \
         include/vp/platform/model_run.h include/vp/cc/driver.h include/vp/isa/operands.h \
         lib/libvp_platform.a lib/libvp_compiler.a lib/cmake/SidraVP/SidraVPConfig.cmake; do
  [ -e "$P/$f" ] || { echo "install_test: $f was not installed" >&2; exit 1; }
done

# The installed vp-run runs the installed firmware by default, from the
# prefix it now lies in.
"$P/bin/vp-run" --help > "$tmp/help.txt"
grep -q -- "$P/share/sidra-vp/firmware/sidra_fw.vpo" "$tmp/help.txt" ||
  { echo "install_test: the installed vp-run's default firmware is not the installed one" >&2; exit 1; }
# A preset only the prefix has, found by name: the installed one is searched first.
cp "$P/share/sidra-vp/configs/small.yaml" "$P/share/sidra-vp/configs/only-installed.yaml"
"$P/bin/vp-as" "$src/examples/loop.s" -o "$tmp/loop.vpo"
"$P/bin/vp-run" --chip only-installed --model "$tmp/loop.vpo" --output "$tmp/sum.bin@0x1000:4" -q
[ "$(od -An -td4 "$tmp/sum.bin" | tr -d ' ')" = 55 ] ||
  { echo "install_test: the installed vp-run computed $(od -An -td4 "$tmp/sum.bin")" >&2; exit 1; }

# A user's own SystemC top level against the installed package.
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$P" \
  -DCMAKE_BUILD_TYPE=Release "${consumer_args[@]}" > "$tmp/consumer-configure.log" ||
  { cat "$tmp/consumer-configure.log"; exit 1; }
cmake --build "$tmp/consumer" > "$tmp/consumer-build.log" || { cat "$tmp/consumer-build.log"; exit 1; }
SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$tmp/consumer/my_top"

# The installed Python package finds the installed firmware and presets.
if [ -n "$python" ]; then
  PYTHONPATH="$P/lib/python3/dist-packages" "$python" - "$P" <<'PY'
import os, sys
import sidra_vp as vp
prefix = os.path.realpath(sys.argv[1])
assert os.path.realpath(vp.FIRMWARE) == os.path.join(prefix, "share/sidra-vp/firmware/sidra_fw.vpo"), vp.FIRMWARE
assert os.path.isfile(vp.FIRMWARE), vp.FIRMWARE
assert "only-installed" in vp.presets(), vp.presets()
assert os.path.realpath(vp.__file__).startswith(prefix), vp.__file__
print("installed sidra_vp:", vp.__file__)
PY
fi
echo "install_test: ok"
