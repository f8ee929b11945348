//! Ablation behind docs/hhzs.md ("P+M against P on W1 and W3"): which kind of
//! workload-aware migration (§3.4) helps or hurts on Exp#2's W1 (10 % reads,
//! α = 0.9) and W3 (50 % reads, α = 1.2). Loads P+M once at `scale`, then runs each
//! mix from forks of that state (closed and reopened, as `reproduce hhzs` does) with
//! no migration (= P's policy on P+M's loaded state), capacity migration only,
//! popularity migration only, and both (= P+M).
//! `cargo run --release -p zonelab-experiments --example hhzs_migration_ablation -- [scale] [seed]`

use zonelab_engine::RngStreams;
use zonelab_experiments::hhzs_eval::{open_scheme, Scheme};
use zonelab_experiments::hhzs_setup::{HybridSetup, YcsbOps, PAPER_RECORDS};
use zonelab_systems::hhzs::WriteGuided;
use zonelab_workloads::ycsb::custom;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let scale: f64 = match args.next() {
        Some(s) => s
            .parse()
            .map_err(|_| format!("scale `{s}` is not a number"))?,
        None => 0.05,
    };
    let seed: u64 = match args.next() {
        Some(s) => s
            .parse()
            .map_err(|_| format!("seed `{s}` is not a number"))?,
        None => 1,
    };
    let setup = HybridSetup::paper(scale);
    let records = ((PAPER_RECORDS as f64 * scale) as u64).max(1000);
    let ops = ((5_000_000.0 * scale) as u64).max(20_000);
    let spec = setup.load_spec(records);
    let mut db = open_scheme(&setup, Scheme::PM)?;
    let load = db
        .run_ops(
            &mut YcsbOps {
                inner: spec.load().map_err(|e| e.to_string())?,
            },
            0,
        )
        .map_err(|e| e.to_string())?;
    println!(
        "P+M load of {records} records (scale {scale}): {:.0} ops/s; {ops} ops per mix, run seed {seed}",
        load.ops_per_s
    );
    let variants: [(&str, bool, bool); 4] = [
        ("none (P)", false, false),
        ("capacity only", true, false),
        ("popularity only", false, true),
        ("both (P+M)", true, true),
    ];
    for (mix, reads, alpha) in [("W1", 0.1, 0.9), ("W3", 0.5, 1.2)] {
        for (name, capacity, popularity) in variants {
            let mut policy = WriteGuided::hhzs(true, false);
            policy.no_capacity_migration = !capacity;
            policy.no_popularity_migration = !popularity;
            let mut store = db.storage().try_clone().map_err(|e| e.to_string())?;
            store.set_policy(Box::new(policy));
            let mut fork = db.fork_with(store);
            fork.reopen().map_err(|e| e.to_string())?;
            let mut w = custom(reads, alpha).map_err(|e| e.to_string())?;
            w.record_count = records;
            w.operation_count = ops;
            w.field_count = 1;
            w.field_length_bytes = setup.options.value_bytes;
            let run = w.run(&RngStreams::new(seed)).map_err(|e| e.to_string())?;
            let s = fork
                .run_ops(&mut YcsbOps { inner: run }, 0)
                .map_err(|e| e.to_string())?;
            let m = fork.storage().migration_stats();
            let ssd_l2 = {
                let mut on = [0u64; 2];
                for sst in fork.storage().view(fork.now_ns()).ssts {
                    if sst.level == 2 {
                        on[(sst.device != 0) as usize] += 1;
                    }
                }
                100.0 * on[0] as f64 / (on[0] + on[1]).max(1) as f64
            };
            println!(
                "{mix} {name:>16}: {:>8.0} ops/s, {} migrations up, {} down; L2 on the SSD at the end {ssd_l2:.0} %",
                s.ops_per_s, m.to_ssd, m.to_hdd
            );
        }
    }
    Ok(())
}
