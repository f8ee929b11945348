#!/usr/bin/env bash
# The demonstrations of docs/rocksdb.md for one placement policy: Debian's db_bench
# (fillrandom, readrandom, readrandomwriterandom 90% reads) and the driver hhzs_bench
# (fillrandom, then a zipfian YCSB-A-like 50/50 read/update mix) on hhzs:// with the
# scaled-down zones of make-config.sh. Prints each run's throughput, hint counts and
# files per device and level.
#   demo.sh POLICY [--num N] [--seconds S] [--dir DIR]     (POLICY: hhzs, b3, ...)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
policy=${1:?usage: demo.sh POLICY [--num N] [--seconds S] [--dir DIR]}
shift
num=500000
seconds=20
work=/tmp/hhzs-demo-$policy
while [ $# -gt 0 ]; do
  case "$1" in
    --num) num=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --dir) work=$2; shift 2 ;;
    *) echo "demo.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
build=$("$here/build.sh")
rm -rf "$work"
mkdir -p "$work"
"$here/make-config.sh" "$work/store" "$policy" > "$work/hhzs.toml"
"$here/make-config.sh" "$work/store-driver" "$policy" > "$work/hhzs-driver.toml"
echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), policy $policy, $num keys, ${seconds} s read phases"

common=(--fs_uri="hhzs://$work/hhzs.toml" --options_file="$here/db_bench.ini"
  --db="$work/db" --num="$num" --cache_size=$((4 << 20))
  --secondary_cache_uri=hhzs_cache:// --ops_between_duration_checks=10)
bench() {  # bench NAME args...: one Debian db_bench process
  local name=$1; shift
  echo "-- db_bench $name"
  HHZS_STATS_JSON="$work/$name.json" LD_PRELOAD="$build/libzonelab_rocksdb.so" \
    db_bench "${common[@]}" "$@" 2>&1 | tr '\r' '\n' | grep "^$name "
  "$build/hhzs_stat" "$work/$name.json"
}
bench fillrandom --benchmarks=fillrandom --seed=1
bench readrandom --benchmarks=readrandom --use_existing_db=1 --duration="$seconds" --seed=2
bench readrandomwriterandom --benchmarks=readrandomwriterandom --use_existing_db=1 \
  --readwritepercent=90 --duration="$seconds" --seed=3

driver() {  # driver NAME args...: one hhzs_bench process (EventListener hints)
  local name=$1; shift
  echo "-- hhzs_bench $name"
  HHZS_STATS_JSON="$work/driver-$name.json" "$build/hhzs_bench" \
    --config "$work/hhzs-driver.toml" --db "$work/db-driver" --num "$num" \
    --cache_mib 4 "$@" | grep -v '^stats:'
  "$build/hhzs_stat" "$work/driver-$name.json"
}
driver fillrandom --mode fillrandom
driver ycsb --mode ycsb --read_ratio 0.5 --zipf_theta 0.99 --seconds "$seconds" --seed 3
