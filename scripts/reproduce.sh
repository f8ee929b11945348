#!/usr/bin/env bash
# The main job: builds zonelab and runs `zonelab reproduce all` — every paper target,
# each at its default scale (chosen so the whole job takes about 5 minutes on the
# project's 2-core machine; docs/reproduce.md) — into results/<target>/, with
# results/index.html: every paper's claims, paper vs measured, with links to each
# target's report.html. Arguments go to `zonelab reproduce`, e.g.
# `scripts/reproduce.sh devices --scale 0.1` (one target into results/devices/) or
# `scripts/reproduce.sh all --scale 0.01` (everything, small).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/ensure-toolchain.sh
cargo build --release --locked -p zonelab-cli
target="${1:-all}"
shift || true
if [ "$target" = all ]; then
  out=results
else
  out="results/$target"
fi
"${CARGO_TARGET_DIR:-target}/release/zonelab" reproduce "$target" --out "$out" "$@"
