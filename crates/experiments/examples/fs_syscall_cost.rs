//! Measures the host cost of the file-system calls the F2FS-like model's
//! workloads issue, where this machine can measure them: a 4 KiB buffered
//! `pwrite` into the page cache, and `fsync` of a file with nothing to write
//! (the syscall path alone), both on tmpfs so no device time is included. The
//! medians feed `zonelab_systems::f2fs::HostCosts` (docs/conzone.md).
//!
//! Run (an idle machine: take the machine lock):
//!     flock /work/.heavy.lock cargo run --release -p zonelab-experiments \
//!         --example fs_syscall_cost -- [dir] [calls]

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::time::Instant;

fn quantiles(mut v: Vec<u64>) -> (u64, u64, u64) {
    v.sort_unstable();
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    (q(0.5), q(0.9), q(0.99))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().unwrap_or_else(|| "/dev/shm".into());
    let calls: usize = args
        .next()
        .map(|s| s.parse().expect("calls must be a number"))
        .unwrap_or(50_000);
    let path = format!("{dir}/zonelab-fs-syscall-{}", std::process::id());
    let f = OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&path)
        .expect("open the scratch file");
    let buf = vec![0xa5u8; 4096];
    let mut w = Vec::with_capacity(calls);
    for i in 0..calls {
        let off = (i % 16384) as u64 * 4096;
        let t = Instant::now();
        f.write_all_at(&buf, off).expect("pwrite");
        w.push(t.elapsed().as_nanos() as u64);
    }
    let mut s = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        f.sync_all().expect("fsync");
        s.push(t.elapsed().as_nanos() as u64);
    }
    drop(f);
    let _ = std::fs::remove_file(&path);
    let (w50, w90, w99) = quantiles(w);
    let (s50, s90, s99) = quantiles(s);
    println!("{calls} calls each in {dir}");
    println!("pwrite 4 KiB buffered: p50 {w50} ns, p90 {w90} ns, p99 {w99} ns");
    println!("fsync (nothing to write): p50 {s50} ns, p90 {s90} ns, p99 {s99} ns");
}
