#!/usr/bin/env bash
# Replays one trace on `ssd-mqsim` with and without each conventional-SSD mechanism
# of issue 22 (read-first scheduling, program/erase suspension, the demand-paged
# mapping cache) and prints one line per variant: read/write latency, WAF and the
# mechanism counters. docs/devices.md ("Conventional-SSD mechanisms") shows the
# output. Usage:
#   scripts/ftl_mechanisms.sh TRACE [replay options, e.g. --qd 32 --format csv]
# Environment: ZONELAB (default: zonelab on PATH), WORK (default: a temp dir).
set -euo pipefail
trace=${1:?usage: $0 TRACE [replay options]}
shift
zl=${ZONELAB:-zonelab}
work=${WORK:-$(mktemp -d)}
here=$(cd "$(dirname "$0")/.." && pwd)
base="$here/profiles/ssd-mqsim.toml"

# variant name -> sections kept (scheduling keys are rewritten per variant)
variant() {
  local name=$1 sched=$2 cache=$3
  awk -v sched="$sched" -v cache="$cache" '
    /^\[scheduling\]/ { sec = "s"; if (sched != "off") print; next }
    /^\[mapping_cache\]/ { sec = "m"; if (cache == "on") print; next }
    /^\[/ { sec = "" }
    sec == "s" { if (sched == "off") next
                 if (sched == "read-first" && $0 ~ /suspend|resume/) next }
    sec == "m" && cache != "on" { next }
    { print }
  ' "$base" | sed "s/^name = .*/name = \"ssd-mqsim-$name\"/" >"$work/$name.toml"
}
variant fifo off off
variant read-first read-first off
variant suspend suspend off
variant map-cache off on
variant all suspend on

printf '%-11s %9s %9s %9s %9s %9s %9s %6s %s\n' variant r_mean r_p99 r_p999 w_mean w_p99 w_p999 WAF counters
for v in fifo read-first suspend map-cache all; do
  "$zl" replay --device "$work/$v.toml" --trace "$trace" "$@" --json >"$work/$v.json"
  jq -r --arg v "$v" '
    def us: . / 1000 | floor;
    [ $v,
      (.read.latency.mean_ns | us), (.read.latency.p99_ns | us), (.read.latency.p999_ns | us),
      (.write.latency.mean_ns | us), (.write.latency.p99_ns | us), (.write.latency.p999_ns | us),
      (.device_stats.write_amplification * 1000 | round / 1000),
      ( .device_stats.counters
        | to_entries
        | map(select(.key | test("map_cache_(hits|misses)|translation_(read|write)_bytes|reads_ahead|suspends|limit_waits|write_buffer_stalls")))
        | map("\(.key)=\(.value)") | join(" ") ) ]
    | "\(.[0]) \(.[1]) \(.[2]) \(.[3]) \(.[4]) \(.[5]) \(.[6]) \(.[7]) \(.[8])"' "$work/$v.json" |
    awk '{ printf "%-11s %9s %9s %9s %9s %9s %9s %6s", $1, $2, $3, $4, $5, $6, $7, $8; for (i = 9; i <= NF; i++) printf " %s", $i; printf "\n" }'
done
echo "(latencies in us; profiles and JSON results in $work)"
