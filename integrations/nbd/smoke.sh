#!/usr/bin/env bash
# Tests of `zonelab serve --nbd` with real NBD clients from Debian (issue 19,
# docs/nbd.md): nbdinfo sees the export; nbdcopy writes 32 MiB of random bytes
# (flushing) and reads them back byte for byte; the server is killed with SIGKILL,
# restarted on its backing file and serves every flushed byte; fio's own nbd engine
# writes and verifies data (verify=crc32c) on a CMR HDD, the ConZone+ block namespace
# and the drive-managed EF-SMR disk; the conventional zones of an HM-SMR disk take a
# copy; SIGTERM ends a server, which prints its JSON report. Under a minute.
#   smoke.sh [--dir DIR] [--zonelab PATH]
# Default zonelab: $CARGO_TARGET_DIR/debug/zonelab (cargo test builds it), else built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=""
zonelab=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) work=$2; shift 2 ;;
    --zonelab) zonelab=$2; shift 2 ;;
    *) echo "smoke.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ -z "$zonelab" ]; then
  target=${CARGO_TARGET_DIR:-$repo/target}
  zonelab=$target/debug/zonelab
  if [ ! -x "$zonelab" ]; then
    . "$repo/scripts/ensure-toolchain.sh"
    (cd "$repo" && cargo build --locked -q -p zonelab-cli) >&2
  fi
fi
[ -z "$zonelab" ] || zonelab=$(realpath "$zonelab")
keep=1
[ -n "$work" ] || { work=$(mktemp -d /tmp/zl-nbd.XXXXXX); keep=0; }
mkdir -p "$work"
# fio saves verify state files (<job>-<n>-verify.state) in its working directory.
work=$(cd "$work" && pwd)
cd "$work"
fail() { echo "nbd smoke: FAILED: $*" >&2; exit 1; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

start() {  # start NAME serve-args...: runs the server in the background, waits until it listens
  local name=$1; shift
  rm -f "$work/$name.json"
  "$zonelab" serve --nbd --socket "$work/$name.sock" --stats "$work/$name.json" "$@" \
    2> "$work/$name.err" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 300); do
    # The server prints its URI once it listens (a killed server's stale socket
    # file may still be there before that; the new server replaces it).
    grep -q " on nbd+unix://" "$work/$name.err" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || fail "server $name did not start: $(cat "$work/$name.err")"
    sleep 0.05
  done
  fail "server $name: not listening after 15 s"
}
stop() {  # stop PID: SIGTERM, wait, the report must exist
  kill -TERM "$1"; wait "$1" || fail "server exited with $?"
}
uri() { echo "nbd+unix:///?socket=$work/$1.sock"; }

echo "== nbdinfo"
start ssd --device ssd-conventional --size 32m --backing "$work/ssd.img"
ssd_pid=$pid
nbdinfo "$(uri ssd)" > "$work/nbdinfo.out"
grep -E "export-size|block_size_minimum|can_trim|can_flush" "$work/nbdinfo.out"
grep -q "export-size: 33554432" "$work/nbdinfo.out" || fail "nbdinfo: $(cat "$work/nbdinfo.out")"

echo "== nbdcopy: 32 MiB of random bytes there and back"
head -c $((32 << 20)) /dev/urandom > "$work/random.bin"
nbdcopy --flush "$work/random.bin" "$(uri ssd)"
nbdcopy "$(uri ssd)" "$work/back.bin"
cmp "$work/random.bin" "$work/back.bin" || fail "the bytes read back differ"
echo "read back byte for byte"

echo "== SIGKILL, restart on the backing file: every flushed byte is served"
kill -9 "$ssd_pid"; wait "$ssd_pid" 2>/dev/null || true
start ssd --device ssd-conventional --size 32m --backing "$work/ssd.img"
ssd_pid=$pid
rm -f "$work/back.bin"
nbdcopy "$(uri ssd)" "$work/back.bin"
cmp "$work/random.bin" "$work/back.bin" || fail "the restarted server lost flushed bytes"
stop "$ssd_pid"
echo "after the restart: $(jq -r '"\(.read.bytes) bytes read, \(.errors.count) refused"' "$work/ssd.json")"
grep "stopped after" "$work/ssd.err"

echo "== fio's nbd engine: write and verify (crc32c)"
for dev in wd100efax conzone-tlc-block ef-smr; do
  start "$dev" --device "$dev" --size 64m
  fio --name=nbd-verify --ioengine=nbd --uri="$(uri "$dev")" --rw=randwrite --bs=64k \
    --size=8m --iodepth=8 --verify=crc32c --verify_fatal=1 --output-format=json \
    --output="$work/$dev.fio.json" 2> "$work/$dev.fio.err" || fail "fio nbd on $dev: $(cat "$work/$dev.fio.err")"
  stop "$pid"
  # fio's nbd engine logs "fio: connected to NBD server" into the output file
  # ahead of the JSON.
  sed -i -n '/^{/,$p' "$work/$dev.fio.json"
  [ "$(jq '.jobs[0].error' "$work/$dev.fio.json")" = 0 ] || fail "fio reported an error on $dev"
  w=$(jq '.write.bytes' "$work/$dev.json"); r=$(jq '.read.bytes' "$work/$dev.json")
  [ "$w" = $((8 << 20)) ] && [ "$r" = "$w" ] || fail "$dev: wrote $w, read back $r"
  echo "$dev: $w bytes written and verified ($(jq -r '.device.model' "$work/$dev.json"), $(jq '.errors.count' "$work/$dev.json") refused)"
done

echo "== the conventional zones of an HM-SMR disk"
start smr --device st14000nm0007 --conventional-zones
nbdinfo --size "$(uri smr)"
head -c $((4 << 20)) "$work/random.bin" > "$work/four.bin"
nbdcopy --flush "$work/four.bin" "$(uri smr)"
stop "$pid"
[ "$(jq '.write.bytes' "$work/smr.json")" = $((4 << 20)) ] || fail "smr: not 4 MiB written"

echo "== a zoned model is refused with one line"
if "$zonelab" serve --nbd --device zn540 --socket "$work/zn.sock" 2> "$work/zn.err"; then
  fail "zn540 was served"
fi
cat "$work/zn.err"
[ "$(wc -l < "$work/zn.err")" = 1 ] || fail "not one line"
trap - EXIT
if [ "$keep" = 0 ]; then rm -rf "$work"; echo "nbd smoke: ok"; else echo "nbd smoke: ok ($work)"; fi
