//! Emulation-mode fidelity and throughput (prints a table; nothing is asserted).
//!
//! `cargo run --release -p zonelab-emulation --example emulation_fidelity`
//!
//! 1. Pacer fidelity: requested vs observed wait at 20 µs, 100 µs, 1 ms and 10 ms,
//!    200 waits each. Relative error = (observed − requested) / requested. It is
//!    never negative: the pacer never returns early. Shown for the default pacer
//!    (sleep, then spin the last 50 µs or 200 µs, the default) and for sleep only (window 0).
//! 2. Data path on `zn540` with 1 MiB payloads:
//!    - paced (dilation 1): the throughput a caller sees against the modelled
//!      device (the model's QD1 rate is ~1,000 MiB/s);
//!    - unpaced (`submit_nowait`, no waiting): the cost of the payload path itself
//!      (model bookkeeping plus copying bytes into and out of the model's store).
//!      This is the ceiling on what any dilation can deliver.

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
        "{:<22} {:>9} {:>10} {:>10} {:>10} {:>10} {:>12}",
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
                "{:<22} {:>9} {:>9.2}% {:>9.2}% {:>9.2}% {:>9.2}% {:>10.1}us",
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
    for (label, dilation, wait) in [
        ("paced, dilation 1", 1.0, true),
        ("paced, dilation 10", 10.0, true),
        ("unpaced (payload path only)", 1.0, false),
    ] {
        let e = EmulatedDevice::open(
            "zn540",
            EmulationConfig {
                time_dilation: dilation,
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
}
