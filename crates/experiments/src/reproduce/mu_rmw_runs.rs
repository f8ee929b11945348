//! The runs behind targets `mu-rmw` and `mu-rmw-sensitivity`: the EF-SMR device
//! resized for a scale, and one replay of each Table I trace (real or look-alike)
//! under each STL on a fresh device.
//!
//! Scale shrinks the look-alike traces' counts (and so their footprints), the
//! number of bands and the flash cache together — 256 bands and 640 blocks at
//! scale 1, at least 4 bands and 16 blocks — so that the ratios the STLs' costs
//! come from stay those of the paper's setup: footprint per band, cache blocks per
//! band (2.5), writes between Skylight cleanings per band of its PC zone. Bands
//! keep their 40 MiB (so an RMW costs what it costs at scale 1), and PORE's period
//! stays one PC zone (`pore.rs`). Real traces are replayed whole on the
//! unscaled device.

use super::ReproduceError;
use crate::replay::{run_replay, GeneratedTrace, ReplayMode, ReplayOptions};
use crate::run_result::RunResult;
use std::path::Path;
use zonelab_devices::models::ef_smr::pore::PoreEviction;
use zonelab_devices::models::ef_smr::{EfSmr, EfSmrProfile, StlPolicy};
use zonelab_devices::profile::{find_profile, parse_as};
use zonelab_devices::Device;
use zonelab_engine::{RngStreams, NS_PER_S};
use zonelab_workloads::synth::{LookalikeOptions, SynthTrace, TraceProfile, MSR_TABLE_I};
use zonelab_workloads::trace::{TraceFormat, TraceOptions, TraceReader};

/// One (trace, STL) replay's measurements.
#[derive(Debug, Clone, Copy, Default)]
pub struct Measured {
    pub avg_rt_ns: f64,
    pub waf: f64,
    pub cleanings: u64,
    /// Average cleaning time (Fig. 8).
    pub act_ns: f64,
    pub wcrt_ns: f64,
    pub rmws: u64,
    /// Mean actuator time of one RMW.
    pub rmw_mean_ns: f64,
    /// Cleanings that wrote a band back.
    pub rmw_cleanings: u64,
}

impl Measured {
    fn from_run(r: &RunResult) -> Self {
        let c = &r.device_stats.counters;
        let get = |k: &str| c.get(k).copied().unwrap_or(0);
        let per = |total: u64, n: u64| if n > 0 { total as f64 / n as f64 } else { 0.0 };
        Measured {
            avg_rt_ns: r.latency.mean_ns,
            waf: r.device_stats.write_amplification,
            cleanings: get("cleanings"),
            act_ns: per(get("cleaning_ns_total"), get("cleanings")),
            wcrt_ns: r.latency.max_ns as f64,
            rmws: get("rmws"),
            rmw_mean_ns: per(get("rmw_ns_total"), get("rmws")),
            rmw_cleanings: get("rmw_cleanings"),
        }
    }
}

/// What the device and the look-alikes are, beyond the STL.
#[derive(Debug, Clone, Copy)]
pub struct Setup {
    pub scale: f64,
    /// Replaying real traces: the device keeps the paper's size.
    pub real_traces: bool,
    /// Flash dies, if not the profile's.
    pub chips: Option<u32>,
    /// Ablation: every band RMW takes this long (`bands.rmw_fixed_ms`).
    pub rmw_fixed_ms: Option<f64>,
    /// How look-alikes are drawn.
    pub lookalike: LookalikeOptions,
    /// PORE's period in Skylight PC zones (1: the profile's choice, `pore.rs`).
    pub pore_period_zones: f64,
    /// Ablation: PORE writes back its whole OPEN region at every cleaning.
    pub pore_evicts_open_region: bool,
    /// Ablation: MU-RMW's sub-tables in RAM (no OOB reads).
    pub mu_rmw_sub_tables_in_ram: bool,
}

impl Setup {
    /// The paper's setup at `scale`.
    pub fn paper(scale: f64, real_traces: bool) -> Self {
        Self {
            scale,
            real_traces,
            chips: None,
            rmw_fixed_ms: None,
            lookalike: LookalikeOptions::default(),
            pore_period_zones: 1.0,
            pore_evicts_open_region: false,
            mu_rmw_sub_tables_in_ram: false,
        }
    }
}

/// The `ef-smr` profile resized for `setup` (module doc), running `policy`.
pub fn device(policy: StlPolicy, setup: Setup) -> Result<EfSmr, ReproduceError> {
    let err = |e: zonelab_devices::ProfileError| ReproduceError::Run(e.to_string());
    let src = find_profile("ef-smr").map_err(err)?;
    let mut p: EfSmrProfile = parse_as(&src).map_err(err)?;
    p.stl.policy = policy;
    if let Some(chips) = setup.chips {
        p.flash_cache.chips = chips;
    }
    p.bands.rmw_fixed_ms = setup.rmw_fixed_ms;
    if setup.pore_evicts_open_region {
        p.stl.pore_eviction = PoreEviction::OpenRegion;
    }
    p.stl.mu_rmw_sub_tables_in_ram = setup.mu_rmw_sub_tables_in_ram;
    if !setup.real_traces && setup.scale < 1.0 {
        let zones = p.stl.skylight_pc_zones;
        let bands = ((p.bands.band_count as f64 * setup.scale).round() as u32).max(4);
        let blocks = ((p.flash_cache.blocks as f64 * setup.scale).round() as u32).max(16);
        p.bands.band_count = bands;
        p.flash_cache.blocks = blocks.div_ceil(zones) * zones;
    }
    // PORE's period: one Skylight PC zone (`pore.rs`), or as many as asked.
    let zone_sectors =
        p.flash_cache.blocks / p.stl.skylight_pc_zones * p.flash_cache.pages_per_block;
    p.stl.pore_period_sectors =
        ((zone_sectors as f64 * setup.pore_period_zones).round() as u32).max(1);
    EfSmr::new(p, "ef-smr").map_err(err)
}

/// Replays `profile`'s trace (the real one from `traces_dir`, else a look-alike)
/// on a fresh device running `policy`.
pub fn run_trace(
    profile: &TraceProfile,
    policy: StlPolicy,
    setup: Setup,
    seed: u64,
    traces_dir: Option<&Path>,
) -> Result<Measured, ReproduceError> {
    let mut dev = device(policy, setup)?;
    let replay = ReplayOptions {
        mode: ReplayMode::OpenLoop { speed: 1.0 },
        series_interval_ns: 3600 * NS_PER_S,
        limit: None,
        fold_to_capacity: true,
        ..ReplayOptions::default()
    };
    let config = serde_json::json!({ "trace": profile.name, "stl": policy.name() });
    let fail = |e: crate::replay::ReplayError| {
        ReproduceError::Run(format!("{} on {}: {e}", profile.name, policy.name()))
    };
    let run = match traces_dir {
        Some(dir) => {
            let path = dir.join(format!("{}.csv", profile.name));
            let mut reader = TraceReader::open(&path, TraceFormat::Msr, TraceOptions::default())
                .map_err(|e| ReproduceError::Run(e.to_string()))?;
            run_replay(&mut dev, &mut reader, &replay, config, None).map_err(fail)?
        }
        None => {
            let capacity = dev.info().capacity_bytes();
            let rng = RngStreams::new(seed).stream(&format!("synth.{}", profile.name));
            let records =
                SynthTrace::with_options(*profile, setup.scale, capacity, setup.lookalike, rng)
                    .map_err(ReproduceError::Run)?;
            let mut source = GeneratedTrace {
                name: format!("look-alike {}", profile.name),
                records,
                count: 0,
            };
            run_replay(&mut dev, &mut source, &replay, config, None).map_err(fail)?
        }
    };
    Ok(Measured::from_run(&run))
}

/// Every Table I trace under every STL: `[trace][Skylight, PORE, MU-RMW]`.
pub fn run_all(
    setup: Setup,
    seed: u64,
    traces_dir: Option<&Path>,
    mut step: impl FnMut(&str),
) -> Result<Vec<[Measured; 3]>, ReproduceError> {
    let mut results = vec![[Measured::default(); 3]; MSR_TABLE_I.len()];
    for (ti, profile) in MSR_TABLE_I.iter().enumerate() {
        for (si, policy) in StlPolicy::ALL.iter().enumerate() {
            step(&format!("{} / {}", profile.name, policy.name()));
            results[ti][si] = run_trace(profile, *policy, setup, seed, traces_dir)?;
        }
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_shrinks_bands_and_cache_together_and_keeps_pore_at_one_pc_zone() {
        let paper = device(StlPolicy::Pore, Setup::paper(1.0, false)).unwrap();
        let small = device(StlPolicy::Pore, Setup::paper(0.1, false)).unwrap();
        let real = device(StlPolicy::Pore, Setup::paper(0.1, true)).unwrap();
        let geometry = |d: &EfSmr| {
            let hw = d.hardware();
            (hw.disk.bands, hw.flash.params.blocks)
        };
        assert_eq!(geometry(&paper), (256, 640));
        assert_eq!(geometry(&small), (26, 64));
        assert_eq!(
            geometry(&real),
            (256, 640),
            "real traces run on the paper's disk"
        );
        // Bands keep their 40 MiB.
        assert_eq!(small.hardware().disk.band_sectors, 10_240);
        let tiny = device(StlPolicy::MuRmw, Setup::paper(0.001, false)).unwrap();
        assert_eq!(geometry(&tiny), (4, 16));
        let two = device(
            StlPolicy::MuRmw,
            Setup {
                chips: Some(2),
                ..Setup::paper(1.0, false)
            },
        )
        .unwrap();
        assert_eq!(two.hardware().flash.params.units(), 2);
    }
}
