#!/usr/bin/env bash
# Builds the zonelab Python package (crates/python + python/zonelab: a PyO3 abi3
# wheel for CPython >= 3.9, built by maturin) and installs it, with its test
# dependencies (python/requirements-test.txt: maturin, pandas, tqdm, pyarrow, Ray,
# pytest), into a venv.
#
#   bash scripts/python-build.sh [--dev] [--venv DIR]
#
# --dev builds with Cargo's dev profile, which shares the compiled crates of
# `cargo test` (the test command uses it); the default is an optimised release
# wheel. The venv defaults to $CARGO_TARGET_DIR/python-venv (target/python-venv);
# the wheel is left in $CARGO_TARGET_DIR/wheels/ for `pip install` elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/ensure-toolchain.sh
profile=release
venv=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dev) profile=dev ;;
    --venv) venv="$2"; shift ;;
    *) echo "python-build.sh: unknown option $1 (--dev, --venv DIR)" >&2; exit 2 ;;
  esac
  shift
done
target="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target"
target="$(cd "$target" && pwd)"
venv="${venv:-$target/python-venv}"
if [ ! -x "$venv/bin/python" ]; then
  "${PYTHON:-python3}" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r python/requirements-test.txt
rm -f "$target"/wheels/zonelab-*.whl
(cd python && CARGO_TARGET_DIR="$target" "$venv/bin/maturin" build --profile "$profile" \
  --locked --interpreter "$venv/bin/python" --out "$target/wheels")
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
  "$target"/wheels/zonelab-*.whl
echo "zonelab $("$venv/bin/python" -c 'import zonelab; print(zonelab.__version__)') installed in $venv"
