//! End-to-end tests of the `zonelab` binary: outputs, determinism, calibration at
//! reduced scale, and every bad-input path (one clear line, non-zero exit, no panic).

mod common;

use common::{assert_clean_error, stderr, stdout, write, zonelab};
use std::path::{Path, PathBuf};

/// Runs `zonelab reproduce <target> --scale <scale>` twice into two directories
/// and checks that `results.json` is byte-identical (simulation is deterministic).
/// Returns the temporary directory (keep it alive), the first run's output
/// directory, its parsed `results.json` and its stdout.
fn reproduce_twice(
    target: &str,
    scale: &str,
) -> (tempfile::TempDir, PathBuf, serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let (d1, d2) = (dir.path().join("a"), dir.path().join("b"));
    let mut first_stdout = String::new();
    for d in [&d1, &d2] {
        let o = zonelab(&[
            "reproduce",
            target,
            "--scale",
            scale,
            "--out",
            d.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        if first_stdout.is_empty() {
            first_stdout = stdout(&o);
        }
    }
    let r1 = std::fs::read(d1.join("results.json")).unwrap();
    assert_eq!(
        r1,
        std::fs::read(d2.join("results.json")).unwrap(),
        "{target}: results.json must be byte-identical"
    );
    let v = serde_json::from_slice(&r1).unwrap();
    (dir, d1, v, first_stdout)
}

/// Runs `zonelab reproduce <target> --scale <scale> --draws 1` into a sibling of
/// `out` and returns its parsed `results.json`.
fn reproduce_one_draw(out: &Path, target: &str, scale: &str) -> serde_json::Value {
    reproduce_one_draw_with(out, target, scale, &[], "one")
}

/// [`reproduce_one_draw`] with `extra` options, into the sibling `name` of `out`.
fn reproduce_one_draw_with(
    out: &Path,
    target: &str,
    scale: &str,
    extra: &[&str],
    name: &str,
) -> serde_json::Value {
    let one = out.parent().unwrap().join(name);
    let mut args = vec![
        "reproduce",
        target,
        "--scale",
        scale,
        "--draws",
        "1",
        "--out",
        one.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let o = zonelab(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&std::fs::read(one.join("results.json")).unwrap()).unwrap()
}

/// The ids of a results.json's claims, in order.
fn claim_ids(v: &serde_json::Value) -> Vec<&str> {
    v["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect()
}

/// The measured value of claim `id` (panics naming it if absent).
fn claim_measured(v: &serde_json::Value, id: &str) -> f64 {
    v["claims"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("claim {id} missing"))["measured"]
        .as_f64()
        .unwrap()
}

#[test]
fn devices_lists_every_builtin_profile() {
    let o = zonelab(&["devices"]);
    assert!(o.status.success());
    let out = stdout(&o);
    for name in ["zn540", "st14000nm0007", "wd100efax", "ssd-conventional"] {
        assert!(out.contains(name), "{name} missing from {out}");
    }
}

#[test]
fn zones_reports_the_zn540_layout() {
    let o = zonelab(&["zones", "--device", "zn540", "--count", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v[1]["start_lba"], 524_288); // 2 GiB zone size in 4 KiB blocks
    assert_eq!(v[1]["capacity_blocks"], 1077 * 256);
    assert_eq!(v[0]["state"], "empty");
}

#[test]
fn bench_json_is_deterministic_and_complete() {
    let args = [
        "bench",
        "--device",
        "ssd-conventional",
        "--rw",
        "randrw",
        "--bs",
        "4k",
        "--iodepth",
        "8",
        "--io-size",
        "8m",
        "--json",
        "--seed",
        "3",
    ];
    let a = zonelab(&args);
    let b = zonelab(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(
        a.stdout, b.stdout,
        "same seed must give byte-identical JSON"
    );
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(v["ops"], 2048);
    assert_eq!(v["seed"], 3);
    for key in [
        "p50_ns", "p90_ns", "p99_ns", "p999_ns", "p9999_ns", "max_ns",
    ] {
        assert!(v["latency"][key].as_u64().unwrap() > 0, "{key}");
    }
    assert!(v["read"]["ops"].as_u64().unwrap() > 0 && v["write"]["ops"].as_u64().unwrap() > 0);
    // Short runs end with data still in the write buffer, so WAF may be below 1
    // here; it must still be media / host writes.
    let ds = &v["device_stats"];
    let waf = ds["media_write_bytes"].as_f64().unwrap() / ds["host_write_bytes"].as_f64().unwrap();
    assert!((ds["write_amplification"].as_f64().unwrap() - waf).abs() < 1e-5);
    let other_seed = zonelab(&[
        "bench",
        "--device",
        "ssd-conventional",
        "--rw",
        "randrw",
        "--bs",
        "4k",
        "--iodepth",
        "8",
        "--io-size",
        "8m",
        "--json",
        "--seed",
        "4",
    ]);
    assert_ne!(
        a.stdout, other_seed.stdout,
        "the seed must matter for a random job"
    );
}

#[test]
fn reproduce_devices_holds_at_reduced_scale_and_is_deterministic() {
    let (_dir, d1, v, out) = reproduce_twice("devices", "0.02");
    assert!(out.contains("zn540.seq_read_mib_s"));
    let claims = v["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 6);
    for c in claims {
        assert_eq!(
            c["holds"], true,
            "Table 1 calibration misses at reduced scale: {c}"
        );
    }
    let html = std::fs::read_to_string(d1.join("report.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("st14000nm0007.rand_read_iops"));
    assert!(d1.join("seq_throughput.csv").exists() && d1.join("run-info.json").exists());
}

#[test]
fn reproduce_list_and_bad_targets() {
    let o = zonelab(&["reproduce", "--list"]);
    assert!(o.status.success() && stdout(&o).contains("devices"));
    assert_clean_error(
        &zonelab(&["reproduce", "nosuch"]),
        &["unknown reproduce target `nosuch`", "devices"],
    );
    assert_clean_error(
        &zonelab(&["reproduce", "devices", "--scale", "0"]),
        &["--scale 0"],
    );
    assert_clean_error(&zonelab(&["reproduce"]), &["needs a target"]);
    // Draws: only targets that take medians over draws accept them, at least one.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("not-created");
    assert_clean_error(
        &zonelab(&[
            "reproduce",
            "devices",
            "--scale",
            "0.01",
            "--draws",
            "2",
            "--out",
            out.to_str().unwrap(),
        ]),
        &[
            "target devices runs once and takes no draws",
            "mios",
            "hhzs",
        ],
    );
    assert!(
        !out.exists(),
        "a rejected run must not create its output directory"
    );
    assert_clean_error(
        &zonelab(&["reproduce", "mios", "--scale", "0.01", "--draws", "0"]),
        &["--draws"],
    );
    // CPU variation: only targets that model it, and a CV of at most 50 %.
    for (args, wanted) in [
        (
            vec!["reproduce", "devices", "--cpu-jitter-ppm", "50000"],
            vec![
                "target devices does not model run-to-run CPU variation",
                "hhzs (default 50000 ppm)",
            ],
        ),
        (
            vec!["reproduce", "hhzs", "--cpu-jitter-ppm", "500001"],
            vec!["cpu jitter 500001 ppm is out of range (0..=500000"],
        ),
        (
            vec!["reproduce", "all", "--cpu-jitter-ppm", "600000"],
            vec!["cpu jitter 600000 ppm is out of range"],
        ),
        (
            vec!["reproduce", "hhzs", "--cpu-jitter-ppm", "5%"],
            vec!["--cpu-jitter-ppm"],
        ),
    ] {
        let mut args = args;
        args.extend_from_slice(&["--scale", "0.01", "--out", out.to_str().unwrap()]);
        assert_clean_error(&zonelab(&args), &wanted);
        assert!(
            !out.exists(),
            "a rejected run must not create its output directory"
        );
    }
}

#[test]
fn unknown_profile_name_is_a_clean_error() {
    assert_clean_error(
        &zonelab(&["bench", "--device", "zn999"]),
        &["unknown device profile `zn999`", "zn540"],
    );
}

#[test]
fn unreadable_profile_file_is_a_clean_error() {
    assert_clean_error(
        &zonelab(&["bench", "--device", "/nonexistent/dev.toml"]),
        &["cannot read profile file", "/nonexistent/dev.toml"],
    );
}

#[test]
fn out_of_range_profile_value_names_field_value_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        include_str!("../../../profiles/zn540.toml").replace("channels = 8 ", "channels = 0 ");
    let p = write(dir.path(), "bad.toml", &text);
    assert_clean_error(
        &zonelab(&["bench", "--device", &p]),
        &["flash.channels", "= 0", "1..=64"],
    );
    let typo = include_str!("../../../profiles/zn540.toml").replace("read_us =", "read_usec =");
    let p = write(dir.path(), "typo.toml", &typo);
    assert_clean_error(
        &zonelab(&["bench", "--device", &p]),
        &["unknown field `read_usec`"],
    );
}

#[test]
fn bad_job_options_are_clean_errors() {
    assert_clean_error(
        &zonelab(&["bench", "--device", "zn540", "--bs", "abc"]),
        &["--bs", "abc"],
    );
    assert_clean_error(
        &zonelab(&["bench", "--device", "zn540", "--bs", "1000"]),
        &["bs", "multiple"],
    );
    assert_clean_error(
        &zonelab(&["bench", "--device", "zn540", "--rw", "sideways"]),
        &["--rw", "sideways"],
    );
    assert_clean_error(
        &zonelab(&["bench", "--device", "zn540", "--iodepth", "0"]),
        &["iodepth"],
    );
    assert_clean_error(
        &zonelab(&["bench", "--device", "zn540", "--runtime", "soon"]),
        &["--runtime"],
    );
    assert_clean_error(
        &zonelab(&[
            "bench",
            "--device",
            "zn540",
            "--rw",
            "randwrite",
            "--max-open-zones",
            "20",
        ]),
        &["max_open_zones", "14"],
    );
}

#[test]
fn malformed_trace_line_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "t.csv", "0,R,0,4096\n1000,W,4096,abc\n");
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &p,
            "--format",
            "csv",
        ]),
        &["t.csv:2", "size_bytes"],
    );
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            "/nonexistent/t.csv",
            "--format",
            "csv",
        ]),
        &["/nonexistent/t.csv"],
    );
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &p,
            "--format",
            "tarot",
        ]),
        &["--format"],
    );
}

#[test]
fn tencent_cbs_trace_replays_and_a_bad_line_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    // Timestamp (Unix s), Offset and Size (512-byte sectors), IOType (0 read, 1 write),
    // VolumeID; two volumes.
    let good = "1538323199,8,8,1,1576\n1538323199,16,8,0,1576\n1538323200,0,8,1,7\n";
    let p = write(dir.path(), "cbs.csv", good);
    let run = zonelab(&[
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &p,
        "--json",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(v["config"]["format"], "tencent", "auto-detected");
    assert_eq!(v["ops"], 3);
    let volume = zonelab(&[
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &p,
        "--format",
        "tencent",
        "--disk",
        "1576",
        "--json",
    ]);
    let vv: serde_json::Value = serde_json::from_slice(&volume.stdout).unwrap();
    assert_eq!(vv["ops"], 2);
    let bad = write(
        dir.path(),
        "bad.csv",
        &format!("{good}1538323200,8,8,2,7\n"),
    );
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &bad,
            "--format",
            "tencent",
        ]),
        &["bad.csv:4", "IOType", "0 (read) or 1 (write)"],
    );
}

/// A blkparse text trace (`blkparse -i sda` default output) replays its issued (`D`)
/// events by default and its queued (`Q`) ones with `--format blkparse-queue`; the
/// closing summary is not an error; a broken event line is.
#[test]
fn blkparse_trace_replays_and_a_bad_line_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = "\
  8,0    0        1     0.000000000  1234  Q  WS 2048 + 8 [kjournald]
  8,0    0        2     0.000002000  1234  D  WS 2048 + 8 [kjournald]
  8,0    0        3     0.000100000  2001  Q   R 4096 + 16 [cat]
  8,0    0        4     0.000101000  2001  M   R 4112 + 8 [cat]
  8,0    0        5     0.000102000  2001  D   R 4096 + 24 [cat]
  8,0    1        1     0.000300000     0  C   R 4096 + 24 [0]
CPU0 (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB
";
    let p = write(dir.path(), "sda.blkparse", good);
    let replay = |format: &str| {
        let run = zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &p,
            "--format",
            format,
            "--json",
        ]);
        assert!(run.status.success(), "{}", stderr(&run));
        serde_json::from_slice::<serde_json::Value>(&run.stdout).unwrap()
    };
    let issued = replay("auto");
    assert_eq!(issued["config"]["format"], "blkparse", "auto-detected");
    assert_eq!(issued["ops"], 2);
    let queued = replay("blkparse-queue");
    assert_eq!(queued["ops"], 2);
    // The merge (`M`) is in the issued read (24 sectors), not in the queued one (16).
    assert_eq!(issued["read"]["bytes"], 24 * 512);
    assert_eq!(queued["read"]["bytes"], 16 * 512);
    let bad = write(
        dir.path(),
        "bad.blkparse",
        &good.replace("2001  D   R 4096 + 24", "2001  D   R 4096 x 24"),
    );
    assert_clean_error(
        &zonelab(&["replay", "--device", "ssd-conventional", "--trace", &bad]),
        &["bad.blkparse:5", "field +", "between sector and blocks"],
    );
}

#[test]
fn zone_rule_violation_from_a_trace_is_a_clean_error() {
    let dir = tempfile::tempdir().unwrap();
    // A write in the middle of an empty zone: not at the write pointer.
    let p = write(dir.path(), "t.csv", "0,W,0,4096\n1000,W,1048576,4096\n");
    assert_clean_error(
        &zonelab(&[
            "replay", "--device", "zn540", "--trace", &p, "--format", "csv",
        ]),
        &["t.csv:2", "not at the write pointer"],
    );
}

#[test]
fn replay_open_and_closed_loop() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..200u64 {
        text.push_str(&format!(
            "{},{},{},4096\n",
            i * 100_000,
            if i % 3 == 0 { "W" } else { "R" },
            (i * 7919 % 1000) * 4096
        ));
    }
    let p = write(dir.path(), "t.csv", &text);
    let open = zonelab(&[
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &p,
        "--json",
    ]);
    assert!(open.status.success(), "{}", stderr(&open));
    let v: serde_json::Value = serde_json::from_slice(&open.stdout).unwrap();
    assert_eq!(v["ops"], 200);
    // Open loop: the run lasts at least as long as the trace.
    assert!(v["duration_ns"].as_u64().unwrap() >= 199 * 100_000);
    let fast = zonelab(&[
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &p,
        "--json",
        "--speed",
        "10",
    ]);
    let vf: serde_json::Value = serde_json::from_slice(&fast.stdout).unwrap();
    assert!(vf["duration_ns"].as_u64().unwrap() < v["duration_ns"].as_u64().unwrap());
    let closed = zonelab(&[
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &p,
        "--json",
        "--qd",
        "4",
    ]);
    let vc: serde_json::Value = serde_json::from_slice(&closed.stdout).unwrap();
    assert_eq!(vc["ops"], 200);
    assert!(vc["duration_ns"].as_u64().unwrap() < v["duration_ns"].as_u64().unwrap());
}

#[test]
fn synth_trace_writes_a_replayable_look_alike() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rsrch_0.csv");
    let o = zonelab(&[
        "synth-trace",
        "--like",
        "rsrch_0",
        "--scale",
        "0.0005",
        "--capacity",
        "1g",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("write ratio"));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.lines().filter(|l| !l.starts_with('#')).count() > 100);
    let again = dir.path().join("again.csv");
    zonelab(&[
        "synth-trace",
        "--like",
        "rsrch_0",
        "--scale",
        "0.0005",
        "--capacity",
        "1g",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert_eq!(
        text,
        std::fs::read_to_string(&again).unwrap(),
        "same seed, same trace"
    );
    let list = zonelab(&["synth-trace", "--list"]);
    assert!(
        stdout(&list).contains("stg_1")
            && stdout(&list).contains("99.92%")
            && stdout(&list).contains("pangu_d")
    );
    let pangu = dir.path().join("pangu_c.csv");
    let o = zonelab(&[
        "synth-trace",
        "--like",
        "pangu_c",
        "--scale",
        "0.002",
        "--capacity",
        "64g",
        "--out",
        pangu.to_str().unwrap(),
    ]);
    assert!(
        o.status.success() && stderr(&o).contains("of writes <= 10 KiB"),
        "{}",
        stderr(&o)
    );
    let r = zonelab(&[
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        out.to_str().unwrap(),
        "--format",
        "csv",
        "--json",
    ]);
    assert!(r.status.success(), "{}", stderr(&r));
}

#[test]
fn synth_trace_bad_input_is_a_clean_error() {
    assert_clean_error(
        &zonelab(&["synth-trace", "--like", "nosuch_1"]),
        &["unknown trace `nosuch_1`", "rsrch_0"],
    );
    assert_clean_error(&zonelab(&["synth-trace"]), &["--like"]);
    assert_clean_error(
        &zonelab(&["synth-trace", "--like", "web_0", "--scale", "0"]),
        &["--scale"],
    );
    assert_clean_error(
        &zonelab(&["synth-trace", "--like", "web_0", "--capacity", "1k"]),
        &["--capacity"],
    );
}

#[test]
fn replay_folds_offsets_beyond_the_device_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "far.csv",
        "0,W,0,4096\n1000,R,1099511627776,4096\n",
    );
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &p,
            "--format",
            "csv",
        ]),
        &["far.csv:2", "beyond"],
    );
    let o = zonelab(&[
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &p,
        "--format",
        "csv",
        "--fold",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["config"]["record_counts"]["folded_to_capacity"], 1);
}

#[test]
fn malformed_arguments_get_one_line_and_exit_2() {
    for args in [
        &["bench"][..],
        &["bench", "--device", "zn540", "--iodepth", "many"],
        &["frobnicate"],
        &["reproduce", "devices", "--scale", "big"],
    ] {
        let o = zonelab(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert_clean_error(&o, &["zonelab: error:"]);
    }
    let help = zonelab(&["--help"]);
    assert!(help.status.success() && stdout(&help).contains("reproduce"));
}

#[test]
fn reproduce_mu_rmw_runs_on_look_alikes_deterministically() {
    let (_dir, d1, v, _) = reproduce_twice("mu-rmw", "0.01");
    let ids = claim_ids(&v);
    assert_eq!(
        ids,
        [
            "fig6.avg_rt_reduction_vs_pore",
            "fig6.avg_rt_reduction_vs_skylight",
            "fig7.waf_ratio_pore",
            "fig7.waf_ratio_skylight",
            "fig9.wcrt_ratio_skylight"
        ]
    );
    assert!(v["notes"][0].as_str().unwrap().contains("look-alike"));
    assert!(v["notes"][1].as_str().unwrap().contains("did RMWs on"));
    // Skylight rewrites every band of a zone at each cleaning: its WAF is never
    // below MU-RMW's. Every normalised value is a positive number.
    let waf = std::fs::read_to_string(d1.join("fig7_waf.csv")).unwrap();
    for row in waf.lines().skip(1) {
        let cols: Vec<f64> = row.split(',').skip(1).map(|x| x.parse().unwrap()).collect();
        assert!(cols[0] >= 1.0 && cols.iter().all(|&c| c > 0.0), "{row}");
    }
    assert!(std::fs::read_to_string(d1.join("report.html"))
        .unwrap()
        .contains("fig9_worst_case_response"));
}

#[test]
fn replay_on_ef_smr_of_an_msr_layout_file_reports_the_mu_rmw_metrics() {
    // A hand-written file in the published MSR Cambridge layout (not real trace
    // data): filetime stamps, offsets beyond the 10 GiB of bands, 512 B requests.
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/msr_layout_sample.csv");
    for stl in ["mu-rmw", "skylight", "pore"] {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("ef.toml");
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../profiles/ef-smr.toml"),
        )
        .unwrap()
        .replace("policy = \"mu-rmw\"", &format!("policy = \"{stl}\""));
        std::fs::write(&profile, text).unwrap();
        let o = zonelab(&[
            "replay",
            "--device",
            profile.to_str().unwrap(),
            "--trace",
            fixture.to_str().unwrap(),
            "--format",
            "msr",
            "--fold",
        ]);
        assert!(o.status.success(), "{stl}: {}", stderr(&o));
        let out = stdout(&o);
        for needle in [
            "600 ops",
            "WAF",
            "ef-smr: average response",
            "worst case",
            "RMWs",
            "cleanings",
        ] {
            assert!(out.contains(needle), "{stl}: no `{needle}` in {out}");
        }
    }
}

#[test]
fn reproduce_mu_rmw_replays_a_directory_of_msr_layout_traces() {
    // The ten Table I traces as look-alikes written in the published MSR layout.
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("msr");
    std::fs::create_dir(&traces).unwrap();
    for name in [
        "rsrch_0", "src1_2", "src2_0", "src2_2", "stg_0", "stg_1", "ts_0", "usr_0", "wdev_0",
        "web_0",
    ] {
        let out = traces.join(format!("{name}.csv"));
        let o = zonelab(&[
            "synth-trace",
            "--like",
            name,
            "--scale",
            "0.0005",
            "--format",
            "msr",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let first = std::fs::read_to_string(&out).unwrap();
        let host = name.split('_').next().unwrap();
        assert!(
            first.starts_with("128166372")
                && first.lines().next().unwrap().contains(&format!(",{host},")),
            "{name}: {}",
            first.lines().next().unwrap()
        );
    }
    let results = dir.path().join("out");
    let o = zonelab(&[
        "reproduce",
        "mu-rmw",
        "--traces",
        traces.to_str().unwrap(),
        "--out",
        results.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(results.join("results.json")).unwrap()).unwrap();
    assert!(v["notes"][0]
        .as_str()
        .unwrap()
        .contains("real MSR Cambridge traces"));
    assert_eq!(claim_ids(&v).len(), 5);
    let rt = std::fs::read_to_string(results.join("fig6_avg_response_time.csv")).unwrap();
    assert_eq!(rt.lines().count(), 11, "{rt}");
}

#[test]
fn synth_trace_sizes_format_and_popularity_errors_are_clean() {
    assert_clean_error(
        &zonelab(&["synth-trace", "--like", "web_0", "--sizes", "huge"]),
        &["--sizes", "huge", "paper, mix"],
    );
    assert_clean_error(
        &zonelab(&["synth-trace", "--like", "web_0", "--format", "xml"]),
        &["--format", "xml", "csv, msr"],
    );
    assert_clean_error(
        &zonelab(&[
            "synth-trace",
            "--like",
            "web_0",
            "--popularity-theta",
            "1.5",
        ]),
        &["--popularity-theta", "1.5"],
    );
}

#[test]
fn reproduce_mu_rmw_with_a_missing_trace_directory_is_a_clean_error() {
    assert_clean_error(
        &zonelab(&[
            "reproduce",
            "mu-rmw",
            "--traces",
            "/nonexistent/msr",
            "--scale",
            "0.01",
        ]),
        &["/nonexistent/msr/rsrch_0.csv"],
    );
}

#[test]
fn reproduce_mios_runs_at_small_scale_deterministically() {
    let (_dir, d1, v, _) = reproduce_twice("mios", "0.01");
    let ids = claim_ids(&v);
    for id in [
        "predictor.accuracy_f",
        "predictor.accuracy_m",
        "predictor.accuracy_s",
        "fig7.b.avg_reduction",
        "table3.a.mios_e_ssd_write_reduction",
        "fig11.a.avg_increase",
        "fig11.d.p999_increase",
        "fig12.b.p999_ratio",
        "fig12.b.p99_ratio",
    ] {
        assert!(ids.contains(&id), "{id} missing");
    }
    for csv in [
        "fig8_ssd_queue_cdf.csv",
        "fig11b_redirected_by_size.csv",
        "fig12a_latency_normalised.csv",
        "pairs_b_latency.csv",
    ] {
        assert!(d1.join(csv).exists(), "{csv} missing");
    }
    // Claims are medians over 3 seeds by default; the first draw is `--seed`'s own
    // run, so `--draws 1` gives its values and the same figures.
    let v1 = reproduce_one_draw(&d1, "mios", "0.01");
    assert_eq!(v1["figures"], v["figures"]);
    for (median, single) in v["claims"]
        .as_array()
        .unwrap()
        .iter()
        .zip(v1["claims"].as_array().unwrap())
    {
        let spread = &median["spread"];
        assert_eq!(spread["draws"], 3, "{}", median["id"]);
        assert_eq!(spread["values"][0], single["measured"], "{}", median["id"]);
        assert!(single.get("spread").is_none());
        // The median is the middle draw (values that are not numbers are NaN in JSON).
        let values: Vec<f64> = spread["values"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|x| x.as_f64())
            .collect();
        if let (Some(m), 3) = (median["measured"].as_f64(), values.len()) {
            assert!(values.contains(&m), "{}", median["id"]);
            assert!(values.iter().filter(|&&x| x < m).count() <= 1);
            assert!(values.iter().filter(|&&x| x > m).count() <= 1);
        }
    }
}

#[test]
fn profile_hdd_reports_the_staircase_and_rejects_bad_input() {
    let o = zonelab(&[
        "profile-hdd",
        "--device",
        "wd100efax",
        "--size",
        "64KiB",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["params"]["w_f_bytes"], 16 << 20);
    assert_clean_error(
        &zonelab(&["profile-hdd", "--device", "zn540", "--size", "64KiB"]),
        &["staircase"],
    );
    assert_clean_error(
        &zonelab(&["profile-hdd", "--device", "wd100efax", "--size", "1000"]),
        &["size"],
    );
}

/// `reproduce hhzs-motivation` at a small scale: deterministic, and the directions
/// of the paper's observations O1-O4 hold.
#[test]
fn reproduce_hhzs_motivation_small_scale_directions() {
    let (_dir, d1, v, _) = reproduce_twice("hhzs-motivation", "0.002");
    let claim = |id: &str| claim_measured(&v, id);
    let series = |fig: &str, name: &str| -> Vec<f64> {
        let f = v["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == fig)
            .unwrap();
        let s = f["series"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap();
        s["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[1].as_f64().unwrap())
            .collect()
    };
    // O1: under an unthrottled load, L0 and L1 grow several times past their targets.
    assert!(claim("o1.l0_max_over_target") > 2.0);
    assert!(claim("o1.l1_max_over_target") > 2.0);
    // ... and not only at a peak: L0 and L1 sit above their targets most of the load.
    assert!(claim("o1.l0_median_over_target") > 1.0);
    assert!(claim("o1.l1_median_over_target") > 1.0);
    // O2: B4's L3 SSTs crowd most of L0's writes off the SSD.
    assert!(claim("o2.b4_l0_hdd_write_share") > 50.0);
    // O2: B1 keeps L1 off the SSD, B2 puts it there; B3 loads faster than B4.
    let b1 = series("fig2b_ssd_write_share", "B1");
    let b2 = series("fig2b_ssd_write_share", "B2");
    assert_eq!(b1[2], 0.0);
    assert!(b2[2] > 50.0, "{b2:?}");
    assert!(claim("o2.b3_over_b4_load") > 1.0);
    // O3: throttled to 6,000 ops/s, no scheme exceeds it and L0 still overshoots.
    for t in series("fig2f_load_throughput_throttled", "load") {
        assert!(t <= 6.0 * 1.001, "{t}");
    }
    assert!(claim("o3.l0_max_over_target") > 1.0);
    // O4: most reads reach the HDD at alpha 0.9, fewer at 1.2 (the cache absorbs more).
    let (a09, a12) = (
        claim("o4.hdd_read_share_a090"),
        claim("o4.hdd_read_share_a120"),
    );
    assert!(a09 > 50.0, "{a09}");
    assert!(a12 < a09, "{a12} vs {a09}");
    assert!(d1.join("fig2a_level_sizes_b4.csv").exists());
}

/// `reproduce hhzs` at a small scale: deterministic (whatever the thread timing of
/// its parallel loads), and HHZS beats B3 and AUTO on every YCSB workload.
#[test]
fn reproduce_hhzs_small_scale_hhzs_beats_b3_and_auto() {
    let (_dir, d1, v, _) = reproduce_twice("hhzs", "0.002");
    let claim = |id: &str| claim_measured(&v, id);
    for w in ["a", "b", "c", "d", "e", "f"] {
        assert!(claim(&format!("exp1.{w}.hhzs_over_b3")) > 1.0, "{w} vs B3");
        assert!(
            claim(&format!("exp1.{w}.hhzs_over_auto")) > 1.0,
            "{w} vs AUTO"
        );
    }
    // Migration helps P where reads matter (W2: 50 % reads, W4: read-only); in the
    // write-heavy W1 and the skewed 50/50 W3 its median gain is within ±5 % of 1 at
    // this scale (and at scale 1, docs/hhzs.md), so it is not asserted there.
    for w in ["w2", "w4"] {
        assert!(
            claim(&format!("exp2.{w}.pm_over_p")) > 1.0,
            "{w}: migration helps P"
        );
    }
    assert!(d1.join("fig6_breakdown.csv").exists());
    // `--draws 1`: one load per scheme, so no claim has a spread.
    let v1 = reproduce_one_draw(&d1, "hhzs", "0.002");
    assert!(v["claims"].as_array().unwrap()[0].get("spread").is_some());
    assert!(v1["claims"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c.get("spread").is_none()));
    assert!(v1["notes"].to_string().contains("Every load drawn 1 times"));
    // `--cpu-jitter-ppm 0`: the exact mean CPU costs. The note says which CV ran,
    // and the load's compaction path, so some ratio, differs from the default's.
    let exact = reproduce_one_draw_with(&d1, "hhzs", "0.002", &["--cpu-jitter-ppm", "0"], "exact");
    assert!(v1["notes"].to_string().contains("with a CV of 5.0 %"));
    assert!(exact["notes"].to_string().contains("with a CV of 0.0 %"));
    let values = |v: &serde_json::Value| -> Vec<f64> {
        v["claims"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["measured"].as_f64().unwrap())
            .collect()
    };
    assert_ne!(
        values(&exact),
        values(&v1),
        "the CPU variation reached the model"
    );
}

#[test]
fn reproduce_conzone_runs_at_small_scale_and_bench_works_on_its_devices() {
    let (_dir, d1, v, _) = reproduce_twice("conzone", "0.02");
    let ids = claim_ids(&v);
    for id in [
        "fig9.page_1g_drop",
        "fig9c.bw_gain_no_conflict",
        "fig13.multiple_drop_at_27pct",
    ] {
        assert!(ids.contains(&id), "{id} missing");
    }
    assert!(d1.join("fig9a_kiops.csv").exists());
    for device in [
        "conzone-tlc",
        "conzone-tlc-block",
        "conzone-plus-tlc",
        "conzone-qlc",
    ] {
        let o = zonelab(&[
            "bench",
            "--device",
            device,
            "--rw",
            "write",
            "--bs",
            "128k",
            "--io-size",
            "64m",
        ]);
        assert!(o.status.success(), "{device}: {}", stderr(&o));
    }
}

#[test]
fn ycsb_runs_a_workload_on_hybrid_storage_and_rejects_bad_input() {
    let o = zonelab(&[
        "ycsb",
        "--scheme",
        "hhzs",
        "--workload",
        "a",
        "--scale",
        "0.0005",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["scheme"], "HHZS");
    assert_eq!(v["load"]["puts"], 104_858);
    assert_eq!(v["run"]["summary"]["ops"], 10_000);
    let o2 = zonelab(&[
        "ycsb",
        "--scheme",
        "hhzs",
        "--workload",
        "a",
        "--scale",
        "0.0005",
        "--json",
    ]);
    assert_eq!(stdout(&o), stdout(&o2), "same seed, same output");
    assert_clean_error(
        &zonelab(&["ycsb", "--scheme", "b0"]),
        &["unknown scheme `b0`"],
    );
    assert_clean_error(&zonelab(&["ycsb", "--workload", "q"]), &["workload"]);
    assert_clean_error(
        &zonelab(&["ycsb", "--workload", "mix", "--read-ratio", "1.5"]),
        &["readproportion"],
    );
    assert_clean_error(&zonelab(&["ycsb", "--scale", "0"]), &["--scale"]);
    assert_clean_error(
        &zonelab(&["ycsb", "--ssd-zones", "0"]),
        &["--ssd-zones must be at least 1"],
    );
    // 5 SSD zones: ZenFS keeps 3 and B3's metadata files hold 2, so nothing is left
    // for data; the ablation without the metadata zones runs.
    let five = [
        "ycsb",
        "--scheme",
        "b3",
        "--workload",
        "load",
        "--scale",
        "0.0005",
        "--ssd-zones",
        "5",
    ];
    assert_clean_error(
        &zonelab(&five),
        &["metadata-file zones leave no empty zone"],
    );
    let mut ablation = five.to_vec();
    ablation.extend(["--no-metadata-zones", "--json"]);
    let o = zonelab(&ablation);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["no_metadata_zones"], true);
    assert_eq!(v["load"]["puts"], 104_858);
    assert_clean_error(
        &zonelab(&["ycsb", "--ssd", "nosuch", "--scale", "0.0005"]),
        &["nosuch"],
    );
    assert_clean_error(
        &zonelab(&["ycsb", "--hdd", "ssd-conventional", "--scale", "0.0005"]),
        &["not zoned"],
    );
}

/// `reproduce placement` at its smallest scale: deterministic, every claim there,
/// and FDP with one handle placing data exactly as the conventional FTL does.
#[test]
fn reproduce_placement_runs_at_small_scale_deterministically() {
    let (_dir, d1, v, _) = reproduce_twice("placement", "0.02");
    let ids = claim_ids(&v);
    for id in [
        "placement.fdp1_over_conventional_waf",
        "placement.conventional_over_fdp2_waf",
        "placement.fdp2_waf",
        "placement.fdp8_over_fdp2_waf",
        "placement.zns_over_separated_sum_waf",
    ] {
        assert!(ids.contains(&id), "{id} missing");
    }
    let ratio = claim_measured(&v, "placement.fdp1_over_conventional_waf");
    assert!(
        (ratio - 1.0).abs() < 0.02,
        "FDP-1 / conventional WAF {ratio}"
    );
    assert!(d1.join("waf.csv").exists());
}

/// `bench --fdp-pid` and a CSV trace's placement column reach the FDP device's
/// handles (its RUH status shows which were written); bad identifiers and
/// devices without FDP are one-line errors.
#[test]
fn placement_identifiers_reach_the_fdp_handles() {
    let v = common::json_of(&[
        "bench",
        "--device",
        "zn540-fdp",
        "--rw",
        "randwrite",
        "--bs",
        "4k",
        "--io-size",
        "8m",
        "--numjobs",
        "2",
        "--fdp-pid",
        "2,5",
        "--json",
    ]);
    let fdp = &v["fdp"];
    assert_eq!(
        fdp["statistics"]["host_bytes_with_metadata_written"],
        16u64 << 20
    );
    let ru = fdp["config"]["reclaim_unit_bytes"].as_u64().unwrap();
    let available = |h: usize| fdp["handles"][h]["available_bytes"].as_u64().unwrap();
    assert!(available(2) < ru && available(5) < ru, "{fdp}");
    assert_eq!(available(0), ru, "handle 0 was never written");
    assert_clean_error(
        &zonelab(&["bench", "--device", "zn540-fdp", "--fdp-pid", "8"]),
        &["--fdp-pid: 8 names no placement handle"],
    );
    assert_clean_error(
        &zonelab(&["bench", "--device", "ssd-conventional", "--fdp-pid", "0"]),
        &["has no Flexible Data Placement"],
    );
    let dir = tempfile::tempdir().unwrap();
    let trace = write(
        dir.path(),
        "placed.csv",
        "time_ns,op,offset_bytes,size_bytes,placement_id\n0,W,0,4096,3\n1000,W,4096,4096,3\n2000,R,0,4096,3\n",
    );
    let v = common::json_of(&[
        "replay",
        "--device",
        "zn540-fdp",
        "--trace",
        &trace,
        "--format",
        "csv",
        "--json",
    ]);
    assert!(v["fdp"]["handles"][3]["available_bytes"].as_u64().unwrap() < ru);
    assert_eq!(v["config"]["record_counts"]["placement_ids_ignored"], 1);
    let bad = write(dir.path(), "bad.csv", "0,W,0,4096,70000\n");
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "zn540-fdp",
            "--trace",
            &bad,
            "--format",
            "csv",
        ]),
        &["placement_id", "65535"],
    );
}

#[test]
fn bench_prints_the_conventional_ssd_mechanism_counters() {
    // 2 KiB random reads and writes on a preconditioned `ssd-mqsim` (512-byte
    // LBAs on 4 KiB units, read-first with suspension, 2 MiB mapping cache).
    let o = zonelab(&[
        "bench",
        "--device",
        "ssd-mqsim",
        "--rw",
        "randrw",
        "--bs",
        "2k",
        "--size",
        "16m",
        "--io-size",
        "8m",
        "--iodepth",
        "16",
        "--precondition",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let line = out
        .lines()
        .find(|l| l.starts_with("ftl: "))
        .unwrap_or_else(|| panic!("no ftl: line in {out}"));
    let count = |key: &str| -> u64 {
        let at = line
            .find(&format!("{key} "))
            .unwrap_or_else(|| panic!("{key} missing: {line}"));
        line[at + key.len() + 1..]
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    for key in ["map_cache_hits", "program_suspends", "sub_block_rmw_units"] {
        assert!(count(key) > 0, "{key} is 0: {line}");
    }
    assert!(line.contains("map_cache_misses "), "{line}");
}
