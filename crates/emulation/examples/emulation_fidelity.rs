//! Emulation-mode fidelity and throughput (prints a table; nothing is asserted).
//!
//! `cargo run --release -p zonelab-emulation --example emulation_fidelity`
//!
//! 1. Pacer fidelity: requested vs observed wait at 20 µs, 100 µs, 1 ms and 10 ms,
//!    200 waits each. Relative error = (observed − requested) / requested. It is
//!    never negative: the pacer never returns early. Shown for sleep, then spin
//!    the last 50 µs; sleep, then spin the last 200 µs (the default window); and
//!    sleep only (window 0).
//! 2. Data path on `zn540` with 1 MiB payloads, bytes in memory (the default)
//!    and in a sparse backing file (in the system temp dir):
//!    - paced (dilation 1): the throughput a caller sees against the modelled
//!      device (the model's QD1 rate is ~1,000 MiB/s);
//!    - unpaced (`submit_nowait`, no waiting): the cost of the payload path itself
//!      (model bookkeeping plus copying bytes into and out of the model's store).
//!      This is the ceiling on what any dilation can deliver.
//! 3. Reopening the backing file: the time to restore the zone states (a zone
//!    with 512 MiB written) into a fresh model.

use std::time::{Duration, Instant};
use zonelab_devices::{Command, Payload};
use zonelab_emulation::{EmulatedDevice, EmulationConfig, Pacer};

fn stats(mut errs: Vec<f64>) -> (f64, f64, f64, f64) {
    errs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = errs.len();
    let mean = errs.iter().sum::<f64>() / n as f64;
    let p = |q: f64| errs[((q * (n - 1) as f64).round() as usize).min(n - 1)];
    (mean, p(0.5), p(0.99), errs[n - 1])
}

fn main() {
    const WAITS: usize = 200;
    println!(
        "Pacer fidelity ({WAITS} waits each; relative error = (observed - requested) / requested)"
    );
    println!(
        "{:<30} {:>9} {:>10} {:>10} {:>10} {:>10} {:>12}",
        "pacer", "requested", "mean err", "p50 err", "p99 err", "max err", "mean late"
    );
    for (label, pacer) in [
        ("sleep + spin 50us", Pacer::new(Duration::from_micros(50))),
        ("sleep + spin 200us (default)", Pacer::default()),
        ("sleep only", Pacer::new(Duration::ZERO)),
    ] {
        for req in [
            Duration::from_micros(20),
            Duration::from_micros(100),
            Duration::from_millis(1),
            Duration::from_millis(10),
        ] {
            let mut errs = Vec::with_capacity(WAITS);
            let mut late = Duration::ZERO;
            for _ in 0..WAITS {
                let t0 = Instant::now();
                let out = pacer.wait_until(t0 + req);
                let obs = out - t0;
                late += obs - req;
                errs.push((obs.as_secs_f64() - req.as_secs_f64()) / req.as_secs_f64());
            }
            let (mean, p50, p99, max) = stats(errs);
            println!(
                "{:<30} {:>9} {:>9.2}% {:>9.2}% {:>9.2}% {:>9.2}% {:>10.1}us",
                label,
                format!("{req:?}"),
                mean * 100.0,
                p50 * 100.0,
                p99 * 100.0,
                max * 100.0,
                late.as_secs_f64() * 1e6 / WAITS as f64
            );
        }
    }

    const MIB: usize = 1 << 20;
    const OPS: u64 = 512; // 512 MiB per phase
    println!();
    println!("Data path on zn540, 1 MiB payloads, {OPS} writes then {OPS} reads per row");
    println!(
        "{:<34} {:>12} {:>12} {:>14}",
        "mode", "write GB/s", "read GB/s", "model MiB/s w"
    );
    let dir = tempfile::tempdir().unwrap();
    let backing = dir.path().join("zn540.img");
    for (label, dilation, wait, file) in [
        ("paced, dilation 1", 1.0, true, None),
        ("paced, dilation 10", 10.0, true, None),
        ("unpaced (payload path only)", 1.0, false, None),
        ("file: paced, dilation 1", 1.0, true, Some(&backing)),
        (
            "file: unpaced (payload path only)",
            1.0,
            false,
            Some(&backing),
        ),
    ] {
        // Each row starts from an empty device.
        let _ = std::fs::remove_file(&backing);
        let _ = std::fs::remove_file(zonelab_emulation::backing::sidecar_path(&backing));
        let e = EmulatedDevice::open(
            "zn540",
            EmulationConfig {
                time_dilation: dilation,
                backing_path: file.cloned(),
                ..Default::default()
            },
        )
        .unwrap();
        let bb = e.info().block_bytes as u64;
        let blocks = (MIB as u64 / bb) as u32;
        let z = e.info().zoned.clone().unwrap();
        let zone = z.conventional_zones as u64 * z.zone_size_blocks;
        let data: Vec<u8> = (0..MIB).map(|i| (i * 7) as u8).collect();
        let mut back = vec![0u8; MIB];
        let run = |write: bool, back: &mut [u8]| -> (f64, u64) {
            let t0 = Instant::now();
            let mut modelled = 0;
            for i in 0..OPS {
                let lba = zone + i * blocks as u64;
                let (cmd, payload) = if write {
                    (Command::Write { lba, blocks }, Payload::Write(&data))
                } else {
                    (Command::Read { lba, blocks }, Payload::Read(&mut *back))
                };
                let c = if wait {
                    e.submit(&cmd, payload)
                } else {
                    e.submit_nowait(&cmd, payload)
                }
                .unwrap();
                modelled += c.latency_ns();
            }
            (t0.elapsed().as_secs_f64(), modelled)
        };
        let (w, wm) = run(true, &mut back);
        let (r, _) = run(false, &mut back);
        assert_eq!(back, data);
        let gb = (OPS * MIB as u64) as f64 / 1e9;
        let model_mib_s = (OPS as f64) / (wm as f64 / 1e9);
        println!(
            "{:<34} {:>12.3} {:>12.3} {:>14.1}",
            label,
            gb / w,
            gb / r,
            model_mib_s
        );
    }
    // The last row left 512 MiB in the first zone of the backing file.
    let t0 = Instant::now();
    let e = EmulatedDevice::open(
        "zn540",
        EmulationConfig {
            backing_path: Some(backing.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let took = t0.elapsed();
    let wp = e.report_zones(0, 1).unwrap()[0].write_pointer;
    println!();
    println!(
        "Reopen of the backing file (zone 0 write pointer {wp} blocks = {} MiB): {:.1} ms",
        (wp * e.info().block_bytes as u64) >> 20,
        took.as_secs_f64() * 1e3
    );
}
