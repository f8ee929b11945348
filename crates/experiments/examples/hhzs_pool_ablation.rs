//! Ablation behind `docs/hhzs.md` ("Load: HHZS below B3"): is the load gap between
//! HHZS and B3 the WAL/cache pool (2 of the 20 SSD zones kept for the WAL and the
//! cache, §3.2) or the placement rule? Loads the same records under B3 and P, each
//! with and without the pool, and prints simulated load throughput.
//! `cargo run --release -p zonelab-experiments --example hhzs_pool_ablation -- [scale]`

use zonelab_experiments::hhzs_setup::{HybridSetup, YcsbOps, PAPER_RECORDS};
use zonelab_systems::hhzs::{BasicPlacement, PlacementPolicy, WriteGuided};
use zonelab_workloads::ycsb::CoreWorkloadSpec;

fn main() -> Result<(), String> {
    let scale: f64 = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .map_err(|_| format!("scale `{s}` is not a number"))?,
        None => 0.05,
    };
    let setup = HybridSetup::paper(scale);
    let records = ((PAPER_RECORDS as f64 * scale) as u64).max(1000);
    let spec = CoreWorkloadSpec {
        record_count: records,
        field_count: 1,
        field_length_bytes: setup.options.value_bytes,
        ..CoreWorkloadSpec::default()
    };
    type Make = fn() -> Box<dyn PlacementPolicy>;
    let cases: [(&str, Make, u32); 4] = [
        ("B3, no pool", || Box::new(BasicPlacement { h: 3 }), 0),
        ("B3, 2-zone pool", || Box::new(BasicPlacement { h: 3 }), 2),
        (
            "P, no pool",
            || Box::new(WriteGuided::hhzs(false, false)),
            0,
        ),
        (
            "P, 2-zone pool",
            || Box::new(WriteGuided::hhzs(false, false)),
            2,
        ),
    ];
    println!("load of {records} records (scale {scale}) on 20 SSD zones");
    for (name, make, pool) in cases {
        let mut db = setup.open_configured(make(), pool, false, 0)?;
        let ops = spec.load().map_err(|e| e.to_string())?;
        let s = db
            .run_ops(&mut YcsbOps { inner: ops }, 0)
            .map_err(|e| e.to_string())?;
        // Share of each class's bytes written that went to the SSD (device 0).
        let shares: Vec<String> = db
            .storage()
            .written_by_class()
            .iter()
            .map(|(class, per_device)| {
                let total: u64 = per_device.iter().sum();
                let pct = 100.0 * per_device[0] as f64 / total.max(1) as f64;
                format!("{class:?} {pct:.0}%")
            })
            .collect();
        println!(
            "{name:>16}: {:>8.0} ops/s, {} compactions, {:.0} s simulated; writes on the SSD: {}",
            s.ops_per_s,
            s.compactions,
            s.elapsed_s,
            shares.join(", ")
        );
    }
    Ok(())
}
