#!/usr/bin/env bash
# Installs what the RocksDB plugin needs on Debian bookworm: librocksdb-dev (RocksDB 7.8
# headers and library), rocksdb-tools (db_bench), g++ and make. Skips the install when
# they are present; installing needs root.
set -euo pipefail
missing=()
dpkg -s librocksdb-dev >/dev/null 2>&1 || missing+=(librocksdb-dev)
command -v db_bench >/dev/null 2>&1 || missing+=(rocksdb-tools)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
command -v make >/dev/null 2>&1 || missing+=(make)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "install-deps.sh: missing ${missing[*]}; run as root (apt-get install -y ${missing[*]})" >&2
  exit 1
fi
echo "installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
