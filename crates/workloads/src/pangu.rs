//! Pangu-like traces: synthetic block traces with the published characteristics of
//! the four Pangu storage nodes BCW/MIOS evaluates (MIOS Table 1 and §2.3) — the
//! real traces are private. One trace stands for one SSD of a node.
//!
//! Method (all from one seeded RNG stream, so deterministic):
//! - **Request count** = average KRPS × duration, **mean size** = Table 1's average
//!   request size. Table 1's byte volumes are not consistent with its rates and
//!   sizes for nodes A, C and D (e.g. C: 12.8 GB in 2.7 K req/s × 30 min = 4.86 M
//!   requests is 2.6 KB per request, below one 4 KiB block, while the table says
//!   4.2 KB). The generator keeps the duration, the request rates (average and
//!   peak) and the request sizes, which set the SSD's queueing that MIOS reacts
//!   to; the data volumes follow from them and are reported (`docs/mios.md`).
//! - **Read/write split**: reads get the share of requests their share of bytes in
//!   Table 1 implies (same mean size), giving 84–97% writes (the paper: 77–95%).
//! - **Sizes**: more than 75% of writes are ≤ 10 KiB (§2.3): small requests are
//!   4 KiB or 8 KiB (mean 6 KiB); if the target mean is larger, 20% of requests are
//!   large, 16 KiB–1 MiB from a power law whose exponent is solved so the overall
//!   mean is the target; if it is smaller, the small mix is skewed toward 4 KiB.
//! - **Arrivals**: bursty — a Poisson process whose rate changes in phases of
//!   exponential length (1 s on average, Table 1's and Fig. 2's time unit: rates
//!   per second). Each phase's rate is drawn from a lognormal fitted to Table 1:
//!   its mean is the average KRPS and its 1-in-N upper quantile, N the node's
//!   duration in seconds, is the peak KRPS — the peak is the largest of the
//!   node's per-second rates, so most bursts are milder than it and only the
//!   largest reach it ([`RateModel`]).
//! - **Offsets**: writes append to 64 files laid out over the address space
//!   (Pangu chunk servers append). Reads hit older data: a random file's chunks
//!   past those being written (uniformly), never the chunks being appended — the
//!   backend nodes "rarely serve reads" because the services above "cache hot
//!   data for user reads" (§2.3), and MIOS found reads interrupting BCW "rare"
//!   (§4.2). (Reads spread over all data ever written hit the HDD log of a
//!   long MIOS_E run ~24 times a second, each suspending BCW: `docs/mios.md`.)
//! - **Deletes**: a file's range is used as a sequence of 64 MiB chunks (GFS's
//!   chunk size, "Chunk size is one of the key design parameters. We have chosen
//!   64 MB", Ghemawat et al., SOSP 2003; Pangu is a GFS-like system). The SSD of
//!   a hybrid node is a write buffer whose data is "flushed to the HDD tier at a
//!   later time" (MIOS §2.2), so by the time a file wraps onto a place its old
//!   chunks are deleted: before the first write into a chunk, the trace trims it
//!   (a `Trim` record at the write's time). Without it the block-level replay
//!   would keep every overwritten chunk's data live on the SSD until the
//!   overwrite — and forever for writes MIOS redirects to the HDD, which the
//!   file-level MIOS (§4.3.1, append-only chunk files) never has on its SSD.

use crate::pangu_rates::RateModel;
use crate::trace::{TraceOp, TraceRecord};
use rand::RngCore;
use serde::Serialize;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{RngStream, KIB, MIB, NS_PER_S};

/// One Pangu node's published workload (MIOS Table 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PanguNode {
    pub name: &'static str,
    pub duration_min: f64,
    pub written_gb: f64,
    pub read_gb: f64,
    pub avg_request_kb: f64,
    pub peak_krps: f64,
    pub avg_krps: f64,
}

/// MIOS Table 1.
pub const PANGU_TABLE_1: [PanguNode; 4] = [
    PanguNode {
        name: "pangu_a",
        duration_min: 45.0,
        written_gb: 18.5,
        read_gb: 1.4,
        avg_request_kb: 56.0,
        peak_krps: 3.4,
        avg_krps: 0.23,
    },
    PanguNode {
        name: "pangu_b",
        duration_min: 30.0,
        written_gb: 74.4,
        read_gb: 2.0,
        avg_request_kb: 17.7,
        peak_krps: 9.3,
        avg_krps: 2.5,
    },
    PanguNode {
        name: "pangu_c",
        duration_min: 30.0,
        written_gb: 10.7,
        read_gb: 2.1,
        avg_request_kb: 4.2,
        peak_krps: 9.6,
        avg_krps: 2.7,
    },
    PanguNode {
        name: "pangu_d",
        duration_min: 26.0,
        written_gb: 10.1,
        read_gb: 1.7,
        avg_request_kb: 4.1,
        peak_krps: 11.1,
        avg_krps: 3.0,
    },
];

pub fn find_node(name: &str) -> Option<&'static PanguNode> {
    PANGU_TABLE_1.iter().find(|n| n.name == name)
}

const CHUNK_FILES: u64 = 64;
/// A file's range is reused in chunks of this size, each trimmed before its
/// first write (module docs).
pub const CHUNK_BYTES: u64 = 64 * MIB;

/// The size of each of the 64 chunk files a Pangu-like trace on `capacity_bytes`
/// lays out (file `i` starts at `i * chunk_file_bytes`), for file-level placement
/// (MIOS §4.3.1: requests go to the SSD/HDD pair that holds their file).
pub fn chunk_file_bytes(capacity_bytes: u64) -> u64 {
    (capacity_bytes / CHUNK_FILES) / (4 * KIB) * (4 * KIB)
}
const LARGE_MIN: f64 = 16.0 * KIB as f64;
const LARGE_MAX: f64 = MIB as f64;
/// Share of large (> 10 KiB) requests when the mean needs them: §2.3 says more
/// than 75% of writes are 10 KiB or smaller.
const LARGE_SHARE: f64 = 0.2;
const PHASE_MEAN_NS: f64 = NS_PER_S as f64;
const SMALL_MEAN: f64 = 6.0 * KIB as f64;

/// Mean of the power law with density ∝ s^-α on [LARGE_MIN, LARGE_MAX]
/// (α kept away from 1 and 2, where the closed form has removable poles).
fn power_law_mean(alpha: f64) -> f64 {
    let (a, b) = (LARGE_MIN, LARGE_MAX);
    let num = (b.powf(2.0 - alpha) - a.powf(2.0 - alpha)) / (2.0 - alpha);
    let den = (b.powf(1.0 - alpha) - a.powf(1.0 - alpha)) / (1.0 - alpha);
    num / den
}

/// The exponent whose mean is `target` (bisection; the mean falls as α grows),
/// clamped to the range the exponents [0.05, 3.95] can give.
fn alpha_for_mean(target: f64) -> f64 {
    let (mut lo, mut hi): (f64, f64) = (0.05, 3.95);
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        let mid = if (mid - 1.0).abs() < 1e-6 || (mid - 2.0).abs() < 1e-6 {
            mid + 1e-5
        } else {
            mid
        };
        if power_law_mean(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// What a generator produced, to compare with its node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PanguSummary {
    pub requests: u64,
    pub writes: u64,
    pub small_writes: u64,
    pub written_bytes: u64,
    pub read_bytes: u64,
    /// Trims of deleted chunks (not counted in `requests`) and their bytes.
    pub trims: u64,
    pub trimmed_bytes: u64,
    pub span_ns: u64,
    /// Largest number of requests in any one-second window starting on a second.
    pub peak_rps: u64,
}

/// An iterator of Pangu-like records.
pub struct PanguTrace {
    rng: RngStream,
    writes_left: u64,
    reads_left: u64,
    /// Probability a request is large, the large sizes' power-law exponent, and
    /// the small mix's share of 4 KiB.
    large_p: f64,
    alpha: f64,
    small_4k_p: f64,
    capacity_bytes: u64,
    file_bytes: u64,
    file_cursor: [u64; CHUNK_FILES as usize],
    /// Per file: the end of its range trimmed for the chunks being written.
    file_trimmed_to: [u64; CHUNK_FILES as usize],
    /// A write held back while the trim of its new chunk is returned first.
    held_write: Option<TraceRecord>,
    time_ns: f64,
    phase_end_ns: f64,
    rates: RateModel,
    phase_rate_per_ns: f64,
    current_second: u64,
    in_second: u64,
    pub summary: PanguSummary,
}

impl PanguTrace {
    /// A trace like `node`, its request count multiplied by `scale` (duration
    /// shrinks with it, rates stay), fitting in `capacity_bytes`.
    pub fn new(node: PanguNode, scale: f64, capacity_bytes: u64, rng: RngStream) -> Self {
        let duration_s = node.duration_min * 60.0 * scale;
        let requests = (node.avg_krps * 1e3 * duration_s).round().max(1.0) as u64;
        // Table 1's sizes are in KB (10^3 bytes).
        let mean = node.avg_request_kb * 1e3;
        let reads =
            (requests as f64 * node.read_gb / (node.written_gb + node.read_gb)).round() as u64;
        // Small mix: 4 KiB and 8 KiB (mean 6 KiB) plus, if the mean needs it, 20%
        // large requests whose power-law exponent is solved for the mean.
        let (large_p, alpha, small_4k_p) = if mean > SMALL_MEAN {
            let large_mean = (mean - (1.0 - LARGE_SHARE) * SMALL_MEAN) / LARGE_SHARE;
            let alpha = alpha_for_mean(large_mean);
            // A mean the tail cannot reach with 20% large requests: fewer, lighter ones.
            let p = ((mean - SMALL_MEAN) / (power_law_mean(alpha) - SMALL_MEAN))
                .clamp(0.0, LARGE_SHARE);
            (p, alpha, 0.5)
        } else {
            // All small: p4·4 + (1−p4)·8 = mean (KiB), clamped to [4, 8] KiB.
            let p4 = ((8.0 * KIB as f64 - mean) / (4.0 * KIB as f64)).clamp(0.0, 1.0);
            (0.0, 2.5, p4)
        };
        let rates = RateModel::fit(
            node.avg_krps * 1e3,
            node.peak_krps * 1e3,
            node.duration_min * 60.0,
        );
        let file_bytes = chunk_file_bytes(capacity_bytes);
        Self {
            rng,
            writes_left: requests - reads,
            reads_left: reads,
            large_p,
            alpha,
            small_4k_p,
            capacity_bytes,
            file_bytes,
            file_cursor: [0; CHUNK_FILES as usize],
            file_trimmed_to: [0; CHUNK_FILES as usize],
            held_write: None,
            time_ns: 0.0,
            phase_end_ns: 0.0,
            rates,
            phase_rate_per_ns: 0.0,
            current_second: 0,
            in_second: 0,
            summary: PanguSummary::default(),
        }
    }

    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn exp(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.unit()).ln()
    }

    fn size(&mut self) -> u64 {
        if self.unit() < self.large_p {
            // Inverse CDF of the bounded power law, rounded to 4 KiB.
            let e = 1.0 - self.alpha;
            let (a, b) = (LARGE_MIN.powf(e), LARGE_MAX.powf(e));
            let s = (a + self.unit() * (b - a)).powf(1.0 / e);
            ((s / (4 * KIB) as f64).round() as u64).clamp(4, 256) * 4 * KIB
        } else if self.unit() < self.small_4k_p {
            4 * KIB
        } else {
            8 * KIB
        }
    }

    /// The lognormal phase rates of the arrival process (module docs).
    pub fn rate_model(&self) -> RateModel {
        self.rates
    }

    /// A standard normal draw (Box-Muller on two uniforms).
    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    fn next_time(&mut self) -> u64 {
        loop {
            if self.time_ns >= self.phase_end_ns {
                let z = self.normal();
                self.phase_rate_per_ns = self.rates.rate_per_s(z) / NS_PER_S as f64;
                self.phase_end_ns = self.time_ns + self.exp(PHASE_MEAN_NS);
            }
            let rate = self.phase_rate_per_ns;
            let t = self.time_ns + self.exp(1.0 / rate);
            if t <= self.phase_end_ns {
                self.time_ns = t;
                return t as u64;
            }
            self.time_ns = self.phase_end_ns;
        }
    }
}

impl Iterator for PanguTrace {
    type Item = TraceRecord;

    fn next(&mut self) -> Option<TraceRecord> {
        if let Some(w) = self.held_write.take() {
            return Some(w);
        }
        let left = self.writes_left + self.reads_left;
        if left == 0 {
            return None;
        }
        let is_write = uniform_below(&mut self.rng, left) < self.writes_left;
        let time_ns = self.next_time();
        let second = time_ns / NS_PER_S;
        if second != self.current_second {
            self.current_second = second;
            self.in_second = 0;
        }
        self.in_second += 1;
        let s = &mut self.summary;
        s.peak_rps = s.peak_rps.max(self.in_second);
        s.requests += 1;
        s.span_ns = time_ns;
        let size = self.size();
        if is_write {
            self.writes_left -= 1;
            let f = uniform_below(&mut self.rng, CHUNK_FILES) as usize;
            if self.file_cursor[f] + size > self.file_bytes {
                self.file_cursor[f] = 0;
                self.file_trimmed_to[f] = 0;
            }
            let file_start = f as u64 * self.file_bytes;
            let offset = file_start + self.file_cursor[f];
            self.file_cursor[f] += size;
            let s = &mut self.summary;
            s.writes += 1;
            s.small_writes += (size <= 10 * KIB) as u64;
            s.written_bytes += size;
            let write = TraceRecord {
                time_ns,
                op: TraceOp::Write,
                offset_bytes: offset,
                size_bytes: size,
            };
            let end = self.file_cursor[f];
            if end <= self.file_trimmed_to[f] {
                return Some(write);
            }
            // The write enters chunks not yet trimmed: delete their old data first.
            let from = self.file_trimmed_to[f];
            let to = end.next_multiple_of(CHUNK_BYTES).min(self.file_bytes);
            self.file_trimmed_to[f] = to;
            self.summary.trims += 1;
            self.summary.trimmed_bytes += to - from;
            self.held_write = Some(write);
            Some(TraceRecord {
                time_ns,
                op: TraceOp::Trim,
                offset_bytes: file_start + from,
                size_bytes: to - from,
            })
        } else {
            self.reads_left -= 1;
            // A file's older chunks, past those being written (module docs); a file
            // with none (all trimmed) is read where it has been written.
            let f = uniform_below(&mut self.rng, CHUNK_FILES) as usize;
            let (lo, hi) = if self.file_trimmed_to[f] + size <= self.file_bytes {
                (self.file_trimmed_to[f], self.file_bytes)
            } else {
                (0, self.file_cursor[f].max(size).min(self.file_bytes))
            };
            let slots = (hi.saturating_sub(lo + size) / (4 * KIB)).max(1);
            let offset =
                (f as u64 * self.file_bytes + lo + uniform_below(&mut self.rng, slots) * 4 * KIB)
                    .min(self.capacity_bytes - size);
            self.summary.read_bytes += size;
            Some(TraceRecord {
                time_ns,
                op: TraceOp::Read,
                offset_bytes: offset,
                size_bytes: size,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_engine::{RngStreams, GIB};

    fn gen(node: &PanguNode, scale: f64, seed: u64) -> (Vec<TraceRecord>, PanguSummary) {
        let mut t = PanguTrace::new(
            *node,
            scale,
            512 * GIB,
            RngStreams::new(seed).stream("pangu"),
        );
        let recs: Vec<_> = t.by_ref().collect();
        (recs, t.summary)
    }

    #[test]
    fn matches_table_1_rates_volumes_and_small_write_share() {
        for node in &PANGU_TABLE_1 {
            let scale = 0.2;
            let (recs, s) = gen(node, scale, 1);
            let secs = node.duration_min * 60.0 * scale;
            let krps = s.requests as f64 / secs / 1e3;
            assert!(
                (krps - node.avg_krps).abs() / node.avg_krps < 0.02,
                "{}: {krps} KRPS",
                node.name
            );
            let span_s = s.span_ns as f64 / 1e9;
            assert!(
                (span_s - secs).abs() / secs < 0.2,
                "{}: spans {span_s} s, want {secs}",
                node.name
            );
            let mean_kb = (s.written_bytes + s.read_bytes) as f64 / s.requests as f64 / 1e3;
            assert!(
                (mean_kb - node.avg_request_kb).abs() / node.avg_request_kb < 0.1,
                "{}: mean {mean_kb} KB",
                node.name
            );
            assert!(
                s.small_writes as f64 / s.writes as f64 > 0.75,
                "{}: small share",
                node.name
            );
            let write_ratio = s.writes as f64 / s.requests as f64;
            assert!(
                (0.77..=0.98).contains(&write_ratio),
                "{}: write ratio {write_ratio}",
                node.name
            );
            assert!(
                s.peak_rps as f64 > node.avg_krps * 1e3 * 1.5,
                "{}: bursts",
                node.name
            );
            assert!(recs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
        }
    }

    #[test]
    fn largest_one_second_rate_is_near_table_1_peak() {
        // Table 1's peak is the largest per-second rate of the node's whole trace:
        // generated at full length, the largest one-second count lands near it.
        for node in &PANGU_TABLE_1[..2] {
            let (_, s) = gen(node, 1.0, 1);
            let ratio = s.peak_rps as f64 / (node.peak_krps * 1e3);
            assert!(
                (0.7..1.3).contains(&ratio),
                "{}: peak {}",
                node.name,
                s.peak_rps
            );
        }
    }

    #[test]
    fn every_write_lands_on_a_chunk_trimmed_since_it_was_last_written() {
        // 8 GiB: 128 MiB files of two 64 MiB chunks; node B at 0.2 writes ~16 GB,
        // so files wrap. A write may only land where a trim has freed the space
        // and nothing has been written since (append-only chunks, deleted before
        // their place is reused).
        let capacity = 8 * GIB;
        let mut t = PanguTrace::new(
            PANGU_TABLE_1[1],
            0.2,
            capacity,
            RngStreams::new(5).stream("pangu"),
        );
        let mut free = vec![false; (capacity / (4 * KIB)) as usize];
        let (mut writes, mut wraps_seen) = (0u64, 0u64);
        for r in t.by_ref() {
            let blocks =
                (r.offset_bytes / (4 * KIB))..((r.offset_bytes + r.size_bytes) / (4 * KIB));
            match r.op {
                TraceOp::Trim => {
                    assert_eq!(r.offset_bytes % CHUNK_BYTES, 0, "trims start on a chunk");
                    wraps_seen += (r.offset_bytes % (capacity / 64) == 0) as u64;
                    blocks.for_each(|b| free[b as usize] = true);
                }
                TraceOp::Write => {
                    writes += 1;
                    for b in blocks {
                        assert!(
                            free[b as usize],
                            "write at {} lands on live data",
                            r.offset_bytes
                        );
                        free[b as usize] = false;
                    }
                }
                TraceOp::Read => {}
            }
        }
        assert!(writes > 500_000);
        assert!(
            wraps_seen > 64,
            "files should wrap: {wraps_seen} file starts trimmed"
        );
        assert_eq!(t.summary.trimmed_bytes % (4 * KIB), 0);
    }

    #[test]
    fn deterministic_per_seed() {
        let n = &PANGU_TABLE_1[2];
        assert_eq!(gen(n, 0.01, 3).0, gen(n, 0.01, 3).0);
        assert_ne!(gen(n, 0.01, 3).0, gen(n, 0.01, 4).0);
    }
}
