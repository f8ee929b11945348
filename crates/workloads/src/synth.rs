//! Look-alike block traces: synthetic traces with the published characteristics of
//! the MSR Cambridge traces MU-RMW evaluates (MU-RMW Table I: data written and read,
//! write ratio, update ratio), for tests, CI and users without the real traces.
//!
//! How a trace is generated (all from one seeded RNG stream, so deterministic):
//! - **Sizes**: each request's size is dealt from a shuffled deck with a mix
//!   typical of the MSR server volumes (4 KiB 45%, 8 KiB 20%, 16 KiB 10%, 32 KiB
//!   10%, 64 KiB 15%; mean 17.8 KiB). Reads and writes share it, so the request write ratio equals the
//!   byte write ratio, as Table I's numbers do (e.g. rsrch_0: 4.96 / 5.47 GB =
//!   90.7% vs 90.68%).
//! - **Counts**: writes = data written ÷ mean size, reads = data read ÷ mean size.
//! - **Updates**: a write is an update (starting where an extent written before
//!   starts, with a freshly drawn size) with the trace's update ratio, else it
//!   writes a new extent. Updates pick earlier extents with a skew toward recent
//!   ones (index `n·u²` from the newest end), which gives the strong write locality
//!   of these volumes.
//! - **Placement**: new extents are laid out sequentially inside a few hot regions
//!   (8) spread over the address space, as file-system allocation does.
//! - **Reads**: 80% read a written extent (same skew), 20% a random aligned place
//!   in the hot regions' span.
//! - **Arrivals**: bursts (geometric, mean 64 requests, exponential gaps of mean
//!   2 ms inside a burst) separated by exponential idle gaps sized so the whole
//!   trace spans one week, as the MSR traces do.
//!
//! This reproduces the four Table I characteristics exactly in expectation (the
//! generator reports what it produced); it does not reproduce each real trace's
//! time structure or footprint, which the real traces have and MU-RMW's
//! figures depend on. `docs/mu-rmw.md` says which was used.

use crate::trace::{TraceOp, TraceRecord};
use rand::RngCore;
use serde::Serialize;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{RngStream, KIB, NS_PER_S};

/// One trace's published characteristics (MU-RMW Table I).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TraceProfile {
    pub name: &'static str,
    pub written_gb: f64,
    pub read_gb: f64,
    /// Write requests ÷ all requests.
    pub write_ratio: f64,
    /// Writes to previously written addresses ÷ all writes.
    pub update_ratio: f64,
}

/// MU-RMW Table I.
pub const MSR_TABLE_I: [TraceProfile; 10] = [
    TraceProfile {
        name: "rsrch_0",
        written_gb: 4.96,
        read_gb: 0.51,
        write_ratio: 0.9068,
        update_ratio: 0.9992,
    },
    TraceProfile {
        name: "src1_2",
        written_gb: 5.43,
        read_gb: 1.85,
        write_ratio: 0.7463,
        update_ratio: 0.9987,
    },
    TraceProfile {
        name: "src2_0",
        written_gb: 5.27,
        read_gb: 0.67,
        write_ratio: 0.8866,
        update_ratio: 0.9986,
    },
    TraceProfile {
        name: "src2_2",
        written_gb: 3.07,
        read_gb: 1.34,
        write_ratio: 0.6967,
        update_ratio: 0.9984,
    },
    TraceProfile {
        name: "stg_0",
        written_gb: 6.57,
        read_gb: 1.18,
        write_ratio: 0.8481,
        update_ratio: 0.9992,
    },
    TraceProfile {
        name: "stg_1",
        written_gb: 3.04,
        read_gb: 5.34,
        write_ratio: 0.3625,
        update_ratio: 0.9992,
    },
    TraceProfile {
        name: "ts_0",
        written_gb: 5.66,
        read_gb: 1.21,
        write_ratio: 0.8242,
        update_ratio: 0.9986,
    },
    TraceProfile {
        name: "usr_0",
        written_gb: 5.09,
        read_gb: 3.45,
        write_ratio: 0.5958,
        update_ratio: 0.9988,
    },
    TraceProfile {
        name: "wdev_0",
        written_gb: 3.49,
        read_gb: 0.88,
        write_ratio: 0.7992,
        update_ratio: 0.9976,
    },
    TraceProfile {
        name: "web_0",
        written_gb: 5.43,
        read_gb: 2.31,
        write_ratio: 0.7012,
        update_ratio: 0.9982,
    },
];

/// Finds a Table I profile by trace name.
pub fn find_profile(name: &str) -> Option<&'static TraceProfile> {
    MSR_TABLE_I.iter().find(|p| p.name == name)
}

/// (size, weight in a deck of 20 cards): 45%, 20%, 10%, 10%, 15%.
const SIZE_MIX: [(u64, u64); 5] = [
    (4 * KIB, 9),
    (8 * KIB, 4),
    (16 * KIB, 2),
    (32 * KIB, 2),
    (64 * KIB, 3),
];
const HOT_REGIONS: u64 = 8;
const BURST_MEAN_REQUESTS: u64 = 64;
const BURST_GAP_MEAN_NS: f64 = 2e6;
const TRACE_SPAN_NS: f64 = 7.0 * 24.0 * 3600.0 * NS_PER_S as f64;

fn mean_size_bytes() -> f64 {
    SIZE_MIX.iter().map(|(s, w)| (*s * *w) as f64).sum::<f64>()
        / SIZE_MIX.iter().map(|(_, w)| *w as f64).sum::<f64>()
}

/// What a generator produced, to compare with its profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SynthSummary {
    pub requests: u64,
    pub writes: u64,
    pub updates: u64,
    pub written_bytes: u64,
    pub read_bytes: u64,
}

impl SynthSummary {
    pub fn write_ratio(&self) -> f64 {
        self.writes as f64 / self.requests.max(1) as f64
    }
    pub fn update_ratio(&self) -> f64 {
        self.updates as f64 / self.writes.max(1) as f64
    }
}

/// An iterator of look-alike trace records.
pub struct SynthTrace {
    profile: TraceProfile,
    rng: RngStream,
    capacity_bytes: u64,
    region_bytes: u64,
    region_cursor: [u64; HOT_REGIONS as usize],
    writes_left: u64,
    reads_left: u64,
    extents: Vec<(u64, u64)>,
    /// Sizes are dealt from a shuffled deck holding the mix exactly, so byte
    /// volumes match the profile closely even for short traces.
    /// One deck for writes, one for reads.
    size_decks: [Vec<u64>; 2],
    time_ns: u64,
    burst_left: u64,
    idle_mean_ns: f64,
    pub summary: SynthSummary,
}

impl SynthTrace {
    /// A trace like `profile`, with data volumes multiplied by `scale`, fitting in
    /// `capacity_bytes` (offsets are 4 KiB aligned).
    pub fn new(profile: TraceProfile, scale: f64, capacity_bytes: u64, rng: RngStream) -> Self {
        let mean = mean_size_bytes();
        let writes = (profile.written_gb * 1e9 * scale / mean).round() as u64;
        let reads = (profile.read_gb * 1e9 * scale / mean).round() as u64;
        let requests = (writes + reads).max(1);
        let bursts = requests.div_ceil(BURST_MEAN_REQUESTS).max(1);
        let busy_ns = requests as f64 * BURST_GAP_MEAN_NS;
        let idle_mean_ns =
            ((TRACE_SPAN_NS * scale.min(1.0) - busy_ns) / bursts as f64).max(BURST_GAP_MEAN_NS);
        let region_bytes = (capacity_bytes / HOT_REGIONS) / (4 * KIB) * (4 * KIB);
        Self {
            profile,
            rng,
            capacity_bytes,
            region_bytes,
            region_cursor: [0; HOT_REGIONS as usize],
            writes_left: writes,
            reads_left: reads,
            extents: Vec::new(),
            size_decks: [Vec::new(), Vec::new()],
            time_ns: 0,
            burst_left: 0,
            idle_mean_ns,
            summary: SynthSummary::default(),
        }
    }

    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn exp(&mut self, mean: f64) -> u64 {
        (-mean * (1.0 - self.unit()).ln()).round() as u64
    }

    fn size(&mut self, is_write: bool) -> u64 {
        let d = is_write as usize;
        if self.size_decks[d].is_empty() {
            let mut deck: Vec<u64> = SIZE_MIX
                .iter()
                .flat_map(|&(s, w)| std::iter::repeat_n(s, w as usize))
                .collect();
            // Fisher-Yates.
            for i in (1..deck.len()).rev() {
                let j = uniform_below(&mut self.rng, i as u64 + 1) as usize;
                deck.swap(i, j);
            }
            self.size_decks[d] = deck;
        }
        self.size_decks[d].pop().expect("deck refilled")
    }

    /// An earlier extent, skewed toward the newest.
    fn earlier_extent(&mut self) -> (u64, u64) {
        let n = self.extents.len() as f64;
        let u = self.unit();
        let back = ((n * u * u) as usize).min(self.extents.len() - 1);
        self.extents[self.extents.len() - 1 - back]
    }

    fn new_extent(&mut self, size: u64) -> (u64, u64) {
        let r = uniform_below(&mut self.rng, HOT_REGIONS) as usize;
        if self.region_cursor[r] + size > self.region_bytes {
            self.region_cursor[r] = 0;
        }
        let offset = r as u64 * self.region_bytes + self.region_cursor[r];
        self.region_cursor[r] += size;
        (offset, size)
    }

    fn next_time(&mut self) -> u64 {
        if self.burst_left == 0 {
            self.time_ns += self.exp(self.idle_mean_ns);
            // Geometric burst length with the given mean.
            let p = 1.0 / BURST_MEAN_REQUESTS as f64;
            let u = self.unit();
            self.burst_left = ((1.0 - u).ln() / (1.0 - p).ln()).ceil().max(1.0) as u64;
        } else {
            self.time_ns += self.exp(BURST_GAP_MEAN_NS);
        }
        self.burst_left -= 1;
        self.time_ns
    }
}

impl Iterator for SynthTrace {
    type Item = TraceRecord;

    fn next(&mut self) -> Option<TraceRecord> {
        let left = self.writes_left + self.reads_left;
        if left == 0 {
            return None;
        }
        let is_write = uniform_below(&mut self.rng, left) < self.writes_left;
        let time_ns = self.next_time();
        self.summary.requests += 1;
        if is_write {
            self.writes_left -= 1;
            self.summary.writes += 1;
            let update = !self.extents.is_empty() && self.unit() < self.profile.update_ratio;
            let (offset, size) = if update {
                self.summary.updates += 1;
                // Rewrites start where an earlier extent starts; their size is
                // drawn afresh, so byte volumes follow the size mix.
                let (offset, _) = self.earlier_extent();
                let size = self.size(true).min(self.capacity_bytes - offset);
                (offset, size)
            } else {
                let size = self.size(true);
                let e = self.new_extent(size);
                self.extents.push(e);
                e
            };
            self.summary.written_bytes += size;
            Some(TraceRecord {
                time_ns,
                op: TraceOp::Write,
                offset_bytes: offset,
                size_bytes: size,
            })
        } else {
            self.reads_left -= 1;
            let (offset, size) = if !self.extents.is_empty() && self.unit() < 0.8 {
                let (offset, _) = self.earlier_extent();
                let size = self.size(false).min(self.capacity_bytes - offset);
                (offset, size)
            } else {
                let size = self.size(false);
                let slots = (self.capacity_bytes - size) / (4 * KIB);
                (uniform_below(&mut self.rng, slots.max(1)) * 4 * KIB, size)
            };
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

    fn gen(name: &str, scale: f64, seed: u64) -> (Vec<TraceRecord>, SynthSummary) {
        let p = *find_profile(name).unwrap();
        let mut t = SynthTrace::new(p, scale, 10 * GIB, RngStreams::new(seed).stream("synth"));
        let recs: Vec<_> = t.by_ref().collect();
        (recs, t.summary)
    }

    #[test]
    fn reproduces_table_i_characteristics() {
        for p in MSR_TABLE_I {
            let (recs, s) = gen(p.name, 0.01, 1);
            assert_eq!(recs.len() as u64, s.requests);
            assert!(
                (s.write_ratio() - p.write_ratio).abs() < 0.01,
                "{}: write ratio {}",
                p.name,
                s.write_ratio()
            );
            assert!(
                (s.update_ratio() - p.update_ratio).abs() < 0.005,
                "{}: update ratio {}",
                p.name,
                s.update_ratio()
            );
            let w = s.written_bytes as f64 / 1e9 / 0.01;
            let r = s.read_bytes as f64 / 1e9 / 0.01;
            assert!(
                (w - p.written_gb).abs() / p.written_gb < 0.05,
                "{}: written {w} GB",
                p.name
            );
            assert!(
                (r - p.read_gb).abs() / p.read_gb < 0.08,
                "{}: read {r} GB",
                p.name
            );
        }
    }

    #[test]
    fn records_fit_are_aligned_and_time_ordered() {
        let (recs, _) = gen("usr_0", 0.005, 2);
        let mut last = 0;
        for r in &recs {
            assert!(r.offset_bytes % 4096 == 0 && r.size_bytes % 4096 == 0);
            assert!(r.offset_bytes + r.size_bytes <= 10 * GIB);
            assert!(r.time_ns >= last);
            last = r.time_ns;
        }
    }

    #[test]
    fn deterministic_per_seed() {
        assert_eq!(gen("web_0", 0.002, 5).0, gen("web_0", 0.002, 5).0);
        assert_ne!(gen("web_0", 0.002, 5).0, gen("web_0", 0.002, 6).0);
    }

    #[test]
    fn unknown_names_are_not_found() {
        assert!(find_profile("nosuch_9").is_none());
    }
}
