#!/usr/bin/env bash
# Installs Debian's chromium (headless browser for the report test,
# crates/cli/tests/report_browser.rs) when it is missing. Needs root for apt-get;
# without root or network it says so and the browser test is skipped with a message.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "chromium missing and not root: cannot install it (the browser test will be skipped)" >&2
  exit 0
fi
echo "chromium not found: installing Debian's chromium" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
