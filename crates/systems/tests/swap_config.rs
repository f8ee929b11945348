//! Bad configurations give typed errors whose one-line message names the field,
//! the value and what is allowed; none panics.

mod swap_support;

use swap_support::*;
use zonelab_engine::RngStreams;
use zonelab_systems::swap::conventional_ssd::ConventionalSwap;
use zonelab_systems::swap::setup::{ssd_device, zns_device};
use zonelab_systems::swap::workloads::{KvCache, KvOpCosts, VmPhase, VmScalability};
use zonelab_systems::swap::znsage::{znsage, ZnsageOptions};
use zonelab_systems::swap::{MemoryConfig, SwapError, SwapSim, ZoneSwapConfig};
use zonelab_workloads::ycsb::workload_b;

fn field_of(e: &SwapError) -> &'static str {
    match e {
        SwapError::BadConfig { field, .. } => field,
        other => panic!("expected BadConfig, got {other:?}"),
    }
}

fn one_line(e: &SwapError) {
    let m = e.to_string();
    assert!(!m.contains('\n') && !m.is_empty(), "{m}");
}

#[test]
fn bad_memory_configs_name_the_field() {
    let cases: Vec<(MemoryConfig, &str)> = vec![
        (
            MemoryConfig {
                limit_pages: 10,
                ..mem_cfg()
            },
            "memory.limit_pages",
        ),
        (
            MemoryConfig {
                cores: 0,
                ..mem_cfg()
            },
            "memory.cores",
        ),
        (
            MemoryConfig {
                reclaim_batch_pages: 0,
                ..mem_cfg()
            },
            "memory.reclaim_batch_pages",
        ),
        (
            MemoryConfig {
                max_writeback_pages: 4,
                ..mem_cfg()
            },
            "memory.max_writeback_pages",
        ),
        (
            MemoryConfig {
                max_writeback_pages: 600,
                ..mem_cfg()
            },
            "memory.max_writeback_pages",
        ),
        (
            MemoryConfig {
                page_cluster: 9,
                ..mem_cfg()
            },
            "memory.page_cluster",
        ),
    ];
    for (cfg, field) in cases {
        let e = match SwapSim::new(cfg, 1000, Box::new(znsage_backend(false, true)), false) {
            Err(e) => e,
            Ok(_) => panic!("accepted a bad {field}"),
        };
        assert_eq!(field_of(&e), field);
        one_line(&e);
    }
}

#[test]
fn bad_zone_swap_configs_name_the_field() {
    let cases: Vec<(ZoneSwapConfig, &str)> = vec![
        (
            ZoneSwapConfig {
                over_provisioning: 0.95,
                ..zone_cfg(false)
            },
            "zone_swap.over_provisioning",
        ),
        (
            ZoneSwapConfig {
                over_provisioning: f64::NAN,
                ..zone_cfg(false)
            },
            "zone_swap.over_provisioning",
        ),
        (
            ZoneSwapConfig {
                cores: 0,
                ..zone_cfg(false)
            },
            "zone_swap.cores",
        ),
        (
            ZoneSwapConfig {
                zones: Some(50),
                ..zone_cfg(false)
            },
            "zone_swap.zones",
        ),
        (
            ZoneSwapConfig {
                zones: Some(8),
                ..zone_cfg(false)
            },
            "zone_swap.zones",
        ),
        (
            ZoneSwapConfig {
                gc_low_free_zones: Some(1),
                ..zone_cfg(false)
            },
            "zone_swap.gc_low_free_zones",
        ),
        (
            ZoneSwapConfig {
                gc_low_free_zones: Some(4),
                gc_high_free_zones: Some(3),
                ..zone_cfg(false)
            },
            "zone_swap.gc_high_free_zones",
        ),
    ];
    for (cfg, field) in cases {
        let dev = zns_device("sk-hynix-zns", 20, Some(3), None).unwrap();
        let e = match znsage(dev, cfg, &ZnsageOptions::default()) {
            Err(e) => e,
            Ok(_) => panic!("accepted a bad {field}"),
        };
        assert_eq!(field_of(&e), field);
        one_line(&e);
    }
    for unit in [0, 1000, 4 << 20] {
        let dev = zns_device("sk-hynix-zns", 20, Some(3), None).unwrap();
        let opts = ZnsageOptions {
            write_unit_bytes: Some(unit),
            ..Default::default()
        };
        let e = znsage(dev, zone_cfg(false), &opts)
            .err()
            .expect("bad write unit accepted");
        assert_eq!(field_of(&e), "znsage.write_unit_bytes", "unit {unit}");
        one_line(&e);
    }
}

#[test]
fn wrong_devices_and_profiles_are_refused() {
    // A zone back end on a block device and swap-on-SSD on a zoned device.
    let ssd = ssd_device("ssd-conventional", 64, Some(3), Some((2, 2))).unwrap();
    let e = znsage(ssd, zone_cfg(false), &ZnsageOptions::default())
        .err()
        .unwrap();
    assert!(matches!(e, SwapError::UnsupportedDevice { .. }), "{e:?}");
    one_line(&e);
    let zns = zns_device("sk-hynix-zns", 20, Some(3), None).unwrap();
    let e = ConventionalSwap::new(zns, None, CORES, false)
        .err()
        .unwrap();
    assert!(matches!(e, SwapError::UnsupportedDevice { .. }), "{e:?}");
    // More slots than the device has.
    let ssd = ssd_device("ssd-conventional", 64, Some(3), Some((2, 2))).unwrap();
    let e = ConventionalSwap::new(ssd, Some(1 << 30), CORES, false)
        .err()
        .unwrap();
    assert_eq!(field_of(&e), "ssd_swap.slots");
    // Profiles: unknown name, wrong model, LBA format out of range.
    let e = zns_device("no-such-profile", 20, None, None).err().unwrap();
    assert!(e.to_string().contains("unknown device profile"), "{e}");
    let e = zns_device("ssd-conventional", 20, None, None)
        .err()
        .unwrap();
    assert!(e.to_string().contains("not zns-ssd"), "{e}");
    let e = zns_device("zn540", 20, Some(3), Some(9)).err().unwrap();
    assert!(
        e.to_string().contains("namespace.formatted_lba_format"),
        "{e}"
    );
    // lbaf 0 of the ZN540 is a 512 B format: not the profile's 4 KiB blocks.
    let e = zns_device("zn540", 20, Some(3), Some(0)).err().unwrap();
    assert!(
        e.to_string()
            .contains("data_bytes equals zones.block_bytes"),
        "{e}"
    );
    one_line(&e);
}

#[test]
fn bad_workloads_and_full_swap_are_errors() {
    let rngs = RngStreams::new(1);
    let e = VmScalability::new(100, 0, VmPhase::Fill, &rngs)
        .err()
        .unwrap();
    assert_eq!(field_of(&e), "vm_scalability.threads");
    let e = VmScalability::new(3, 4, VmPhase::Fill, &rngs)
        .err()
        .unwrap();
    assert_eq!(field_of(&e), "vm_scalability.pages");
    let mut spec = workload_b();
    spec.record_count = 0;
    let e = KvCache::new(&spec, 4, KvOpCosts::uniform(0), Some(&rngs))
        .err()
        .unwrap();
    assert_eq!(field_of(&e), "kv.ycsb");
    one_line(&e);
    // A footprint larger than memory + swap: swap-out fails with SwapFull.
    let backend = znsage_backend(false, true);
    let pages = 512 + 20 * 768;
    let mut sim = SwapSim::new(mem_cfg(), pages, Box::new(backend), false).unwrap();
    let mut fill = VmScalability::new(pages, 4, VmPhase::Fill, &rngs).unwrap();
    let e = sim.run(&mut fill).expect_err("overfilled swap accepted");
    assert!(matches!(e, SwapError::SwapFull { .. }), "{e:?}");
    one_line(&e);
}

#[test]
fn a_swap_area_gc_cannot_clean_ends_with_an_error_not_a_hang() {
    // No over-provisioning and a footprint that fills the swap zones: GC finds no
    // victim with an invalid slot sooner or later.
    let cfg = ZoneSwapConfig {
        over_provisioning: 0.0,
        ..zone_cfg(false)
    };
    let dev = zns_device("sk-hynix-zns", 20, Some(3), None).unwrap();
    let backend = znsage(dev, cfg, &ZnsageOptions::default()).unwrap();
    let pages = 512 + 20 * 768 - 64;
    let mut sim = SwapSim::new(mem_cfg(), pages, Box::new(backend), false).unwrap();
    let rngs = RngStreams::new(2);
    let r = sim
        .run(&mut VmScalability::new(pages, 4, VmPhase::Fill, &rngs).unwrap())
        .and_then(|_| {
            sim.run(
                &mut VmScalability::new(
                    pages,
                    4,
                    VmPhase::RandomWrites { per_thread: 20_000 },
                    &rngs,
                )
                .unwrap(),
            )
        });
    match r {
        Err(e @ SwapError::GcStuck { .. }) => one_line(&e),
        other => panic!("expected GcStuck, got {other:?}"),
    }
}

#[test]
fn default_watermarks_are_znswaps() {
    // ZNSwap mm/swapfile.c: low = max(2, ceil(zones / 50)), high = max(low + 2, ceil(zones / 25)).
    for (zones, low, high) in [(20, 2, 4), (100, 2, 4), (200, 4, 8), (1000, 20, 40)] {
        let dev = zns_device("sk-hynix-zns", zones, Some(3), None).unwrap();
        let z = znsage(dev, zone_cfg(false), &ZnsageOptions::default()).unwrap();
        assert_eq!(z.watermarks(), (low, high), "{zones} zones");
    }
}
