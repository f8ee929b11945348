#!/usr/bin/env bash
# Makes sure a Rust toolchain is on PATH. Machines of this project's kind ship
# rustup's Rust; if cargo is missing, fall back to Debian's packages.
set -euo pipefail
if [ -f "$HOME/.cargo/env" ]; then
  # shellcheck disable=SC1091
  . "$HOME/.cargo/env"
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo not found: installing Debian's rustc and cargo" >&2
  apt-get update -qq && apt-get install -y -qq cargo rustc >/dev/null
fi
