#!/usr/bin/env bash
# Measures how closely fio, driving a model through libzonelab_fio.so in real time,
# sees the model's own rate (docs/PERFORMANCE.md, "fio on the models"). For each
# workload it runs `zonelab bench` (virtual time: the model's rate) and the same job
# under fio at zl_dilation 1 and 10, and prints a Markdown table: fio's bandwidth
# (IOPS for 4 KiB jobs) times the dilation, as a share of the model's. Rows marked NBD
# run fio's own nbd engine against `zonelab serve --nbd` instead. Run it alone
# on the machine (real time: other load steals the host time the engine needs).
# Each measured fio job runs `runtime` x dilation seconds of wall time, so it covers the
# same modelled time as `zonelab bench --runtime` (a device's early transients, such as
# a write buffer filling or a disk cache draining after the precondition, weigh the
# same in both); the median of `reps` runs is shown.
#   throughput.sh [--zonelab PATH] [--runtime S] [--reps N] [--only REGEX]
# --only runs the workloads whose name matches REGEX (grep -E).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
zonelab=$target/release/zonelab
runtime=2
reps=3
only=.
while [ $# -gt 0 ]; do
  case "$1" in
    --zonelab) zonelab=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "throughput.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$zonelab" ] || (cd "$repo" && cargo build --release --locked -q -p zonelab-cli) >&2
command -v fio jq >/dev/null || { echo "throughput.sh: needs fio and jq (install-deps.sh)" >&2; exit 1; }
engine=$("$here/build.sh")
work=$(mktemp -d /tmp/zl-fio-tput.XXXXXX)
trap 'rm -rf "$work"' EXIT

# name | device | rw | bs | iodepth | region | bytes the region holds (what a
# precondition writes: a ZN540 zone's capacity) | zoned(1/0) | metric (bw|iops)
workloads=(
  "zn540 seq write 1 MiB QD1|zn540|write|1m|1|2g|1077m|1|bw"
  "zn540 seq read 1 MiB QD1|zn540|read|1m|1|2g|1077m|1|bw"
  "zn540 rand read 4 KiB QD1|zn540|randread|4k|1|2g|1077m|1|iops"
  "zn540 rand read 4 KiB QD16|zn540|randread|4k|16|2g|1077m|1|iops"
  "ssd-conventional rand write 4 KiB QD32|ssd-conventional|randwrite|4k|32|1g|1g|0|iops"
  "wd100efax rand read 4 KiB QD1|wd100efax|randread|4k|1|256m|256m|0|iops"
  "NBD: ssd-conventional rand read 4 KiB QD32|ssd-conventional|randread|4k|32|1g|1g|nbd|iops"
  "NBD: ssd-conventional seq write 1 MiB QD4|ssd-conventional|write|1m|4|1g|1g|nbd|bw"
  "NBD: wd100efax rand read 4 KiB QD1|wd100efax|randread|4k|1|256m|256m|nbd|iops"
)

model_rate() {  # device rw bs iodepth region metric -> the model's MiB/s or IOPS
  local pre=()
  case "$2" in *read*) pre=(--precondition) ;; esac
  "$zonelab" bench --device "$1" --rw "$2" --bs "$3" --iodepth "$4" --size "$5" \
    --runtime "${runtime}s" "${pre[@]}" --json > "$work/bench.json"
  if [ "$6" = bw ]; then jq '.throughput_mib_s' "$work/bench.json"; else jq '.iops' "$work/bench.json"; fi
}

fio_rate() {  # dilation device rw bs iodepth region holds zoned metric -> fio's MiB/s or IOPS x dilation
  local d=$1 dev=$2 rw=$3 bs=$4 qd=$5 region=$6 holds=$7 zoned=$8 metric=$9
  local zbd=() pre="" server=""
  [ "$zoned" = 1 ] && zbd=(zonemode=zbd direct=1)
  case "$rw" in *read*) pre=1 ;; esac
  if [ "$zoned" = nbd ]; then
    # fio's own nbd engine against `zonelab serve --nbd` at this dilation.
    rm -f "$work/serve.err"
    "$zonelab" serve --nbd --device "$dev" --size "$region" --dilation "$d" \
      --socket "$work/nbd.sock" --stats "$work/report.json" 2> "$work/serve.err" &
    server=$!
    until grep -q " on nbd+unix" "$work/serve.err" 2>/dev/null; do sleep 0.05; done
  fi
  {
    echo "[global]"
    if [ -n "$server" ]; then
      echo "ioengine=nbd"
      echo "uri=nbd+unix:///?socket=$work/nbd.sock"
    else
      echo "ioengine=external:$engine"
      echo "zl_device=$dev"
      echo "zl_dilation=$d"
      echo "zl_stats=$work/report.json"
      echo "filename=$dev"
    fi
    echo "thread=1"
    echo "size=$region"
    for o in "${zbd[@]}"; do echo "$o"; done
    if [ -n "$pre" ]; then
      # Write the region once first (as zonelab bench --precondition does).
      echo "[precondition]"; echo "rw=write"; echo "bs=1m"; echo "iodepth=4"; echo "io_size=$holds"
    fi
    echo "[measure]"
    [ -n "$pre" ] && echo "stonewall"
    echo "rw=$rw"; echo "bs=$bs"; echo "iodepth=$qd"
    echo "time_based=1"; echo "runtime=$(( runtime * d ))"
  } > "$work/job.fio"
  fio --output-format=json --output="$work/fio.json" "$work/job.fio" 2> "$work/fio.err" \
    || { echo "fio failed: $(cat "$work/fio.err")" >&2; exit 1; }
  if [ -n "$server" ]; then
    kill -TERM "$server"; wait "$server"
    # fio's nbd engine logs "fio: connected to NBD server" ahead of the JSON.
    sed -i -n '/^{/,$p' "$work/fio.json"
  fi
  local dir=read
  case "$rw" in *write*) dir=write ;; esac
  if [ "$metric" = bw ]; then
    jq --argjson d "$d" "[.jobs[] | select(.jobname==\"measure\") | .$dir.bw_bytes] | add / 1048576 * \$d" "$work/fio.json"
  else
    jq --argjson d "$d" "[.jobs[] | select(.jobname==\"measure\") | .$dir.iops] | add * \$d" "$work/fio.json"
  fi
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "| workload | model (zonelab bench) | fio, dilation 1 | share | fio x10, dilation 10 | share |"
echo "|---|---|---|---|---|---|"
for w in "${workloads[@]}"; do
  IFS='|' read -r name dev rw bs qd region holds zoned metric <<<"$w"
  printf '%s\n' "$name" | grep -qE -- "$only" || continue
  m=$(model_rate "$dev" "$rw" "$bs" "$qd" "$region" "$metric")
  f1=$(for _ in $(seq "$reps"); do fio_rate 1 "$dev" "$rw" "$bs" "$qd" "$region" "$holds" "$zoned" "$metric"; done | median)
  f10=$(for _ in $(seq "$reps"); do fio_rate 10 "$dev" "$rw" "$bs" "$qd" "$region" "$holds" "$zoned" "$metric"; done | median)
  unit=$([ "$metric" = bw ] && echo "MiB/s" || echo "IOPS")
  printf '| %s | %.0f %s | %.0f | %.1f%% | %.0f | %.1f%% |\n' "$name" "$m" "$unit" "$f1" \
    "$(awk "BEGIN {print 100 * $f1 / $m}")" "$f10" "$(awk "BEGIN {print 100 * $f10 / $m}")"
done
