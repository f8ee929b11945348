//! Bytes through the zone file store: unaligned appends, sync, reads across
//! extents and devices, rename/delete/list.

mod common;
use common::*;
use zonelab_zonefs::{FsErrorKind, KIND_SST, KIND_WAL};

#[test]
fn unaligned_appends_read_back_before_and_after_sync_and_close() {
    let fs = open(None, "hhzs");
    fs.create("000003.log", KIND_WAL, -1).unwrap();
    let data = pattern(1, 50_000);
    let mut expect = Vec::new();
    for (i, piece) in data.chunks(777).enumerate() {
        fs.append("000003.log", piece).unwrap();
        expect.extend_from_slice(piece);
        if i % 9 == 0 {
            fs.sync("000003.log").unwrap();
        }
    }
    assert_eq!(read_all(&fs, "000003.log"), expect);
    // A read across the synced (padded) pieces, at an odd offset.
    let mut buf = vec![0u8; 10_000];
    let n = fs.read("000003.log", 1234, &mut buf).unwrap();
    assert_eq!(n, 10_000);
    assert_eq!(buf, expect[1234..11_234]);
    // Short read at the end.
    let n = fs.read("000003.log", 49_990, &mut buf).unwrap();
    assert_eq!(n, 10);
    fs.close_file("000003.log").unwrap();
    assert_eq!(read_all(&fs, "000003.log"), expect);
    fs.check().unwrap();
}

#[test]
fn files_span_zones_and_devices_and_rename_delete_list_work() {
    let fs = open(None, "b1");
    // B1: L0 on the SSD, deeper levels on the HDD; 6 MiB spans two 4 MiB zones.
    let a = pattern(2, 6 << 20);
    let b = pattern(3, (5 << 20) + 123);
    fs.create("000010.sst", KIND_SST, 0).unwrap();
    fs.create("000011.sst", KIND_SST, -1).unwrap();
    fs.set_level("000011.sst", 3).unwrap();
    fs.append("000010.sst", &a).unwrap();
    fs.append("000011.sst", &b).unwrap();
    fs.close_file("000010.sst").unwrap();
    fs.close_file("000011.sst").unwrap();
    assert_eq!(read_all(&fs, "000010.sst"), a);
    assert_eq!(read_all(&fs, "000011.sst"), b);
    let stats = fs.stats();
    let dev = |n: &str| {
        stats
            .files
            .iter()
            .find(|f| f.name == n)
            .map(|f| f.device.clone())
            .unwrap()
    };
    assert_ne!(dev("000010.sst"), dev("000011.sst"));
    fs.rename("000011.sst", "000010.sst").unwrap();
    assert_eq!(fs.list(), vec!["000010.sst".to_string()]);
    assert_eq!(read_all(&fs, "000010.sst"), b);
    fs.delete("000010.sst").unwrap();
    assert!(fs.list().is_empty());
    let e = fs.size("000010.sst").unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound);
    let e = fs.append("nope.sst", b"x").unwrap_err();
    assert_eq!(e.kind, FsErrorKind::NotFound);
    fs.check().unwrap();
}
