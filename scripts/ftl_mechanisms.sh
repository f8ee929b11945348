#!/usr/bin/env bash
# Replays one trace on `ssd-mqsim` with and without each conventional-SSD mechanism
# of issue 22 and prints one line per variant: read/write latency, WAF and the
# mechanism counters. docs/devices.md ("Conventional-SSD mechanisms") shows the
# output. Variants (each from profiles/ssd-mqsim.toml):
#   base         dies first-come first-served ([scheduling] read_first = false:
#                program data crosses the channel just in time, as with read-first),
#                no [mapping_cache], 4 KiB LBAs, volatile write buffer
#   read-first   base + read-first die scheduling
#   suspend      base + read-first + program/erase suspension
#   map-cache    base + the 2 MiB demand-paged mapping cache
#   write-thru   base + [write_buffer] mode = "write-through"
#   lba-512      base + 512-byte LBAs emulated on 4 KiB units
#   mqsim        the profile as shipped (read-first, suspension, map cache, 512 B LBAs)
# Usage:
#   scripts/ftl_mechanisms.sh TRACE [replay options, e.g. --qd 32 --format msr]
# Environment: ZONELAB (default: zonelab on PATH), WORK (default: a temp dir),
# VARIANTS (default: all of the above, space-separated).
set -euo pipefail
trace=${1:?usage: $0 TRACE [replay options]}
shift
zl=${ZONELAB:-zonelab}
work=${WORK:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
base="$here/profiles/ssd-mqsim.toml"

# variant NAME SCHED(fifo|read-first|suspend) CACHE(on|off) LBA(512|4096) BUFFER(volatile|write-through)
variant() {
  local name=$1 sched=$2 cache=$3 lba=$4 buffer=$5
  awk -v sched="$sched" -v cache="$cache" -v lba="$lba" '
    /^\[scheduling\]/ { sec = "s"; print; if (sched == "fifo") print "read_first = false"; next }
    /^\[mapping_cache\]/ { sec = "m"; if (cache == "on") print; next }
    /^\[/ { sec = "" }
    /^block_bytes/ { print "block_bytes = " lba; next }
    sec == "s" { if (sched == "fifo") next
                 if (sched == "read-first" && $0 ~ /suspend|resume/) next }
    sec == "m" && cache != "on" { next }
    { print }
  ' "$base" | sed "s/^name = .*/name = \"ssd-mqsim-$name\"/" >"$work/$name.toml"
  if [ "$buffer" != volatile ]; then
    printf '\n[write_buffer]\nmode = "%s"\n' "$buffer" >>"$work/$name.toml"
  fi
}
variant base       fifo       off 4096 volatile
variant read-first read-first off 4096 volatile
variant suspend    suspend    off 4096 volatile
variant map-cache  fifo       on  4096 volatile
variant write-thru fifo       off 4096 write-through
variant lba-512    fifo       off 512  volatile
variant mqsim      suspend    on  512  volatile

printf '%-11s %9s %9s %9s %9s %9s %9s %9s %9s %6s %s\n' variant r_mean r_p99 r_p999 die_wait ch_wait w_mean w_p99 w_p999 WAF counters
for v in ${VARIANTS:-base read-first suspend map-cache write-thru lba-512 mqsim}; do
  "$zl" replay --device "$work/$v.toml" --trace "$trace" "$@" --json >"$work/$v.json"
  jq -r --arg v "$v" '
    def us: . / 1000 | floor;
    [ $v,
      (.read.latency.mean_ns | us), (.read.latency.p99_ns | us), (.read.latency.p999_ns | us),
      (.device_stats.counters as $c | ($c.host_flash_reads // 0) as $n
        | if $n > 0 then ($c.read_die_wait_ns / $n | us) else "-" end,
          if $n > 0 then ($c.read_channel_wait_ns / $n | us) else "-" end),
      (.write.latency.mean_ns | us), (.write.latency.p99_ns | us), (.write.latency.p999_ns | us),
      (.device_stats.write_amplification * 1000 | round / 1000),
      ( .device_stats.counters
        | to_entries
        | map(select(.key | test("map_cache_(hits|misses)|reads_ahead|suspends|limit_waits|write_buffer_stalls|flush_padding|sub_block_(read|rmw)")))
        | map("\(.key)=\(.value)") | join(" ") ) ]
    | map(tostring) | join(" ")' "$work/$v.json" |
    awk '{ printf "%-11s %9s %9s %9s %9s %9s %9s %9s %9s %6s", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10; for (i = 11; i <= NF; i++) printf " %s", $i; printf "\n" }'
done
echo "(latencies in us; die_wait / ch_wait: mean wait of a host flash read for its die / channel; profiles and JSON results in $work)"
