//! Isolates the Fig. 10(a) update-TPS miss (docs/conzone.md): mobibench-like
//! SQLite updates (WAL, synchronous=FULL) on the F2FS-like model over
//! `conzone-plus-tlc` (zoned, `mode=lfs`) and `conzone-plus-tlc-block`
//! (`mode=adaptive`), with the host CPU time per transaction swept. The I/O each
//! setup adds per transaction is fixed by the file system and device; the
//! block / zoned TPS ratio then falls as host time grows, which shows how much
//! of the paper's smaller gap host time (SQLite and F2FS CPU, not modelled
//! beyond a measured 9.2 us) would have to explain.
//!
//! Run (take the machine lock):
//!     flock /work/.heavy.lock cargo run --release -p zonelab-experiments \
//!         --example fig10_cpu_sweep -- [transactions] [cpu_us...]
//! Defaults: 100,000 updates; 9.2 (measured), 50, 100, 200 and 400 us.

use zonelab_devices::models::conzone::ConZonePlus;
use zonelab_devices::profile::find_profile;
use zonelab_engine::{RngStreams, NS_PER_S};
use zonelab_systems::f2fs::{
    CleaningPolicy, ConZonePlusStorage, F2fsBlock, F2fsZoned, FsConfig, FsMode, FsSim, SimOptions,
};
use zonelab_workloads::files::{SqliteOp, SqliteWal, SqliteWalSpec};

/// Transactions per second and microseconds per transaction.
fn tps(zoned: bool, tx: u64, cpu_ns: u64) -> Result<(f64, f64), String> {
    let profile = if zoned {
        "conzone-plus-tlc"
    } else {
        "conzone-plus-tlc-block"
    };
    let src = find_profile(profile).map_err(|e| e.to_string())?;
    let mut st = ConZonePlusStorage {
        dev: ConZonePlus::from_profile(&src).map_err(|e| e.to_string())?,
    };
    let (cfg, policy): (FsConfig, Box<dyn CleaningPolicy>) = if zoned {
        (FsConfig::new(FsMode::Lfs), Box::new(F2fsZoned::new()))
    } else {
        let cfg = FsConfig::new(FsMode::Adaptive);
        let p = Box::new(F2fsBlock::new(cfg.idle_interval_ns));
        (cfg, p)
    };
    let mut sim =
        FsSim::new(cfg, &mut st, policy, SimOptions::default()).map_err(|e| e.to_string())?;
    let mut spec = SqliteWalSpec::new(SqliteOp::Update, tx);
    spec.cpu_per_tx_ns = cpu_ns;
    let rng = RngStreams::new(1).stream("fig10.Update");
    sim.add_job(Box::new(SqliteWal::new(spec, rng)), 0);
    let r = sim.run().map_err(|e| e.to_string())?;
    let j = r.first().ok_or("no job")?;
    let rate = j.rate_per_s();
    Ok((rate, NS_PER_S as f64 / rate / 1e3))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let tx: u64 = args
        .next()
        .map(|s| s.parse().expect("transactions must be a number"))
        .unwrap_or(100_000);
    let mut cpus: Vec<f64> = args
        .map(|s| s.parse().expect("cpu_us must be numbers"))
        .collect();
    if cpus.is_empty() {
        cpus = vec![9.2, 50.0, 100.0, 200.0, 400.0];
    }
    println!("cpu_us  zoned_TPS  block_TPS  zoned_us/tx  block_us/tx  block/zoned");
    for c in cpus {
        let ns = (c * 1e3).round() as u64;
        match (tps(true, tx, ns), tps(false, tx, ns)) {
            (Ok((z, zu)), Ok((b, bu))) => println!(
                "{c:>6.1} {z:>10.0} {b:>10.0} {zu:>12.1} {bu:>12.1} {:>12.3}",
                b / z
            ),
            (z, b) => println!("{c:>6.1} error: {z:?} {b:?}"),
        }
    }
}
