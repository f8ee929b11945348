//! Issue 14, item 1: an SST lives on one device (HHZS §3.2: "one (for the SSD) or
//! multiple (for the HDD) empty zones"; migration moves whole SSTs). A property
//! test over every scheme, random loads and skewed read/update mixes with
//! migration and caching on: after every batch of operations no SST has extents
//! on two devices (`ZoneFileStore::check`). The devices have small zones so that
//! SSTs span several HDD zones and intra-L0 outputs several SSD zones, the case
//! the store used to split across devices. (Crashes of the real-time store are in
//! `crates/zonefs/tests/crash_property.rs`, whose recovery check runs the same
//! invariant.)

use proptest::prelude::*;
use zonelab_devices::models::build;
use zonelab_devices::profile::{find_profile, ProfileSource};
use zonelab_devices::Device;
use zonelab_engine::rng::splitmix64;
use zonelab_engine::time::MIB;
use zonelab_systems::hhzs::{Scheme, StoreDeviceSpec, ZoneFileStore};
use zonelab_systems::lsm::{KvOp, LsmDb, LsmOptions};

/// `name`'s profile with the zone settings replaced (`key = old` → `key = new`).
fn small_zones(name: &str, edits: &[(&str, &str)]) -> Box<dyn Device> {
    let src = find_profile(name).unwrap();
    let mut text = src.text.clone();
    for (old, new) in edits {
        assert!(text.contains(old), "{name}: `{old}` not in the profile");
        text = text.replacen(old, new, 1);
    }
    build(&ProfileSource {
        source_name: format!("{name} (small zones)"),
        text,
    })
    .unwrap()
}

/// ZN540 with 8 MiB zones (7 MiB capacity) and ST14000NM0007 with 2 MiB zones;
/// with SSTs of 1,011.2 MiB / 256 = 3.95 MiB an SST fills half an SSD zone or
/// two HDD zones.
fn store(scheme: Scheme, ssd_zones: u32) -> ZoneFileStore {
    let ssd = small_zones(
        "zn540",
        &[
            ("zone_size_mib = 2048", "zone_size_mib = 8"),
            ("zone_capacity_mib = 1077", "zone_capacity_mib = 7"),
        ],
    );
    let hdd = small_zones(
        "st14000nm0007",
        &[("zone_size_mib = 256", "zone_size_mib = 2")],
    );
    let mut s = ZoneFileStore::new(
        vec![
            StoreDeviceSpec {
                device: ssd,
                zone_budget: Some(ssd_zones),
            },
            StoreDeviceSpec {
                device: hdd,
                zone_budget: None,
            },
        ],
        scheme.policy(),
    )
    .unwrap();
    let st = scheme.store();
    if st.wal_cache_pool || st.caching || st.migration {
        let pool = if st.wal_cache_pool { 2 } else { 0 };
        let rate = if st.migration { 64 * MIB } else { 0 };
        s.configure_hhzs(pool, st.caching, rate).unwrap();
    }
    if !st.wal_cache_pool {
        // The basic schemes and B3+M allocate as ZenFS does (WAL files join zones
        // L0 SSTs left open): an SST still lives on one device.
        s.configure_zenfs_sharing(1.0).unwrap();
    }
    s
}

const SCHEMES: [Scheme; 9] = [
    Scheme::Basic(1),
    Scheme::Basic(2),
    Scheme::Basic(3),
    Scheme::Basic(4),
    Scheme::Auto,
    Scheme::B3M,
    Scheme::P,
    Scheme::PM,
    Scheme::Hhzs,
];

/// Loads `keys` random keys, then runs `ops` skewed reads and updates, checking
/// the store after every batch; returns the database.
fn run(scheme: Scheme, ssd_zones: u32, keys: u64, ops: u64, seed: u64) -> LsmDb<ZoneFileStore> {
    let o = LsmOptions::hhzs_paper().scaled(1.0 / 256.0);
    let mut db = LsmDb::new(o, store(scheme, ssd_zones)).unwrap();
    let key = |i: u64| splitmix64(i ^ seed) >> 1;
    let batch = 2_000;
    let mut done = 0;
    while done < keys {
        let n = batch.min(keys - done);
        let mut load = (done..done + n).map(|i| KvOp::Put { key: key(i) });
        db.run_ops(&mut load, 0).unwrap();
        done += n;
        db.storage().check().unwrap();
    }
    let mut i = 0;
    while i < ops {
        let n = batch.min(ops - i);
        let mut mix = (i..i + n).map(|j| {
            let r = splitmix64(j ^ seed ^ 0xabc);
            let k = if r % 10 < 8 {
                r % (keys / 20).max(1)
            } else {
                r % keys
            };
            if j % 4 == 0 {
                KvOp::Put { key: key(k) }
            } else {
                KvOp::Get { key: key(k) }
            }
        });
        db.run_ops(&mut mix, 0).unwrap();
        i += n;
        db.storage().check().unwrap();
    }
    db
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn no_sst_ever_has_extents_on_two_devices(
        scheme in 0usize..SCHEMES.len(),
        ssd_zones in 6u32..20,
        keys in 20_000u64..45_000,
        seed in any::<u64>(),
    ) {
        run(SCHEMES[scheme], ssd_zones, keys, 12_000, seed);
    }
}

#[test]
fn the_property_is_exercised_spanning_ssts_and_migrations_happen() {
    let db = run(Scheme::Hhzs, 12, 45_000, 20_000, 3);
    let s = db.storage();
    // SSTs span several HDD zones (the case that used to be split) ...
    let hdd_zone = s.traffic()[1].zone_capacity_bytes;
    let big = db
        .version()
        .all()
        .filter(|sst| s.device_of(sst.no) == Some(1) && sst.file_bytes > hdd_zone)
        .count();
    assert!(big > 0, "no SST spans HDD zones");
    // ... and whole SSTs moved between the devices.
    let m = s.migration_stats();
    assert!(m.to_ssd + m.to_hdd > 0, "{m:?}");
    s.check().unwrap();
}

#[test]
fn zenfs_sharing_is_exercised_under_b3() {
    // WAL files join zones L0 SSTs left open, and those zones are reset once
    // both are deleted; the invariant held after every batch (in `run`).
    let db = run(Scheme::Basic(3), 12, 45_000, 8_000, 5);
    let z = db.storage().zenfs_sharing_stats();
    assert!(z.wal_joins > 0 && z.shared_zone_resets > 0, "{z:?}");
}
