#!/usr/bin/env bash
# Installs what the fio engine and the NBD tests need on Debian bookworm: Debian's fio
# (3.33, with its nbd engine), libnbd-bin (nbdcopy, nbdinfo), a C compiler and make,
# dpkg-dev (dpkg-source unpacks fio's source package), curl (fetches it), jq (the
# tests read the JSON reports), and the -dev packages of fio's Debian build that shape
# the structures an engine shares with fio (abi-check.sh): libaio-dev, librdmacm-dev,
# libibverbs-dev. Skips the install when all are present; installing needs root.
set -euo pipefail
missing=()
command -v fio >/dev/null 2>&1 || missing+=(fio)
command -v nbdcopy >/dev/null 2>&1 || missing+=(libnbd-bin)
command -v cc >/dev/null 2>&1 || missing+=(gcc)
command -v make >/dev/null 2>&1 || missing+=(make)
command -v dpkg-source >/dev/null 2>&1 || missing+=(dpkg-dev)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v jq >/dev/null 2>&1 || missing+=(jq)
for pkg in libaio-dev librdmacm-dev libibverbs-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "install-deps.sh: missing ${missing[*]}; run as root (apt-get install -y ${missing[*]})" >&2
  exit 1
fi
echo "installing ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
