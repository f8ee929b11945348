#!/usr/bin/env bash
# Tests of the fio engine with Debian's fio 3.33 (issue 19, docs/fio.md):
#  1. the build refuses an fio of another version, with a clear message;
#  2. zn540 (16 MiB zones) with zonemode=zbd: a sequential write that wraps its
#     range, then random reads (thread=1, the jobs share the device): zone resets
#     happen, the model refused nothing, fio reports no error;
#  3. ssd-conventional with verify=crc32c: every byte written is read back and
#     verifies; and a verify of never-written blocks fails (the check can fail);
#  4. a backing file (zl_dir): data written by one fio run verifies in the next,
#     on ssd-conventional and on zn540;
#  5. bad input: an unknown device, no zl_device, a bad zl_dilation, scaled zones
#     on a block device, two forked jobs, a zone rule violation — each fails with
#     one line naming the cause.
# Exits non-zero on the first failure. Under a minute.
#   smoke.sh [--dir DIR]   (default: a temporary directory, removed on success)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) work=$2; shift 2 ;;
    *) echo "smoke.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
keep=1
[ -n "$work" ] || { work=$(mktemp -d /tmp/zl-fio.XXXXXX); keep=0; }
mkdir -p "$work"
# fio saves verify state files (<job>-<n>-verify.state) in its working directory.
work=$(cd "$work" && pwd)
cd "$work"
fail() { echo "fio smoke: FAILED: $*" >&2; exit 1; }
jget() { jq -er "$2" "$1"; }  # jget FILE FILTER: a field of a JSON report
# fio's JSON output file, from its first "{" line: fio may log a line ahead of the
# JSON into the same file (seen once in a loaded test run: jq's "Invalid numeric
# literal at line 1, column 5" on a report that was valid when re-run).
fio_json() { sed -n '/^{/,$p' "$1"; }

echo "== 1. the build refuses another fio version"
mkdir -p "$work/fakebin"
printf '#!/bin/sh\necho fio-3.35\n' > "$work/fakebin/fio"; chmod +x "$work/fakebin/fio"
if PATH="$work/fakebin:$PATH" "$here/build.sh" > "$work/fake.out" 2> "$work/fake.err"; then
  fail "build.sh accepted fio-3.35"
fi
grep -q "installed fio is fio-3.35, but this engine is built for Debian 12's fio-3.33" "$work/fake.err" \
  || fail "no clear version message: $(cat "$work/fake.err")"
tail -n1 "$work/fake.err"

engine=$("$here/build.sh")
echo "== engine $engine"
fio_zl() { fio --ioengine="external:$engine" "$@"; }

echo "== 2. zn540, zonemode=zbd: sequential write wrapping 4 zones, then random reads"
cat > "$work/zn540.fio" <<EOF
[global]
ioengine=external:$engine
zl_device=zn540
zl_zone_mib=16
zl_stats=$work/zn540.json
filename=zn540
zonemode=zbd
direct=1
thread=1
size=64m
[seqwrite]
rw=write
bs=128k
io_size=192m
iodepth=4
[randread]
stonewall
rw=randread
bs=4k
io_size=16m
iodepth=8
EOF
fio --output-format=json --output="$work/zn540.fio.json" "$work/zn540.fio" 2> "$work/zn540.err" \
  || fail "fio on zn540: $(cat "$work/zn540.err")"
resets=$(jget "$work/zn540.json" .host_zone_resets)
errors=$(jget "$work/zn540.json" .errors.count)
fio_errors=$(fio_json "$work/zn540.fio.json" | jq '[.jobs[].error] | add')
echo "zone resets $resets (device: $(jget "$work/zn540.json" .device_stats.zone_resets)), refused requests $errors, fio errors $fio_errors," \
  "written $(jget "$work/zn540.json" .write.bytes) B, read $(jget "$work/zn540.json" .read.bytes) B"
[ "$resets" -gt 0 ] || fail "no zone reset on zn540"
[ "$(jget "$work/zn540.json" .device_stats.zone_resets)" -ge "$resets" ] || fail "device counted fewer resets"
[ "$errors" = 0 ] || fail "the model refused $errors requests: $(jget "$work/zn540.json" .errors.first)"
[ "$fio_errors" = 0 ] || fail "fio reported errors"
[ "$(jget "$work/zn540.json" .write.bytes)" = $((192 << 20)) ] || fail "wrote other than 192 MiB"
[ "$(jget "$work/zn540.json" .read.bytes)" = $((16 << 20)) ] || fail "read other than 16 MiB"

echo "== 3. ssd-conventional, verify=crc32c"
fio_zl --name=verify --zl_device=ssd-conventional --zl_stats="$work/ssd.json" --filename=ssd \
  --rw=randwrite --bs=16k --size=48m --iodepth=8 --verify=crc32c --verify_fatal=1 \
  --output-format=json --output="$work/ssd.fio.json" 2> "$work/ssd.err" \
  || fail "verify on ssd-conventional: $(cat "$work/ssd.err")"
written=$(jget "$work/ssd.json" .write.bytes); read=$(jget "$work/ssd.json" .read.bytes)
echo "written $written B, read back and verified $read B, refused $(jget "$work/ssd.json" .errors.count), WAF $(jget "$work/ssd.json" .device_stats.write_amplification)"
[ "$written" = $((48 << 20)) ] && [ "$read" = "$written" ] || fail "verified $read of $written bytes"
[ "$(fio_json "$work/ssd.fio.json" | jq '.jobs[0].error')" = 0 ] || fail "fio reported an error"
# The check can fail: verifying blocks nothing wrote is a verify error.
if fio_zl --name=bad --zl_device=ssd-conventional --filename=ssd --rw=read --bs=16k --size=1m \
     --verify=crc32c > "$work/noverify.out" 2>&1; then
  fail "verify of never-written blocks passed"
fi
grep -q "verify: bad magic header" "$work/noverify.out" || fail "no verify error: $(tail -3 "$work/noverify.out")"

echo "== 4. zl_dir: data written by one fio run verifies in the next"
for dev in "ssd-conventional" "zn540 --zl_zone_mib=16 --zonemode=zbd --direct=1"; do
  # shellcheck disable=SC2086
  fio_zl --name=persist --zl_device=$dev --zl_dir="$work/backing" --filename=p --rw=write \
    --bs=64k --size=32m --verify=crc32c --do_verify=0 --zl_stats="$work/p1.json" > /dev/null 2>&1 \
    || fail "write to the backing file of $dev"
  # shellcheck disable=SC2086
  fio_zl --name=persist --zl_device=$dev --zl_dir="$work/backing" --filename=p --rw=read \
    --bs=64k --size=32m --verify=crc32c --verify_fatal=1 --zl_stats="$work/p2.json" > "$work/p2.out" 2>&1 \
    || fail "read back from the backing file of $dev: $(grep -m1 verify "$work/p2.out")"
  [ "$(jget "$work/p2.json" .read.bytes)" = $((32 << 20)) ] || fail "$dev: read back other than 32 MiB"
  echo "${dev%% *}: 32 MiB verified after reopening $(jget "$work/p2.json" .backing_file)"
done

echo "== 5. bad input: one line naming the cause, non-zero exit"
expect_error() {  # expect_error "message" fio-args...
  local want=$1; shift
  if fio_zl --name=bad --filename=d --rw=write --bs=4k --size=1m "$@" > "$work/bad.out" 2>&1; then
    fail "fio accepted $*"
  fi
  grep -q -- "$want" "$work/bad.out" || fail "no message '$want' for $*: $(cat "$work/bad.out")"
  grep -m1 -- "$want" "$work/bad.out"
}
expect_error "zonelab: cannot open zl_device=no-such: unknown device profile \`no-such\`" --zl_device=no-such
expect_error "zonelab: zl_device is required" 
expect_error "zonelab: zl_dilation=0.5 is not a number >= 1" --zl_device=zn540 --zl_dilation=0.5
expect_error "zonelab: zl_dilation=fast is not a number >= 1" --zl_device=zn540 --zl_dilation=fast
expect_error "scaled zones work with zns-ssd and hm-smr-hdd profiles, not \`ftl-ssd\`" \
  --zl_device=ssd-conventional --zl_zone_mib=16
expect_error "zonelab: 2 jobs use the zonelab engine as separate processes" \
  --zl_device=ssd-conventional --numjobs=2
expect_error "zonelab: d write at byte .* is not at the write pointer" \
  --zl_device=zn540 --zl_zone_mib=16 --rw=randwrite
expect_error "is not aligned to the device's 4096-byte blocks" --zl_device=ssd-conventional --bs=1k
if [ "$keep" = 0 ]; then rm -rf "$work"; echo "fio smoke: ok"; else echo "fio smoke: ok ($work)"; fi
