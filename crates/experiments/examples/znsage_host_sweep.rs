//! Ablation and sensitivity behind `docs/znsage.md` ("Host costs"): ZNSage and
//! ZNSwap on the same zn540 (vm-scalability, GC steady state, 20-80% utilisation)
//! under host-cost variants — none (the model before issue 15), the defaults (the
//! block-request CPU measured on this machine, the cited mq-deadline lock, GC's
//! page-table walk), each component removed, and smaller per-request CPU. Prints
//! ZNSage / ZNSwap swap-out bandwidth per utilisation for each variant.
//! `cargo run --release -p zonelab-experiments --example znsage_host_sweep -- [scale] [seed]`

use zonelab_experiments::reproduce::znsage_runs::{vm_run, Geometry, Kind, Variant, VmLength};
use zonelab_systems::swap::HostCosts;

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
    let d = HostCosts::default();
    let variants: Vec<(&str, HostCosts)> = vec![
        ("no host costs", HostCosts::zero()),
        ("defaults (measured request CPU)", d),
        (
            "defaults without the mq-deadline lock",
            HostCosts {
                scheduler_lock_ns: 0,
                ..d
            },
        ),
        (
            "defaults without GC's page-table walk",
            HostCosts {
                gc_remap_page_ns: 0,
                ..d
            },
        ),
        (
            "request CPU 1/2 of measured (3.0 us)",
            HostCosts {
                request_cpu_ns: d.request_cpu_ns / 2,
                ..d
            },
        ),
        (
            "request CPU 2.2 us (twice the lock hold)",
            HostCosts {
                request_cpu_ns: 2 * d.scheduler_lock_ns,
                ..d
            },
        ),
    ];
    println!("scale {scale}, seed {seed}: ZNSage / ZNSwap swap-out bandwidth on the zn540");
    println!(
        "{:<42} {:>7} {:>7} {:>7} {:>7}",
        "variant", "20%", "40%", "60%", "80%"
    );
    for (name, host) in variants {
        let v = Variant {
            pt_update: true,
            host,
        };
        let mut row = Vec::new();
        for u in [0.2, 0.4, 0.6, 0.8] {
            let a = vm_run(Kind::ZnsageZn540, &geo, u, &v, VmLength::SteadyState, seed)
                .map_err(|e| e.to_string())?;
            let b = vm_run(Kind::Znswap, &geo, u, &v, VmLength::SteadyState, seed)
                .map_err(|e| e.to_string())?;
            row.push(a.swap_out_mib_s / b.swap_out_mib_s);
        }
        println!(
            "{name:<42} {:>7.3} {:>7.3} {:>7.3} {:>7.3}",
            row[0], row[1], row[2], row[3]
        );
    }
    Ok(())
}
