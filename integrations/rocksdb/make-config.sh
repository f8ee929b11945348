#!/usr/bin/env bash
# Prints a zone-file-store config (docs/c-api.md) for the plugin's scripts:
# scaled-down zones so that a run of a few tens of MB fills several SSD zones and spills
# SSTs to the HDD, as HHZS does at paper scale with 1077 MiB ZN540 zones.
#   make-config.sh STORE_DIR [POLICY] [SSD_ZONE_BUDGET]
set -euo pipefail
dir=$1
policy=${2:-hhzs}
budget=${3:-8}
cat <<TOML
# written by integrations/rocksdb/make-config.sh
dir = "$dir"
ssd_profile = "zn540"
hdd_profile = "st14000nm0007"
policy = "$policy"
ssd_zone_budget = $budget
time_dilation = 1.0
wal_cache_zones = 2
zone_capacity_mib_ssd = 4
zone_capacity_mib_hdd = 4
TOML
