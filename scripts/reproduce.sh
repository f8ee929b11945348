#!/usr/bin/env bash
# The main job: builds zonelab and reproduces a target (default: `devices`, HHZS
# Table 1) into results/<target>/ with report.html. Extra arguments go to
# `zonelab reproduce`, e.g. `scripts/reproduce.sh devices --scale 0.1`.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/ensure-toolchain.sh
cargo build --release --locked -p zonelab-cli
target="${1:-devices}"
shift || true
./target/release/zonelab reproduce "$target" --out "results/$target" "$@"
