//! The zone file store over a ZN540-like ZNS SSD and an ST14000NM0007-like HM-SMR
//! HDD: zone allocation, spanning, sharing, resets, reads and errors.

use proptest::prelude::*;
use zonelab_devices::open_device;
use zonelab_engine::time::MIB;
use zonelab_systems::hhzs::{BasicPlacement, PlacementPolicy, StoreDeviceSpec, ZoneFileStore};
use zonelab_systems::lsm::{FileKind, LsmStorage};

fn store(ssd_zones: u32, policy: Box<dyn PlacementPolicy>) -> ZoneFileStore {
    ZoneFileStore::new(
        vec![
            StoreDeviceSpec {
                device: open_device("zn540").unwrap(),
                zone_budget: Some(ssd_zones),
            },
            StoreDeviceSpec {
                device: open_device("st14000nm0007").unwrap(),
                zone_budget: Some(64),
            },
        ],
        policy,
    )
    .unwrap()
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
