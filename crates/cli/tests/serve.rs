//! `zonelab serve --nbd` from the command line: bad input is one line on stderr
//! and a non-zero exit; SIGTERM stops the server, which prints the device's
//! JSON report. The protocol itself is tested in crates/nbd/tests, real NBD
//! clients (nbdcopy, nbdinfo, fio's nbd engine) in integrations/nbd/smoke.sh.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn zonelab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zonelab"))
        .args(args)
        .output()
        .expect("zonelab runs")
}

/// Non-zero exit, one line on stderr holding every needle, no panic.
fn assert_clean_error(o: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "succeeded: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    for n in needles {
        assert!(err.contains(n), "`{n}` missing from: {err}");
    }
}

#[test]
fn bad_serve_input_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("s.sock");
    let sock = sock.to_str().unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["serve", "--device", "ssd-conventional", "--socket", sock],
            &["choose a protocol: --nbd"],
        ),
        (
            &["serve", "--nbd", "--device", "no-such", "--socket", sock],
            &["unknown device profile `no-such`"],
        ),
        (
            &["serve", "--nbd", "--device", "zn540", "--socket", sock],
            &[
                "`zn540` is a zoned device (zns-ssd)",
                "NBD carries no zone commands",
            ],
        ),
        (
            &[
                "serve",
                "--nbd",
                "--device",
                "st14000nm0007",
                "--socket",
                sock,
            ],
            &["export its 524 conventional zones with --conventional-zones"],
        ),
        (
            &[
                "serve",
                "--nbd",
                "--device",
                "ssd-conventional",
                "--size",
                "12q",
                "--socket",
                sock,
            ],
            &["--size", "unknown size suffix"],
        ),
        (
            &[
                "serve",
                "--nbd",
                "--device",
                "ssd-conventional",
                "--dilation",
                "0.5",
                "--socket",
                sock,
            ],
            &["time_dilation must be a finite number >= 1 (got 0.5)"],
        ),
        (
            &[
                "serve",
                "--nbd",
                "--device",
                "ssd-conventional",
                "--socket",
                "/proc/x/y.sock",
            ],
            &["cannot listen on /proc/x/y.sock"],
        ),
        (
            &[
                "serve",
                "--nbd",
                "--device",
                "ssd-conventional",
                "--socket",
                sock,
                "--port",
                "1",
            ],
            &["--socket", "--port"],
        ),
        (
            &[
                "serve",
                "--nbd",
                "--device",
                "ssd-conventional",
                "--socket",
                sock,
                "--stats",
                "/proc/x/report.json",
            ],
            &["--stats /proc/x/report.json: cannot create it"],
        ),
    ];
    for (args, needles) in cases {
        assert_clean_error(&zonelab(args), needles);
    }
    // A path that exists and is not a socket is not replaced.
    let file = dir.path().join("plain");
    std::fs::write(&file, "x").unwrap();
    let o = zonelab(&[
        "serve",
        "--nbd",
        "--device",
        "ssd-conventional",
        "--socket",
        file.to_str().unwrap(),
    ]);
    assert_clean_error(&o, &["exists and is not a socket"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn sigterm_stops_the_server_which_prints_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("s.sock");
    let child = Command::new(env!("CARGO_BIN_EXE_zonelab"))
        .args([
            "serve",
            "--nbd",
            "--device",
            "wd100efax",
            "--size",
            "1m",
            "--socket",
        ])
        .arg(&sock)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !sock.exists() {
        assert!(t0.elapsed() < Duration::from_secs(30), "no socket");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains(
            "wd100efax (cmr-hdd) (1048576 bytes, 512-byte blocks) on nbd+unix:///wd100efax?socket="
        ),
        "{err}"
    );
    assert!(err.contains("stopped after 0 connection(s)"), "{err}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["kind"], "nbd");
    assert_eq!(report["device"]["model"], "cmr-hdd");
    assert_eq!(report["errors"]["count"], 0);
    assert!(!sock.exists(), "the socket is removed at exit");
}
