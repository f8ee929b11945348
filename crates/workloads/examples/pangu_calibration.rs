//! Table 1 vs the generated Pangu-like traces (docs/mios.md, "Generator
//! calibration"): one markdown row per node, scale and seed, the trace drawn
//! exactly as `zonelab reproduce mios` draws it (RNG stream `pangu.<node>`, 64 GiB
//! drive). Volumes and request counts are divided by the scale, so every row
//! compares with Table 1's full-length numbers.
//!
//!     cargo run --release -p zonelab-workloads --example pangu_calibration -- 0.1,0.5,1 1,2

use zonelab_engine::{RngStreams, GIB};
use zonelab_workloads::pangu::{PanguTrace, PANGU_TABLE_1};
use zonelab_workloads::pangu_stats::measure;

fn list<T: std::str::FromStr>(arg: Option<String>, default: &str) -> Vec<T> {
    arg.as_deref()
        .unwrap_or(default)
        .split(',')
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| panic!("not a number in a comma-separated list: `{s}`"))
        })
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let scales: Vec<f64> = list(args.next(), "0.1,0.5,1");
    let seeds: Vec<u64> = list(args.next(), "1,2");
    println!(
        "| node | scale | seed | written GB (T1) | read GB (T1) | requests M (T1) | writes % (§2.3: 77–95) | \
         avg req KB (T1 volume/requests) | avg / peak RPS (T1) | peak write MB/s | writes <= 10 KiB % | \
         write groups <4K/4-16K/16-64K/64-256K/256K-1M/>=1M % | burst s % / mean / longest s | s > 50 MB/s / GB above |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for node in &PANGU_TABLE_1 {
        let full_s = node.duration_min * 60.0;
        let t1_requests = node.avg_krps * 1e3 * full_s;
        for &scale in &scales {
            for &seed in &seeds {
                let rng = RngStreams::new(seed).stream(&format!("pangu.{}", node.name));
                let s = measure(PanguTrace::new(*node, scale, 64 * GIB, rng));
                // The aged 660p's QLC write rate (profiles/ssd-660p.toml), Fig. 14.
                let above = s.excess_over(50_000_000);
                let g = s.write_size_groups.map(|x| format!("{:.1}", x * 100.0));
                println!(
                    "| {} | {scale} | {seed} | {:.1} ({}) | {:.2} ({}) | {:.3} ({:.3}) | {:.1} | {:.1} ({:.1}) | \
                     {:.0} / {} ({:.0} / {:.0}) | {:.0} | {:.1} | {} | {:.1} / {:.2} / {} | {} / {:.2} |",
                    node.name,
                    s.written_bytes as f64 / 1e9 / scale,
                    node.written_gb,
                    s.read_bytes as f64 / 1e9 / scale,
                    node.read_gb,
                    s.requests as f64 / 1e6 / scale,
                    t1_requests / 1e6,
                    s.write_share() * 100.0,
                    s.mean_request_bytes() / 1e3,
                    (node.written_gb + node.read_gb) * 1e9 / t1_requests / 1e3,
                    s.avg_rps,
                    s.peak_rps,
                    node.avg_krps * 1e3,
                    node.peak_krps * 1e3,
                    s.peak_write_bytes_per_s as f64 / 1e6,
                    s.small_write_share * 100.0,
                    g.join(" / "),
                    s.burst_second_share * 100.0,
                    s.mean_burst_s,
                    s.longest_burst_s,
                    above.0,
                    above.1 as f64 / 1e9,
                );
            }
        }
    }
}
