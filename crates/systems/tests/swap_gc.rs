//! Swap-zone GC (ZNSage §4.4): the reverse map stays consistent with the page
//! table through GC, and the page-table update while GC holds valid pages in
//! memory turns the faults on them into minor faults (no victim-zone read).

mod swap_support;

use swap_support::*;
use zonelab_engine::RngStreams;
use zonelab_systems::swap::workloads::{VmPhase, VmScalability};
use zonelab_systems::swap::{SwapRunStats, SwapSim};

fn run(pt_update: bool) -> (SwapRunStats, SwapSim) {
    let backend = znsage_backend(true, pt_update);
    let pages = 512 + (backend_usable() as f64 * 0.7) as u32;
    let mut sim = SwapSim::new(mem_cfg(), pages, Box::new(backend), true).unwrap();
    let rngs = RngStreams::new(21);
    sim.run(&mut VmScalability::new(pages, 4, VmPhase::Fill, &rngs).unwrap())
        .unwrap();
    let mut mixed = Mixed::new(pages, 4, 12_000, 8);
    let s = sim.run(&mut mixed).unwrap();
    (s, sim)
}

fn backend_usable() -> u64 {
    use zonelab_systems::swap::SwapBackend;
    znsage_backend(false, true).usable_slots()
}

#[test]
fn reverse_map_is_consistent_after_gc() {
    for pt in [true, false] {
        let (s, sim) = run(pt);
        assert!(s.gc_victims > 10 && s.gc_copied_pages > 1000, "{s:?}");
        sim.check_consistency().unwrap();
        assert_eq!(s.verify_mismatches, 0, "{:?}", s.first_mismatch);
        assert!(sim.mem.gc_moves_applied > 0);
    }
}

#[test]
fn page_table_update_avoids_gc_induced_faults() {
    let (with, _) = run(true);
    let (without, _) = run(false);
    assert_eq!(with.gc_induced_faults, 0, "{with:?}");
    assert!(with.gc_faults_avoided > 0, "{with:?}");
    assert!(without.gc_induced_faults > 0, "{without:?}");
    assert_eq!(without.gc_faults_avoided, 0, "{without:?}");
}
