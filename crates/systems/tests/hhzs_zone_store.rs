//! The zone file store over a ZN540-like ZNS SSD and an ST14000NM0007-like HM-SMR
//! HDD: zone allocation, spanning, sharing, resets, reads and errors.

mod hhzs_support;

use proptest::prelude::*;
use zonelab_devices::open_device;
use zonelab_engine::time::MIB;
use zonelab_systems::hhzs::{
    AutoPlacement, BasicPlacement, PlacementPolicy, StoreDeviceSpec, ZoneFileStore,
};
use zonelab_systems::lsm::{FileKind, LsmStorage};

fn store(ssd_zones: u32, policy: Box<dyn PlacementPolicy>) -> ZoneFileStore {
    ZoneFileStore::new(hhzs_support::zn540_and_smr(ssd_zones, 64), policy).unwrap()
}

/// The paper's SST: 1,011.2 MiB (HHZS §3.2).
const SST_BYTES: u64 = 1_060_320_051;

fn write_file(s: &mut ZoneFileStore, now: &mut u64, no: u64, kind: FileKind, bytes: u64) {
    s.create(*now, no, kind).unwrap();
    let mut left = bytes;
    while left > 0 {
        let c = left.min(MIB);
        *now = s.append(*now, no, c).unwrap();
        left -= c;
    }
    *now = s.close(*now, no).unwrap();
}

#[test]
fn an_sst_fills_one_ssd_zone_or_four_hdd_zones() {
    let mut s = store(20, Box::new(BasicPlacement { h: 2 }));
    let mut now = 0;
    write_file(&mut s, &mut now, 10, FileKind::Sst { level: 1 }, SST_BYTES);
    write_file(&mut s, &mut now, 11, FileKind::Sst { level: 3 }, SST_BYTES);
    let t = s.traffic();
    assert_eq!(t[0].zones_in_use, 1);
    assert_eq!(t[1].zones_in_use, 4);
    assert_eq!(s.device_of(10), Some(0));
    assert_eq!(s.device_of(11), Some(1));
    // The SSD zone was finished (93.9 % full), the last HDD zone too (95 %).
    assert_eq!(t[0].zone_finishes, 1);
    assert_eq!(t[1].zone_finishes, 1);
    s.check().unwrap();
    // Reads go to the device holding the extent, also across HDD zone boundaries.
    let before = s.traffic()[1].reads;
    s.read(now, 11, 256 * MIB - 4096, 8192).unwrap();
    assert_eq!(s.traffic()[1].reads, before + 2);
}

#[test]
fn a_full_ssd_sends_low_levels_to_the_hdd() {
    let mut s = store(2, Box::new(BasicPlacement { h: 4 }));
    let mut now = 0;
    for no in 0..3 {
        write_file(&mut s, &mut now, no, FileKind::Sst { level: 0 }, 64 * MIB);
    }
    assert_eq!(s.device_of(0), Some(0));
    assert_eq!(s.device_of(1), Some(0));
    assert_eq!(s.device_of(2), Some(1));
    // Deleting an SSD SST resets its zone, and the SSD takes the next one again.
    s.delete(now, 0).unwrap();
    assert_eq!(s.traffic()[0].zone_resets, 1);
    write_file(&mut s, &mut now, 3, FileKind::Sst { level: 0 }, 64 * MIB);
    assert_eq!(s.device_of(3), Some(0));
    s.check().unwrap();
}

#[test]
fn wal_files_share_zones_and_a_zone_resets_only_when_empty() {
    let mut s = store(4, Box::new(BasicPlacement { h: 1 }));
    let mut now = 0;
    // Two WAL files of 600 MiB: the first fills most of zone A, the second ends
    // zone A and starts zone B.
    write_file(&mut s, &mut now, 1, FileKind::Wal, 600 * MIB);
    write_file(&mut s, &mut now, 2, FileKind::Wal, 600 * MIB);
    assert_eq!(s.traffic()[0].zones_in_use, 2);
    s.delete(now, 1).unwrap();
    // Zone A still holds file 2's head: no reset.
    assert_eq!(s.traffic()[0].zone_resets, 0);
    s.check().unwrap();
    s.delete(now, 2).unwrap();
    // Zone A (full, now empty) is reset; zone B stays open for the next WAL file.
    assert_eq!(s.traffic()[0].zone_resets, 1);
    assert_eq!(s.traffic()[0].live_bytes, 0);
    s.check().unwrap();
}

#[test]
fn bad_requests_are_errors() {
    let mut s = store(4, Box::new(BasicPlacement { h: 1 }));
    let mut now = 0;
    write_file(&mut s, &mut now, 7, FileKind::Sst { level: 0 }, 10 * MIB);
    assert!(s
        .read(now, 7, 20 * MIB, 4096)
        .unwrap_err()
        .to_string()
        .contains("outside"));
    s.delete(now, 7).unwrap();
    let e = s.read(now, 7, 0, 4096).unwrap_err();
    assert!(e.to_string().contains("does not exist"), "{e}");
    assert!(s.append(now, 7, 10).is_err());
    assert!(s.delete(now, 7).is_err());
    s.create(now, 8, FileKind::Wal).unwrap();
    assert!(s.create(now, 8, FileKind::Wal).is_err());
    // A block device cannot back the store.
    let e = ZoneFileStore::new(
        vec![StoreDeviceSpec {
            device: open_device("ssd-conventional").unwrap(),
            zone_budget: None,
        }],
        Box::new(BasicPlacement { h: 1 }),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("not zoned"), "{e}");
    // A budget beyond the device's zones is refused.
    let e = ZoneFileStore::new(
        vec![StoreDeviceSpec {
            device: open_device("zn540").unwrap(),
            zone_budget: Some(100_000),
        }],
        Box::new(BasicPlacement { h: 1 }),
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("exceeds"), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn invariants_hold_under_random_file_traffic(
        ops in proptest::collection::vec((0u8..3, 0u64..6, 1u64..200), 1..60)
    ) {
        let mut s = store(3, Box::new(BasicPlacement { h: 2 }));
        let mut now = 0;
        let mut live = std::collections::BTreeSet::new();
        for (op, no, mib) in ops {
            match op {
                0 if !live.contains(&no) => {
                    let kind = if no % 3 == 0 { FileKind::Wal } else { FileKind::Sst { level: (no % 4) as u32 } };
                    write_file(&mut s, &mut now, no, kind, mib * MIB / 4 + 1);
                    live.insert(no);
                }
                1 if live.contains(&no) => {
                    s.delete(now, no).unwrap();
                    live.remove(&no);
                }
                2 if live.contains(&no) => {
                    now = s.read(now, no, 0, 4096).unwrap();
                }
                _ => {}
            }
            prop_assert!(s.check().is_ok(), "{:?}", s.check());
        }
    }
}

#[test]
fn occupancy_is_sampled_per_level_and_device() {
    let mut s = store(20, Box::new(BasicPlacement { h: 1 }));
    s.sample_occupancy_every(1_000_000);
    let mut now = 0;
    write_file(&mut s, &mut now, 1, FileKind::Sst { level: 0 }, 8 * MIB);
    write_file(&mut s, &mut now, 2, FileKind::Sst { level: 2 }, 8 * MIB);
    s.delete(now + 5_000_000, 1).unwrap();
    let samples = &s.occupancy_samples().unwrap().samples;
    assert!(samples.len() >= 2);
    let (_, last) = samples.last().unwrap();
    // Sampled before the delete took effect: L0 on the SSD, L2 on the HDD.
    assert_eq!(
        last[&zonelab_systems::hhzs::FileClass::Level(0)][0],
        8 * MIB
    );
    assert_eq!(
        last[&zonelab_systems::hhzs::FileClass::Level(2)][1],
        8 * MIB
    );
    assert_eq!(
        s.occupancy()
            .get(&zonelab_systems::hhzs::FileClass::Level(0)),
        None
    );
}

fn announce(s: &mut ZoneFileStore, now: u64, no: u64, bytes: u64) {
    s.hint(
        now,
        &zonelab_systems::lsm::Hint::FlushStarted {
            job: no,
            sst: no,
            expected_bytes: bytes,
        },
    )
    .unwrap();
}

#[test]
fn an_announced_sst_gets_all_its_zones_on_one_device_at_once() {
    // B4 with 4 SSD zones: a 2.5 GiB L0 SST (an intra-L0 output) needs 3 SSD zones
    // and gets them; the next one, announced at 2 zones, finds 1 and goes whole to
    // the HDD (10 zones of 256 MiB).
    let mut s = store(4, Box::new(BasicPlacement { h: 4 }));
    let mut now = 0;
    let big = 2560 * MIB;
    s.create(now, 1, FileKind::Sst { level: 0 }).unwrap();
    announce(&mut s, now, 1, big);
    now = s.append(now, 1, MIB).unwrap();
    // All three zones are taken at the first append (one open, two reserved).
    assert_eq!(s.traffic()[0].zones_in_use, 3);
    s.check().unwrap();
    let mut left = big - MIB;
    while left > 0 {
        let c = left.min(MIB);
        now = s.append(now, 1, c).unwrap();
        left -= c;
    }
    now = s.close(now, 1).unwrap();
    assert_eq!(s.device_of(1), Some(0));
    s.create(now, 2, FileKind::Sst { level: 0 }).unwrap();
    announce(&mut s, now, 2, 2 * 1077 * MIB);
    now = s.append(now, 2, MIB).unwrap();
    assert_eq!(s.device_of(2), Some(1));
    assert_eq!(s.traffic()[0].zones_in_use, 3);
    // A file closed before its announced size gives its reserved zones back.
    s.create(now, 3, FileKind::Sst { level: 0 }).unwrap();
    s.delete(now, 1).unwrap();
    announce(&mut s, now, 3, big);
    now = s.append(now, 3, MIB).unwrap();
    assert_eq!(s.traffic()[0].zones_in_use, 3);
    s.close(now, 3).unwrap();
    assert_eq!(s.traffic()[0].zones_in_use, 1);
    s.check().unwrap();
}

#[test]
fn an_sst_that_outgrows_its_device_is_copied_whole_to_the_other() {
    // No size announced and 2 SSD zones: the SST fills both, then the SSD has no
    // zone left for it and it moves, bytes and all, to the HDD.
    let mut s = store(2, Box::new(BasicPlacement { h: 4 }));
    let mut now = 0;
    write_file(
        &mut s,
        &mut now,
        5,
        FileKind::Sst { level: 0 },
        3 * 1077 * MIB,
    );
    assert_eq!(s.device_of(5), Some(1));
    assert_eq!(s.relocations().ssts, 1);
    assert_eq!(s.relocations().copied_bytes, 2 * 1077 * MIB);
    let t = s.traffic();
    assert_eq!((t[0].zones_in_use, t[0].live_bytes), (0, 0));
    assert_eq!(t[1].live_bytes, 3 * 1077 * MIB);
    s.check().unwrap();
    // Its bytes are read from the HDD now.
    let before = s.traffic()[1].reads;
    s.read(now, 5, 0, 4096).unwrap();
    assert_eq!(s.traffic()[1].reads, before + 1);
}

#[test]
fn wal_zones_count_wherever_the_wal_lands() {
    // No pool (a basic scheme): two WAL files in two SSD zones, then the third
    // spills to the HDD; the view's WAL zones (HHZS's L0 demand) count all three.
    let mut s = store(2, Box::new(BasicPlacement { h: 1 }));
    let mut now = 0;
    write_file(&mut s, &mut now, 1, FileKind::Wal, 1000 * MIB);
    write_file(&mut s, &mut now, 2, FileKind::Wal, 1000 * MIB);
    write_file(&mut s, &mut now, 3, FileKind::Wal, 300 * MIB);
    assert!(s.traffic()[1].live_bytes > 0);
    assert_eq!(s.view(now).wal_zones, 3);
    s.delete(now, 1).unwrap();
    s.delete(now, 2).unwrap();
    s.delete(now, 3).unwrap();
    // Zones without live WAL data are reset, except the one still open for appends.
    assert!(s.view(now).wal_zones <= 1);
    s.check().unwrap();
}

/// HHZS's WAL/cache pool (2 zones) with caching, and SST 10 (L3, 64 MiB) written
/// to the HDD so its evicted blocks are cache candidates.
fn caching_store_with_hdd_sst_10() -> (ZoneFileStore, u64) {
    let mut s = store(20, Box::new(BasicPlacement { h: 1 }));
    s.configure_hhzs(2, true, 0).unwrap();
    let mut now = 0;
    write_file(&mut s, &mut now, 10, FileKind::Sst { level: 3 }, 64 * MIB);
    (s, now)
}

/// The block cache's eviction hint for `bytes` at `offset` of SST 10.
fn evict_block_of_sst_10(s: &mut ZoneFileStore, now: u64, offset: u64, bytes: u64) {
    s.hint(
        now,
        &zonelab_systems::lsm::Hint::BlockEvicted {
            sst: 10,
            offset,
            bytes,
        },
    )
    .unwrap();
}

#[test]
fn cached_blocks_are_packed_at_their_real_size_and_hits_count_as_sst_reads() {
    // HHZS's pool with caching; an L3 SST on the HDD; 100 evicted 4,157 B blocks
    // take 415,700 B of the cache zone (not 100 × 8 KiB): whole 16 KiB buffers are
    // written, the rest waits in the buffer.
    let (mut s, now) = caching_store_with_hdd_sst_10();
    assert_eq!(s.device_of(10), Some(1));
    let ssd_written = s.traffic()[0].written_bytes;
    const BLOCK: u64 = 4157;
    for i in 0..100 {
        evict_block_of_sst_10(&mut s, now, i * BLOCK, BLOCK);
    }
    assert_eq!(s.cache_stats().unwrap().0.admitted, 100);
    let buffers = 100 * BLOCK / 16384;
    assert_eq!(s.traffic()[0].written_bytes - ssd_written, buffers * 16384);
    // A block on the device is read from its pages; one still in the buffer from
    // memory. Both are reads of SST 10 for its read rate (§3.4).
    let reads = s.traffic()[0].reads;
    assert!(s.cached_read(now, 10, 0, BLOCK).is_some());
    assert_eq!(s.traffic()[0].reads, reads + 1);
    assert_eq!(s.cached_read(now, 10, 99 * BLOCK, BLOCK), Some(now));
    assert_eq!(s.traffic()[0].reads, reads + 1);
    assert_eq!(s.file_reads().get(&10), Some(&2));
    let (stats, entries, _) = s.cache_stats().unwrap();
    assert_eq!((stats.hits, stats.buffer_hits, entries), (2, 1, 100));
    s.check().unwrap();
}

#[test]
fn inputs_of_a_finished_compaction_are_obsolete_until_deleted_and_placement_is_counted() {
    use zonelab_systems::lsm::Hint;
    let mut s = store(20, Box::new(BasicPlacement { h: 3 }));
    let mut now = 0;
    for no in 1..=3 {
        write_file(&mut s, &mut now, no, FileKind::Sst { level: 1 }, 10 * MIB);
    }
    write_file(&mut s, &mut now, 4, FileKind::Sst { level: 3 }, 10 * MIB);
    let obsolete = |s: &ZoneFileStore, now| -> Vec<u64> {
        let mut v: Vec<u64> = s
            .view(now)
            .ssts
            .iter()
            .filter(|x| x.obsolete)
            .map(|x| x.file)
            .collect();
        v.sort();
        v
    };
    let started = |job, inputs: Vec<u64>| Hint::CompactionStarted {
        job,
        inputs,
        output_level: 2,
        planned_outputs: 1,
    };
    // A compaction stopped by a close (no outputs) consumes nothing.
    s.hint(now, &started(7, vec![1])).unwrap();
    s.hint(
        now,
        &Hint::CompactionFinished {
            job: 7,
            outputs: vec![],
            output_level: 2,
        },
    )
    .unwrap();
    assert!(obsolete(&s, now).is_empty());
    // A finished compaction's inputs stay on storage, obsolete, until deleted.
    s.hint(now, &started(8, vec![2, 3])).unwrap();
    write_file(&mut s, &mut now, 5, FileKind::Sst { level: 2 }, 10 * MIB);
    s.hint(
        now,
        &Hint::CompactionFinished {
            job: 8,
            outputs: vec![5],
            output_level: 2,
        },
    )
    .unwrap();
    assert_eq!(obsolete(&s, now), vec![2, 3]);
    s.delete(now, 2).unwrap();
    assert_eq!(obsolete(&s, now), vec![3]);
    // A new mount: what survived the open is live.
    s.remount(now).unwrap();
    assert!(obsolete(&s, now).is_empty());
    // Placement counts: B3 sends L1/L2 to the SSD and L3 to the HDD by its rule
    // while the SSD has room.
    let c = s.placement_counts();
    assert_eq!((c[&1].ssd, c[&2].ssd), (3, 1));
    assert_eq!(
        (c[&3].ssd, c[&3].hdd_by_rule, c[&3].hdd_ssd_full),
        (0, 1, 0)
    );
    s.check().unwrap();
}

#[test]
fn the_wal_cap_is_the_pools_size() {
    // §3.2/§4.1: the pool is the pre-configured maximum WAL size (2.1 GiB) divided
    // by the zone capacity, so RocksDB's max_total_wal_size is P × C.
    let mut s = store(20, Box::new(BasicPlacement { h: 3 }));
    assert_eq!(s.wal_limit_for_pool_bytes(), None);
    s.configure_hhzs(2, false, 0).unwrap();
    let zone = s.view(0).devices[0].zone_capacity_bytes;
    assert_eq!(zone, 1077 * MIB);
    assert_eq!(s.wal_limit_for_pool_bytes(), Some(2 * zone));
}

#[test]
fn auto_counts_ssd_reads_in_the_ssd_throughput_it_tunes_by() {
    // AUTO (§4.1) lowers its maximum level when the SSD's throughput exceeds 65 %
    // of its sequential write throughput; H2Zone counts reads and writes in it
    // (`ZenStat::AddStatBytes` → `ssd_rwtotal` → `ExtractThpt`). A second of
    // 1 MiB reads from an SSD SST with no writes must lower the level.
    let mut s = store(20, Box::new(AutoPlacement::default()));
    let mut now = 0;
    write_file(&mut s, &mut now, 1, FileKind::Sst { level: 1 }, 64 * MIB);
    assert_eq!(s.device_of(1), Some(0));
    // Idle seconds: the throughput is low, the level rises to its cap of 4.
    for _ in 0..5 {
        now += 1_000_000_000;
        s.read(now, 1, 0, 4096).unwrap();
    }
    assert_eq!(s.describe_policy(now), "max_level=4");
    // Two seconds of back-to-back 1 MiB reads: above 65 % of 1,002.8 MiB/s.
    let until = now + 2_000_000_000;
    let mut off = 0;
    while now < until {
        now = s.read(now, 1, off, MIB).unwrap();
        off = (off + MIB) % (64 * MIB);
    }
    now += 1;
    s.read(now, 1, 0, 4096).unwrap();
    let level: i32 = s.describe_policy(now)["max_level=".len()..]
        .parse()
        .unwrap();
    assert!(
        level < 4,
        "reads count in AUTO's SSD throughput (level {level})"
    );
}

#[test]
fn an_evicted_cache_zone_with_nothing_written_is_left_empty_for_the_wal() {
    // The cache takes pool zone 0 for one evicted block, which waits in the 16 KiB
    // write buffer (nothing on the device yet); the WAL fills pool zone 1; the next
    // WAL zone evicts cache zone 0 (FIFO, §3.5). The store must not finish the
    // empty zone on the device (a finish turns an empty zone full, and a zone the
    // store counts as unwritten is not reset), so the WAL can write in it.
    let (mut s, mut now) = caching_store_with_hdd_sst_10();
    assert_eq!(s.device_of(10), Some(1));
    evict_block_of_sst_10(&mut s, now, 0, 4157);
    assert_eq!(s.cache_stats().unwrap().0.admitted, 1);
    let zone = s.view(now).devices[0].zone_capacity_bytes;
    write_file(&mut s, &mut now, 1, FileKind::Wal, zone);
    s.create(now, 2, FileKind::Wal).unwrap();
    s.append(now, 2, MIB).unwrap();
    let (stats, entries, _) = s.cache_stats().unwrap();
    assert_eq!((stats.evicted_zones, entries), (1, 0));
    assert_eq!(s.wal_outside_pool_bytes(), 0, "the WAL stays in the pool");
    s.check().unwrap();
}

#[test]
fn a_remount_leaves_an_unwritten_cache_zone_empty_on_the_device() {
    // A remount drops the cache (§3.5: its mapping is in memory only) and resets
    // its zones; one whose blocks were all still in the write buffer must come
    // back to the pool empty on the device, not finished (`check` asks the device).
    let (mut s, now) = caching_store_with_hdd_sst_10();
    evict_block_of_sst_10(&mut s, now, 0, 4157);
    s.remount(now).unwrap();
    assert_eq!(s.cache_stats().unwrap().0.evicted_zones, 1);
    s.check().unwrap();
}

/// The SSD, failing every write once `fail` is set (a device error).
struct WritesFail {
    inner: Box<dyn zonelab_devices::Device>,
    fail: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl zonelab_devices::Device for WritesFail {
    fn info(&self) -> &zonelab_devices::DeviceInfo {
        self.inner.info()
    }
    fn submit(
        &mut self,
        now_ns: u64,
        cmd: &zonelab_devices::Command,
        payload: zonelab_devices::Payload<'_>,
    ) -> Result<zonelab_devices::Completion, zonelab_devices::DeviceError> {
        let write = matches!(
            cmd,
            zonelab_devices::Command::Write { .. } | zonelab_devices::Command::Append { .. }
        );
        if write && self.fail.load(std::sync::atomic::Ordering::Relaxed) {
            return Err(zonelab_devices::DeviceError::Unsupported {
                command: "write (injected failure)",
                device: self.inner.info().name.clone(),
            });
        }
        self.inner.submit(now_ns, cmd, payload)
    }
    fn report_zones(
        &self,
        first: u32,
        max: u32,
    ) -> Result<Vec<zonelab_devices::zoned::ZoneDescriptor>, zonelab_devices::DeviceError> {
        self.inner.report_zones(first, max)
    }
    fn stats(&self, elapsed_ns: u64) -> zonelab_devices::DeviceStats {
        self.inner.stats(elapsed_ns)
    }
}

#[test]
fn a_block_without_a_free_cache_zone_is_counted_and_a_device_error_is_returned() {
    // The pool's two zones both hold WAL data: no cache zone to take. H2Zone's
    // `CacheManager::Insert` returns NoSpace and `Sync` drops it; the store counts
    // it and the hint succeeds.
    let (mut s, mut now) = caching_store_with_hdd_sst_10();
    write_file(&mut s, &mut now, 1, FileKind::Wal, 1000 * MIB);
    write_file(&mut s, &mut now, 2, FileKind::Wal, 500 * MIB);
    evict_block_of_sst_10(&mut s, now, 0, 4157);
    let stats = s.cache_stats().unwrap().0;
    assert_eq!((stats.admitted, stats.rejected_no_zone), (0, 1));
    assert_eq!(s.cached_read(now, 10, 0, 4157), None);

    // A device error while writing the cache buffer is an error of the hint.
    let fail = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut devices = hhzs_support::zn540_and_smr(20, 64);
    let ssd = std::mem::replace(&mut devices[0].device, open_device("zn540").unwrap());
    devices[0].device = Box::new(WritesFail {
        inner: ssd,
        fail: fail.clone(),
    });
    let mut s = ZoneFileStore::new(devices, Box::new(BasicPlacement { h: 1 })).unwrap();
    s.configure_hhzs(2, true, 0).unwrap();
    let mut now = 0;
    write_file(&mut s, &mut now, 10, FileKind::Sst { level: 3 }, 64 * MIB);
    fail.store(true, std::sync::atomic::Ordering::Relaxed);
    // Four 4,157-B blocks fill the 16 KiB buffer: its write fails.
    let mut result = Ok(());
    for i in 0..4 {
        result = result.and(s.hint(
            now,
            &zonelab_systems::lsm::Hint::BlockEvicted {
                sst: 10,
                offset: i * 4157,
                bytes: 4157,
            },
        ));
    }
    let err = result.expect_err("the cache write failed");
    assert!(err.to_string().contains("injected failure"), "{err}");
}

#[test]
fn a_trivial_move_marks_the_sst_for_migration_priority() {
    // H2Zone's `ZoneFile::UpdateLevel` sets `is_trivial_moved`, which
    // `ComparePriority` ranks below an unmoved SST of the level.
    let mut s = store(20, Box::new(BasicPlacement { h: 4 }));
    let mut now = 0;
    write_file(&mut s, &mut now, 1, FileKind::Sst { level: 1 }, 8 * MIB);
    write_file(&mut s, &mut now, 2, FileKind::Sst { level: 1 }, 8 * MIB);
    s.hint(
        now,
        &zonelab_systems::lsm::Hint::TrivialMove {
            sst: 2,
            from_level: 1,
            to_level: 2,
        },
    )
    .unwrap();
    let marks: Vec<(u64, u32, bool)> = s
        .view(now)
        .ssts
        .iter()
        .map(|v| (v.file, v.level, v.trivially_moved))
        .collect();
    assert_eq!(marks, [(1, 1, false), (2, 2, true)]);
}
