#!/usr/bin/env bash
# Times every `zonelab reproduce` target on a ladder of scales, to choose the
# default scales of the main job (DEFAULT_SCALES in
# crates/experiments/src/reproduce/main_job.rs; docs/reproduce.md, "Default scales").
#
#   bash scripts/time-targets.sh [--max-s N] [target ...]
#
# For each target (default: all), runs scales 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1
# (within the target's range) from small to large and stops after the first run
# longer than N seconds (default 150), so a target that takes an hour at paper scale
# is not run there. Prints one tab-separated line per run: target, scale, wall
# seconds, claims held. Run it on an otherwise idle machine: the numbers are wall
# times.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/ensure-toolchain.sh
max_s=150
if [ "${1:-}" = "--max-s" ]; then
  max_s="$2"
  shift 2
fi
cargo build --release --locked -p zonelab-cli >&2
bin="${CARGO_TARGET_DIR:-target}/release/zonelab"
if [ "$#" -eq 0 ]; then
  set -- $("$bin" reproduce --list | awk 'NR > 2 { print $1 }')
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
printf 'target\tscale\twall_s\tclaims_held\n'
for target in "$@"; do
  range="$("$bin" reproduce --list | awk -v t="$target" '$1 == t { print $3 }')"
  lo="${range%..*}"
  hi="${range#*..}"
  for scale in 0.01 0.02 0.05 0.1 0.2 0.5 1; do
    if awk -v s="$scale" -v lo="$lo" -v hi="$hi" 'BEGIN { exit !(s < lo || s > hi) }'; then
      continue
    fi
    start="$(date +%s.%N)"
    summary="$("$bin" reproduce "$target" --scale "$scale" --out "$out/$target" | tail -1)"
    end="$(date +%s.%N)"
    wall="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')"
    held="$(echo "$summary" | awk '{ print $1 "/" $3 }')"
    printf '%s\t%s\t%s\t%s\n' "$target" "$scale" "$wall" "$held"
    if awk -v w="$wall" -v m="$max_s" 'BEGIN { exit !(w > m) }'; then
      break
    fi
  done
done
