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
cargo test --workspace --locked "$@"
