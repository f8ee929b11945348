//! Back-end mechanisms in isolation: ZNSage's per-zone bio lists go to the device
//! at the 192 KiB write unit (§4.3), ZNSwap appends every page with its metadata,
//! and swap on the conventional SSD discards only whole free 1 MiB clusters.

mod swap_support;

use swap_support::*;
use zonelab_systems::swap::conventional_ssd::CLUSTER_SLOTS;
use zonelab_systems::swap::{IoEvents, PageTag, SwapBackend};

fn tags(from: u32, n: u32) -> Vec<PageTag> {
    (from..from + n)
        .map(|page| PageTag { page, version: 1 })
        .collect()
}

#[test]
fn znsage_submits_a_zone_bio_list_at_the_write_unit() {
    let mut b = znsage_backend(false, true);
    let (mut slots, mut ev) = (Vec::new(), IoEvents::default());
    // 47 pages: still in the bio list, nothing written.
    b.swap_out(0, 0, &tags(0, 47), &mut slots, &mut ev).unwrap();
    assert_eq!(b.stats().write_commands, 0);
    assert!(ev.written.is_empty());
    // The 48th page completes 192 KiB: one write of 48 pages.
    b.swap_out(1_000, 0, &tags(47, 1), &mut slots, &mut ev)
        .unwrap();
    assert_eq!(b.stats().write_commands, 1);
    assert_eq!(ev.written.len(), 48);
    let done = ev.written[0].0;
    assert!(ev.written.iter().all(|w| w.0 == done));
    // Consecutive slots in the core's zone, owned by the pages (reverse map).
    assert!(slots.windows(2).all(|w| w[1] == w[0] + 1));
    for (i, &s) in slots.iter().enumerate() {
        assert_eq!(b.owner(s), Some(i as u32));
    }
    // Another core gets another zone; flush submits partial lists.
    let mut slots2 = Vec::new();
    b.swap_out(2_000, 1, &tags(100, 10), &mut slots2, &mut ev)
        .unwrap();
    assert!(slots2[0] / 768 != slots[0] / 768, "per-core zones");
    b.flush(3_000, &mut ev).unwrap();
    assert_eq!(b.stats().write_commands, 2);
    assert_eq!(b.stats().host_rmap_bytes, 20 * 768 * 24);
}

#[test]
fn znswap_appends_every_page_with_its_metadata() {
    let mut b = znswap_backend(false);
    let (mut slots, mut ev) = (Vec::new(), IoEvents::default());
    b.swap_out(0, 0, &tags(0, 32), &mut slots, &mut ev).unwrap();
    let st = b.stats();
    assert_eq!(st.write_commands, 32);
    assert_eq!(st.device_metadata_rmap_bytes, 32 * 24);
    assert_eq!(st.host_rmap_bytes, 0);
    assert_eq!(ev.written.len(), 32);
    assert!(!b.gc_updates_page_table());
}

#[test]
fn ssd_swap_discards_only_whole_free_clusters() {
    let mut b = ssd_backend(false);
    let (mut slots, mut ev) = (Vec::new(), IoEvents::default());
    let n = CLUSTER_SLOTS * 2;
    b.swap_out(0, 0, &tags(0, n), &mut slots, &mut ev).unwrap();
    // One core fills clusters in order: 2 clusters, one write per run.
    assert!(slots.windows(2).all(|w| w[1] == w[0] + 1));
    // Free all of the first cluster but one slot: no discard.
    for &s in &slots[..CLUSTER_SLOTS as usize - 1] {
        b.free(10, s).unwrap();
    }
    assert_eq!(b.stats().trims, 0);
    b.free(10, slots[CLUSTER_SLOTS as usize - 1]).unwrap();
    assert_eq!(b.stats().trims, 1, "the whole 1 MiB cluster is free now");
    // Freeing most of the second cluster (the core's current one) discards nothing.
    for &s in &slots[CLUSTER_SLOTS as usize..n as usize - 1] {
        b.free(20, s).unwrap();
    }
    assert_eq!(b.stats().trims, 1);
    assert_eq!(b.valid_slots(), 1);
}
