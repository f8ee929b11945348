//! The store's devices: a ZNS SSD and an HM-SMR HDD profile (HHZS §2.2), with
//! optional scaled-down zones, their bytes in the models' memory or in sparse
//! backing files (`<dir>/ssd.img`, `<dir>/hdd.img`, zone states in `.zones`).

use crate::config::FsConfig;
use crate::error::{FsError, FsErrorKind};
use std::path::Path;
use zonelab_devices::profile::{find_profile, ProfileSource};
use zonelab_devices::Device;
use zonelab_emulation::{open_send_source, with_zone_capacity_mib, BackedDevice, EmulationError};

/// Backing file names inside `dir`, fastest device first.
pub const BACKING_FILES: [&str; 2] = ["ssd.img", "hdd.img"];

/// The profile with its zones set to `capacity_mib` MiB
/// ([`with_zone_capacity_mib`]); a model without zone geometry is a config
/// error naming `key`.
fn with_zone_capacity(
    src: &ProfileSource,
    key: &str,
    capacity_mib: u64,
) -> Result<ProfileSource, FsError> {
    with_zone_capacity_mib(src, capacity_mib).map_err(|e| match e {
        EmulationError::ZoneScaling { message, .. } => FsError::new(
            FsErrorKind::Config,
            format!("`{key}`: {message} ({})", src.source_name),
        ),
        other => other.into(),
    })
}

/// Opened devices and the virtual time their restored zone states reached.
pub struct OpenedDevices {
    pub devices: Vec<Box<dyn Device + Send>>,
    pub restored_at_ns: u64,
    /// The SSD's zone capacity over its profile's: the emulation's scale, by
    /// which H2Zone's migration daemon times are scaled as in the experiments.
    pub ssd_zone_scale: f64,
}

/// Opens the SSD and the HDD of `cfg`.
pub fn open_devices(cfg: &FsConfig) -> Result<OpenedDevices, FsError> {
    let specs = [
        (
            &cfg.ssd_profile,
            cfg.zone_capacity_mib_ssd,
            "zone_capacity_mib_ssd",
        ),
        (
            &cfg.hdd_profile,
            cfg.zone_capacity_mib_hdd,
            "zone_capacity_mib_hdd",
        ),
    ];
    if let Some(dir) = &cfg.dir {
        std::fs::create_dir_all(dir).map_err(|e| {
            FsError::new(
                FsErrorKind::Backing,
                format!("cannot create dir `{}`: {e}", dir.display()),
            )
        })?;
    }
    let mut devices: Vec<Box<dyn Device + Send>> = Vec::new();
    let mut restored_at_ns = 0;
    let mut ssd_zone_scale = 1.0;
    for (i, (profile, cap, key)) in specs.into_iter().enumerate() {
        let mut src = find_profile(profile)?;
        let zone_capacity =
            |m: &dyn Device| m.info().zoned.as_ref().map(|z| z.zone_capacity_blocks);
        let profile_capacity = match (i, cap) {
            (0, Some(_)) => zone_capacity(open_send_source(&src)?.as_ref()),
            _ => None,
        };
        if let Some(c) = cap {
            src = with_zone_capacity(&src, key, c)?;
        }
        let model = open_send_source(&src)?;
        if let (Some(full), Some(scaled)) = (profile_capacity, zone_capacity(model.as_ref())) {
            ssd_zone_scale = scaled as f64 / full.max(1) as f64;
        }
        if model.info().zoned.is_none() {
            return Err(FsError::new(
                FsErrorKind::Config,
                format!("profile `{profile}` is not a zoned device; the zone file store needs zoned devices"),
            ));
        }
        match &cfg.dir {
            None => devices.push(model),
            Some(dir) => {
                let d = BackedDevice::open(model, &Path::new(dir).join(BACKING_FILES[i]))?;
                restored_at_ns = restored_at_ns.max(d.restored_at_ns());
                devices.push(Box::new(d));
            }
        }
    }
    Ok(OpenedDevices {
        devices,
        restored_at_ns,
        ssd_zone_scale,
    })
}
