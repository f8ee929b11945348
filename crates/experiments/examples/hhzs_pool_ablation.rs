//! Ablation behind `docs/hhzs.md` ("Load: HHZS below B3"): is the load gap between
//! HHZS and B3 the WAL/cache pool (2 of the 20 SSD zones kept for the WAL and the
//! cache, §3.2) or the placement rule? Loads the same records under B3 and P, each
//! with and without the pool, and prints simulated load throughput. A fifth case,
//! B3 with its WAL always on the HDD, bounds how much B3's load owes to its WAL
//! reaching the SSD (the paper's B3 wrote 68.2 % of its WAL to the HDD, Fig. 2(b)).
//! A sixth, P with the pool but RocksDB's default `max_total_wal_size` (no flush
//! forced when the live WAL outgrows the pool), separates the pool's zones from
//! the WAL cap issue 14 asked for.
//! `cargo run --release -p zonelab-experiments --example hhzs_pool_ablation -- [scale]`

use zonelab_experiments::hhzs_setup::{HybridSetup, YcsbOps, PAPER_RECORDS};
use zonelab_systems::hhzs::{BasicPlacement, PlacementPolicy, StoreView, WriteGuided};
use zonelab_systems::lsm::FileKind;

/// Bh with the WAL always on the HDD (an ablation of B3's WAL placement).
#[derive(Clone)]
struct WalOnHdd(BasicPlacement);

impl PlacementPolicy for WalOnHdd {
    fn name(&self) -> String {
        format!("{}, WAL on the HDD", self.0.name())
    }
    fn devices_for(&mut self, kind: FileKind, view: &StoreView) -> Vec<usize> {
        match kind {
            FileKind::Wal => (1..view.devices.len()).collect(),
            _ => self.0.devices_for(kind, view),
        }
    }
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }
}

fn main() -> Result<(), String> {
    let scale: f64 = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .map_err(|_| format!("scale `{s}` is not a number"))?,
        None => 0.05,
    };
    let setup = HybridSetup::paper(scale);
    let records = ((PAPER_RECORDS as f64 * scale) as u64).max(1000);
    let spec = setup.load_spec(records);
    type Make = fn() -> Box<dyn PlacementPolicy>;
    let cases: [(&str, Make, u32); 6] = [
        ("B3, no pool", || Box::new(BasicPlacement { h: 3 }), 0),
        ("B3, 2-zone pool", || Box::new(BasicPlacement { h: 3 }), 2),
        (
            "B3, WAL on HDD",
            || Box::new(WalOnHdd(BasicPlacement { h: 3 })),
            0,
        ),
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
        (
            "P, pool, no WAL cap",
            || Box::new(WriteGuided::hhzs(false, false)),
            2,
        ),
    ];
    println!("load of {records} records (scale {scale}) on 20 SSD zones");
    for (name, make, pool) in cases {
        let mut setup = setup.clone();
        setup.wal_cap_from_pool = !name.ends_with("no WAL cap");
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
            "{name:>20}: {:>8.0} ops/s, {} compactions, {:.0} s simulated, {} WAL-full flushes, WAL outside the pool {:.2} GiB; writes on the SSD: {}",
            s.ops_per_s,
            s.compactions,
            s.elapsed_s,
            db.counters().wal_full_flushes,
            db.storage().wal_outside_pool_bytes() as f64 / scale / (1u64 << 30) as f64,
            shares.join(", ")
        );
    }
    Ok(())
}
