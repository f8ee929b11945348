//! Option haggling as proto.md specifies it: GO/INFO with the export, name,
//! description and block size; EXPORT_NAME (with and without the 124 zero
//! bytes); LIST; ABORT; unknown exports; options the server does not support
//! answered with an error and the session going on.

mod common;
use common::*;

#[test]
fn go_reports_the_export_and_its_block_size_constraints() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), "ssd-conventional", |_| {}).unwrap();
    assert!(
        srv.uri.starts_with("nbd+unix:///ssd-conventional?socket="),
        "{}",
        srv.uri
    );
    let c = Client::go(&srv.socket, "ssd-conventional").unwrap();
    assert_eq!(c.size, 64 << 20);
    let has = |bit: u16| c.flags & bit != 0;
    assert!(has(1), "HAS_FLAGS");
    assert!(!has(2), "not read-only");
    assert!(has(4) && has(8), "flush and FUA");
    assert!(!has(16), "an SSD is not rotational");
    assert!(has(32) && has(64), "trim and write-zeroes");
    assert!(has(256), "multi-conn: one model behind every connection");
    assert_eq!(c.block_size, Some((4096, 4096, 32 << 20)));
    c.disconnect();
    // The default (empty) name reaches the same export.
    let c = Client::go(&srv.socket, "").unwrap();
    assert_eq!(c.size, 64 << 20);
    c.disconnect();
    srv.stop();
}

#[test]
fn an_hdd_is_rotational_and_read_only_exports_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), "wd100efax", |c| c.read_only = true).unwrap();
    let c = Client::go(&srv.socket, "wd100efax").unwrap();
    assert_ne!(c.flags & 16, 0, "rotational");
    assert_ne!(c.flags & 2, 0, "read-only");
    assert_eq!(
        c.flags & (32 | 64),
        0,
        "no trim or write-zeroes on a read-only export"
    );
    assert_eq!(
        c.block_size,
        Some((512, 4096, 32 << 20)),
        "512e: 512-byte blocks, 4 KiB preferred"
    );
    c.disconnect();
    srv.stop();
}

#[test]
fn unknown_exports_are_refused_with_a_message_and_the_session_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), "ssd-conventional", |c| {
        c.export_name = Some("disk0".into())
    })
    .unwrap();
    let err = Client::go(&srv.socket, "nope").err().unwrap();
    assert_eq!(err.0, REP_ERR_UNKNOWN);
    assert!(
        err.1.contains("unknown export `nope`") && err.1.contains("`disk0`"),
        "{}",
        err.1
    );
    // On one connection: an unsupported option, INFO, then GO.
    let mut s = greet(&srv.socket, 1);
    send_option(&mut s, OPT_STRUCTURED_REPLY, &[]);
    let (opt, kind, _) = read_option_reply(&mut s);
    assert_eq!((opt, kind), (OPT_STRUCTURED_REPLY, REP_ERR_UNSUP));
    send_option(&mut s, 99, b"whatever");
    assert_eq!(read_option_reply(&mut s).1, REP_ERR_UNSUP);
    send_option(&mut s, OPT_INFO, &go_data("disk0", &[1, 2]));
    let mut infos = Vec::new();
    loop {
        let (opt, kind, data) = read_option_reply(&mut s);
        assert_eq!(opt, OPT_INFO);
        if kind == REP_ACK {
            break;
        }
        assert_eq!(kind, REP_INFO);
        infos.push(data);
    }
    let find = |t: u16| {
        infos
            .iter()
            .find(|d| u16::from_be_bytes([d[0], d[1]]) == t)
            .cloned()
    };
    assert_eq!(&find(1).unwrap()[2..], b"disk0", "NBD_INFO_NAME");
    let desc = String::from_utf8(find(2).unwrap()[2..].to_vec()).unwrap();
    assert!(desc.contains("ssd-conventional (ftl-ssd)"), "{desc}");
    send_option(&mut s, OPT_GO, &go_data("", &[]));
    loop {
        let (_, kind, _) = read_option_reply(&mut s);
        if kind == REP_ACK {
            break;
        }
        assert_eq!(kind, REP_INFO);
    }
    srv.stop();
}

#[test]
fn list_abort_and_the_old_export_name_ending_work() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), "ssd-conventional", |_| {}).unwrap();
    let mut s = greet(&srv.socket, 1);
    send_option(&mut s, OPT_LIST, &[]);
    let (_, kind, data) = read_option_reply(&mut s);
    assert_eq!(kind, REP_SERVER);
    let n = u32::from_be_bytes(data[..4].try_into().unwrap()) as usize;
    assert_eq!(&data[4..4 + n], b"ssd-conventional");
    assert_eq!(read_option_reply(&mut s).1, REP_ACK);
    send_option(&mut s, OPT_ABORT, &[]);
    assert_eq!(read_option_reply(&mut s).1, REP_ACK);
    for no_zeroes in [false, true] {
        let mut c = Client::export_name(&srv.socket, "ssd-conventional", no_zeroes).unwrap();
        assert_eq!(c.size, 64 << 20);
        assert_eq!(c.write(0, &pattern(4096, 1)), 0);
        c.disconnect();
    }
    // EXPORT_NAME cannot carry an error: the server hangs up.
    let r = Client::export_name(&srv.socket, "other", true);
    assert!(r.is_err());
    let served = srv.stop();
    assert!(served.connections >= 4);
}

#[test]
fn a_client_with_unknown_flags_is_hung_up_on() {
    let dir = tempfile::tempdir().unwrap();
    let srv = TestServer::start(dir.path(), "ssd-conventional", |_| {}).unwrap();
    let mut s = greet(&srv.socket, 1 | 4);
    let mut rest = Vec::new();
    use std::io::Read;
    let _ = s.read_to_end(&mut rest);
    assert!(rest.is_empty());
    srv.stop();
}
