//! The store's devices: a ZNS SSD and an HM-SMR HDD profile (HHZS §2.2), with
//! optional scaled-down zones, their bytes in the models' memory or in sparse
//! backing files (`<dir>/ssd.img`, `<dir>/hdd.img`, zone states in `.zones`).

use crate::config::FsConfig;
use crate::error::{FsError, FsErrorKind};
use std::path::Path;
use zonelab_devices::profile::{find_profile, model_of, ProfileSource};
use zonelab_devices::Device;
use zonelab_emulation::{open_send_source, BackedDevice};

/// Backing file names inside `dir`, fastest device first.
pub const BACKING_FILES: [&str; 2] = ["ssd.img", "hdd.img"];

/// The profile `name` with its zones set to `capacity_mib` MiB: a ZNS profile
/// gets that zone capacity (and the next power of two as zone size), a zoned HDD
/// that zone size.
fn with_zone_capacity(
    src: &ProfileSource,
    key: &str,
    capacity_mib: u64,
) -> Result<ProfileSource, FsError> {
    let model = model_of(src)?;
    let mut v: toml::Table = toml::from_str(&src.text).map_err(|e| {
        FsError::new(
            FsErrorKind::Profile,
            format!("profile `{}`: {}", src.source_name, e.message()),
        )
    })?;
    let zones = v
        .get_mut("zones")
        .and_then(|z| z.as_table_mut())
        .ok_or_else(|| {
            FsError::new(
                FsErrorKind::Profile,
                format!("profile `{}` has no [zones] table", src.source_name),
            )
        })?;
    let mib = |x: u64| toml::Value::Integer(x as i64);
    match model.as_str() {
        "zns-ssd" => {
            zones.insert("zone_capacity_mib".into(), mib(capacity_mib));
            zones.insert(
                "zone_size_mib".into(),
                mib(capacity_mib.next_power_of_two()),
            );
        }
        "hm-smr-hdd" => {
            zones.insert("zone_size_mib".into(), mib(capacity_mib));
        }
        other => {
            return Err(FsError::new(
                FsErrorKind::Config,
                format!(
                    "`{key}` works with zns-ssd and hm-smr-hdd profiles, not `{other}` ({})",
                    src.source_name
                ),
            ))
        }
    }
    Ok(ProfileSource {
        source_name: format!("{} ({key} = {capacity_mib})", src.source_name),
        text: toml::to_string(&v).map_err(|e| FsError::new(FsErrorKind::Profile, e.to_string()))?,
    })
}

/// Opened devices and the virtual time their restored zone states reached.
pub struct OpenedDevices {
    pub devices: Vec<Box<dyn Device + Send>>,
    pub restored_at_ns: u64,
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
    for (i, (profile, cap, key)) in specs.into_iter().enumerate() {
        let mut src = find_profile(profile)?;
        if let Some(c) = cap {
            src = with_zone_capacity(&src, key, c)?;
        }
        let model = open_send_source(&src)?;
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
    })
}
