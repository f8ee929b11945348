#!/usr/bin/env bash
# Measures RocksDB's flush and compaction CPU cost per key and per byte on this
# machine with Debian's RocksDB 7.8 db_bench on tmpfs (issue 14, docs/hhzs.md
# "CPU costs"): the LSM-tree model's `CpuCosts` flush / compaction constants.
#
# For each value size, `filluniquerandom` writes about TARGET_MIB of unique keys (24 B
# keys, no compression, 4 KiB blocks, CRC32c as RocksDB 6.22's defaults; format_version 4,
# while 6.22's default is 5, which differs only in the Bloom filter format and no filter
# is configured) with auto compactions off, so every MemTable is flushed to L0; then
# `compact` merges all of L0 into L1 in one compaction. The compaction stats give the
# CPU time of the flushes (L0 row, CompMergeCPU) and of the compaction
# (rocksdb.compaction.times.cpu_micros); the statistics tickers give the exact bytes.
# Costs are fitted by least squares as cpu = keys x ns_per_key + bytes x ns_per_byte.
#
# Usage: bash integrations/rocksdb/measure_cpu.sh [--reps N] [--target-mib M] [--values "B ..."] [--out FILE]
# The run-to-run variation of each job's CPU (the coefficient of variation over the reps
# of one value size: `CpuCosts::job_jitter_ppm`) is printed at the end.
# Needs db_bench (integrations/rocksdb/install-deps.sh) and /dev/shm. Run it alone on
# the machine (under the heavy-work lock): it measures thread CPU time, not wall time.
set -euo pipefail
reps=3
target_mib=512
values="100 250 500 1000 2000 4000"
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --target-mib) target_mib="$2"; shift 2 ;;
    --values) values="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "measure_cpu.sh: unknown argument \`$1\` (known: --reps N, --target-mib M, --values \"B ...\", --out FILE)" >&2; exit 2 ;;
  esac
done
command -v db_bench >/dev/null || { echo "measure_cpu.sh: db_bench not found; run integrations/rocksdb/install-deps.sh" >&2; exit 1; }
db=/dev/shm/zonelab-measure-cpu-$$
trap 'rm -rf "$db"' EXIT
key_bytes=24
rows="value_bytes,rep,keys,flush_cpu_s,flush_bytes,compaction_cpu_s,compaction_read_bytes"
for value_bytes in $values; do
  case "$value_bytes" in
    ''|*[!0-9]*) echo "measure_cpu.sh: --values: \`$value_bytes\` is not a byte count" >&2; exit 2 ;;
  esac
  num=$(( target_mib * 1024 * 1024 / (value_bytes + key_bytes + 12) ))
  for rep in $(seq 1 "$reps"); do
    rm -rf "$db"
    log=$(db_bench --db="$db" --benchmarks=filluniquerandom,compact,stats \
      --num="$num" --key_size=$key_bytes --value_size="$value_bytes" \
      --compression_type=none --checksum_type=1 --format_version=4 --block_size=4096 \
      --bloom_bits=0 --disable_auto_compactions=true --max_background_jobs=2 \
      --subcompactions=1 --write_buffer_size=67108864 --statistics=1 --seed="$rep" 2>&1)
    flush_cpu=$(awk '$1 == "L0" { print $16; exit }' <<<"$log")
    flush_bytes=$(awk '$1 == "rocksdb.flush.write.bytes" { print $4; exit }' <<<"$log")
    comp_us=$(awk '$1 == "rocksdb.compaction.times.cpu_micros" { for (i = 1; i <= NF; i++) if ($i == "SUM") print $(i + 2); exit }' <<<"$log")
    comp_read=$(awk '$1 == "rocksdb.compact.read.bytes" { print $4; exit }' <<<"$log")
    if [ -z "$flush_cpu" ] || [ -z "$flush_bytes" ] || [ -z "$comp_us" ] || [ -z "$comp_read" ]; then
      echo "measure_cpu.sh: could not parse db_bench's statistics (value size $value_bytes)" >&2
      exit 1
    fi
    comp_cpu=$(awk -v us="$comp_us" 'BEGIN { printf "%.6f", us / 1e6 }')
    rows="$rows"$'\n'"$value_bytes,$rep,$num,$flush_cpu,$flush_bytes,$comp_cpu,$comp_read"
    echo "value $value_bytes B rep $rep: $num keys, flush ${flush_cpu} s CPU for $flush_bytes B, compaction ${comp_cpu} s CPU for $comp_read B read" >&2
  done
done
[ -n "$out" ] && printf '%s\n' "$rows" >"$out"
printf '%s\n' "$rows"
# Least squares of cpu/key on bytes/key: intercept = ns per key, slope = ns per byte.
fit() {
  awk -F, -v c="$1" -v b="$2" 'NR > 1 {
      x = $b / $3; y = $c * 1e9 / $3
      n++; sx += x; sy += y; sxx += x * x; sxy += x * y; ys[n] = y; xs[n] = x
    } END {
      slope = (n * sxy - sx * sy) / (n * sxx - sx * sx); icpt = (sy - slope * sx) / n
      for (i = 1; i <= n; i++) { r = ys[i] - (icpt + slope * xs[i]); ss += r * r }
      printf "%s: %.0f ns per key + %.3f ns per byte (rms residual %.0f ns per key, %d runs)\n", "'"$3"'", icpt, slope, sqrt(ss / n), n
    }' <<<"$rows"
}
# The fit needs runs at two or more value sizes.
if [ "$(awk -F, 'NR > 1 { print $1 }' <<<"$rows" | sort -u | wc -l)" -ge 2 ]; then
  fit 4 5 "flush"
  fit 6 7 "compaction"
fi
# Run-to-run variation: per value size, the CV (sample standard deviation over the
# mean) of each job's CPU across the reps.
awk -F, 'NR > 1 {
    n[$1]++; f[$1] += $4; ff[$1] += $4 * $4; c[$1] += $6; cc[$1] += $6 * $6
  } END {
    for (v in n) if (n[v] > 1) {
      mf = f[v] / n[v]; mc = c[v] / n[v]
      sf = sqrt((ff[v] - n[v] * mf * mf) / (n[v] - 1)); sc = sqrt((cc[v] - n[v] * mc * mc) / (n[v] - 1))
      printf "value %s B, %d reps: flush CPU CV %.2f %%, compaction CPU CV %.2f %%\n", v, n[v], 100 * sf / mf, 100 * sc / mc
    }
  }' <<<"$rows"
