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
# The RocksDB plugin (integrations/rocksdb, docs/rocksdb.md): installs Debian's
# librocksdb-dev and rocksdb-tools if missing (as root), builds the plugin, runs Debian's
# db_bench on hhzs:// (smoke test, under a minute) and the kill -9 crash test (under two
# minutes). ZONELAB_SKIP_ROCKSDB=1 skips them.
if [ "${ZONELAB_SKIP_ROCKSDB:-0}" != 1 ]; then
  bash integrations/rocksdb/install-deps.sh
  bash integrations/rocksdb/smoke.sh --num 150000 --read-seconds 5
  bash integrations/rocksdb/crash_test.sh --rounds 10
fi
