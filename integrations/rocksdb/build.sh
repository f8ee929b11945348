#!/usr/bin/env bash
# Builds libzonelab (cargo build --release -p zonelab-capi) and the plugin with its tools
# (libzonelab_rocksdb.so, hhzs_bench, hhzs_stat); prints the plugin's build directory.
#   CARGO_TARGET_DIR  cargo's target dir (default <repo>/target)
#   HHZS_BUILD        plugin build dir (default $CARGO_TARGET_DIR/rocksdb-plugin)
#   ZONELAB_LIB       an already built libzonelab.so's directory (skips cargo)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/scripts/ensure-toolchain.sh"
target=${CARGO_TARGET_DIR:-$repo/target}
out=${HHZS_BUILD:-$target/rocksdb-plugin}
if [ -z "${ZONELAB_LIB:-}" ]; then
  (cd "$repo" && cargo build --release --locked -q -p zonelab-capi) >&2
  ZONELAB_LIB=$target/release
fi
make -s -C "$here" -j1 OUT="$out" ZONELAB_LIB="$ZONELAB_LIB" >&2
echo "$out"
