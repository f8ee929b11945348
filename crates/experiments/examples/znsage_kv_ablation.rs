//! Ablation behind `docs/znsage.md` ("Fig. 9"): what makes ZNSage's Memcached-YCSB
//! throughput drop (100% -> 50% memory) smaller for 50/50 than for 95/5? Runs
//! ZNSage (sk-hynix-zns) with YCSB's REPLACE of the updated field and per-op costs
//! (the defaults), with one cost for reads and updates, with updates written in
//! place, and with both (the model before issue 15). Prints the drops.
//! `cargo run --release -p zonelab-experiments --example znsage_kv_ablation -- [scale] [seed]`

use zonelab_experiments::reproduce::znsage_runs::{kv_run_with, Geometry, Kind, KV_REQUEST_US};
use zonelab_systems::swap::workloads::KvOpCosts;
use zonelab_workloads::ycsb::{workload_a, workload_b};

fn main() -> Result<(), String> {
    let arg = |i: usize, default: f64| -> Result<f64, String> {
        match std::env::args().nth(i) {
            Some(s) => s.parse().map_err(|_| format!("`{s}` is not a number")),
            None => Ok(default),
        }
    };
    let scale = arg(1, 0.1)?;
    let seed = arg(2, 0.0)? as u64;
    let geo = Geometry::at(scale);
    let uniform = KvOpCosts::uniform(zonelab_engine::ms_to_ns(KV_REQUEST_US / 1000.0));
    let variants: [(&str, Option<KvOpCosts>, bool); 4] = [
        ("REPLACE, reads/updates costed apart", None, false),
        ("REPLACE, one cost", Some(uniform), false),
        ("in place, reads/updates costed apart", None, true),
        ("in place, one cost (before issue 15)", Some(uniform), true),
    ];
    println!("scale {scale}, seed {seed}: ZNSage throughput drop, 100% -> 50% memory");
    println!(
        "{:<40} {:>9} {:>9} {:>11} {:>11}",
        "variant", "95/5 %", "50/50 %", "95/5 kops", "50/50 kops"
    );
    for (name, costs, in_place) in variants {
        let mut drops = Vec::new();
        let mut full = Vec::new();
        for spec in [workload_b(), workload_a()] {
            let mut t = [0.0; 2];
            for (i, share) in [1.0, 0.5].into_iter().enumerate() {
                t[i] = kv_run_with(
                    Kind::Znsage,
                    &geo,
                    scale,
                    spec.clone(),
                    share,
                    costs,
                    in_place,
                    seed,
                )
                .map_err(|e| e.to_string())?
                .0;
            }
            drops.push((1.0 - t[1] / t[0]) * 100.0);
            full.push(t[0] / 1e3);
        }
        println!(
            "{name:<40} {:>9.1} {:>9.1} {:>11.1} {:>11.1}",
            drops[0], drops[1], full[0], full[1]
        );
    }
    Ok(())
}
