#!/usr/bin/env bash
# Quick start and smoke test of the hhzs:// RocksDB plugin (issue 9 part 4): builds
# libzonelab and the plugin, runs Debian's own db_bench (fillrandom, then readrandom) on
# hhzs:// with scaled-down zones, prints the hint counts and the files per device and
# level, reopens the database and checks the store. Exits non-zero on any failure,
# including a zero flush, compaction or cache hint count.
#   smoke.sh [--num N] [--read-seconds S] [--policy hhzs|b3|...] [--dir DIR]
# Without --dir it works in a temporary directory, removed when the test passes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
num=300000         # keys of 16 B + 100 B values: ~35 MB of SSTs, L0..L2
read_seconds=10
policy=hhzs
work=""
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num=$2; shift 2 ;;
    --read-seconds) read_seconds=$2; shift 2 ;;
    --policy) policy=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    *) echo "smoke.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
build=$("$here/build.sh")
keep=1
[ -n "$work" ] || { work=$(mktemp -d /tmp/hhzs-smoke.XXXXXX); keep=0; }
rm -rf "$work/store" "$work/db"
mkdir -p "$work"
"$here/make-config.sh" "$work/store" "$policy" > "$work/hhzs.toml"
echo "== config $work/hhzs.toml"; cat "$work/hhzs.toml"

common=(--fs_uri="hhzs://$work/hhzs.toml" --options_file="$here/db_bench.ini"
  --db="$work/db" --num="$num" --cache_size=$((4 << 20))
  --secondary_cache_uri=hhzs_cache://)
run() {  # run NAME db_bench-args...: one db_bench process, its store stats in NAME.json
  local name=$1; shift
  local t0; t0=$(date +%s)
  HHZS_STATS_JSON="$work/$name.json" LD_PRELOAD="$build/libzonelab_rocksdb.so" \
    db_bench "${common[@]}" "$@" 2>&1 | tr "\r" "\n" | grep -v "finished .* ops" | tee "$work/$name.out"
  grep -q "^$name " "$work/$name.out"
  echo "== $name took $(( $(date +%s) - t0 )) s"
}
echo "== Debian db_bench fillrandom on hhzs:// (policy $policy)"
run fillrandom --benchmarks=fillrandom --seed=1
"$build/hhzs_stat" "$work/fillrandom.json" --require flush,compaction_begin,compaction_end,sst_level
echo "== Debian db_bench readrandom for ${read_seconds} s"
# A 512 KiB block cache (the last --cache_size wins): with 4 MiB, a few hundred
# random reads barely filled the cache, so the evicted blocks that the SSD cache is
# asked for again were 0 or 1 per run (a flaky check); with 512 KiB evictions start
# after ~128 blocks and later reads ask for evicted blocks many times.
run readrandom --benchmarks=readrandom --use_existing_db=1 --duration="$read_seconds" \
  --ops_between_duration_checks=10 --seed=2 --cache_size=$((512 << 10))
"$build/hhzs_stat" "$work/readrandom.json" --require block_evicted,cache_lookups

echo "== a config that does not exist is an error, not a crash"
if LD_PRELOAD="$build/libzonelab_rocksdb.so" db_bench --fs_uri="hhzs://$work/missing.toml" \
     --benchmarks=fillrandom --num=10 --db="$work/db-missing" > "$work/missing.out" 2>&1; then
  echo "smoke: db_bench accepted a missing config" >&2; exit 1
fi
grep -q "hhzs: zl_fs_open($work/missing.toml)" "$work/missing.out"
tail -n1 "$work/missing.out"

echo "== a second database on the same store is refused (one database per store)"
if LD_PRELOAD="$build/libzonelab_rocksdb.so" db_bench --fs_uri="hhzs://$work/hhzs.toml" \
     --benchmarks=fillseq --num=10 --db="$work/db-second" > "$work/second.out" 2>&1; then
  echo "smoke: db_bench opened a second database on one store" >&2; exit 1
fi
grep -q "one database (and WAL dir) per store" "$work/second.out"
grep -m1 "one database" "$work/second.out"

echo "== reopen and check"
"$build/hhzs_bench" --config "$work/hhzs.toml" --db "$work/db" --mode check | grep -v '^stats:'
if [ "$keep" = 0 ]; then rm -rf "$work"; echo "smoke: ok"; else echo "smoke: ok ($work)"; fi
