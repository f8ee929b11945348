//! No page lost or returned stale: with 4 KiB payloads carrying each page's id and
//! write version, every swap-in (fault or readahead, before, during and after GC)
//! returns the content last swapped out; the page table and the reverse map agree
//! after the run.

mod swap_support;

use swap_support::*;
use zonelab_engine::RngStreams;
use zonelab_systems::swap::workloads::{VmPhase, VmScalability};
use zonelab_systems::swap::SwapSim;

#[test]
fn every_swap_in_returns_the_last_swapped_out_content_on_every_backend() {
    for backend in all_backends(true) {
        let name = backend.name();
        let pt = backend.gc_updates_page_table();
        let usable = backend.usable_slots();
        let pages = 512 + (usable as f64 * 0.6) as u32;
        let mut sim = SwapSim::new(mem_cfg(), pages, backend, true).unwrap();
        let rngs = RngStreams::new(3);
        let mut fill = VmScalability::new(pages, 4, VmPhase::Fill, &rngs).unwrap();
        sim.run(&mut fill).unwrap();
        let mut mixed = Mixed::new(pages, 4, 15_000, 5);
        let s = sim.run(&mut mixed).unwrap();
        assert_eq!(
            s.verify_mismatches, 0,
            "{name} (pt {pt}): {:?}",
            s.first_mismatch
        );
        assert!(
            s.verified_pages > 20_000,
            "{name}: only {} pages checked",
            s.verified_pages
        );
        assert!(s.major_faults > 10_000, "{name}: {s:?}");
        sim.check_consistency()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if name != "ssd-swap" {
            assert!(s.gc_copied_pages > 0, "{name}: GC never ran: {s:?}");
        }
        eprintln!("{name} pt={pt}: {s:?}");
    }
}
