//! The defects of issue 17, found by trying ZoneLab as a new user would: each test
//! checks the message or the behaviour that replaced the defect.

mod common;

use common::{assert_clean_error, json_of, stderr, stdout, write, zonelab};

/// 51 writes of 4 KiB, 1 ms apart (50 ms of trace).
fn small_trace(dir: &std::path::Path) -> String {
    let text: String = (0..51u64)
        .map(|i| format!("{},W,{},4096\n", i * 1_000_000, i * 4096))
        .collect();
    write(dir, "t.csv", &text)
}

#[test]
fn sample_interval_is_bounded_and_the_error_names_the_minimum_that_works() {
    let dir = tempfile::tempdir().unwrap();
    let t = small_trace(dir.path());
    let replay = |interval: &str| {
        zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &t,
            "--json",
            "--sample-interval",
            interval,
        ])
    };
    let o = replay("1ns");
    assert_clean_error(
        &o,
        &[
            "--sample-interval",
            "1000000 points",
            "minimum for this run is",
        ],
    );
    // The minimum it names is accepted.
    let err = stderr(&o);
    let min = err
        .split("minimum for this run is --sample-interval ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap();
    let ok = replay(min);
    assert!(ok.status.success(), "{min}: {}", stderr(&ok));
    let v: serde_json::Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert!(v["throughput_series"]["mib_s"].as_array().unwrap().len() <= 1_000_000);
    // bench too.
    assert_clean_error(
        &zonelab(&[
            "bench",
            "--device",
            "zn540",
            "--rw",
            "write",
            "--bs",
            "1m",
            "--io-size",
            "64m",
            "--sample-interval",
            "1ns",
        ]),
        &["--sample-interval", "minimum for this run is"],
    );
}

#[test]
fn the_default_sample_interval_widens_instead_of_exhausting_memory() {
    let dir = tempfile::tempdir().unwrap();
    let t = small_trace(dir.path());
    // 50 ms of trace at speed 1e-9: 5e16 ns (1.6 years) of virtual time; 1 s samples
    // would be 50 M points.
    let v = json_of(&[
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &t,
        "--json",
        "--speed",
        "1e-9",
    ]);
    assert!(v["duration_ns"].as_u64().unwrap() >= 50_000_000_000_000_000);
    let series = &v["throughput_series"];
    assert!(series["mib_s"].as_array().unwrap().len() <= 1_000_000);
    assert!(series["interval_ns"].as_u64().unwrap() > 1_000_000_000);
}

#[test]
fn a_speed_whose_scaled_trace_does_not_fit_virtual_time_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let t = small_trace(dir.path());
    for speed in ["1e-12", "1e-300"] {
        assert_clean_error(
            &zonelab(&[
                "replay",
                "--device",
                "ssd-conventional",
                "--trace",
                &t,
                "--speed",
                speed,
            ]),
            &["--speed", "t.csv:", "past its limit", "at least"],
        );
    }
}

#[test]
fn unsorted_traces_replay_with_allow_unsorted_and_in_closed_loop() {
    let dir = tempfile::tempdir().unwrap();
    // The second record is earlier than the first one.
    let t = write(
        dir.path(),
        "u.csv",
        "5000,W,0,4096\n1000,W,4096,4096\n9000,R,0,4096\n",
    );
    let args = [
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &t,
        "--json",
    ];
    assert_clean_error(&zonelab(&args), &["u.csv:2", "--allow-unsorted", "--qd"]);
    let v = json_of(&[&args[..], &["--allow-unsorted"]].concat());
    assert_eq!(v["ops"], 3);
    assert_eq!(v["config"]["record_counts"]["unsorted_records"], 1);
    // Closed loop ignores timestamps, so no flag is needed.
    let v = json_of(&[&args[..], &["--qd", "2"]].concat());
    assert_eq!(v["ops"], 3);
}

#[test]
fn replay_help_lists_every_format_with_its_time_unit() {
    let help = stdout(&zonelab(&["replay", "--help"]));
    for (name, unit) in [
        ("msr", "100 ns ticks"),
        ("disksim", "milliseconds"),
        ("mqsim", "nanoseconds (integer)"),
        ("csv", "nanoseconds"),
        ("alibaba", "microseconds"),
        ("tencent", "seconds"),
        ("blkparse", "seconds (decimal) since"),
        ("blkparse-queue", "seconds (decimal) since"),
    ] {
        let at = help
            .find(&format!("{name} ("))
            .unwrap_or_else(|| panic!("{name}: {help}"));
        let entry: String = help[at..]
            .chars()
            .take(120)
            .collect::<String>()
            .replace('\n', " ");
        let entry = entry.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(entry.contains(unit), "{name}: {entry}");
    }
}

#[test]
fn an_mqsim_trace_read_as_disksim_warns_about_its_time_span() {
    let dir = tempfile::tempdir().unwrap();
    // MQSim: integer nanoseconds; 2,000 reads over 60 s.
    let text: String = (0..2000u64)
        .map(|i| format!("{} 0 {} 8 1\n", i * 30_000_000, i * 8))
        .collect();
    let t = write(dir.path(), "mq.trace", &text);
    let run = |format: &str| {
        zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &t,
            "--format",
            format,
        ])
    };
    let wrong = run("disksim");
    assert!(wrong.status.success(), "{}", stderr(&wrong));
    let err = stderr(&wrong);
    assert!(err.contains("warning") && err.contains("694 days"), "{err}");
    assert!(err.contains("mqsim nanoseconds"), "{err}");
    let right = run("mqsim");
    assert!(right.status.success());
    assert!(!stderr(&right).contains("warning"), "{}", stderr(&right));
}

#[test]
fn io_spanning_two_conventional_zones_of_an_hm_smr_disk_is_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let zone = 256u64 << 20;
    // 8 KiB across the boundary of conventional zones 0 and 1, written then read.
    let t = write(
        dir.path(),
        "span.csv",
        &format!("0,W,{0},8192\n1000000,R,{0},8192\n", zone - 4096),
    );
    let v = json_of(&[
        "replay",
        "--device",
        "st14000nm0007",
        "--trace",
        &t,
        "--json",
    ]);
    assert_eq!(v["ops"], 2);
    // Into the first sequential zone (524 conventional zones): still an error.
    let t = write(
        dir.path(),
        "seq.csv",
        &format!("0,W,{},8192\n", 524 * zone - 4096),
    );
    assert_clean_error(
        &zonelab(&["replay", "--device", "st14000nm0007", "--trace", &t]),
        &["seq.csv:1"],
    );
}

#[test]
fn reproduce_checks_its_output_directory_before_running() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "a-file", "x");
    let under_file = format!("{file}/results");
    for target in ["devices", "all"] {
        assert_clean_error(
            &zonelab(&["reproduce", target, "--out", &under_file]),
            &["--out", "cannot create the output directory"],
        );
    }
    // Created when missing.
    let fresh = dir.path().join("new/deeper");
    let o = zonelab(&[
        "reproduce",
        "devices",
        "--scale",
        "0.01",
        "--out",
        fresh.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(fresh.join("report.html").exists());
}

#[test]
fn runs_that_measure_nothing_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write(dir.path(), "empty.csv", "");
    let header = write(
        dir.path(),
        "header.csv",
        "time_ns,op,offset_bytes,size_bytes\n",
    );
    for t in [&empty, &header] {
        assert_clean_error(
            &zonelab(&[
                "replay",
                "--device",
                "ssd-conventional",
                "--trace",
                t,
                "--format",
                "csv",
            ]),
            &["nothing to replay", "no records"],
        );
    }
    let alibaba = write(dir.path(), "ali.csv", "0,R,0,4096,1000\n1,R,0,4096,1500\n");
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &alibaba,
            "--format",
            "alibaba",
            "--disk",
            "7",
        ]),
        &["ali.csv", "no line of device 7", "devices 0, 1"],
    );
    assert_clean_error(
        &zonelab(&["bench", "--device", "ssd-conventional", "--io-size", "0"]),
        &["io_size", "transfer nothing"],
    );
    assert_clean_error(
        &zonelab(&["ycsb", "--operations", "0"]),
        &["--operations 0"],
    );
    // An empty trace as reproduce mu-rmw input.
    let traces = dir.path().join("msr");
    std::fs::create_dir(&traces).unwrap();
    write(&traces, "rsrch_0.csv", "");
    assert_clean_error(
        &zonelab(&[
            "reproduce",
            "mu-rmw",
            "--scale",
            "0.01",
            "--traces",
            traces.to_str().unwrap(),
            "--out",
            dir.path().join("out").to_str().unwrap(),
        ]),
        &["rsrch_0.csv", "nothing to replay"],
    );
}

/// Values a help text lists after `prefix` up to the next `.`, with `b1-b9` ranges
/// expanded.
fn listed_values(help: &str, prefix: &str) -> Vec<String> {
    let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = flat
        .find(prefix)
        .unwrap_or_else(|| panic!("{prefix}: {flat}"))
        + prefix.len();
    let list = flat[at..].split(". ").next().unwrap().trim_end_matches('.');
    let mut out = Vec::new();
    for v in list.split(", ").map(|v| v.split(' ').next().unwrap()) {
        match v.split_once('-') {
            Some((a, b)) if a.len() > 1 && b.len() > 1 && a[..1] == b[..1] => {
                let (p, lo, hi) = (&a[..1], &a[1..], &b[1..]);
                for n in lo.parse::<u32>().unwrap()..=hi.parse().unwrap() {
                    out.push(format!("{p}{n}"));
                }
            }
            _ => out.push(v.to_string()),
        }
    }
    out
}

#[test]
fn help_texts_list_exactly_what_the_parsers_accept() {
    // ycsb --scheme: every listed name gets past the scheme parser (the run then
    // stops at --records 0); an unlisted one does not.
    let help = stdout(&zonelab(&["ycsb", "--help"]));
    let schemes = listed_values(&help, "Data management scheme: ");
    assert!(schemes.contains(&"b9".to_string()) && schemes.contains(&"hhzs".to_string()));
    for s in &schemes {
        assert_clean_error(
            &zonelab(&["ycsb", "--scheme", s, "--records", "0"]),
            &["--records 0"],
        );
    }
    assert_clean_error(
        &zonelab(&["ycsb", "--scheme", "b10"]),
        &["--scheme", "b1-b9"],
    );
    // bench --rw.
    let help = stdout(&zonelab(&["bench", "--help"]));
    for rw in listed_values(&help, "--rw <RW> ") {
        assert_clean_error(
            &zonelab(&["bench", "--device", "zn540", "--rw", &rw, "--io-size", "0"]),
            &["io_size"],
        );
    }
    // replay --format: every listed format is accepted (the run stops at the
    // missing file).
    let help = stdout(&zonelab(&["replay", "--help"]));
    let formats = listed_values(&help, "Trace format: ");
    // auto and the eight formats; a comma inside a description would split an entry.
    assert_eq!(formats.len(), 9, "{formats:?}");
    assert!(
        formats.contains(&"blkparse-queue".to_string()),
        "{formats:?}"
    );
    for f in formats {
        assert_clean_error(
            &zonelab(&[
                "replay",
                "--device",
                "zn540",
                "--trace",
                "/nonexistent.trace",
                "--format",
                &f,
            ]),
            &["/nonexistent.trace"],
        );
    }
}

#[test]
fn write_buffers_are_drained_at_the_end_unless_no_drain() {
    let dir = tempfile::tempdir().unwrap();
    // 4 MiB of 64 KiB writes on a CMR disk with a DRAM write cache.
    let text: String = (0..64u64)
        .map(|i| format!("{},W,{},65536\n", i * 100_000, i * 65536))
        .collect();
    let t = write(dir.path(), "w.csv", &text);
    let args = ["replay", "--device", "wd100efax", "--trace", &t, "--json"];
    let drained = json_of(&args);
    let d = &drained["device_stats"];
    assert_eq!(d["buffered_write_bytes"], 0);
    assert!(d["media_write_bytes"].as_u64() >= d["host_write_bytes"].as_u64());
    assert!(d["write_amplification"].as_f64().unwrap() >= 1.0);
    assert!(drained["drain_done_ns"].as_u64().unwrap() >= drained["end_ns"].as_u64().unwrap());
    let kept = json_of(&[&args[..], &["--no-drain"]].concat());
    let k = &kept["device_stats"];
    assert!(k["buffered_write_bytes"].as_u64().unwrap() > 0, "{k}");
    // WAF over the data on the media: never below 1 because of the buffer.
    assert!(k["write_amplification"].as_f64().unwrap() >= 1.0, "{k}");
    assert!(kept["drain_done_ns"].is_null());
    // The ops measured are the same either way.
    assert_eq!(drained["latency"], kept["latency"]);
}

#[test]
fn replay_preconditions_the_device_so_reads_reach_the_flash() {
    let dir = tempfile::tempdir().unwrap();
    // Read-mostly: 200 reads of 4 KiB over 8 MiB, one write.
    let mut text = String::from("0,W,0,4096\n");
    for i in 1..=200u64 {
        text.push_str(&format!(
            "{},R,{},4096\n",
            i * 50_000,
            (i * 7919 % 2048) * 4096
        ));
    }
    let t = write(dir.path(), "r.csv", &text);
    let args = [
        "replay",
        "--device",
        "ssd-conventional",
        "--trace",
        &t,
        "--json",
    ];
    let fresh = json_of(&args);
    // Fresh device: reads of never-written blocks do not touch the flash.
    assert_eq!(fresh["device_stats"]["media_read_bytes"], 0);
    let footprint = json_of(&[&args[..], &["--precondition", "footprint"]].concat());
    assert_eq!(footprint["config"]["precondition_bytes"], 8 << 20);
    assert!(
        footprint["device_stats"]["media_read_bytes"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(footprint["start_ns"].as_u64().unwrap() > 0);
    let full = json_of(&[&args[..], &["--precondition"]].concat());
    assert!(full["device_stats"]["host_write_bytes"].as_u64().unwrap() >= 64 << 30);
    assert!(full["device_stats"]["media_read_bytes"].as_u64().unwrap() > 0);
    // Deterministic.
    assert_eq!(
        footprint,
        json_of(&[&args[..], &["--precondition", "footprint"]].concat())
    );
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "zn540",
            "--trace",
            &t,
            "--precondition",
            "footprint",
        ]),
        &["--precondition footprint", "zoned"],
    );
    assert_clean_error(
        &zonelab(&[
            "replay",
            "--device",
            "ssd-conventional",
            "--trace",
            &t,
            "--precondition",
            "half",
        ]),
        &["--precondition", "full or footprint"],
    );
}
