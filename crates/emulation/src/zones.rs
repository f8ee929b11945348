//! Scaled-down zones: a zoned profile with zones of a few MiB instead of a GiB,
//! so that a short job in real time fills, wraps and resets zones (the zone file
//! store's `zone_capacity_mib_*` keys, the fio engine's `zl_zone_mib`). Timing
//! parameters stay the profile's; only the zone geometry changes.

use crate::emulated::EmulationError;
use zonelab_devices::profile::{model_of, ProfileSource};

/// `src` with zones of `capacity_mib` MiB: a `zns-ssd` profile gets that zone
/// capacity and the next power of two as zone size (ZNS zone sizes are powers of
/// two, as the ZN540 reports), an `hm-smr-hdd` profile that zone size. Other
/// models have no zone geometry to scale and are refused.
pub fn with_zone_capacity_mib(
    src: &ProfileSource,
    capacity_mib: u64,
) -> Result<ProfileSource, EmulationError> {
    let model = model_of(src)?;
    let bad = |message: String| EmulationError::ZoneScaling {
        profile: src.source_name.clone(),
        message,
    };
    if !matches!(model.as_str(), "zns-ssd" | "hm-smr-hdd") {
        return Err(bad(format!(
            "scaled zones work with zns-ssd and hm-smr-hdd profiles, not `{model}`"
        )));
    }
    if !(1..=65536).contains(&capacity_mib) {
        return Err(bad(format!(
            "zone capacity {capacity_mib} MiB is out of range (allowed: 1..=65536)"
        )));
    }
    let mut v: toml::Table = toml::from_str(&src.text).map_err(|e| bad(e.message().into()))?;
    let zones = v
        .get_mut("zones")
        .and_then(|z| z.as_table_mut())
        .ok_or_else(|| bad("the profile has no [zones] table".into()))?;
    let mib = |x: u64| toml::Value::Integer(x as i64);
    match model.as_str() {
        "zns-ssd" => {
            zones.insert("zone_capacity_mib".into(), mib(capacity_mib));
            zones.insert(
                "zone_size_mib".into(),
                mib(capacity_mib.next_power_of_two()),
            );
        }
        _ => {
            zones.insert("zone_size_mib".into(), mib(capacity_mib));
        }
    }
    Ok(ProfileSource {
        source_name: format!("{} (zone capacity {capacity_mib} MiB)", src.source_name),
        text: toml::to_string(&v).map_err(|e| bad(e.to_string()))?,
    })
}
