#!/usr/bin/env bash
# Builds the fio engine libzonelab_fio.so against the source of the installed fio
# (Debian's fio 3.33 source package, fetched and configured by fio-source.sh) and
# libzonelab (cargo build --release -p zonelab-capi); prints the engine's path.
# Fails with a clear message when the installed fio is not the version the engine
# is built for (abi-check.sh).
#   CARGO_TARGET_DIR  cargo's target dir (default <repo>/target)
#   ZONELAB_FIO_BUILD engine build dir (default $CARGO_TARGET_DIR/fio-engine)
#   ZONELAB_LIB       an already built libzonelab.so's directory (skips cargo)
#   FIO_SOURCE_DIR    an already unpacked and configured fio source tree
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
out=${ZONELAB_FIO_BUILD:-$target/fio-engine}
mkdir -p "$out"
command -v fio >/dev/null || { echo "build.sh: fio is not installed; run integrations/fio/install-deps.sh" >&2; exit 1; }
installed=$(fio --version)
case "$installed" in
  fio-3.33) ;;
  *) echo "build.sh: installed fio is $installed, but this engine is built for Debian 12's fio-3.33 (its ABI, FIO_IOOPS_VERSION and struct layouts, must match exactly); install Debian's fio 3.33 or port the engine" >&2
     exit 1 ;;
esac
src=$("$here/fio-source.sh" "$out/src")
"$here/abi-check.sh" "$src"
if [ -z "${ZONELAB_LIB:-}" ]; then
  . "$repo/scripts/ensure-toolchain.sh"
  (cd "$repo" && cargo build --release --locked -q -p zonelab-capi) >&2
  ZONELAB_LIB=$target/release
fi
# As fio's Makefile compiles its own engines (CPPFLAGS, -include config-host.h) and
# as engines/skeleton_external.c says for external ones.
cc=${CC:-cc}
"$cc" -std=gnu99 -O2 -g -fPIC -shared -Wall -Wextra -Werror -Wno-unused-parameter \
  -Wno-sign-compare -Wno-missing-field-initializers \
  -D_GNU_SOURCE -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64 -DFIO_INTERNAL -DFIO_INC_DEBUG \
  -DBITS_PER_LONG=64 -include "$src/config-host.h" -I"$src" -I"$repo/crates/capi/include" \
  "$here"/src/zl_engine.c "$here"/src/zl_devices.c "$here"/src/zl_zoned.c \
  -L"$ZONELAB_LIB" -Wl,-rpath,"$ZONELAB_LIB" -lzonelab -lpthread -lm \
  -o "$out/libzonelab_fio.so"
echo "$out/libzonelab_fio.so"
