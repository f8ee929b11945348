//! ZenFS's zone allocation for the basic schemes (`hhzs::zenfs_sharing`; H2Zone
//! `fzbd_zenfs.cc` `AllocateZone` / `TryAlreadyOpenZone`, `zbd_zenfs.cc`
//! `GetLifeTimeDiff`): a WAL file may join a zone an L0 SST left open; nothing else
//! shares; zones are finished below 7 % room or at the active-zone limit, and reset
//! only when every file in them is deleted; SSTs stay on one device.

mod hhzs_support;

use proptest::prelude::*;
use zonelab_devices::open_device;
use zonelab_engine::time::MIB;
use zonelab_systems::hhzs::{BasicPlacement, StoreDeviceSpec, ZenfsSharing, ZoneFileStore};
use zonelab_systems::lsm::{FileKind, LsmStorage};

/// ZN540 (1,077 MiB zones, 14 active) limited to `ssd_zones`, and the HM-SMR HDD,
/// under B`h` with ZenFS sharing seeing `scale` of each zone.
fn store(ssd_zones: u32, h: u32, scale: f64) -> ZoneFileStore {
    store_with(ssd_zones, h, ZenfsSharing::authors(scale))
}

fn store_with(ssd_zones: u32, h: u32, sharing: ZenfsSharing) -> ZoneFileStore {
    let mut s = ZoneFileStore::new(
        hhzs_support::zn540_and_smr(ssd_zones, 256),
        Box::new(BasicPlacement { h }),
    )
    .unwrap();
    s.configure_zenfs_sharing_with(sharing).unwrap();
    s
}

fn write(s: &mut ZoneFileStore, now: &mut u64, no: u64, kind: FileKind, bytes: u64) {
    s.create(*now, no, kind).unwrap();
    append(s, now, no, bytes);
}

fn append(s: &mut ZoneFileStore, now: &mut u64, no: u64, bytes: u64) {
    let mut left = bytes;
    while left > 0 {
        let c = left.min(MIB);
        *now = s.append(*now, no, c).unwrap();
        left -= c;
    }
}

const L0: FileKind = FileKind::Sst { level: 0 };
const WAL: FileKind = FileKind::Wal;

#[test]
fn a_wal_file_joins_a_zone_an_l0_sst_left_open_and_it_resets_when_both_are_gone() {
    let mut s = store(20, 3, 1.0);
    let mut now = 0;
    // 900 MiB leaves 177 MiB (16 %) of the zone: it stays active.
    write(&mut s, &mut now, 1, L0, 900 * MIB);
    now = s.close(now, 1).unwrap();
    assert_eq!(s.zenfs_sharing_stats().rested, 1);
    assert_eq!(s.traffic()[0].zone_finishes, 0);
    // The WAL (lifetime SHORT) joins the L0 zone (MEDIUM) and fills its 177 MiB,
    // then takes an empty zone of its own.
    write(&mut s, &mut now, 2, WAL, 300 * MIB);
    let z = s.zenfs_sharing_stats();
    assert_eq!(z.wal_joins, 1);
    assert_eq!(z.wal_bytes_in_l0_zones, 177 * MIB);
    assert_eq!(s.traffic()[0].zones_in_use, 2);
    s.check().unwrap();
    // Deleting the SST leaves the zone allocated: the WAL still has data in it.
    s.delete(now, 1).unwrap();
    assert_eq!(s.traffic()[0].zone_resets, 0);
    assert_eq!(s.traffic()[0].zones_in_use, 2);
    now += 5_000_000_000;
    now = s.close(now, 2).unwrap();
    s.delete(now, 2).unwrap();
    let t = s.traffic();
    assert_eq!((t[0].zone_resets, t[0].zones_in_use), (2, 0));
    let z = s.zenfs_sharing_stats();
    assert_eq!(z.shared_zone_resets, 1);
    assert!(z.shared_zone_hold_ns >= 5_000_000_000, "{z:?}");
    s.check().unwrap();
}

#[test]
fn wal_files_never_share_with_each_other_and_ssts_never_join_a_zone() {
    let mut s = store(20, 3, 1.0);
    let mut now = 0;
    // Two WAL files: equal lifetimes never match (`GetLifeTimeDiff`).
    write(&mut s, &mut now, 1, WAL, 300 * MIB);
    now = s.close(now, 1).unwrap();
    write(&mut s, &mut now, 2, WAL, 300 * MIB);
    now = s.close(now, 2).unwrap();
    assert_eq!(s.traffic()[0].zones_in_use, 2);
    // An L0 SST (MEDIUM) cannot join a WAL zone (SHORT) nor another L0 zone.
    write(&mut s, &mut now, 3, L0, 300 * MIB);
    now = s.close(now, 3).unwrap();
    write(&mut s, &mut now, 4, L0, 300 * MIB);
    now = s.close(now, 4).unwrap();
    // Non-L0 SSTs always take empty zones.
    write(&mut s, &mut now, 5, FileKind::Sst { level: 1 }, 300 * MIB);
    now = s.close(now, 5).unwrap();
    assert_eq!(s.traffic()[0].zones_in_use, 5);
    assert_eq!(s.zenfs_sharing_stats().wal_joins, 0);
    // A third WAL joins the first L0 zone, not the L1 or WAL zones.
    write(&mut s, &mut now, 6, WAL, 10 * MIB);
    assert_eq!(s.zenfs_sharing_stats().wal_joins, 1);
    assert_eq!(s.traffic()[0].zones_in_use, 5);
    s.delete(now, 4).unwrap();
    s.delete(now, 5).unwrap();
    assert_eq!(s.traffic()[0].zones_in_use, 3);
    s.check().unwrap();
}

#[test]
fn a_zone_with_less_than_seven_percent_left_is_finished_and_not_joined() {
    let mut s = store(20, 3, 1.0);
    let mut now = 0;
    // The paper's SST, 1,011.2 MiB, leaves 6.1 % of a 1,077 MiB zone.
    write(&mut s, &mut now, 1, L0, 1_060_320_051);
    now = s.close(now, 1).unwrap();
    assert_eq!(s.traffic()[0].zone_finishes, 1);
    write(&mut s, &mut now, 2, WAL, 10 * MIB);
    assert_eq!(s.zenfs_sharing_stats().wal_joins, 0);
    assert_eq!(s.traffic()[0].zones_in_use, 2);
    s.check().unwrap();
    // Without the authors' threshold (ZenFS's default 0) the WAL joins it.
    let mut s = store_with(
        20,
        3,
        ZenfsSharing {
            capacity_scale: 1.0,
            finish_threshold_pct: 0,
        },
    );
    let mut now = 0;
    write(&mut s, &mut now, 1, L0, 1_060_320_051);
    now = s.close(now, 1).unwrap();
    write(&mut s, &mut now, 2, WAL, 10 * MIB);
    assert_eq!(s.zenfs_sharing_stats().wal_joins, 1);
    assert_eq!(s.traffic()[0].zones_in_use, 1);
    s.check().unwrap();
}

#[test]
fn at_the_active_zone_limit_the_resting_zone_with_least_room_is_finished() {
    let mut s = store(20, 3, 1.0);
    let mut now = 0;
    // 14 resting zones (ZN540: 14 active), the fullest holding 620 MiB.
    for no in 0..14u64 {
        write(&mut s, &mut now, no, WAL, (100 + 40 * no) * MIB);
        now = s.close(now, no).unwrap();
    }
    assert_eq!(s.traffic()[0].zone_finishes, 0);
    // A 15th zone needs one of them finished: the one with 620 MiB written.
    write(&mut s, &mut now, 20, FileKind::Sst { level: 1 }, 100 * MIB);
    assert_eq!(s.device_of(20), Some(0));
    assert_eq!(s.zenfs_sharing_stats().victims_finished, 1);
    assert_eq!(s.traffic()[0].zone_finishes, 1);
    s.check().unwrap();
    // Deleting the finished file's zone frees it; the others stay active.
    s.delete(now, 13).unwrap();
    assert_eq!(s.traffic()[0].zone_resets, 1);
    s.check().unwrap();
}

#[test]
fn a_scaled_zone_holds_the_scaled_share_of_a_wal_file() {
    // At scale 0.05 a WAL file sees 53.85 MiB of each 1,077 MiB zone.
    let mut s = store(20, 3, 0.05);
    let mut now = 0;
    write(&mut s, &mut now, 1, WAL, 60 * MIB);
    assert_eq!(s.traffic()[0].zones_in_use, 2);
    // An L0 SST of 40 MiB leaves 13.85 of the 53.85 MiB: a WAL may join.
    write(&mut s, &mut now, 2, L0, 40 * MIB);
    now = s.close(now, 2).unwrap();
    write(&mut s, &mut now, 3, WAL, 5 * MIB);
    assert_eq!(s.zenfs_sharing_stats().wal_joins, 1);
    s.check().unwrap();
}

#[test]
fn bad_sharing_configurations_are_errors() {
    let mk = || {
        ZoneFileStore::new(
            vec![StoreDeviceSpec {
                device: open_device("zn540").unwrap(),
                zone_budget: Some(20),
            }],
            Box::new(BasicPlacement { h: 3 }),
        )
        .unwrap()
    };
    for bad in [0.0, -1.0, 1.5, f64::NAN] {
        let e = mk().configure_zenfs_sharing(bad).unwrap_err();
        assert!(e.0.contains("capacity scale"), "{e}");
    }
    let e = mk()
        .configure_zenfs_sharing_with(ZenfsSharing {
            capacity_scale: 1.0,
            finish_threshold_pct: 100,
        })
        .unwrap_err();
    assert!(e.0.contains("finish threshold 100 %"), "{e}");
    let mut pooled = mk();
    pooled.configure_hhzs(2, false, 0).unwrap();
    let e = pooled.configure_zenfs_sharing(1.0).unwrap_err();
    assert!(e.0.contains("no WAL/cache pool"), "{e}");
    let mut used = mk();
    used.create(0, 1, WAL).unwrap();
    let e = used.configure_zenfs_sharing(1.0).unwrap_err();
    assert!(e.0.contains("before creating files"), "{e}");
}

#[derive(Debug, Clone)]
enum Op {
    Create(FileKind),
    Append(usize, u64),
    Close(usize),
    Delete(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0u32..5).prop_map(|l| Op::Create(if l == 4 {
            WAL
        } else {
            FileKind::Sst { level: l }
        })),
        (any::<usize>(), 1u64..700).prop_map(|(f, mib)| Op::Append(f, mib)),
        any::<usize>().prop_map(Op::Close),
        any::<usize>().prop_map(Op::Delete),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Under random files of every class: the store's invariants hold after every
    /// operation (one device per SST, extents and live bytes, active zones =
    /// open + resting); once every file is deleted, every zone is empty again.
    #[test]
    fn sharing_keeps_the_invariants_and_frees_every_zone(
        h in 1u32..5,
        ssd_zones in 4u32..20,
        scale in prop_oneof![Just(1.0), Just(0.25)],
        ops in proptest::collection::vec(op(), 1..120),
    ) {
        let mut s = store(ssd_zones, h, scale);
        let mut now = 0u64;
        let mut files: Vec<(u64, bool)> = Vec::new(); // (number, open for appends)
        let mut next = 1u64;
        for o in ops {
            match o {
                Op::Create(kind) => {
                    s.create(now, next, kind).unwrap();
                    files.push((next, true));
                    next += 1;
                }
                Op::Append(i, mib) if !files.is_empty() => {
                    let (no, open) = files[i % files.len()];
                    if open {
                        append(&mut s, &mut now, no, mib * MIB / 4);
                    }
                }
                Op::Close(i) if !files.is_empty() => {
                    let k = i % files.len();
                    now = s.close(now, files[k].0).unwrap();
                    files[k].1 = false;
                }
                Op::Delete(i) if !files.is_empty() => {
                    let (no, _) = files.remove(i % files.len());
                    s.delete(now, no).unwrap();
                }
                _ => {}
            }
            now += 1_000_000;
            prop_assert!(s.check().is_ok(), "{:?}", s.check());
        }
        for (no, _) in files {
            s.delete(now, no).unwrap();
        }
        let t = s.traffic();
        prop_assert_eq!(t[0].zones_in_use, 0);
        prop_assert_eq!(t[1].zones_in_use, 0);
        prop_assert!(s.check().is_ok());
    }
}
