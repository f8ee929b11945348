//! The Memcached-like KV cache as YCSB's memcached binding drives it (issue 15):
//! items in memcached's slab classes, an update REPLACEs the record with only the
//! updated field (a new small item, the old chunk freed), reads and updates cost
//! different times.

use zonelab_engine::RngStreams;
use zonelab_systems::swap::workloads::{memcached_chunk_bytes, KvCache, KvOpCosts, Workload};
use zonelab_workloads::ycsb::{workload_a, CoreWorkloadSpec};

#[test]
fn memcached_slab_classes_follow_its_defaults() {
    // -n 48 -f 1.25: 96, 120, 152, 192, 240, 304, 384, 480, 600, 752, 944, 1184, 1480.
    assert_eq!(memcached_chunk_bytes(1), 96);
    assert_eq!(memcached_chunk_bytes(200), 240);
    assert_eq!(memcached_chunk_bytes(1184), 1184);
    assert_eq!(memcached_chunk_bytes(1185), 1480);
}

fn spec(records: u64, ops: u64) -> CoreWorkloadSpec {
    CoreWorkloadSpec {
        record_count: records,
        operation_count: ops,
        ..workload_a()
    }
}

#[test]
fn an_update_rewrites_the_record_as_a_small_item_and_frees_the_old_one() {
    let costs = KvOpCosts {
        read_ns: 30,
        read_updated_ns: 20,
        update_ns: 10,
    };
    let s = spec(3_000, 20_000);
    let load = KvCache::new(&s, 1, costs, None).unwrap();
    // 10 fields of 100 B as JSON (1,142 B) + key + item overhead -> 1,480 B chunks.
    assert_eq!(
        load.footprint_pages() as u64,
        (3_000u64 * 1480).div_ceil(4096)
    );
    assert!(
        load.pages() > load.footprint_pages(),
        "room for rewritten items"
    );
    let rngs = RngStreams::new(5);
    let mut run = KvCache::new(&s, 1, costs, Some(&rngs)).unwrap();
    let small_base = load.footprint_pages();
    let (mut updates, mut reads_of_updated) = (0, 0);
    let mut updated_pages = std::collections::BTreeSet::new();
    while let Some(a) = run.next(0) {
        if a.write {
            // An update: the new item in the small class first (not the op's end)...
            assert!(a.page >= small_base && !a.ends_op, "{a:?}");
            updated_pages.insert(a.page);
            // ... then the freed old chunk, which ends the op with the update's cost.
            let old = run.next(0).unwrap();
            assert!(old.write && old.ends_op && old.think_ns == 10, "{old:?}");
            updates += 1;
        } else {
            assert!(a.ends_op);
            if a.page >= small_base {
                assert_eq!(a.think_ns, 20, "a rewritten record reads only its field");
                reads_of_updated += 1;
            } else {
                assert_eq!(a.think_ns, 30);
            }
        }
    }
    assert!(updates > 5_000, "workload A is half updates: {updates}");
    assert!(reads_of_updated > 0);
    // Replace frees the old small chunk after allocating the new one (LIFO reuse),
    // so rewritten records pack ~17 per page (240 B chunks) in a small region.
    assert!(
        (updated_pages.len() as u64) <= (3_001u64 * 240).div_ceil(4096),
        "{} pages",
        updated_pages.len()
    );
    assert!(run.pages() as u64 >= small_base as u64 + updated_pages.len() as u64);
}

#[test]
fn a_workload_touching_pages_beyond_the_run_is_an_error_not_a_panic() {
    #[path = "swap_support/mod.rs"]
    mod swap_support;
    let s = spec(3_000, 1_000);
    let mut load = KvCache::new(&s, 2, KvOpCosts::uniform(0), None).unwrap();
    // A run set up for fewer pages than the workload addresses.
    let mut sim = zonelab_systems::swap::SwapSim::new(
        swap_support::mem_cfg(),
        load.footprint_pages() / 2,
        Box::new(swap_support::znsage_backend(false, true)),
        false,
    )
    .unwrap();
    let e = sim.run(&mut load).expect_err("out-of-range page accepted");
    let msg = e.to_string();
    assert!(
        msg.contains("workload.page") && !msg.contains('\n'),
        "{msg}"
    );
}
