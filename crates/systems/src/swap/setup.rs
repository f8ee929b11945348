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

/// What sizing a swap area on a `zns-ssd` profile needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZnsGeometry {
    /// The profile's zone capacity.
    pub zone_capacity_kib: u64,
    /// One stripe row: a program unit on every die a zone is striped over.
    pub stripe_row_kib: u64,
}

fn zns_profile(profile: &str) -> Result<(ZnsSsdProfile, String), SwapError> {
    let src = find_profile(profile).map_err(profile_err)?;
    let model = model_of(&src).map_err(profile_err)?;
    if model != "zns-ssd" {
        return Err(SwapError::Profile(format!(
            "profile `{profile}` is a `{model}` device, not zns-ssd"
        )));
    }
    let p: ZnsSsdProfile = parse_as(&src).map_err(profile_err)?;
    Ok((p, src.source_name))
}

/// The zone and stripe geometry of a `zns-ssd` profile.
pub fn zns_geometry(profile: &str) -> Result<ZnsGeometry, SwapError> {
    let (p, _) = zns_profile(profile)?;
    let f = &p.flash;
    let unit_kib = f.page_kib as u64 * f.cell_type.bits_per_cell() as u64 * f.planes_per_die as u64;
    Ok(ZnsGeometry {
        zone_capacity_kib: p
            .zones
            .zone_capacity_kib
            .unwrap_or(p.zones.zone_capacity_mib * 1024),
        stripe_row_kib: unit_kib * p.zones.zone_stripe_dies as u64,
    })
}

/// A `zns-ssd` device from `profile` with `zones` zones; `zone_capacity_mib`
/// (None = the profile's) and `lba_format` (index into `[namespace]`) override.
/// See [`zns_device_kib`].
pub fn zns_device(
    profile: &str,
    zones: u32,
    zone_capacity_mib: Option<u64>,
    lba_format: Option<u32>,
) -> Result<Box<dyn Device>, SwapError> {
    zns_device_kib(
        profile,
        zones,
        zone_capacity_mib.map(|m| m * 1024),
        lba_format,
    )
}

/// A `zns-ssd` device from `profile` with `zones` zones of `zone_capacity_kib`
/// (None = the profile's; the zone size becomes the capacity). A zone smaller than
/// the profile's keeps the die striping and the program unit (so the write unit
/// and the parallelism of a zone are the device's); its flash blocks shrink by the
/// same factor (pages per block in whole word lines) and the block erase time with
/// them, so a zone still spans about as many blocks per die as on the real device
/// and a reset costs the same erase time per byte written.
pub fn zns_device_kib(
    profile: &str,
    zones: u32,
    zone_capacity_kib: Option<u64>,
    lba_format: Option<u32>,
) -> Result<Box<dyn Device>, SwapError> {
    let (mut p, source_name) = zns_profile(profile)?;
    p.zones.zone_count = zones;
    // A namespace of fewer zones cannot have more open/active ones.
    p.zones.max_open_zones = p.zones.max_open_zones.min(zones);
    p.zones.max_active_zones = p.zones.max_active_zones.min(zones);
    if let Some(cap_kib) = zone_capacity_kib {
        let profile_kib = p
            .zones
            .zone_capacity_kib
            .unwrap_or(p.zones.zone_capacity_mib * 1024);
        p.zones.zone_capacity_kib = Some(cap_kib);
        p.zones.zone_size_kib = Some(cap_kib);
        p.zones.zone_capacity_mib = cap_kib.div_ceil(1024);
        p.zones.zone_size_mib = p.zones.zone_capacity_mib;
        if cap_kib < profile_kib {
            let f = &mut p.flash;
            let bits = f.cell_type.bits_per_cell();
            let lines = (f.pages_per_block as f64 / bits as f64 * cap_kib as f64
                / profile_kib as f64)
                .round()
                .max(1.0) as u32;
            let ppb = lines * bits;
            f.erase_us *= ppb as f64 / f.pages_per_block as f64;
            f.pages_per_block = ppb;
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
    Ok(Box::new(ZnsSsd::new(p, &source_name).map_err(profile_err)?))
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
