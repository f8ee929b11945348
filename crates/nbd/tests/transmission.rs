//! The data path: reads and writes with real bytes, unaligned requests by
//! read-modify-write, FLUSH/FUA/TRIM/WRITE_ZEROES mapped to the model, errors
//! for ranges past the export and writes to a read-only one, many requests in
//! flight answered at their modelled completions, the device's report, the
//! refusals of zoned models, conventional-zone exports, the non-`Send` EF-SMR
//! model, and a restart on the backing file.

mod common;
use common::*;
use std::time::Instant;

#[test]
fn bytes_round_trip_aligned_and_unaligned() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), "ssd-conventional", |_| {}).unwrap();
    let mut c = Client::go(&srv.socket, "").unwrap();
    let a = pattern(64 << 10, 7);
    assert_eq!(c.write(1 << 20, &a), 0);
    assert_eq!(c.read(1 << 20, a.len() as u32), (0, a.clone()));
    // Unaligned write inside the data: the bytes around it survive.
    let b = pattern(1000, 9);
    assert_eq!(c.write((1 << 20) + 4090, &b), 0);
    let mut want = a.clone();
    want[4090..5090].copy_from_slice(&b);
    assert_eq!(c.read(1 << 20, a.len() as u32).1, want);
    assert_eq!(c.read((1 << 20) + 4090, 1000).1, b, "unaligned read");
    // Never-written blocks read as zeros.
    assert_eq!(c.read(8 << 20, 512).1, vec![0u8; 512]);
    c.disconnect();
    let served = srv.stop();
    let r = served.report.unwrap();
    assert_eq!(r.kind, "nbd");
    assert_eq!(r.errors.count, 0);
    // 2 writes; 4 reads of the client and the covering read of the
    // read-modify-write.
    assert_eq!(r.write.ops, 2);
    assert_eq!(r.read.ops, 5);
    assert_eq!(served.request_errors, 0);
}

#[test]
fn flush_fua_trim_and_write_zeroes_reach_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), "ssd-conventional", |c| {
        c.device.backing = Some(c.listen_dir().join("ssd.img"))
    })
    .unwrap();
    let mut c = Client::go(&srv.socket, "").unwrap();
    let d = pattern(1 << 20, 3);
    assert_eq!(c.write(0, &d), 0);
    assert_eq!(c.call(CMD_WRITE, FLAG_FUA, 2 << 20, 8192, &d[..8192]).0, 0);
    assert_eq!(c.call(CMD_FLUSH, 0, 0, 0, &[]).0, 0);
    // Trim of [100, 100 + 3 blocks): only whole blocks inside are trimmed.
    assert_eq!(c.call(CMD_TRIM, 0, 100, 3 * 4096, &[]).0, 0);
    assert_eq!(c.call(CMD_WRITE_ZEROES, 0, 512 << 10, 300_000, &[]).0, 0);
    let (_, back) = c.read(0, 1 << 20);
    assert_eq!(
        &back[..100],
        &d[..100],
        "bytes before the trimmed blocks stay"
    );
    assert!(back[512 << 10..(512 << 10) + 300_000]
        .iter()
        .all(|&b| b == 0));
    assert_eq!(&back[(512 << 10) + 300_000..], &d[(512 << 10) + 300_000..]);
    c.disconnect();
    let r = srv.stop().report.unwrap();
    assert_eq!(r.flushes, 2, "FUA and FLUSH");
    assert_eq!(r.trim.ops, 1);
    assert_eq!(
        r.trim.bytes,
        2 * 4096,
        "blocks 1 and 2: the whole blocks inside the range"
    );
    assert!(r.backing_file.unwrap().ends_with("ssd.img"));
}

#[test]
fn out_of_range_and_read_only_requests_get_errors_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), "ssd-conventional", |_| {}).unwrap();
    let mut c = Client::go(&srv.socket, "").unwrap();
    let size = c.size;
    assert_eq!(c.read(size - 4096, 8192).0, 22, "EINVAL");
    assert_eq!(c.write(size, &[1u8; 4096]), 28, "ENOSPC");
    assert_eq!(c.call(CMD_TRIM, 0, size, 4096, &[]).0, 22);
    assert_eq!(c.call(CMD_READ, 0x80, 0, 4096, &[]).0, 22, "unknown flag");
    assert_eq!(c.call(9, 0, 0, 0, &[]).0, 22, "unknown command");
    assert_eq!(c.read(0, 4096).0, 0, "still serving");
    c.disconnect();
    srv.stop();
    let srv = TestServer::start(dir.path(), "ssd-conventional", |c| c.read_only = true).unwrap();
    let mut c = Client::go(&srv.socket, "").unwrap();
    assert_eq!(c.write(0, &[1u8; 4096]), 1, "EPERM");
    assert_eq!(c.call(CMD_TRIM, 0, 0, 4096, &[]).0, 1);
    c.disconnect();
    srv.stop();
}

#[test]
fn requests_in_flight_are_answered_when_the_model_completes_them() {
    let dir = tempfile::tempdir().unwrap();
    // An HDD: random reads take milliseconds each, queued on one actuator.
    let srv = TestServer::start(dir.path(), "wd100efax", |_| {}).unwrap();
    let mut c = Client::go(&srv.socket, "").unwrap();
    let t0 = Instant::now();
    let cookies: Vec<u64> = (0..16u64)
        .map(|i| c.send(CMD_READ, 0, (i * 7919 % 16) * (4 << 20), 4096, &[]))
        .collect();
    let mut got = Vec::new();
    for _ in 0..16 {
        let (cookie, err) = c.recv_header();
        assert_eq!(err, 0);
        c.recv_data(4096);
        got.push(cookie);
    }
    let wall = t0.elapsed();
    got.sort();
    assert_eq!(got, cookies);
    c.disconnect();
    let r = srv.stop().report.unwrap();
    // The replies waited for the model: the wall time covers the modelled time
    // of the 16 reads (they reached the model together).
    assert!(
        wall.as_nanos() as u64 >= r.duration_ns,
        "wall {wall:?} < modelled {} ns",
        r.duration_ns
    );
    assert!(
        r.duration_ns > 16 * 1_000_000,
        "16 random HDD reads take > 16 ms: {}",
        r.duration_ns
    );
}

#[test]
fn zoned_models_are_refused_unless_their_conventional_zones_are_exported() {
    let dir = tempfile::tempdir().unwrap();
    let e = TestServer::start(dir.path(), "zn540", |_| {})
        .err()
        .unwrap();
    assert!(e.contains("`zn540` is a zoned device (zns-ssd)"), "{e}");
    assert!(e.contains("it has no conventional zones"), "{e}");
    let e = TestServer::start(dir.path(), "zn540", |c| c.conventional_zones = true)
        .err()
        .unwrap();
    assert!(e.contains("has no conventional zones to export"), "{e}");
    let e = TestServer::start(dir.path(), "st14000nm0007", |_| {})
        .err()
        .unwrap();
    assert!(
        e.contains("export its 524 conventional zones with --conventional-zones"),
        "{e}"
    );
    let e = TestServer::start(dir.path(), "ssd-conventional", |c| {
        c.conventional_zones = true
    })
    .err()
    .unwrap();
    assert!(e.contains("is not a zoned device"), "{e}");
    let e = TestServer::start(dir.path(), "ssd-conventional", |c| {
        c.size_bytes = Some(1000)
    })
    .err()
    .unwrap();
    assert!(e.contains("--size 1000 is not a multiple of"), "{e}");
    let e = TestServer::start(dir.path(), "no-such-device", |_| {})
        .err()
        .unwrap();
    assert!(e.contains("unknown device profile `no-such-device`"), "{e}");
    // The conventional zones of an HM-SMR disk take random writes.
    let srv = TestServer::start(dir.path(), "st14000nm0007", |c| {
        c.conventional_zones = true;
        c.size_bytes = None;
    })
    .unwrap();
    let mut c = Client::go(&srv.socket, "").unwrap();
    assert_eq!(c.size, 524 * (256 << 20));
    let d = pattern(8192, 5);
    for off in [c.size - 8192, 0, 77 << 20] {
        assert_eq!(c.write(off, &d), 0);
        assert_eq!(c.read(off, 8192).1, d);
    }
    c.disconnect();
    assert_eq!(srv.stop().report.unwrap().errors.count, 0);
}

#[test]
fn the_drive_managed_ef_smr_and_the_conzone_block_namespace_serve_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for device in ["ef-smr", "conzone-tlc-block", "wd100efax"] {
        let srv = TestServer::start(dir.path(), device, |_| {}).unwrap();
        let mut c = Client::go(&srv.socket, "").unwrap();
        let d = pattern(256 << 10, 11);
        for i in 0..4u64 {
            assert_eq!(c.write(i * (3 << 20), &d), 0, "{device}");
        }
        assert_eq!(c.call(CMD_FLUSH, 0, 0, 0, &[]).0, 0);
        for i in 0..4u64 {
            assert_eq!(c.read(i * (3 << 20), d.len() as u32).1, d, "{device}");
        }
        c.disconnect();
        let r = srv.stop().report.unwrap();
        assert_eq!(r.device.name, device);
        assert_eq!((r.write.ops, r.errors.count), (4, 0), "{device}");
    }
}

#[test]
fn a_restarted_server_serves_what_was_flushed_to_its_backing_file() {
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("wd.img");
    let d = pattern(1 << 20, 13);
    for round in 0..2 {
        let i2 = img.clone();
        let srv = TestServer::start(dir.path(), "wd100efax", move |c| {
            c.device.backing = Some(i2)
        })
        .unwrap();
        let mut c = Client::go(&srv.socket, "").unwrap();
        if round == 0 {
            assert_eq!(c.write(5 << 20, &d), 0);
            assert_eq!(c.call(CMD_FLUSH, 0, 0, 0, &[]).0, 0);
        } else {
            assert_eq!(c.read(5 << 20, d.len() as u32).1, d);
        }
        c.disconnect();
        srv.stop();
    }
}
