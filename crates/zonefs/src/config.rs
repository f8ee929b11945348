//! The store's TOML configuration (docs/c-api.md, "Zone file store config"):
//! devices, placement policy, zone budget and the HHZS parameters, parsed with
//! serde; unknown keys and out-of-range values are one-line errors naming the key.
//!
//! Defaults cite their source: the devices and the 20-zone SSD budget are HHZS's
//! set-up (§2.2, §2.3), 2 WAL/cache zones and migration at 4 MiB/s are §4.1
//! (`crates/experiments/src/hhzs_eval.rs`), 2 log zones follow ZenFS's minimum
//! of metadata zones.

use crate::error::{FsError, FsErrorKind};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use zonelab_systems::hhzs::journal::DEFAULT_LOG_ZONES;
use zonelab_systems::hhzs::Scheme;

/// A parsed config file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FsConfig {
    /// Directory of the backing files (`ssd.img`, `hdd.img` and their `.zones`);
    /// relative paths are relative to the config file. Absent: everything lives
    /// in memory and nothing persists.
    pub dir: Option<PathBuf>,
    pub ssd_profile: String,
    pub hdd_profile: String,
    /// hhzs (default), p+m, p, b3+m, auto, b1..b9.
    pub policy: String,
    pub ssd_zone_budget: u32,
    /// Wall-clock time per modelled time (>= 1).
    pub time_dilation: f64,
    pub migration_rate_mib_s: f64,
    /// Zone capacity of the SSD in MiB (scaled-down zones); absent: the profile's.
    pub zone_capacity_mib_ssd: Option<u64>,
    /// Zone size of the HDD in MiB; absent: the profile's.
    pub zone_capacity_mib_hdd: Option<u64>,
    pub wal_cache_zones: u32,
    /// SSD zones of the metadata log (outside the budget, >= 2).
    pub log_zones: u32,
}

/// HHZS §2.3: the SSD zones the store may use.
pub const DEFAULT_SSD_ZONE_BUDGET: u32 = 20;
/// HHZS §4.1: migration rate.
pub const DEFAULT_MIGRATION_MIB_S: f64 = 4.0;
/// HHZS §4.1: WAL + cache zones.
pub const DEFAULT_WAL_CACHE_ZONES: u32 = 2;

impl Default for FsConfig {
    fn default() -> Self {
        FsConfig {
            dir: None,
            ssd_profile: "zn540".into(),
            hdd_profile: "st14000nm0007".into(),
            policy: "hhzs".into(),
            ssd_zone_budget: DEFAULT_SSD_ZONE_BUDGET,
            time_dilation: 1.0,
            migration_rate_mib_s: DEFAULT_MIGRATION_MIB_S,
            zone_capacity_mib_ssd: None,
            zone_capacity_mib_hdd: None,
            wal_cache_zones: DEFAULT_WAL_CACHE_ZONES,
            log_zones: DEFAULT_LOG_ZONES,
        }
    }
}

fn config_err(path: &str, msg: impl std::fmt::Display) -> FsError {
    FsError::new(FsErrorKind::Config, format!("config `{path}`: {msg}"))
}

impl FsConfig {
    /// The placement scheme `policy` names (the simulation's schemes, HHZS §2.3,
    /// §3.3–§3.5, §4.1).
    pub fn scheme(&self) -> Result<Scheme, String> {
        self.policy.parse::<Scheme>().map_err(|_| {
            format!(
                "`policy` = \"{}\" is unknown (allowed: hhzs, p+m, p, b3+m, auto, b1..b9)",
                self.policy
            )
        })
    }

    /// Reads and validates a config file; `dir` becomes relative to its folder.
    pub fn load(path: &Path) -> Result<Self, FsError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| config_err(&shown, e))?;
        let mut cfg = Self::parse(&text, &shown)?;
        if let (Some(dir), Some(parent)) = (cfg.dir.as_ref(), path.parent()) {
            if dir.is_relative() {
                cfg.dir = Some(parent.join(dir));
            }
        }
        Ok(cfg)
    }

    /// Parses and validates config text (`source` names it in errors).
    pub fn parse(text: &str, source: &str) -> Result<Self, FsError> {
        let cfg: FsConfig = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|r| {
                    format!(
                        " (line {})",
                        text[..r.start.min(text.len())].lines().count().max(1)
                    )
                })
                .unwrap_or_default();
            config_err(source, format!("{}{line}", e.message().replace('\n', " ")))
        })?;
        cfg.validate(source)?;
        Ok(cfg)
    }

    fn validate(&self, source: &str) -> Result<(), FsError> {
        let bad = |key: &str, value: String, allowed: &str| {
            Err(config_err(
                source,
                format!("`{key}` = {value} is out of range (allowed: {allowed})"),
            ))
        };
        if !(self.time_dilation.is_finite() && self.time_dilation >= 1.0) {
            return bad(
                "time_dilation",
                self.time_dilation.to_string(),
                "a number >= 1",
            );
        }
        if self.ssd_zone_budget == 0 {
            return bad("ssd_zone_budget", "0".into(), ">= 1");
        }
        if !(self.migration_rate_mib_s.is_finite() && self.migration_rate_mib_s >= 0.0) {
            return bad(
                "migration_rate_mib_s",
                self.migration_rate_mib_s.to_string(),
                ">= 0 (0: no migration)",
            );
        }
        if self.log_zones < 2 {
            return bad("log_zones", self.log_zones.to_string(), ">= 2");
        }
        for (key, v) in [
            ("zone_capacity_mib_ssd", self.zone_capacity_mib_ssd),
            ("zone_capacity_mib_hdd", self.zone_capacity_mib_hdd),
        ] {
            if let Some(v) = v {
                if !(1..=1 << 16).contains(&v) {
                    return bad(key, v.to_string(), "1..=65536");
                }
            }
        }
        self.scheme().map_err(|e| config_err(source, e))?;
        Ok(())
    }
}
