//! The bench and replay runners (`run_bench`, `precondition`, `run_replay`) on real
//! device models: queue depth, runtime and start time, determinism, totals that add
//! up, throughput series, zone-rule errors with line numbers, open- and closed-loop
//! timing, and how trace records are counted.

use std::io::Cursor;
use zonelab_devices::{open_device, Command, Device, DeviceError, Payload};
use zonelab_engine::{Ns, NS_PER_MS, NS_PER_S, NS_PER_US};
use zonelab_experiments::bench::{
    precondition, run_bench, BenchError, BenchOptions, PRECONDITION_IDLE_NS,
};
use zonelab_experiments::replay::{run_replay, ReplayError, ReplayMode, ReplayOptions};
use zonelab_experiments::run_result::RunResult;
use zonelab_workloads::job::{JobSpec, RwMode};
use zonelab_workloads::trace::{TraceFormat, TraceOptions, TraceReader};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn ssd() -> Box<dyn Device> {
    open_device("ssd-conventional").unwrap()
}

/// 4 KiB random reads over a 64 MiB region of the SSD.
fn randread(iodepth: u32, ops: u64) -> JobSpec {
    JobSpec {
        rw: RwMode::RandRead,
        block_size_bytes: 4 * KIB,
        iodepth,
        size_bytes: Some(64 * MIB),
        io_size_bytes: Some(ops * 4 * KIB),
        ..JobSpec::default()
    }
}

/// Preconditions `spec`'s region, then runs `spec` from the precondition's end.
fn precondition_and_run(dev: &mut dyn Device, spec: &JobSpec) -> (Ns, RunResult) {
    let mut opts = BenchOptions::default();
    opts.start_ns = precondition(dev, spec, &opts).unwrap();
    let r = run_bench(dev, spec, &opts, None).unwrap();
    (opts.start_ns, r)
}

fn json(r: &RunResult) -> String {
    serde_json::to_string(r).unwrap()
}

/// Checks the totals of a result add up.
fn assert_totals_consistent(r: &RunResult) {
    assert_eq!(r.read.ops + r.write.ops + r.trim.ops, r.ops);
    assert_eq!(r.read.bytes + r.write.bytes, r.bytes);
    assert_eq!(r.latency.count, r.ops);
    assert_eq!(r.read.latency.count, r.read.ops);
    assert_eq!(r.write.latency.count, r.write.ops);
    assert_eq!(r.end_ns - r.start_ns, r.duration_ns);
}

/// Bytes the throughput series accounts for (MiB/s × interval).
fn series_bytes(r: &RunResult) -> f64 {
    let secs = r.throughput_series.interval_ns as f64 / NS_PER_S as f64;
    r.throughput_series
        .mib_s
        .iter()
        .map(|m| m * secs * MIB as f64)
        .sum()
}

fn reader(text: &str) -> TraceReader<Cursor<String>> {
    TraceReader::new(
        Cursor::new(text.to_string()),
        "t.csv",
        TraceFormat::Csv,
        TraceOptions::default(),
    )
    .unwrap()
}

fn open_loop(speed: f64) -> ReplayOptions {
    ReplayOptions {
        mode: ReplayMode::OpenLoop { speed },
        series_interval_ns: 10 * NS_PER_MS,
        limit: None,
        fold_to_capacity: false,
        ..ReplayOptions::default()
    }
}

fn closed_loop(qd: u32) -> ReplayOptions {
    ReplayOptions {
        mode: ReplayMode::ClosedLoop { qd },
        series_interval_ns: 10 * NS_PER_MS,
        limit: None,
        fold_to_capacity: false,
        ..ReplayOptions::default()
    }
}

fn replay(
    dev: &mut dyn Device,
    text: &str,
    opts: &ReplayOptions,
) -> Result<RunResult, ReplayError> {
    run_replay(
        dev,
        &mut reader(text),
        opts,
        serde_json::json!({ "trace": "t.csv" }),
        None,
    )
}

/// Time the device takes for `cmd` submitted at `at` on its own.
fn service_ns(dev: &mut dyn Device, at: Ns, cmd: &Command) -> Ns {
    dev.submit(at, cmd, Payload::SizeOnly).unwrap().done_ns - at
}

fn counts(r: &RunResult) -> &serde_json::Value {
    &r.config["record_counts"]
}

/// `a` and `b` within `rel` of each other.
fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

// ---------------------------------------------------------------------------
// bench
// ---------------------------------------------------------------------------

#[test]
fn deeper_queues_give_more_iops_on_ssd_random_reads() {
    let mut iops = Vec::new();
    for qd in [1, 16] {
        let mut dev = ssd();
        let (_, r) = precondition_and_run(&mut *dev, &randread(qd, 4_000));
        assert_eq!(r.read.ops, 4_000);
        assert_eq!(r.write.ops, 0);
        assert_totals_consistent(&r);
        iops.push(r.iops);
    }
    assert!(
        iops[1] > 3.0 * iops[0],
        "QD16 {} IOPS vs QD1 {} IOPS",
        iops[1],
        iops[0]
    );
}

#[test]
fn runtime_stops_issuing() {
    let runtime = 20 * NS_PER_MS;
    let mut dev = ssd();
    let spec = JobSpec {
        runtime_ns: Some(runtime),
        io_size_bytes: None,
        ..randread(4, 0)
    };
    let (start, r) = precondition_and_run(&mut *dev, &spec);
    assert_eq!(r.start_ns, start);
    assert!(r.ops > 100, "{} ops", r.ops);
    // Requests issued before the deadline complete after it, within one latency.
    assert!(r.duration_ns >= runtime, "{} < {runtime}", r.duration_ns);
    assert!(
        r.duration_ns <= runtime + r.latency.max_ns + NS_PER_US,
        "{} ns for a {runtime} ns runtime",
        r.duration_ns
    );
    assert_totals_consistent(&r);
    // An io size stops the job earlier than the runtime.
    let mut dev = ssd();
    let spec = JobSpec {
        runtime_ns: Some(NS_PER_S),
        ..randread(4, 100)
    };
    let (_, r) = precondition_and_run(&mut *dev, &spec);
    assert_eq!(r.ops, 100);
    assert!(r.duration_ns < 50 * NS_PER_MS);
}

#[test]
fn a_run_after_preconditioning_starts_at_the_precondition_end() {
    let mut dev = ssd();
    let spec = randread(1, 200);
    let opts = BenchOptions::default();
    let start = precondition(&mut *dev, &spec, &opts).unwrap();
    // The precondition wrote the region once with 1 MiB writes, then idled.
    let s = dev.stats(start);
    assert_eq!(s.host_write_bytes, 64 * MIB);
    assert!(start > PRECONDITION_IDLE_NS);
    let r = run_bench(
        &mut *dev,
        &spec,
        &BenchOptions {
            start_ns: start,
            ..opts
        },
        None,
    )
    .unwrap();
    assert_eq!(r.start_ns, start);
    assert!(r.end_ns > start);
    assert_eq!(r.duration_ns, r.end_ns - start);
    // Measured from the start, not from time 0: 200 QD1 reads take milliseconds.
    assert!(
        r.duration_ns < 100 * NS_PER_MS,
        "duration {} ns",
        r.duration_ns
    );
    assert!(
        r.latency.max_ns < NS_PER_MS,
        "max latency {} ns",
        r.latency.max_ns
    );
    assert!(close(
        r.iops,
        200.0 / (r.duration_ns as f64 / NS_PER_S as f64),
        1e-5
    ));
    // The series starts at the run's start too: one interval, not start / interval.
    assert_eq!(r.throughput_series.mib_s.len(), 1);
    assert!(close(series_bytes(&r), r.bytes as f64, 1e-5));

    // A run given no start on a used device still works from time 0 (results are
    // then measured from 0).
    let r0 = run_bench(&mut *ssd(), &spec, &opts, None).unwrap();
    assert_eq!(r0.start_ns, 0);
}

#[test]
fn bench_results_are_deterministic() {
    let run = |spec: &JobSpec, device: &str, seed: u64| {
        let mut dev = open_device(device).unwrap();
        let mut opts = BenchOptions {
            seed,
            ..BenchOptions::default()
        };
        if matches!(
            spec.rw,
            RwMode::Read | RwMode::RandRead | RwMode::RandRw | RwMode::ReadWrite
        ) {
            opts.start_ns = precondition(&mut *dev, spec, &opts).unwrap();
        }
        json(&run_bench(&mut *dev, spec, &opts, None).unwrap())
    };
    let mixed = JobSpec {
        rw: RwMode::RandRw,
        iodepth: 8,
        numjobs: 2,
        rwmixread_percent: 70,
        ..randread(8, 2_000)
    };
    let a = run(&mixed, "ssd-conventional", 1);
    assert_eq!(a, run(&mixed, "ssd-conventional", 1));
    assert_ne!(
        a,
        run(&mixed, "ssd-conventional", 2),
        "another seed, another run"
    );

    // Random zoned writes that wrap (zone resets included).
    let zn = open_device("zn540").unwrap();
    let z = zn.info().zoned.clone().unwrap();
    let zone_bytes = z.zone_size_blocks * 4096;
    let cap_bytes = z.zone_capacity_blocks * 4096;
    let zw = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 8 * MIB,
        iodepth: 4,
        size_bytes: Some(3 * zone_bytes),
        io_size_bytes: Some(2 * 3 * cap_bytes),
        max_open_zones: Some(2),
        ..JobSpec::default()
    };
    let b = run(&zw, "zn540", 5);
    assert_eq!(b, run(&zw, "zn540", 5));
}

#[test]
fn ops_and_bytes_add_up() {
    let mut dev = ssd();
    let spec = JobSpec {
        rw: RwMode::RandRw,
        block_size_bytes: 8 * KIB,
        iodepth: 4,
        numjobs: 2,
        rwmixread_percent: 60,
        size_bytes: Some(64 * MIB),
        io_size_bytes: Some(8 * MIB),
        ..JobSpec::default()
    };
    let (_, r) = precondition_and_run(&mut *dev, &spec);
    assert_totals_consistent(&r);
    assert_eq!(r.bytes, 2 * 8 * MIB, "io size is per job");
    assert_eq!(r.ops, r.bytes / (8 * KIB));
    assert_eq!(r.read.bytes, r.read.ops * 8 * KIB);
    assert_eq!(r.write.bytes, r.write.ops * 8 * KIB);
    let read_frac = r.read.ops as f64 / r.ops as f64;
    assert!(
        (0.55..0.65).contains(&read_frac),
        "read fraction {read_frac}"
    );
    assert_eq!(r.trim.ops, 0);
    assert_eq!(r.job_zone_resets, 0);
    assert!(close(
        r.throughput_mib_s,
        r.bytes as f64 / MIB as f64 / (r.duration_ns as f64 / NS_PER_S as f64),
        1e-5
    ));
    // The echoed config is the job.
    assert_eq!(r.config["rw"], "randrw");
    assert_eq!(r.config["numjobs"], 2);
    assert_eq!(r.kind, "bench");
}

#[test]
fn throughput_series_sums_to_the_bytes() {
    // Several intervals: 1 MiB sequential writes for ~100 ms of device time.
    let mut dev = ssd();
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: MIB,
        iodepth: 2,
        size_bytes: Some(256 * MIB),
        ..JobSpec::default()
    };
    let opts = BenchOptions {
        series_interval_ns: 10 * NS_PER_MS,
        ..BenchOptions::default()
    };
    let r = run_bench(&mut *dev, &spec, &opts, None).unwrap();
    assert_eq!(r.bytes, 256 * MIB);
    assert!(
        r.throughput_series.mib_s.len() > 5,
        "{} intervals",
        r.throughput_series.mib_s.len()
    );
    assert_eq!(
        r.throughput_series.mib_s.len() as u64,
        r.duration_ns / opts.series_interval_ns + 1
    );
    assert!(
        close(series_bytes(&r), r.bytes as f64, 1e-5),
        "series {} vs {} bytes",
        series_bytes(&r),
        r.bytes
    );
}

#[test]
fn zoned_bench_wraps_with_resets_and_counts_them() {
    let mut dev = open_device("zn540").unwrap();
    let z = dev.info().zoned.clone().unwrap();
    let (zone_bytes, cap_bytes) = (z.zone_size_blocks * 4096, z.zone_capacity_blocks * 4096);
    // Sequential writes, QD4: 2 zones written 3 times.
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 8 * MIB,
        iodepth: 4,
        offset_bytes: 2 * zone_bytes,
        size_bytes: Some(2 * zone_bytes),
        io_size_bytes: Some(3 * 2 * cap_bytes),
        ..JobSpec::default()
    };
    let r = run_bench(&mut *dev, &spec, &BenchOptions::default(), None).unwrap();
    assert_eq!(r.bytes, 3 * 2 * cap_bytes);
    assert_eq!(r.job_zone_resets, 4);
    assert_eq!(r.device_stats.zone_resets, 4);
    assert_totals_consistent(&r);
    // Then random writes over the same device: resets only of zones the job filled.
    let spec = JobSpec {
        rw: RwMode::RandWrite,
        block_size_bytes: 4 * MIB,
        iodepth: 8,
        size_bytes: Some(6 * zone_bytes),
        io_size_bytes: Some(3 * 6 * cap_bytes),
        max_open_zones: Some(14),
        ..JobSpec::default()
    };
    let r = run_bench(
        &mut *dev,
        &spec,
        &BenchOptions {
            start_ns: r.end_ns,
            ..BenchOptions::default()
        },
        None,
    )
    .unwrap();
    // Requests are whole: the last one may pass the io size by less than a request.
    assert!(
        r.bytes >= 3 * 6 * cap_bytes && r.bytes < 3 * 6 * cap_bytes + 4 * MIB,
        "{} bytes",
        r.bytes
    );
    assert_eq!(r.device_stats.zone_resets, 4 + r.job_zone_resets);
    assert!(r.job_zone_resets >= 2 * 6, "{} resets", r.job_zone_resets);
}

#[test]
fn bench_errors_are_typed() {
    let mut dev = ssd();
    let e = run_bench(
        &mut *dev,
        &JobSpec {
            iodepth: 0,
            ..JobSpec::default()
        },
        &BenchOptions::default(),
        None,
    )
    .unwrap_err();
    assert!(
        matches!(e, BenchError::Job(_)) && e.to_string().contains("iodepth"),
        "{e}"
    );
    // A zoned write over zones someone else holds open beyond max-active: the
    // device's error surfaces with the job and the command.
    let mut zn = open_device("zn540").unwrap();
    let z = zn.info().zoned.clone().unwrap();
    for i in 0..14 {
        zn.submit(
            0,
            &Command::Write {
                lba: (20 + i) * z.zone_size_blocks,
                blocks: 1,
            },
            Payload::SizeOnly,
        )
        .unwrap();
    }
    let spec = JobSpec {
        rw: RwMode::Write,
        size_bytes: Some(z.zone_size_blocks * 4096),
        ..JobSpec::default()
    };
    let e = run_bench(
        &mut *zn,
        &spec,
        &BenchOptions {
            start_ns: NS_PER_S,
            ..BenchOptions::default()
        },
        None,
    )
    .unwrap_err();
    match &e {
        BenchError::Device {
            job: 0,
            command: "write",
            lba: 0,
            source: DeviceError::TooManyActiveZones { .. },
        } => {}
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn progress_reports_reach_the_total() {
    let mut dev = ssd();
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: MIB,
        offset_bytes: 64 * MIB,
        size_bytes: Some(32 * MIB),
        ..JobSpec::default()
    };
    let mut last = (0, 0);
    let mut calls = 0;
    let mut cb = |done: u64, planned: u64| {
        assert!(done >= last.0, "progress goes forward");
        last = (done, planned);
        calls += 1;
    };
    run_bench(&mut *dev, &spec, &BenchOptions::default(), Some(&mut cb)).unwrap();
    assert!(calls >= 1);
    assert_eq!(last, (32 * MIB, 32 * MIB), "(done, planned) at the end");

    // The default size runs to the end of the device from the offset.
    let mut dev = ssd();
    let cap = dev.info().capacity_bytes();
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: MIB,
        offset_bytes: cap - 16 * MIB,
        ..JobSpec::default()
    };
    let mut last = (0, 0);
    run_bench(
        &mut *dev,
        &spec,
        &BenchOptions::default(),
        Some(&mut |d, p| last = (d, p)),
    )
    .unwrap();
    assert_eq!(last, (16 * MIB, 16 * MIB), "(done, planned) from an offset");

    // On a zoned device one pass is the zones' capacity, not their address space.
    let mut dev = open_device("zn540").unwrap();
    let z = dev.info().zoned.clone().unwrap();
    let spec = JobSpec {
        rw: RwMode::Write,
        block_size_bytes: 8 * MIB,
        numjobs: 2,
        size_bytes: Some(2 * z.zone_size_blocks * 4096),
        ..JobSpec::default()
    };
    let mut last = (0, 0);
    run_bench(
        &mut *dev,
        &spec,
        &BenchOptions::default(),
        Some(&mut |d, p| last = (d, p)),
    )
    .unwrap();
    let pass = 2 * z.zone_capacity_blocks * 4096;
    assert_eq!(last, (pass, pass), "(done, planned) on zn540");

    // With a runtime the total is unknown (0).
    let mut dev = ssd();
    let spec = JobSpec {
        runtime_ns: Some(NS_PER_MS),
        io_size_bytes: None,
        ..randread(1, 0)
    };
    let mut last = (0, 1);
    run_bench(
        &mut *dev,
        &spec,
        &BenchOptions::default(),
        Some(&mut |d, p| last = (d, p)),
    )
    .unwrap();
    assert!(last.0 > 0);
    assert_eq!(last.1, 0);
}

// ---------------------------------------------------------------------------
// replay
// ---------------------------------------------------------------------------

#[test]
fn a_zone_rule_violation_names_the_trace_line() {
    let mut dev = open_device("zn540").unwrap();
    let text = "time_ns,op,offset_bytes,size_bytes\n# a comment\n0,W,0,4096\n\n1000,W,4096,4096\n2000,W,16384,4096\n3000,W,8192,4096\n";
    let e = replay(&mut *dev, text, &open_loop(1.0)).unwrap_err();
    match &e {
        ReplayError::Device {
            path,
            line,
            command,
            lba,
            blocks,
            source,
        } => {
            assert_eq!(
                (path.as_str(), *line, *command, *lba, *blocks),
                ("t.csv", 6, "write", 4, 1)
            );
            assert!(
                matches!(
                    source,
                    DeviceError::NotAtWritePointer {
                        zone: 0,
                        lba: 4,
                        write_pointer: 2
                    }
                ),
                "{source:?}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    let msg = e.to_string();
    assert!(
        msg.starts_with("t.csv:6: write of 1 blocks at LBA 4"),
        "{msg}"
    );
    // Closed loop names the same line.
    let mut dev = open_device("zn540").unwrap();
    let e = replay(&mut *dev, text, &closed_loop(1)).unwrap_err();
    assert!(matches!(e, ReplayError::Device { line: 6, .. }), "{e:?}");
}

#[test]
fn open_loop_respects_arrival_times() {
    let mut dev = ssd();
    let mut twin = ssd();
    // Isolated requests, 10 ms apart: each sees the device idle.
    let text = "0,W,0,65536\n10000000,R,0,4096\n20000000,W,1048576,4096\n35000000,R,8192,8192\n";
    let r = replay(&mut *dev, text, &open_loop(1.0)).unwrap();
    let cmds = [
        (0, Command::Write { lba: 0, blocks: 16 }),
        (10 * NS_PER_MS, Command::Read { lba: 0, blocks: 1 }),
        (
            20 * NS_PER_MS,
            Command::Write {
                lba: 256,
                blocks: 1,
            },
        ),
        (35 * NS_PER_MS, Command::Read { lba: 2, blocks: 2 }),
    ];
    let services: Vec<Ns> = cmds
        .iter()
        .map(|(at, c)| service_ns(&mut *twin, *at, c))
        .collect();
    assert!(
        services.iter().all(|&s| s > 0 && s < 5 * NS_PER_MS),
        "{services:?}"
    );
    assert_eq!(r.start_ns, 0);
    assert_eq!(
        r.end_ns,
        35 * NS_PER_MS + services[3],
        "the last request arrives at 35 ms"
    );
    assert_eq!(r.ops, 4);
    assert_totals_consistent(&r);
    let max = *services.iter().max().unwrap() as f64;
    let min = *services.iter().min().unwrap() as f64;
    assert!(
        close(r.latency.max_ns as f64, max, 1e-3),
        "{} vs {max}",
        r.latency.max_ns
    );
    assert!(
        close(r.latency.min_ns as f64, min, 1e-3),
        "{} vs {min}",
        r.latency.min_ns
    );
    assert_eq!(r.kind, "replay");
    assert_eq!(r.config["trace"], "t.csv");
    assert_eq!(r.config["mode"]["open_loop"]["speed"], 1.0);

    // Arrivals do not wait for completions: a burst at one instant queues in the
    // device, and the run still ends when the last arrival's request completes.
    let mut dev = ssd();
    let burst: String = (0..32)
        .map(|i| format!("5000000,W,{},1048576\n", i * MIB))
        .collect();
    let r = replay(&mut *dev, &burst, &open_loop(1.0)).unwrap();
    assert!(
        r.latency.max_ns > 4 * r.latency.min_ns,
        "later requests of the burst wait: {:?}",
        r.latency
    );
    assert_eq!(r.start_ns, 0);
}

#[test]
fn speed_two_halves_the_span() {
    let text: String = (0..20)
        .map(|i| format!("{},R,{},4096\n", i * 5 * NS_PER_MS, i * 4 * KIB))
        .collect();
    let mut ends = Vec::new();
    for speed in [1.0, 2.0, 0.5] {
        let mut dev = ssd();
        let r = replay(&mut *dev, &text, &open_loop(speed)).unwrap();
        assert_eq!(r.ops, 20);
        // Arrival of the last record, plus its (idle-device) service time.
        let last_arrival = (95.0 * NS_PER_MS as f64 / speed) as Ns;
        let mut twin = ssd();
        let service = service_ns(
            &mut *twin,
            last_arrival,
            &Command::Read { lba: 19, blocks: 1 },
        );
        assert_eq!(r.end_ns, last_arrival + service, "speed {speed}");
        ends.push(r.end_ns - service);
    }
    assert_eq!(ends[0], 2 * ends[1]);
    assert_eq!(ends[2], 2 * ends[0]);
}

#[test]
fn closed_loop_keeps_qd_requests_in_flight() {
    // Timestamps far apart are ignored in closed loop.
    let text: String = (0..64)
        .map(|i| format!("{},R,{},4096\n", i * NS_PER_S, (i * 37 % 64) * 4 * KIB))
        .collect();
    let mut results = Vec::new();
    for qd in [1, 8] {
        let mut dev = ssd();
        let r = replay(&mut *dev, &text, &closed_loop(qd)).unwrap();
        assert_eq!(r.ops, 64);
        assert!(
            r.duration_ns < 100 * NS_PER_MS,
            "qd {qd}: {} ns",
            r.duration_ns
        );
        assert_eq!(r.config["mode"]["closed_loop"]["qd"], qd);
        assert_totals_consistent(&r);
        results.push(r);
    }
    // QD1: one request at a time, each issued when the previous completes, so the
    // span is the sum of the latencies.
    let qd1 = &results[0];
    let sum = qd1.latency.mean_ns * 64.0;
    assert!(
        close(qd1.duration_ns as f64, sum, 2e-3),
        "{} vs {sum}",
        qd1.duration_ns
    );
    // QD8 overlaps requests: more IOPS, and a span shorter than its latencies' sum.
    let qd8 = &results[1];
    assert!(qd8.iops > 2.0 * qd1.iops, "{} vs {}", qd8.iops, qd1.iops);
    assert!((qd8.duration_ns as f64) < qd8.latency.mean_ns * 64.0 / 2.0);

    // A queue deeper than the trace.
    let mut dev = ssd();
    let r = replay(&mut *dev, "0,R,0,4096\n5,R,4096,4096\n", &closed_loop(64)).unwrap();
    assert_eq!(r.ops, 2);
}

#[test]
fn zero_size_records_are_counted_and_skipped() {
    let text = "0,R,0,4096\n100,W,8192,0\n200,R,4096,4096\n300,T,0,0\n400,W,0,8192\n";
    for opts in [open_loop(1.0), closed_loop(2)] {
        let r = replay(&mut *ssd(), text, &opts).unwrap();
        let c = counts(&r);
        assert_eq!(c["records"], 5);
        assert_eq!(c["skipped_zero_size"], 2);
        assert_eq!(c["widened_to_blocks"], 0);
        assert_eq!(r.ops, 3);
        assert_eq!((r.read.ops, r.write.ops, r.trim.ops), (2, 1, 0));
        assert_eq!(r.bytes, 16 * KIB);
    }
}

#[test]
fn unaligned_records_are_widened_to_whole_blocks_and_counted() {
    let mut dev = ssd();
    // 512 B at 512 -> block 0 (1 block); 4 KiB at 512 -> blocks 0..2; 100 B at 8 KiB
    // -> block 2; 8 KiB at 12 KiB is aligned.
    let text = "0,R,512,512\n1000,R,512,4096\n2000,W,8192,100\n3000,W,12288,8192\n4000,T,4096,1\n";
    let r = replay(&mut *dev, text, &open_loop(1.0)).unwrap();
    let c = counts(&r);
    assert_eq!(c["records"], 5);
    assert_eq!(c["widened_to_blocks"], 4);
    assert_eq!(c["skipped_zero_size"], 0);
    assert_eq!(r.read.bytes, 4 * KIB + 8 * KIB);
    assert_eq!(r.write.bytes, 4 * KIB + 8 * KIB);
    assert_eq!(r.trim.ops, 1);
    assert_eq!(r.ops, 5);
    assert_totals_consistent(&r);
}

#[test]
fn replay_limit_reordering_and_bad_options() {
    let text = "0,R,0,4096\n100,R,4096,4096\n200,R,8192,4096\n300,R,12288,4096\n";
    let r = run_replay(
        &mut *ssd(),
        &mut reader(text),
        &ReplayOptions {
            limit: Some(2),
            ..open_loop(1.0)
        },
        serde_json::json!({}),
        None,
    )
    .unwrap();
    assert_eq!(r.ops, 2);
    assert_eq!(counts(&r)["records"], 2);
    assert_eq!(r.config["limit"], 2);

    // Out-of-order arrivals (allowed by the reader) are submitted at the previous
    // record's time and counted.
    let unsorted = "0,R,0,4096\n5000000,R,4096,4096\n1000000,R,8192,4096\n6000000,R,0,4096\n";
    let mut rd = TraceReader::new(
        Cursor::new(unsorted.to_string()),
        "u.csv",
        TraceFormat::Csv,
        TraceOptions {
            allow_unsorted: true,
            ..TraceOptions::default()
        },
    )
    .unwrap();
    let r = run_replay(
        &mut *ssd(),
        &mut rd,
        &open_loop(1.0),
        serde_json::json!({}),
        None,
    )
    .unwrap();
    assert_eq!(counts(&r)["reordered_arrivals"], 1);
    assert_eq!(r.ops, 4);

    for (opts, option) in [
        (open_loop(0.0), "speed"),
        (open_loop(f64::NAN), "speed"),
        (open_loop(-1.0), "speed"),
        (closed_loop(0), "qd"),
    ] {
        match replay(&mut *ssd(), text, &opts) {
            Err(ReplayError::BadOption { option: o, .. }) => assert_eq!(o, option),
            other => panic!("{opts:?}: {other:?}"),
        }
    }
    // A malformed line is a trace error naming the line.
    let e = replay(&mut *ssd(), "0,R,0,4096\n1,X,0,4096\n", &open_loop(1.0)).unwrap_err();
    assert!(
        matches!(e, ReplayError::Trace(_))
            && e.to_string().contains("t.csv")
            && e.to_string().contains('2'),
        "{e}"
    );
}

#[test]
fn replay_results_are_deterministic() {
    let text: String = (0..500)
        .map(|i| {
            format!(
                "{},{},{},{}\n",
                i * 20_000,
                if i % 3 == 0 { "W" } else { "R" },
                (i * 7919 % 4096) * 4096 + (i % 2) * 512,
                4096 * (1 + i % 4)
            )
        })
        .collect();
    for opts in [open_loop(1.5), closed_loop(4)] {
        let a = json(&replay(&mut *ssd(), &text, &opts).unwrap());
        let b = json(&replay(&mut *ssd(), &text, &opts).unwrap());
        assert_eq!(a, b);
    }
}
