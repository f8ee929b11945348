//! Crash recovery: synced data survives a crash (the handle is leaked without
//! closing, as kill -9 would leave it), unsynced tails are gone, the store is
//! consistent, and a clean close keeps everything.

mod common;
use common::*;
use zonelab_zonefs::{FsConfig, ZoneFs, KIND_SST, KIND_WAL};

#[test]
fn synced_data_survives_a_crash_and_unsynced_tail_is_gone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = Some(tmp.path());
    let wal = pattern(5, 20_000);
    let sst = pattern(6, (3 << 20) + 17);
    {
        let fs = open(dir, "hhzs");
        fs.create("000004.log", KIND_WAL, -1).unwrap();
        fs.create("000005.sst", KIND_SST, 1).unwrap();
        fs.append("000004.log", &wal[..12_345]).unwrap();
        fs.sync("000004.log").unwrap();
        fs.append("000005.sst", &sst).unwrap();
        fs.close_file("000005.sst").unwrap();
        fs.sync("000005.sst").unwrap();
        // Not synced: lost by the crash.
        fs.append("000004.log", &wal[12_345..]).unwrap();
        fs.create("000006.sst", KIND_SST, 2).unwrap();
        fs.append("000006.sst", &pattern(7, 9000)).unwrap();
        fs.check().unwrap();
        std::mem::forget(fs); // crash: nothing saved after the last sync
    }
    let fs = open(dir, "hhzs");
    let report = fs.recovery_report().unwrap();
    assert!(report.snapshot_seq.is_some(), "{report:?}");
    fs.check().unwrap();
    assert_eq!(read_all(&fs, "000004.log"), wal[..12_345].to_vec());
    assert_eq!(read_all(&fs, "000005.sst"), sst);
    let st = fs.stats();
    let f = st.files.iter().find(|f| f.name == "000005.sst").unwrap();
    assert_eq!(f.level, Some(1));
    // The synced WAL continues after recovery.
    fs.append("000004.log", b"more").unwrap();
    fs.sync("000004.log").unwrap();
    fs.close().unwrap();
    let fs = open(dir, "hhzs");
    let mut expect = wal[..12_345].to_vec();
    expect.extend_from_slice(b"more");
    assert_eq!(read_all(&fs, "000004.log"), expect);
    fs.check().unwrap();
}

#[test]
fn deletes_and_renames_persist_and_the_log_rolls_over_many_commits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = Some(tmp.path());
    // 1 MiB SSD zones: a log zone holds 256 one-block commits.
    let cfg = FsConfig {
        zone_capacity_mib_ssd: Some(1),
        ..small_config(dir, "b3")
    };
    {
        let fs = ZoneFs::open_config(&cfg).unwrap();
        // Two L1 SSTs, one trivially moved to L2: the mark (H2Zone's
        // `is_trivial_moved`) must survive the log's snapshots and the crash.
        for name in ["000050.sst", "000051.sst"] {
            fs.create(name, KIND_SST, 1).unwrap();
            fs.append(name, &pattern(50, 8192)).unwrap();
            fs.close_file(name).unwrap();
            fs.sync(name).unwrap();
        }
        fs.hint_trivial_move("000051.sst", 2).unwrap();
        // Enough commits to fill a log zone several times.
        for i in 0..700u64 {
            let name = format!("{:06}.log", i % 7);
            if fs.size(&name).is_err() {
                fs.create(&name, KIND_WAL, -1).unwrap();
            }
            fs.append(&name, &pattern(i, 100)).unwrap();
            fs.sync(&name).unwrap();
            if i % 150 == 149 {
                fs.delete(&name).unwrap();
            }
        }
        fs.create("CURRENT.tmp", KIND_WAL, -1).unwrap();
        fs.append("CURRENT.tmp", b"MANIFEST-000001\n").unwrap();
        fs.sync("CURRENT.tmp").unwrap();
        fs.rename("CURRENT.tmp", "CURRENT").unwrap();
        let st = fs.stats();
        assert!(st.journal.unwrap().snapshots >= 3, "{:?}", st.journal);
        fs.check().unwrap();
        std::mem::forget(fs);
    }
    let fs = ZoneFs::open_config(&cfg).unwrap();
    fs.check().unwrap();
    assert_eq!(read_all(&fs, "CURRENT"), b"MANIFEST-000001\n".to_vec());
    assert!(!fs.list().contains(&"CURRENT.tmp".to_string()));
    let marks: Vec<(String, Option<u32>, bool)> = fs
        .stats()
        .files
        .into_iter()
        .filter(|f| f.name.starts_with("00005"))
        .map(|f| (f.name, f.level, f.trivially_moved))
        .collect();
    assert_eq!(
        marks,
        [
            ("000050.sst".to_string(), Some(1), false),
            ("000051.sst".to_string(), Some(2), true)
        ]
    );
    for n in fs.list().iter().filter(|n| n.ends_with(".log")) {
        assert_eq!(fs.size(n).unwrap() % 100, 0);
    }
}
