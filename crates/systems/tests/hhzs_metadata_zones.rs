//! The zones the authors' ZenFS keeps for its metadata and RocksDB's metadata files
//! hold (`zonelab_systems::hhzs::metadata_zones`): what they take from the SSD's
//! zones and active-zone tokens, that SSTs never get them, and the errors.

mod hhzs_support;

use zonelab_engine::time::MIB;
use zonelab_systems::hhzs::{BasicPlacement, ZoneFileStore, METADATA_FILE_ZONES, ZENFS_META_ZONES};
use zonelab_systems::lsm::{FileKind, LsmStorage};

/// One SST per ZN540 zone (1,077 MiB): a full-size SST of the paper.
const SST_BYTES: u64 = 1_060_320_051;

/// B3 over 20 SSD zones (the paper's limit) and 64 HDD zones.
fn b3_store() -> ZoneFileStore {
    ZoneFileStore::new(
        hhzs_support::zn540_and_smr(20, 64),
        Box::new(BasicPlacement { h: 3 }),
    )
    .unwrap()
}

/// Opens `count` L1 SSTs that stay open (one MiB each): each needs an active zone.
fn open_ssts(s: &mut ZoneFileStore, count: u64) -> Vec<Option<usize>> {
    let mut now = 0;
    (0..count)
        .map(|no| {
            s.create(now, no, FileKind::Sst { level: 1 }).unwrap();
            now = s.append(now, no, MIB).unwrap();
            s.device_of(no)
        })
        .collect()
}

#[test]
fn zenfs_metadata_zones_leave_17_io_zones_and_13_active_zones_for_files() {
    let mut s = b3_store();
    s.reserve_filesystem_metadata_zones(0, ZENFS_META_ZONES)
        .unwrap();
    let ssd = s.view(0).devices[0];
    assert_eq!((ssd.sst_zones, ssd.empty_zones), (17, 17));
    assert_eq!(s.traffic()[0].zones_usable, 17);
    // The ZN540 allows 14 active zones; the metadata zone takes one.
    let on = open_ssts(&mut s, 14);
    assert!(on[..13].iter().all(|&d| d == Some(0)), "{on:?}");
    assert_eq!(
        on[13],
        Some(1),
        "the 14th open SST finds no SSD zone to open"
    );
    s.check().unwrap();

    // Without the metadata zones the 14th SST still opens on the SSD.
    let mut s = b3_store();
    assert!(open_ssts(&mut s, 14).iter().all(|&d| d == Some(0)));
}

#[test]
fn metadata_files_hold_two_ssd_zones_for_the_whole_run() {
    let mut s = b3_store();
    s.reserve_filesystem_metadata_zones(0, ZENFS_META_ZONES)
        .unwrap();
    s.hold_metadata_file_zones(0, METADATA_FILE_ZONES, 0)
        .unwrap();
    let ssd = s.view(0).devices[0];
    // H2Zone counts them among the SSD's I/O zones (`GetSsdIoZone`), not as empty.
    assert_eq!((ssd.sst_zones, ssd.empty_zones), (17, 15));
    assert_eq!(s.traffic()[0].zones_in_use, 2);
    s.check().unwrap();

    // 15 closed full-size L1 SSTs fill the SSD; the 16th goes to the HDD.
    let mut now = 0;
    for no in 0..16u64 {
        s.create(now, no, FileKind::Sst { level: 1 }).unwrap();
        let mut left = SST_BYTES;
        while left > 0 {
            now = s.append(now, no, left.min(64 * MIB)).unwrap();
            left -= left.min(64 * MIB);
        }
        now = s.close(now, no).unwrap();
        let expected = if no < 15 { 0 } else { 1 };
        assert_eq!(s.device_of(no), Some(expected), "SST {no}");
    }
    // Deleting every SST frees its zones, never the metadata files'.
    for no in 0..16u64 {
        s.delete(now, no).unwrap();
    }
    assert_eq!(s.traffic()[0].zones_in_use, 2);
    assert_eq!(s.view(now).devices[0].empty_zones, 15);
    s.check().unwrap();
}

#[test]
fn metadata_zones_are_set_before_files_and_must_leave_room() {
    let mut s = b3_store();
    let e = s.reserve_filesystem_metadata_zones(0, 20).unwrap_err();
    assert!(e.0.contains("leave no zone of the 20"), "{e}");
    let e = s.hold_metadata_file_zones(0, 20, 0).unwrap_err();
    assert!(
        e.0.contains("metadata-file zones leave no empty zone"),
        "{e}"
    );
    let e = s.hold_metadata_file_zones(2, 1, 0).unwrap_err();
    assert!(e.0.contains("no device 2"), "{e}");

    // The ZN540's 14 active zones bound what metadata files may hold open.
    let mut s = ZoneFileStore::new(
        hhzs_support::zn540_and_smr(40, 64),
        Box::new(BasicPlacement { h: 3 }),
    )
    .unwrap();
    let e = s.hold_metadata_file_zones(0, 15, 0).unwrap_err();
    assert!(e.0.contains("exceed the 14 active zones"), "{e}");

    // Pool first, then metadata zones: refused (the pool's zones are fixed).
    let mut s = b3_store();
    s.configure_hhzs(2, false, 0).unwrap();
    let e = s
        .reserve_filesystem_metadata_zones(0, ZENFS_META_ZONES)
        .unwrap_err();
    assert!(e.0.contains("before the WAL/cache pool"), "{e}");

    // With a file in the store, neither.
    let mut s = b3_store();
    s.create(0, 1, FileKind::Wal).unwrap();
    let e = s.hold_metadata_file_zones(0, 2, 0).unwrap_err();
    assert!(e.0.contains("before creating files"), "{e}");
    let e = s.reserve_filesystem_metadata_zones(0, 3).unwrap_err();
    assert!(e.0.contains("before creating files"), "{e}");
}
