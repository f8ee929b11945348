//! Host costs of the swap path (issue 15): ZNSwap pays a block request per page
//! swapped out, ZNSage one per write unit of its device; requests on a zoned
//! device queue for the mq-deadline lock; GC's page-table walk costs CPU per moved
//! page; a scaled-down zone keeps its device's program unit and erase time per byte.

mod swap_support;

use swap_support::*;
use zonelab_systems::swap::host::{BlockPath, Cores, CpuKind, HostCosts, IoKind, IoScheduler};
use zonelab_systems::swap::setup::{zns_device_kib, zns_geometry};
use zonelab_systems::swap::znsage::{znsage, ZnsageOptions};
use zonelab_systems::swap::{IoEvents, PageTag, SwapBackend};

fn tags(from: u32, n: u32) -> Vec<PageTag> {
    (from..from + n)
        .map(|page| PageTag { page, version: 1 })
        .collect()
}

#[test]
fn znsage_takes_the_write_unit_from_the_device() {
    // zn540: 96 KiB program unit = 24 pages; 23 pages stay in the bio list.
    let dev = zns_device_kib("zn540", 20, Some(3 * 1024), None).unwrap();
    let mut b = znsage(dev, zone_cfg(false), &ZnsageOptions::default()).unwrap();
    let (mut slots, mut ev) = (Vec::new(), IoEvents::default());
    b.swap_out(0, 0, &tags(0, 23), &mut slots, &mut ev).unwrap();
    assert_eq!(b.stats().write_commands, 0);
    b.swap_out(10, 0, &tags(23, 1), &mut slots, &mut ev)
        .unwrap();
    assert_eq!(b.stats().write_commands, 1);
    assert_eq!(ev.written.len(), 24);
}

#[test]
fn znswap_pays_a_request_per_page_znsage_one_per_write_unit() {
    let costs = HostCosts::default();
    let mut ev = IoEvents::default();
    let mut zsage = znsage_backend(false, true);
    let mut zswap = znswap_backend(false);
    for b in [&mut zsage as &mut dyn SwapBackend, &mut zswap] {
        let mut slots = Vec::new();
        b.swap_out(0, 0, &tags(0, 48), &mut slots, &mut ev).unwrap();
    }
    let (a, w) = (zsage.host_stats(), zswap.host_stats());
    assert_eq!(a.swap_out_requests, 1, "48 pages = one 192 KiB bio list");
    assert_eq!(w.swap_out_requests, 48, "one zone append per page");
    assert_eq!(a.request_pages, 48);
    assert_eq!(
        a.block_cpu_ns,
        costs.request_cpu_ns + 48 * costs.page_cpu_ns,
        "submission + completion of one request of 48 pages"
    );
    assert_eq!(
        w.block_cpu_ns,
        48 * (costs.request_cpu_ns + costs.page_cpu_ns)
    );
    // ZNSwap's thread spun for the lock behind its own requests? No: one thread
    // submits serially, so the lock is free each time.
    assert_eq!(w.lock_wait_ns, 0);
    assert_eq!(w.lock_acquisitions, 48);
}

#[test]
fn requests_of_all_cpus_queue_for_the_mq_deadline_lock() {
    let costs = HostCosts::default();
    let mut path = BlockPath::new(costs, IoScheduler::MqDeadline);
    // Two CPUs submit at the same instant: the second waits one lock hold.
    let a = path.submit(1_000, 1, IoKind::SwapOut);
    let b = path.submit(1_000, 1, IoKind::SwapOut);
    assert_eq!(b - a, costs.scheduler_lock_ns);
    assert_eq!(path.stats().lock_wait_ns, costs.scheduler_lock_ns);
    assert_eq!(path.stats().lock_acquisitions, 2);
    // Without a scheduler (the conventional SSD's `none`) nobody waits.
    let mut none = BlockPath::new(costs, IoScheduler::None);
    let a = none.submit(1_000, 1, IoKind::SwapIn);
    let b = none.submit(1_000, 1, IoKind::SwapIn);
    assert_eq!(a, b);
    assert_eq!(none.stats().lock_acquisitions, 0);
    // Completions and GC's page-table walk are CPU work of their kind.
    let mut items = Vec::new();
    path.complete(50_000, 1, CpuKind::Deferred);
    path.gc_remap(60_000, 10);
    path.drain_into(&mut items);
    assert!(items
        .iter()
        .any(|i| i.kind == CpuKind::Deferred && i.ready_ns == 50_000));
    assert!(items
        .iter()
        .any(|i| i.kind == CpuKind::Sync && i.duration_ns == 10 * costs.gc_remap_page_ns));
    assert_eq!(path.stats().gc_remapped_pages, 10);
}

#[test]
fn work_on_one_core_queues_and_other_cores_are_free() {
    let mut cores = Cores::new(2);
    assert_eq!(cores.run(0, 0, 10), 10);
    assert_eq!(cores.run(0, 0, 10), 20, "the same core is busy");
    assert_eq!(cores.run(1, 0, 10), 10, "another core is not");
    assert_eq!(cores.least_busy(), 1);
    assert_eq!(cores.busy_ns(), 30);
}

#[test]
fn gc_costs_a_page_table_walk_per_moved_page() {
    // Fill and overwrite a small ZNSage area so GC runs; every copied page is
    // remapped once (before the copy with the §4.4 update, after it without).
    for pt_update in [true, false] {
        let backend = znsage_backend(false, pt_update);
        let pages = 512 + (backend.usable_slots() as f64 * 0.7) as u32;
        let mut sim =
            zonelab_systems::swap::SwapSim::new(mem_cfg(), pages, Box::new(backend), false)
                .unwrap();
        let mut w = Mixed::new(pages, 8, 6_000, 3);
        let s = sim.run(&mut w).unwrap();
        assert!(s.gc_copied_pages > 0, "GC ran");
        assert_eq!(s.host.gc_remapped_pages, s.gc_copied_pages);
        assert_eq!(
            s.host.gc_remap_cpu_ns,
            s.gc_copied_pages * HostCosts::default().gc_remap_page_ns
        );
        assert!(s.cpu_busy_ns > s.host.gc_remap_cpu_ns + s.host.block_cpu_ns / 2);
        sim.check_consistency().unwrap();
    }
}

#[test]
fn a_scaled_down_zone_keeps_the_program_unit_and_erase_time_per_byte() {
    let g = zns_geometry("zn540").unwrap();
    assert_eq!(g.zone_capacity_kib, 1077 * 1024);
    assert_eq!(
        g.stripe_row_kib,
        96 * 16,
        "a 96 KiB program unit on 16 dies"
    );
    let d = zns_device_kib("zn540", 300, Some(g.stripe_row_kib), None).unwrap();
    let z = d.info().zoned.clone().unwrap();
    assert_eq!(z.zone_count, 300);
    assert_eq!(z.zone_capacity_blocks * 4096, g.stripe_row_kib * 1024);
    assert_eq!(d.preferred_write_bytes(), 96 * 1024);
    let h = zns_geometry("sk-hynix-zns").unwrap();
    assert_eq!(h.stripe_row_kib, 192 * 4);
    // Bad sizes are refused with the field named.
    let e = zns_device_kib("zn540", 10, Some(1), None).err().unwrap();
    assert!(e.to_string().contains("zone_capacity_kib"), "{e}");
}

#[test]
fn bad_host_costs_name_the_field() {
    use zonelab_systems::swap::ZoneSwapConfig;
    let cfg = ZoneSwapConfig {
        host: HostCosts {
            scheduler_lock_ns: 5_000,
            ..HostCosts::default()
        },
        ..zone_cfg(false)
    };
    let dev = zns_device_kib("sk-hynix-zns", 20, Some(3 * 1024), None).unwrap();
    let e = znsage(dev, cfg, &ZnsageOptions::default()).err().unwrap();
    let msg = e.to_string();
    assert!(msg.contains("host.scheduler_lock_ns"), "{msg}");
    assert!(!msg.contains('\n'));
}
