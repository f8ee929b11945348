#!/bin/bash
# Host CPU per block request and per 4 KiB page on this machine, the source of
# HostCosts::request_cpu_ns / page_cpu_ns (crates/systems/src/swap/host.rs,
# docs/znsage.md "Host costs"). fio O_DIRECT random reads (libaio, queue depth 8)
# of a 1 GiB file at 4, 96 and 192 KiB; CPU time of all CPUs from /proc/stat
# (user + nice + system + irq + softirq) over each 5 s run, minus idle, divided by
# the requests; then a least-squares line cpu = request + pages x page.
# Usage: bash scripts/measure-block-request-cpu.sh [DIR]   (needs fio; run alone)
set -euo pipefail
DIR=${1:-${TMPDIR:-/tmp}/zonelab-block-cpu}
mkdir -p "$DIR"
F=$DIR/data.bin
[ -f "$F" ] || dd if=/dev/urandom of="$F" bs=1M count=1024 status=none
sync
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
tck=$(getconf CLK_TCK)
b0=$(busy); sleep 5; idle=$(( $(busy) - b0 ))
echo "idle ticks per 5 s: $idle (CLK_TCK $tck)"
out=$DIR/points.txt; : > "$out"
for rep in 1 2 3; do
  for bs_kib in 4 96 192; do
    b0=$(busy)
    t=$(fio --name=m --filename="$F" --readonly --direct=1 --rw=randread --bs=${bs_kib}k \
        --ioengine=libaio --iodepth=8 --runtime=5 --time_based --norandommap \
        --randrepeat=0 --output-format=terse --terse-version=3)
    ticks=$(( $(busy) - b0 - idle ))
    kib=$(echo "$t" | cut -d';' -f6)
    ios=$(( kib / bs_kib ))
    us=$(awk -v t="$ticks" -v c="$tck" -v n="$ios" 'BEGIN{printf "%.3f", t/c*1e6/n}')
    echo "rep $rep: ${bs_kib} KiB: $ios requests, $us us CPU per request"
    echo "$(( bs_kib / 4 )) $us" >> "$out"
  done
done
awk '{n++; x+=$1; y+=$2; xx+=$1*$1; xy+=$1*$2}
     END{b=(n*xy-x*y)/(n*xx-x*x); a=(y-b*x)/n;
         printf "fit: request %.2f us + %.3f us per 4 KiB page\n", a, b}' "$out"
