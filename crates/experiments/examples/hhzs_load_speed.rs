//! Benchmark: one HHZS paper load (YCSB load of 200 GiB of 1 KiB objects by default)
//! on ZN540 (20 zones) + ST14000NM0007 with placement Bh, printing simulated and wall
//! time. `cargo run --release -p zonelab-experiments --example hhzs_load_speed -- [scale] [h]`

use std::time::Instant;
use zonelab_experiments::hhzs_setup::{HybridSetup, YcsbOps, PAPER_RECORDS};
use zonelab_systems::hhzs::BasicPlacement;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scale: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1.0);
    let h: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let setup = HybridSetup::paper(scale);
    let records = (PAPER_RECORDS as f64 * scale) as u64;
    let mut db = setup.open(Box::new(BasicPlacement { h })).expect("open");
    let spec = setup.load_spec(records);
    let wall = Instant::now();
    let s = db
        .run_ops(
            &mut YcsbOps {
                inner: spec.load().expect("spec"),
            },
            0,
        )
        .expect("load");
    let secs = wall.elapsed().as_secs_f64();
    println!(
        "B{h} load of {records} records: {:.0} s simulated ({:.0} ops/s), {} compactions; wall {:.1} s = {:.2} M puts/s",
        s.elapsed_s,
        s.ops_per_s,
        s.compactions,
        secs,
        records as f64 / secs / 1e6
    );
}
