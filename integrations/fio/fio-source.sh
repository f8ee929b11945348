#!/usr/bin/env bash
# Fetches fio's source the way Debian publishes it (the source package of the fio the
# machine runs: .dsc, upstream tarball and Debian tarball from Debian's archive), checks
# it, unpacks it with dpkg-source (which checks the tarballs against the .dsc), and runs
# fio's configure as Debian's build does; prints the configured source directory.
#   fio-source.sh DEST_DIR
#   FIO_SOURCE_DIR  an already unpacked and configured source tree (skips all of this)
#   DEBIAN_MIRROR   archive to fetch from (default: the Debian archive apt is configured
#                   with, from /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list)
# The engine's ABI (FIO_IOOPS_VERSION, the thread_data/io_u layouts) is that of this
# exact version, so the pinned version and .dsc checksum below must match the installed
# fio; build.sh checks that first.
set -euo pipefail
FIO_DEBIAN_VERSION=3.33-3
# sha256 of fio_3.33-3.dsc as Debian bookworm publishes it; the .dsc carries the
# checksums of the tarballs, which dpkg-source verifies while unpacking.
FIO_DSC_SHA256=c2f0b96e94e7484369d4010b083b022a5f831bc688d92e4e517c20137947dfbc
dest=${1:?usage: fio-source.sh DEST_DIR}
if [ -n "${FIO_SOURCE_DIR:-}" ]; then
  [ -f "$FIO_SOURCE_DIR/config-host.h" ] || {
    echo "fio-source.sh: FIO_SOURCE_DIR=$FIO_SOURCE_DIR has no config-host.h (run fio's ./configure there)" >&2; exit 1; }
  echo "$FIO_SOURCE_DIR"; exit 0
fi
upstream=${FIO_DEBIAN_VERSION%-*}
src="$dest/fio-$upstream"
stamp="$src/.zonelab-configured-$FIO_DEBIAN_VERSION"
if [ -f "$stamp" ]; then echo "$src"; exit 0; fi
# The machine's own Debian archive, as apt uses it (not its security archive).
apt_mirror() {
  { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | sed 's/^URIs:[[:space:]]*//' | tr ' ' '\n'
    grep -hs '^deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
      | sed 's/\[[^]]*\]//' | awk '{print $2}'
  } | grep -v -e security -e '^$' | head -n1 || true
  # (a missing sources file or head closing the pipe early must not fail the script
  # under pipefail: the mirror found, if any, is already printed)
}
mirror=${DEBIAN_MIRROR:-$(apt_mirror)}
[ -n "$mirror" ] || { echo "fio-source.sh: no Debian archive in apt's sources; set DEBIAN_MIRROR" >&2; exit 1; }
mirror=${mirror%/}
pool="$mirror/pool/main/f/fio"
mkdir -p "$dest"
dsc="fio_${FIO_DEBIAN_VERSION}.dsc"
(
  cd "$dest"
  for f in "$dsc" "fio_${upstream}.orig.tar.gz" "fio_${upstream}.orig.tar.gz.asc" "fio_${FIO_DEBIAN_VERSION}.debian.tar.xz"; do
    [ -s "$f" ] && continue
    if ! curl -fsS --retry 3 -o "$f.part" "$pool/$f"; then
      echo "fio-source.sh: cannot download $pool/$f" >&2; exit 1
    fi
    mv -f "$f.part" "$f"
  done
  got=$(sha256sum "$dsc" | cut -d' ' -f1)
  if [ "$got" != "$FIO_DSC_SHA256" ]; then
    echo "fio-source.sh: $dest/$dsc has sha256 $got, expected $FIO_DSC_SHA256 (Debian's fio $FIO_DEBIAN_VERSION)" >&2
    exit 1
  fi
  rm -rf "fio-$upstream"
  # dpkg-source checks every tarball against the .dsc's checksums (the .dsc's own
  # OpenPGP signature is checked only where a Debian keyring is installed; the
  # pinned sha256 above stands in for it) and applies Debian's patches (Makefile
  # and configure only in 3.33-3; no header changes).
  dpkg-source -x "$dsc" "fio-$upstream" >dpkg-source.log 2>&1 || {
    echo "fio-source.sh: dpkg-source -x $dest/$dsc failed; see $dest/dpkg-source.log" >&2; exit 1; }
) >&2
# Debian's debian/rules: ./configure --disable-native --prefix=/usr --enable-gfio
# --enable-libnbd. gfio and libnbd only add the gfio program and the nbd engine, not
# the structures an engine shares with fio, and need GTK and libnbd headers, so they
# are left out here; abi-check.sh compares what does shape those structures.
(cd "$src" && ./configure --disable-native --prefix=/usr) > "$dest/configure.log" 2>&1 || {
  echo "fio-source.sh: fio's configure failed; see $dest/configure.log" >&2; exit 1; }
touch "$stamp"
echo "$src"
