//! Isolates the Fig. 11 file-system WAF miss (docs/conzone.md): §6.4's fill +
//! random-update run on the F2FS-like model over `conzone-plus-tlc`, zoned and
//! zoned-config cleaning, with the zoned namespace shrunk so the same 2 GiB file
//! fills more of the file system. Prints, per zone count, the file's share of
//! the usable space, FS WAF, GC MiB by cleaner and the valid share of the GC
//! victims' windows.
//!
//! Greedy foreground cleaning (all that zoned-config runs) cannot pick a victim
//! fuller than the mean of the non-free sections, so its WAF is bounded by the
//! fill level; this sweep shows how FS WAF moves with it.
//!
//! Run (take the machine lock):
//!     flock /work/.heavy.lock cargo run --release -p zonelab-experiments \
//!         --example fig11_fill_sweep -- [file_mib] [direct_io_us] [zone counts...]
//! Defaults: a 2,048 MiB file, a 27.4 us direct-I/O host path (the value
//! `reproduce conzone --scale 1` calibrates and prints in its notes), 42 (the
//! profile), 36 and 32 zones.

use zonelab_devices::models::conzone::{ConZonePlus, ConZoneProfile};
use zonelab_devices::profile::{find_profile, parse_as};
use zonelab_engine::{MIB, NS_PER_MS};
use zonelab_experiments::reproduce::fig11_phases;
use zonelab_systems::f2fs::{
    CleaningPolicy, ConZonePlusStorage, F2fsZoned, FsConfig, FsError, FsMode, FsSim, HostCosts,
    SimOptions,
};

fn run(zones: u32, file_mib: u64, direct_io_ns: u64, config: bool) -> Result<String, String> {
    let src = find_profile("conzone-plus-tlc").map_err(|e| e.to_string())?;
    let mut p: ConZoneProfile = parse_as(&src).map_err(|e| e.to_string())?;
    p.zones.as_mut().ok_or("profile has no zones")?.zone_count = zones;
    let mut st = ConZonePlusStorage {
        dev: ConZonePlus::new(p, "conzone-plus-tlc").map_err(|e| e.to_string())?,
    };
    let policy: Box<dyn CleaningPolicy> = if config {
        Box::new(F2fsZoned::zoned_config())
    } else {
        Box::new(F2fsZoned::new())
    };
    let opts = SimOptions {
        sample_every_ns: 1000 * NS_PER_MS,
        host: HostCosts {
            direct_io_ns,
            ..HostCosts::measured()
        },
        ..SimOptions::default()
    };
    let mut sim =
        FsSim::new(FsConfig::new(FsMode::Lfs), &mut st, policy, opts).map_err(|e| e.to_string())?;
    let user_mib = sim.fs.user_blocks as f64 * 4096.0 / MIB as f64;
    let mut outcome = "done".to_string();
    let mut t = 0;
    let phases = fig11_phases(file_mib * MIB, 1);
    for w in phases {
        sim.add_job(w, t);
        match sim.run() {
            Ok(r) => t = r.iter().map(|j| j.end_ns).max().unwrap_or(t),
            Err(FsError::NoSpace(e)) => {
                outcome = format!("no space: {e}");
                break;
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    let s = sim.fs.stats;
    let mib = |b: u64| b as f64 * 4096.0 / MIB as f64;
    let moved = s.gc_data_blocks + s.gc_node_blocks;
    Ok(format!(
        "{zones:>5} {:>7.0} {:>6.1} {:<12} {:>6.2} {:>9.0} {:>9.0} {:>7.1}  {outcome}",
        user_mib,
        file_mib as f64 * 100.0 / user_mib,
        if config { "zoned-config" } else { "zoned" },
        s.fs_waf(),
        mib(s.fg_gc_blocks),
        mib(moved - s.fg_gc_blocks),
        moved as f64 * 100.0 / s.gc_window_blocks.max(1) as f64,
    ))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let file_mib: u64 = args
        .next()
        .map(|s| s.parse().expect("file_mib must be a number"))
        .unwrap_or(2048);
    let direct_io_us: f64 = args
        .next()
        .map(|s| s.parse().expect("direct_io_us must be a number"))
        .unwrap_or(27.4);
    let mut zones: Vec<u32> = args
        .map(|s| s.parse().expect("zone counts must be numbers"))
        .collect();
    if zones.is_empty() {
        zones = vec![42, 36, 32];
    }
    println!("zones userMiB  fill%  setup        FS_WAF  fgGC_MiB  bgGC_MiB  valid%  outcome");
    for z in zones {
        for config in [true, false] {
            match run(z, file_mib, (direct_io_us * 1e3).round() as u64, config) {
                Ok(line) => println!("{line}"),
                Err(e) => println!("{z:>5} error: {e}"),
            }
        }
    }
}
