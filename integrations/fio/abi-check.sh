#!/usr/bin/env bash
# Checks that fio's source tree SRC was configured like the installed fio binary in
# everything that shapes the structures an external engine shares with fio
# (ioengines.h: FIO_IOOPS_VERSION; fio.h: struct thread_data; io_u.h: struct io_u):
#   - the version: `fio --version` must be the source's FIO_VERSION;
#   - the configure results that change those layouts (found by grepping the
#     headers fio.h, io_u.h, thread_options.h, file.h, ioengines.h for #ifdef
#     CONFIG_*): the io_u union members of the async engines (CONFIG_LIBAIO,
#     CONFIG_POSIXAIO, CONFIG_RDMA, CONFIG_SOLARISAIO) and thread_data's GPU fields
#     (CONFIG_CUDA). The installed binary shows each: an engine of that name in
#     `fio --enghelp`, or the option gpu_dev_id in `fio --cmdhelp`.
#   abi-check.sh SRC
set -euo pipefail
src=${1:?usage: abi-check.sh FIO_SOURCE_DIR}
command -v fio >/dev/null || { echo "abi-check: fio is not installed (integrations/fio/install-deps.sh)" >&2; exit 1; }
installed=$(fio --version)
wanted=$(sed -n 's/^DEF_VER=//p' "$src/FIO-VERSION-GEN" | head -1)
if [ "$installed" != "$wanted" ]; then
  echo "abi-check: installed fio is $installed but the engine is built against $wanted's source; the engine ABI must match the exact version (install Debian's fio ${wanted#fio-}, or update FIO_DEBIAN_VERSION in integrations/fio/fio-source.sh)" >&2
  exit 1
fi
engines=$(fio --enghelp 2>&1 | tr -s ' \t' '\n\n')
has_engine() { printf '%s\n' "$engines" | grep -qx "$1"; }
defined() { grep -q "^#define $1\$" "$src/config-host.h"; }
bad=0
check() {  # check MACRO INSTALLED(yes/no) WHAT PACKAGE
  local m=$1 inst=$2 what=$3 pkg=$4 conf=no
  defined "$m" && conf=yes
  if [ "$conf" != "$inst" ]; then
    echo "abi-check: $m is '$conf' in $src/config-host.h but the installed fio has $what '$inst'; the io_u/thread_data layouts would differ (${pkg})" >&2
    bad=1
  fi
}
for pair in CONFIG_LIBAIO:libaio:libaio-dev CONFIG_POSIXAIO:posixaio:libc6-dev \
            CONFIG_RDMA:rdma:"librdmacm-dev libibverbs-dev" CONFIG_SOLARISAIO:solarisaio:-; do
  IFS=: read -r m e pkg <<<"$pair"
  inst=no; has_engine "$e" && inst=yes
  check "$m" "$inst" "engine $e" "install $pkg and reconfigure"
done
inst=yes; fio --cmdhelp=gpu_dev_id 2>&1 | grep -q "No such command" && inst=no
check CONFIG_CUDA "$inst" "option gpu_dev_id" "CUDA"
[ "$bad" = 0 ] || exit 1
grep -q "#define FIO_IOOPS_VERSION" "$src/ioengines.h"
echo "abi-check: $installed; $(grep -o 'FIO_IOOPS_VERSION.*' "$src/ioengines.h" | tr -s '\t ' ' '); layout macros match" >&2
