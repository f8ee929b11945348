#!/usr/bin/env bash
# Runs every test of the workspace (unit, property, integration, CLI). Tests use
# reduced scales; paper scale is `zonelab reproduce`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/ensure-toolchain.sh
# Formatting is part of the tests where rustfmt is installed (rustup's toolchain has it).
if cargo fmt --version >/dev/null 2>&1; then
  cargo fmt --all -- --check
fi
# The report test (crates/cli/tests/report_browser.rs) opens the main job's pages in
# Debian's headless chromium; install it when missing.
bash scripts/install-chromium.sh
cargo test --workspace --locked "$@"
# The Python package (python/, docs/python.md): builds its wheel into a venv under
# the target dir (Python deps from PyPI: python/requirements-test.txt) and runs its
# pytest tests against the CLI, Ray ones on a local Ray. ZONELAB_SKIP_PYTHON=1 skips.
if [ "${ZONELAB_SKIP_PYTHON:-0}" != 1 ]; then
  python_started_s=$SECONDS
  # The CLI `cargo test` just built for its integration tests (target/debug/zonelab),
  # unless arguments narrowed that build; then python-test.sh builds it.
  if [ $# -eq 0 ]; then
    ZONELAB_CLI="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/debug/zonelab" bash scripts/python-test.sh
  else
    bash scripts/python-test.sh
  fi
  echo "scripts/test.sh: the Python part took $((SECONDS - python_started_s)) s"
fi
# The fio engine and the NBD server with Debian's tools (integrations/fio,
# integrations/nbd; docs/fio.md, docs/nbd.md): installs fio, libnbd-bin and the
# engine's build dependencies if missing (as root), builds libzonelab_fio.so against
# Debian's fio 3.33 source package, runs fio on zn540 (zonemode=zbd) and
# ssd-conventional (verify), and nbdcopy, nbdinfo and fio's nbd engine against
# `zonelab serve --nbd`, including a kill -9 and restart (about a minute).
# ZONELAB_SKIP_FIO_NBD=1 skips them.
if [ "${ZONELAB_SKIP_FIO_NBD:-0}" != 1 ]; then
  bash integrations/fio/install-deps.sh
  bash integrations/fio/smoke.sh
  bash integrations/nbd/smoke.sh
fi
# The RocksDB plugin (integrations/rocksdb, docs/rocksdb.md): installs Debian's
# librocksdb-dev and rocksdb-tools if missing (as root), builds the plugin, runs Debian's
# db_bench on hhzs:// (smoke test, under a minute) and the kill -9 crash test (under two
# minutes). ZONELAB_SKIP_ROCKSDB=1 skips them.
if [ "${ZONELAB_SKIP_ROCKSDB:-0}" != 1 ]; then
  bash integrations/rocksdb/install-deps.sh
  bash integrations/rocksdb/smoke.sh --num 150000 --read-seconds 5
  bash integrations/rocksdb/crash_test.sh --rounds 10
fi
