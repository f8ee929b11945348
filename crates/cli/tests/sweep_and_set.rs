//! End-to-end tests of `--set` (profile overrides) and `zonelab sweep`: results,
//! resumption from the cache, and every bad-input path as one clean line.

use std::process::Command;

/// Runs `zonelab` and returns (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_zonelab"))
        .args(args)
        .output()
        .expect("zonelab runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        o.status.code().unwrap_or(-1),
        text(&o.stdout),
        text(&o.stderr),
    )
}

/// A failure with one stderr line holding every needle, and no panic.
fn fails_cleanly(args: &[&str], needles: &[&str]) {
    let (code, _, err) = run(args);
    assert!(code == 1 || code == 2, "exit {code}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    for n in needles {
        assert!(err.contains(n), "{err:?} lacks {n:?}");
    }
}

fn json(args: &[&str]) -> serde_json::Value {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn set_changes_the_device_and_is_echoed() {
    let base = [
        "bench",
        "--device",
        "zn540",
        "--rw",
        "write",
        "--bs",
        "1m",
        "--io-size",
        "64m",
        "--json",
    ];
    let plain = json(&base);
    let mut args = base.to_vec();
    args.extend(["--set", "controller.write_per_4kib_us=7.7"]);
    let changed = json(&args);
    assert!(changed["throughput_mib_s"].as_f64() < plain["throughput_mib_s"].as_f64());
    assert_eq!(
        changed["config"]["device_overrides"],
        serde_json::json!({"controller.write_per_4kib_us": 7.7})
    );
    assert!(plain["config"].get("device_overrides").is_none());
    let (code, out, _) = run(&[
        "zones",
        "--device",
        "zn540",
        "--count",
        "1",
        "--set",
        "zones.zone_capacity_mib=512",
        "--json",
    ]);
    assert_eq!(code, 0);
    let zones: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(zones[0]["capacity_blocks"], 512 * 256);
}

#[test]
fn bad_overrides_are_clean_errors_naming_the_field() {
    fails_cleanly(
        &["bench", "--device", "zn540", "--set", "flash.channels=0"],
        &[
            "zn540 with flash.channels=0",
            "field `flash.channels` = 0",
            "1..=64",
        ],
    );
    fails_cleanly(
        &["bench", "--device", "zn540", "--set", "flash.channels"],
        &["KEY=VALUE"],
    );
    fails_cleanly(
        &["bench", "--device", "zn540", "--set", "flash.chanels=3"],
        &["unknown field `chanels`"],
    );
    fails_cleanly(
        &["ycsb", "--scale", "0.0005", "--set", "flash.channels=4"],
        &["start it with `ssd.` or `hdd.`"],
    );
    fails_cleanly(
        &["ycsb", "--scale", "0.0005", "--set", "hdd.mechanics.rpm=-1"],
        &["mechanics.rpm"],
    );
}

const SWEEP: &str = r#"
[sweep]
kind = "bench"
seeds = [1, 2]

[base]
device = "zn540"
bs = "1m"
io_size = "32m"

[params]
rw = ["read", "write"]
"device.controller.write_per_4kib_us" = [3.85, 7.7]
"#;

#[test]
fn a_sweep_writes_its_table_and_a_rerun_comes_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    std::fs::write(&spec, SWEEP).unwrap();
    let out = dir.path().join("out");
    let (s, o) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let (code, stdout, err) = run(&["sweep", s, "--out", o, "--workers", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        stdout.contains("8 runs (8 distinct): 0 cached, 8 run now"),
        "{stdout}"
    );
    let csv = std::fs::read_to_string(out.join("runs.csv")).unwrap();
    assert_eq!(csv.lines().count(), 9);
    assert!(csv.starts_with("run,hash,seed,device.controller.write_per_4kib_us,rw,bs,device,io_size,error,throughput_mib_s"));
    let parquet = std::fs::read(out.join("runs.parquet")).unwrap();
    assert_eq!(&parquet[..4], b"PAR1");
    let (code, stdout, _) = run(&["sweep", s, "--out", o, "--workers", "1"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("8 cached, 0 run now"), "{stdout}");
    assert_eq!(std::fs::read(out.join("runs.parquet")).unwrap(), parquet);
    let (_, listing, _) = run(&["sweep", s, "--out", o, "--dry-run"]);
    assert!(
        listing.contains("8 runs, 8 distinct, 0 to run"),
        "{listing}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("throughput_mib_s vs device.controller.write_per_4kib_us"));
}

#[test]
fn bad_sweeps_are_clean_errors() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let out = dir.path().join("o").display().to_string();
    fails_cleanly(&["sweep", "/nonexistent/s.toml"], &["/nonexistent/s.toml"]);
    let syntax = write("syntax.toml", "[sweep]\nkind = \"bench\"\nbad line\n");
    fails_cleanly(
        &["sweep", &syntax, "--out", &out],
        &["syntax.toml", "line 3"],
    );
    let kind = write("kind.toml", "[sweep]\nkind = \"fio\"\n");
    fails_cleanly(
        &["sweep", &kind, "--out", &out],
        &["kind.toml", "sweep.kind `fio` is unknown"],
    );
    let run_err = write("bs.toml", &SWEEP.replace("bs = \"1m\"", "bs = \"1x\""));
    fails_cleanly(
        &["sweep", &run_err, "--out", &out],
        &["run 0 (", "bs: `1x`"],
    );
    let ok = write("ok.toml", SWEEP);
    fails_cleanly(
        &["sweep", &ok, "--out", &out, "--executor", "spark"],
        &["--executor", "spark"],
    );
    fails_cleanly(
        &["sweep", &ok, "--out", &out, "--workers", "0"],
        &["--workers"],
    );
}
