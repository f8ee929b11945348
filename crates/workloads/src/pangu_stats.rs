//! What a Pangu-like trace looks like, in the terms MIOS Table 1 and §2.3 / Fig. 2
//! describe a node's workload: data written and read, request counts and the
//! write share, average and peak per-second rates, request-size mix (§2.3's
//! "more than 75% of write requests are of 10KB or smaller", Fig. 9's six size
//! groups) and how bursty the seconds are. Used to calibrate the generator
//! against Table 1 (`docs/mios.md`, "Generator calibration") and in its tests.
//!
//! A **burst** is a run of consecutive seconds whose request count is above twice
//! the trace's average per-second rate. The paper gives no burst length (Fig. 2
//! plots per-second intensity without a number), so burst lengths are reported,
//! not matched.

use crate::trace::{TraceOp, TraceRecord};
use serde::Serialize;
use zonelab_engine::{KIB, NS_PER_S};

/// Fig. 9's request-size groups: < 4 KiB, 4–16 KiB, 16–64 KiB, 64–256 KiB,
/// 256 KiB–1 MiB, ≥ 1 MiB (upper bounds exclusive except the last).
pub const SIZE_GROUP_UPPER_BYTES: [u64; 5] = [4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, 1024 * KIB];

/// Statistics of one trace (trims are not requests and are not counted).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceStats {
    pub requests: u64,
    pub writes: u64,
    pub reads: u64,
    pub written_bytes: u64,
    pub read_bytes: u64,
    /// Whole seconds from 0 to the last arrival, rounded up.
    pub seconds: u64,
    /// Requests per second over `seconds`.
    pub avg_rps: f64,
    /// The largest number of requests in one second (Table 1's "Peak KRPS").
    pub peak_rps: u64,
    /// The largest number of bytes written in one second.
    pub peak_write_bytes_per_s: u64,
    /// Share of writes of at most 10 KiB (§2.3: more than 75%).
    pub small_write_share: f64,
    /// Share of writes in each of Fig. 9's six size groups.
    pub write_size_groups: [f64; 6],
    /// Seconds above twice the average rate, as a share of all seconds.
    pub burst_second_share: f64,
    /// Number of bursts (runs of such seconds), their mean and longest length (s).
    pub bursts: u64,
    pub mean_burst_s: f64,
    pub longest_burst_s: u64,
    /// Bytes written in each second (index = second from 0).
    pub write_bytes_per_second: Vec<u64>,
}

impl TraceStats {
    pub fn write_share(&self) -> f64 {
        self.writes as f64 / self.requests.max(1) as f64
    }
    pub fn mean_write_bytes(&self) -> f64 {
        self.written_bytes as f64 / self.writes.max(1) as f64
    }
    pub fn mean_request_bytes(&self) -> f64 {
        (self.written_bytes + self.read_bytes) as f64 / self.requests.max(1) as f64
    }
    /// Seconds writing more than `bytes_per_s`, and the bytes above that rate
    /// summed over them: what a drive that sustains only `bytes_per_s` must queue
    /// (e.g. the aged 660p's 50 MB/s QLC rate, Fig. 14).
    pub fn excess_over(&self, bytes_per_s: u64) -> (u64, u64) {
        self.write_bytes_per_second
            .iter()
            .filter(|&&b| b > bytes_per_s)
            .fold((0, 0), |(n, sum), &b| (n + 1, sum + b - bytes_per_s))
    }
}

fn size_group(size_bytes: u64) -> usize {
    SIZE_GROUP_UPPER_BYTES
        .iter()
        .position(|&upper| size_bytes < upper)
        .unwrap_or(SIZE_GROUP_UPPER_BYTES.len())
}

/// Measures a trace whose records are in arrival order.
pub fn measure(records: impl IntoIterator<Item = TraceRecord>) -> TraceStats {
    // Per second: requests and bytes written.
    let mut per_second: Vec<(u64, u64)> = Vec::new();
    let (mut writes, mut reads, mut written, mut read) = (0u64, 0u64, 0u64, 0u64);
    let (mut small, mut groups) = (0u64, [0u64; 6]);
    for r in records {
        if r.op == TraceOp::Trim {
            continue;
        }
        let second = (r.time_ns / NS_PER_S) as usize;
        if per_second.len() <= second {
            per_second.resize(second + 1, (0, 0));
        }
        per_second[second].0 += 1;
        if r.op == TraceOp::Write {
            writes += 1;
            written += r.size_bytes;
            per_second[second].1 += r.size_bytes;
            small += (r.size_bytes <= 10 * KIB) as u64;
            groups[size_group(r.size_bytes)] += 1;
        } else {
            reads += 1;
            read += r.size_bytes;
        }
    }
    let requests = writes + reads;
    let seconds = per_second.len() as u64;
    let avg_rps = requests as f64 / seconds.max(1) as f64;
    let (mut bursts, mut burst_seconds, mut run, mut longest) = (0u64, 0u64, 0u64, 0u64);
    for &(count, _) in &per_second {
        if count as f64 > 2.0 * avg_rps {
            burst_seconds += 1;
            run += 1;
            if run == 1 {
                bursts += 1;
            }
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let share = |n: u64| n as f64 / writes.max(1) as f64;
    TraceStats {
        requests,
        writes,
        reads,
        written_bytes: written,
        read_bytes: read,
        seconds,
        avg_rps,
        peak_rps: per_second.iter().map(|p| p.0).max().unwrap_or(0),
        peak_write_bytes_per_s: per_second.iter().map(|p| p.1).max().unwrap_or(0),
        small_write_share: share(small),
        write_size_groups: groups.map(share),
        burst_second_share: burst_seconds as f64 / seconds.max(1) as f64,
        bursts,
        mean_burst_s: burst_seconds as f64 / bursts.max(1) as f64,
        longest_burst_s: longest,
        write_bytes_per_second: per_second.iter().map(|p| p.1).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(time_s: f64, op: TraceOp, size_bytes: u64) -> TraceRecord {
        TraceRecord {
            time_ns: (time_s * NS_PER_S as f64) as u64,
            op,
            offset_bytes: 0,
            size_bytes,
        }
    }

    #[test]
    fn counts_rates_sizes_and_bursts() {
        // Seconds 0..4 with 1, 1, 7, 7, 1 requests (17 in 5 s, average 3.4/s):
        // seconds 2 and 3 are above 6.8/s, one burst of 2 s.
        let mut recs = vec![
            rec(0.1, TraceOp::Write, 4 * KIB),
            rec(1.5, TraceOp::Read, 8 * KIB),
        ];
        for s in [2.0, 3.0] {
            for i in 0..7 {
                recs.push(rec(s + i as f64 * 0.1, TraceOp::Write, 64 * KIB));
            }
        }
        recs.push(rec(4.2, TraceOp::Trim, 64 * KIB * 1024));
        recs.push(rec(4.5, TraceOp::Write, 2 * 1024 * KIB));
        let s = measure(recs);
        assert_eq!((s.requests, s.writes, s.reads, s.seconds), (17, 16, 1, 5));
        assert_eq!(s.written_bytes, 4 * KIB + 14 * 64 * KIB + 2048 * KIB);
        assert_eq!(s.read_bytes, 8 * KIB);
        assert_eq!(s.peak_rps, 7);
        assert_eq!(s.peak_write_bytes_per_s, 2048 * KIB);
        // Above 256 KiB/s: seconds 2 and 3 (7 × 64 KiB each) and 4 (2 MiB).
        assert_eq!(
            s.excess_over(256 * KIB),
            (3, 2 * (448 - 256) * KIB + (2048 - 256) * KIB)
        );
        assert_eq!((s.bursts, s.longest_burst_s), (1, 2));
        assert!((s.burst_second_share - 0.4).abs() < 1e-12);
        assert!((s.small_write_share - 1.0 / 16.0).abs() < 1e-12);
        let g = s.write_size_groups.map(|x| (x * 16.0).round() as u64);
        // 4 KiB is in 4–16 KiB, 64 KiB in 64–256 KiB, 2 MiB in >= 1 MiB.
        assert_eq!(g, [0, 1, 0, 14, 0, 1]);
    }
}
