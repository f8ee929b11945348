//! Measures the host side of a 48 KiB synchronous write as two real threads see
//! it: each thread loops `pwrite(48 KiB)` into its own memory-backed file (the
//! kernel copies the data, as the emulator's I/O path copies it into its
//! memory), and the time between one call's return and the next call's return is
//! recorded. The quantiles printed feed Fig. 9(c)'s per-I/O host submission cost
//! (`reproduce::conzone_runs::HOST_SUBMIT_QUANTILES_NS`), so that its two
//! simulated writers interleave as two real threads do rather than in lockstep.
//!
//! Run (an idle machine: take the machine lock):
//!     flock /work/.heavy.lock cargo run --release -p zonelab-experiments \
//!         --example host_submit_cost -- [dir] [calls]
//! `dir` defaults to /dev/shm (tmpfs), `calls` to 20000 per thread.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::time::Instant;

const WRITE_BYTES: usize = 48 * 1024;
const FILE_BYTES: u64 = 96 * 1024 * 1024;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "/dev/shm".into());
    let calls: usize = args
        .next()
        .map(|s| s.parse().expect("calls must be a number"))
        .unwrap_or(20_000);
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let path = format!("{dir}/zonelab-host-submit-{}-{t}", std::process::id());
            std::thread::spawn(move || {
                let f = OpenOptions::new()
                    .create(true)
                    .truncate(true)
                    .read(true)
                    .write(true)
                    .open(&path)
                    .expect("open the scratch file");
                let buf = vec![0x5au8; WRITE_BYTES];
                let mut samples = Vec::with_capacity(calls);
                let mut off = 0u64;
                let mut last = Instant::now();
                for _ in 0..calls {
                    f.write_all_at(&buf, off).expect("pwrite");
                    let now = Instant::now();
                    samples.push(now.duration_since(last).as_nanos() as u64);
                    last = now;
                    off = (off + WRITE_BYTES as u64) % FILE_BYTES;
                }
                drop(f);
                let _ = std::fs::remove_file(&path);
                samples
            })
        })
        .collect();
    let mut all: Vec<u64> = threads
        .into_iter()
        .flat_map(|h| h.join().expect("thread"))
        .collect();
    all.sort_unstable();
    let q = |p: f64| all[((all.len() - 1) as f64 * p).round() as usize];
    let mean = all.iter().sum::<u64>() as f64 / all.len() as f64;
    println!(
        "{} calls of {} KiB on 2 threads in {dir}",
        all.len(),
        WRITE_BYTES / 1024
    );
    println!("mean {mean:.0} ns");
    print!("quantiles (p0, p5, ..., p100) ns:");
    for i in 0..=20 {
        print!(" {}", q(i as f64 / 20.0));
    }
    println!();
    println!("p99 {} ns, p99.9 {} ns", q(0.99), q(0.999));
}
