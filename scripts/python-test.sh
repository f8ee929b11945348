#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest): builds and installs the
# package (scripts/python-build.sh --dev) and runs pytest against the CLI binary
# of the same tree, which the tests compare with. Ray tests start a local Ray.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/ensure-toolchain.sh
target="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target"
target="$(cd "$target" && pwd)"
bash scripts/python-build.sh --dev --venv "$target/python-venv"
# The CLI the tests compare with: $ZONELAB_CLI when given (scripts/test.sh passes the
# one its `cargo test --workspace` just built: `cargo build -p zonelab-cli` resolves
# other dependency features than the whole workspace's tests and would compile the
# workspace again, 2 min on a fresh machine), else built here.
if [ -z "${ZONELAB_CLI:-}" ]; then
  cargo build --locked -p zonelab-cli
  ZONELAB_CLI="$target/debug/zonelab"
fi
ZONELAB_CLI="$ZONELAB_CLI" "$target/python-venv/bin/python" -m pytest -q python/tests "$@"
