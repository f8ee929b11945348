//! Builds the devices a swap run needs from built-in (or file) profiles, resized
//! for the run: a ZNS SSD with `zones` zones of a given capacity formatted with a
//! chosen LBA format, or a conventional SSD of a given logical capacity.

use super::error::SwapError;
use zonelab_devices::models::ftl_ssd::{FtlSsd, FtlSsdProfile};
use zonelab_devices::models::zns_ssd::{ZnsSsd, ZnsSsdProfile};
use zonelab_devices::profile::{find_profile, model_of, parse_as};
use zonelab_devices::Device;

fn profile_err(e: zonelab_devices::ProfileError) -> SwapError {
    SwapError::Profile(e.to_string())
}

/// A `zns-ssd` device from `profile` with `zones` zones; `zone_capacity_mib`
/// (None = the profile's; zone size becomes the capacity when it is smaller than
/// the profile's capacity) and `lba_format` (index into `[namespace]`) override.
pub fn zns_device(
    profile: &str,
    zones: u32,
    zone_capacity_mib: Option<u64>,
    lba_format: Option<u32>,
) -> Result<Box<dyn Device>, SwapError> {
    let src = find_profile(profile).map_err(profile_err)?;
    let model = model_of(&src).map_err(profile_err)?;
    if model != "zns-ssd" {
        return Err(SwapError::Profile(format!(
            "profile `{profile}` is a `{model}` device, not zns-ssd"
        )));
    }
    let mut p: ZnsSsdProfile = parse_as(&src).map_err(profile_err)?;
    p.zones.zone_count = zones;
    // A namespace of fewer zones cannot have more open/active ones.
    p.zones.max_open_zones = p.zones.max_open_zones.min(zones);
    p.zones.max_active_zones = p.zones.max_active_zones.min(zones);
    if let Some(c) = zone_capacity_mib {
        p.zones.zone_capacity_mib = c;
        if p.zones.zone_size_mib < c {
            p.zones.zone_size_mib = c;
        }
    }
    if let Some(f) = lba_format {
        match p.namespace.as_mut() {
            Some(ns) => ns.formatted_lba_format = f,
            None => {
                return Err(SwapError::Profile(format!(
                    "profile `{profile}` has no [namespace] LBA formats to choose lbaf {f} from"
                )))
            }
        }
    }
    Ok(Box::new(
        ZnsSsd::new(p, &src.source_name).map_err(profile_err)?,
    ))
}

/// An `ftl-ssd` device from `profile` with `capacity_mib` logical MiB;
/// `pages_per_block` and `dies` (channels, dies per channel) override the flash
/// geometry (small capacities need small superblocks to keep enough of them).
pub fn ssd_device(
    profile: &str,
    capacity_mib: u64,
    pages_per_block: Option<u32>,
    dies: Option<(u32, u32)>,
) -> Result<Box<dyn Device>, SwapError> {
    let src = find_profile(profile).map_err(profile_err)?;
    let model = model_of(&src).map_err(profile_err)?;
    if model != "ftl-ssd" {
        return Err(SwapError::Profile(format!(
            "profile `{profile}` is a `{model}` device, not ftl-ssd"
        )));
    }
    let mut p: FtlSsdProfile = parse_as(&src).map_err(profile_err)?;
    p.capacity.capacity_mib = capacity_mib;
    if let Some(ppb) = pages_per_block {
        p.flash.pages_per_block = ppb;
    }
    if let Some((channels, per_channel)) = dies {
        p.flash.channels = channels;
        p.flash.dies_per_channel = per_channel;
    }
    Ok(Box::new(
        FtlSsd::new(p, &src.source_name).map_err(profile_err)?,
    ))
}
