//! Simulation speed of the swap model: ZNSage on the sk-hynix-zns profile with
//! 4 GiB of usable swap in 565 zones of 8,448 KiB (11 stripe rows), host costs on 8
//! cores, 16 vm-scalability threads writing random pages at 60% utilisation (after
//! the first-touch fill), as in `reproduce znsage` at scale 1.
//! Prints simulated page faults per wall-clock second. Wall-clock time is read
//! here only, never inside the simulation.
//!
//! `cargo run --release -p zonelab-systems --example swap_speed`

use std::time::Instant;
use zonelab_engine::RngStreams;
use zonelab_systems::swap::setup::zns_device_kib;
use zonelab_systems::swap::workloads::{VmPhase, VmScalability};
use zonelab_systems::swap::znsage::{znsage, ZnsageOptions};
use zonelab_systems::swap::{MemoryConfig, SwapBackend, SwapSim, ZoneSwapConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 565 x 8,448 KiB x 0.88 >= 4 GiB usable (znsage_runs::Geometry at scale 1).
    let dev = zns_device_kib("sk-hynix-zns", 565, Some(8448), None)?;
    let backend = znsage(dev, ZoneSwapConfig::default(), &ZnsageOptions::default())?;
    let usable = backend.usable_slots();
    let limit = (usable / 32) as u32;
    let mem = MemoryConfig {
        limit_pages: limit,
        ..Default::default()
    };
    let pages = limit + (usable as f64 * 0.6) as u32;
    let mut sim = SwapSim::new(mem, pages, Box::new(backend), false)?;
    let rngs = RngStreams::new(1);
    let t0 = Instant::now();
    let fill = sim.run(&mut VmScalability::new(pages, 16, VmPhase::Fill, &rngs)?)?;
    let per_thread = usable / 16;
    let s = sim.run(&mut VmScalability::new(
        pages,
        16,
        VmPhase::RandomWrites { per_thread },
        &rngs,
    )?)?;
    let wall = t0.elapsed().as_secs_f64();
    let faults = fill.zero_fills
        + fill.major_faults
        + fill.minor_faults
        + s.zero_fills
        + s.major_faults
        + s.minor_faults;
    let accesses = fill.accesses + s.accesses;
    println!(
        "accesses {accesses}, page faults {faults} (major {}), swap-outs {}, GC copies {}, virtual {:.2} s, wall {wall:.2} s",
        fill.major_faults + s.major_faults,
        fill.swap_out_pages + s.swap_out_pages,
        s.gc_copied_pages,
        sim.now_ns() as f64 / 1e9
    );
    println!(
        "simulated page faults per second: {:.0}; accesses per second: {:.0}",
        faults as f64 / wall,
        accesses as f64 / wall
    );
    Ok(())
}
