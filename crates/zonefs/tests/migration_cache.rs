//! Migration (HHZS §3.4) copies an SST's bytes intact to the other device, and
//! the SSD cache (§3.5) admits an evicted block of an HDD-resident SST and
//! returns its bytes on lookup. Virtual time follows the wall clock here, so the
//! test waits a little over one policy tick (1 s) for the migration to start.

mod common;
use common::*;
use std::time::Duration;
use zonelab_zonefs::KIND_SST;

fn device_of(fs: &zonelab_zonefs::ZoneFs, name: &str) -> String {
    fs.stats()
        .files
        .into_iter()
        .find(|f| f.name == name)
        .map(|f| f.device)
        .unwrap()
}

/// Writes SST 000022 (then 3 L0 SSTs and a WAL filling the SSD), trivially moves
/// it to level 6, and waits until capacity migration moved it to the HDD.
fn migrate_one(fs: &zonelab_zonefs::ZoneFs) -> Vec<u8> {
    let data = pattern(11, (1 << 20) + 4321);
    fs.create("000022.sst", KIND_SST, 1).unwrap();
    fs.append("000022.sst", &data).unwrap();
    fs.close_file("000022.sst").unwrap();
    // Fill the SSD's 4 SST zones (budget 6 minus 2 WAL/cache zones) and give
    // the WAL a zone, so level 0 alone needs the whole SSD (HHZS §3.3).
    for (i, name) in ["000020.sst", "000021.sst", "000023.sst"]
        .iter()
        .enumerate()
    {
        fs.create(name, KIND_SST, 0).unwrap();
        fs.append(name, &pattern(20 + i as u64, 1 << 20)).unwrap();
        fs.close_file(name).unwrap();
    }
    fs.create("000024.log", zonelab_zonefs::KIND_WAL, -1)
        .unwrap();
    fs.append("000024.log", &[7u8; 5000]).unwrap();
    fs.sync("000024.log").unwrap();
    let ssd = device_of(fs, "000022.sst");
    // A trivial move to a deep level leaves an SST above the tiering level on
    // the SSD: capacity migration moves it to the HDD.
    fs.hint_trivial_move("000022.sst", 6).unwrap();
    let mut moved = false;
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(100));
        let mut b = [0u8; 16];
        fs.read("000020.sst", 0, &mut b).unwrap();
        if device_of(fs, "000022.sst") != ssd {
            moved = true;
            break;
        }
    }
    assert!(moved, "no migration: {}", fs.stats_json());
    assert!(fs.stats().migration.to_hdd >= 1);
    data
}

#[test]
fn a_migrated_sst_reads_back_intact_and_its_evicted_blocks_are_cached() {
    let fs = open(None, "hhzs");
    let data = migrate_one(&fs);
    assert_eq!(read_all(&fs, "000022.sst"), data);
    fs.check().unwrap();
    // Cache: an evicted block of the HDD-resident SST is admitted and served.
    let block = &data[8192..8192 + 5000];
    assert_eq!(fs.cache_lookup("000022.sst", 8192).unwrap(), None);
    fs.hint_block_evicted("000022.sst", 8192, block).unwrap();
    assert_eq!(
        fs.cache_lookup("000022.sst", 8192).unwrap().as_deref(),
        Some(block)
    );
    let h = fs.stats().hints;
    assert_eq!((h.cache_admitted, h.cache_lookups, h.cache_hits), (1, 2, 1));
    // Blocks of SSTs on the SSD are not admitted.
    fs.hint_block_evicted("000020.sst", 0, &[1u8; 100]).unwrap();
    assert_eq!(fs.cache_lookup("000020.sst", 0).unwrap(), None);
    fs.check().unwrap();
}

#[test]
fn a_migration_is_durable_and_survives_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let fs = open(Some(tmp.path()), "hhzs");
    let data = migrate_one(&fs);
    let hdd = device_of(&fs, "000022.sst");
    std::mem::forget(fs); // crash right after the migration switched the file
    let fs = open(Some(tmp.path()), "hhzs");
    fs.check().unwrap();
    assert_eq!(device_of(&fs, "000022.sst"), hdd);
    assert_eq!(read_all(&fs, "000022.sst"), data);
    let f = fs
        .stats()
        .files
        .into_iter()
        .find(|f| f.name == "000022.sst")
        .unwrap();
    assert_eq!(f.level, Some(6));
}

#[test]
fn h2zones_daemon_timing_is_scaled_by_the_zone_size() {
    // The experiments scale H2Zone's 16-s planning window and 32-s capacity
    // migration delay by their scale; the emulation's scale is its SSD zone
    // capacity over the profile's (4 MiB zones here).
    let fs = open(None, "hhzs");
    let d = fs.stats().migration_daemon;
    let full = zonelab_devices::open_device("zn540").unwrap();
    let full_blocks = full.info().zoned.as_ref().unwrap().zone_capacity_blocks as f64;
    let scale = (4 << 20) as f64 / (full_blocks * full.info().block_bytes as f64);
    let expect = |s: u64| (s as f64 * 1e9 * scale).round() as u64;
    assert_eq!(d.planning_window_ns, expect(16));
    assert_eq!(d.capacity_delay_ns, expect(32));
    // Unscaled zones: H2Zone's own 16 s and 32 s.
    let mut cfg = small_config(None, "hhzs");
    cfg.zone_capacity_mib_ssd = None;
    cfg.zone_capacity_mib_hdd = None;
    let d = zonelab_zonefs::ZoneFs::open_config(&cfg)
        .unwrap()
        .stats()
        .migration_daemon;
    assert_eq!(
        (d.planning_window_ns, d.capacity_delay_ns),
        (16_000_000_000, 32_000_000_000)
    );
}
