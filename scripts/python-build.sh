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
python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  # Machines of this project's kind ship CPython with venv; else Debian's.
  echo "python3 with venv not found: installing Debian's python3 and python3-venv" >&2
  apt-get update -qq && apt-get install -y -qq python3 python3-venv >/dev/null
  python=python3
fi
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
# Wheels a machine provides locally (/opt/wheels) are used before PyPI's.
find_links=()
if compgen -G "/opt/wheels/*.whl" >/dev/null; then
  find_links=(--find-links /opt/wheels)
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${find_links[@]}" \
  -r python/requirements-test.txt
rm -f "$target"/wheels/zonelab-*.whl
(cd python && CARGO_TARGET_DIR="$target" "$venv/bin/maturin" build --profile "$profile" \
  --locked --interpreter "$venv/bin/python" --out "$target/wheels")
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
  "$target"/wheels/zonelab-*.whl
echo "zonelab $("$venv/bin/python" -c 'import zonelab; print(zonelab.__version__)') installed in $venv"
