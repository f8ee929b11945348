#!/usr/bin/env bash
# Runs every test of the workspace (unit, property, integration, CLI). Tests use
# reduced scales; paper scale is `zonelab reproduce`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/ensure-toolchain.sh
cargo test --workspace --locked "$@"
