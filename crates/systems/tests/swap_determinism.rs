//! The same configuration and seed give byte-identical results (run counters,
//! back-end and device statistics as JSON); another seed gives other results.

mod swap_support;

use swap_support::*;
use zonelab_engine::RngStreams;
use zonelab_systems::swap::workloads::{KvCache, KvOpCosts, VmPhase, VmScalability, Workload};
use zonelab_systems::swap::SwapSim;
use zonelab_workloads::ycsb::workload_a;

fn run(seed: u64, which: usize) -> String {
    let backend = all_backends(false).remove(which);
    let usable = backend.usable_slots();
    let pages = 512 + (usable as f64 * 0.5) as u32;
    let mut sim = SwapSim::new(mem_cfg(), pages, backend, false).unwrap();
    let rngs = RngStreams::new(seed);
    let mut fill = VmScalability::new(pages, 4, VmPhase::Fill, &rngs).unwrap();
    let a = sim.run(&mut fill).unwrap();
    let mut w =
        VmScalability::new(pages, 4, VmPhase::RandomWrites { per_thread: 4000 }, &rngs).unwrap();
    let b = sim.run(&mut w).unwrap();
    let end = sim.now_ns();
    serde_json::to_string(&(a, b, sim.backend().stats(), sim.backend().device_stats(end))).unwrap()
}

#[test]
fn vm_scalability_runs_are_deterministic() {
    for which in 0..4 {
        let x = run(11, which);
        assert_eq!(x, run(11, which), "backend {which}");
        assert_ne!(x, run(12, which), "backend {which}: the seed has no effect");
    }
}

#[test]
fn kv_cache_runs_are_deterministic() {
    let go = || {
        let mut spec = workload_a();
        spec.record_count = 6_000;
        spec.operation_count = 8_000;
        let rngs = RngStreams::new(4);
        let mut load = KvCache::new(&spec, 4, KvOpCosts::uniform(10_000), None).unwrap();
        let pages = load.pages();
        let mut sim = SwapSim::new(
            mem_cfg(),
            pages,
            Box::new(znsage_backend(false, true)),
            false,
        )
        .unwrap();
        sim.run(&mut load).unwrap();
        let mut run = KvCache::new(&spec, 4, KvOpCosts::uniform(10_000), Some(&rngs)).unwrap();
        serde_json::to_string(&sim.run(&mut run).unwrap()).unwrap()
    };
    assert_eq!(go(), go());
}
