#!/usr/bin/env bash
# Crash test of the hhzs:// plugin and the zone file store (issue 9 part 6).
#  1. `hhzs_bench --mode crashwriter` writes sequential keys with sync=true and prints
#     each acknowledged key; it is killed with SIGKILL after a random delay; the database
#     is reopened (`--mode verify`): every acknowledged key must be present with its value
#     and zl_fs_check must pass. Repeated ROUNDS times on the same database, each round
#     continuing after the last acknowledged key, so kills land in WAL writes, flushes
#     and compactions.
#  2. Debian's db_bench fillrandom --sync=1 is killed the same way, then the database
#     must open, scan and pass zl_fs_check (db_bench prints no acknowledged keys, so
#     only the driver's rounds check acknowledged data).
#   crash_test.sh [--rounds N] [--seed S] [--dir DIR]
# Without --dir it works in a temporary directory, removed when the test passes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=8
seed=7
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    *) echo "crash_test.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
build=$("$here/build.sh")
keep=1
[ -n "$work" ] || { work=$(mktemp -d /tmp/hhzs-crash.XXXXXX); keep=0; }
rm -rf "$work/store" "$work/db" "$work/store-b" "$work/dbb"
mkdir -p "$work"
"$here/make-config.sh" "$work/store" hhzs > "$work/hhzs.toml"
"$here/make-config.sh" "$work/store-b" hhzs > "$work/hhzs-b.toml"  # one database per store
# 64 KiB memtables and 4,000 B values: a flush every ~16 acknowledged keys, and an
# L0->L1 compaction every 4 flushes, so kills land in flushes and compactions too.
bench=("$build/hhzs_bench" --config "$work/hhzs.toml" --value_size 4000 --write_buffer_kib 64)
RANDOM=$seed   # kill delays are reproducible from --seed

# Last complete line of FILE that is a number ("" if none): a kill can cut the last line.
last_acked() {
  local f=$1
  [ -s "$f" ] || return 0
  if [ "$(tail -c1 "$f" | od -An -c | tr -d ' ')" != '\n' ]; then
    head -n -1 "$f" | tail -n1
  else
    tail -n1 "$f"
  fi
}

start_s=$(date +%s)
acked=-1
for round in $(seq 1 "$rounds"); do
  delay_ms=$(( 300 + RANDOM % 1700 ))
  "${bench[@]}" --db "$work/db" --mode crashwriter --start $((acked + 1)) --num 100000000 \
    > "$work/acked.$round" 2> "$work/writer.$round.err" &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  if ! kill -9 "$pid" 2>/dev/null; then
    echo "round $round: the writer exited before the kill:" >&2
    cat "$work/writer.$round.err" >&2
    exit 1
  fi
  wait "$pid" 2>/dev/null || true
  last=$(last_acked "$work/acked.$round")
  [ -n "$last" ] && acked=$last
  printf 'round %d: killed after %d ms, %s keys acknowledged in total: ' \
    "$round" "$delay_ms" "$((acked + 1))"
  "${bench[@]}" --db "$work/db" --mode verify --expect_last "$acked" | grep '^verify'
done
[ "$acked" -ge 0 ] || { echo "crash_test: no key was ever acknowledged" >&2; exit 1; }
# RocksDB's info logs (host files, in the aux tree) tell what the kills interrupted.
logs=("$work/store/aux$work/db/"LOG*)
echo "the writers ran $(cat "${logs[@]}" | grep -c '"event": "flush_started"') flushes and" \
  "$(cat "${logs[@]}" | grep -c '"event": "compaction_started"') compactions"

echo "db_bench fillrandom --sync=1, killed:"
LD_PRELOAD="$build/libzonelab_rocksdb.so" db_bench --fs_uri="hhzs://$work/hhzs-b.toml" \
  --options_file="$here/db_bench.ini" --db="$work/dbb" --benchmarks=fillrandom --sync=1 \
  --num=100000000 > "$work/db_bench.out" 2>&1 &
pid=$!
sleep 1.5
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
"$build/hhzs_bench" --config "$work/hhzs-b.toml" --db "$work/dbb" --mode check | grep '^check'
msg="crash_test: ok, $rounds rounds in $(( $(date +%s) - start_s )) s"
if [ "$keep" = 0 ]; then rm -rf "$work"; echo "$msg"; else echo "$msg ($work)"; fi
