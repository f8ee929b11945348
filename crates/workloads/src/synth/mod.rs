//! Look-alike block traces of the MSR Cambridge volumes MU-RMW evaluates (MU-RMW
//! Table I), for tests, CI and users without the real traces (`zonelab
//! synth-trace`, `zonelab reproduce mu-rmw` without `--traces`).
//!
//! A trace is generated from one seeded RNG stream (deterministic per seed):
//! - **Counts** ([`table_i`]): Table I's volumes are request counts × 4 KiB, so a
//!   trace has `written GiB / 4 KiB` write requests and `read GiB / 4 KiB` read
//!   requests (× scale) — the real traces' counts, and Table I's write ratio
//!   exactly — interleaved at random.
//! - **Sizes**: [`RequestSizes::Paper`] (the default) makes every request one 4 KiB
//!   sector, as the paper's model does (§III-C: a request carries one LSN) and as
//!   its Table I counts them. [`RequestSizes::Mix`] draws sizes from a mix typical
//!   of server volumes (4 KiB 45 %, 8 KiB 20 %, 16 KiB 10 %, 32 KiB 10 %, 64 KiB
//!   15 %; an assumption of the first generator, not a published per-volume
//!   statistic), to exercise multi-page requests.
//! - **Updates**: exactly `(1 − update ratio) × writes` writes go to sectors never
//!   written before (dealt at random through the trace); every other write is an
//!   update, rewriting a written item chosen by Zipfian popularity ([`footprint`]).
//!   The write footprint is therefore Table I's: 1,040 sectors for rsrch_0 (4 MiB).
//! - **Placement** ([`footprint`]): new data go to uniformly random places of the
//!   disk, as the traced volumes (22 GB – 1.4 TB) folded onto 10 GiB of bands put
//!   them: rsrch_0's 1,040 sectors land on ~250 of the 256 bands.
//! - **Reads**: 80 % read a written item (same popularity), 20 % a random place
//!   (an assumption of the first generator; Table I says nothing of read targets).
//! - **Arrivals** ([`arrivals`]): bursts over one week.
//!
//! What this cannot reproduce is each real trace's exact address sequence and
//! time structure; `docs/mu-rmw.md` says which results depend on which assumption.

mod arrivals;
pub mod footprint;
mod table_i;

pub use table_i::{find_profile, TraceProfile, MSR_TABLE_I, TABLE_I_REQUEST_BYTES};

use crate::trace::{TraceOp, TraceRecord};
use arrivals::{unit, BurstyArrivals};
use footprint::Footprint;
use serde::Serialize;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{RngStream, KIB};

const PAGE_BYTES: u64 = 4 * KIB;

/// Share of reads that read written data (assumption, module doc).
const READS_OF_WRITTEN: f64 = 0.8;

/// How request sizes are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestSizes {
    /// Every request is one 4 KiB sector (MU-RMW's request model and Table I).
    Paper,
    /// A mix of 4–64 KiB requests (assumption, module doc).
    Mix,
}

/// How a look-alike is drawn beyond Table I's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LookalikeOptions {
    pub sizes: RequestSizes,
    /// Zipfian constant of the updates' popularity ([`footprint`]); 0 is uniform.
    pub popularity_theta: f64,
}

impl Default for LookalikeOptions {
    fn default() -> Self {
        Self {
            sizes: RequestSizes::Paper,
            popularity_theta: footprint::POPULARITY_THETA,
        }
    }
}

/// (pages, weight in a deck of 20 cards): 45 %, 20 %, 10 %, 10 %, 15 %.
const SIZE_MIX: [(u32, u32); 5] = [(1, 9), (2, 4), (4, 2), (8, 2), (16, 3)];

/// What a generator produced, to compare with its profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SynthSummary {
    pub requests: u64,
    pub writes: u64,
    pub updates: u64,
    pub written_bytes: u64,
    pub read_bytes: u64,
    /// Distinct 4 KiB pages written.
    pub footprint_pages: u64,
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
    rng: RngStream,
    sizes: RequestSizes,
    capacity_pages: u64,
    writes_left: u64,
    new_left: u64,
    reads_left: u64,
    footprint: Footprint,
    /// Sizes are dealt from a shuffled deck holding the mix exactly.
    size_deck: Vec<u32>,
    arrivals: BurstyArrivals,
    pub summary: SynthSummary,
}

impl SynthTrace {
    /// A trace like `profile` with one-sector requests, its counts multiplied by
    /// `scale`, on a disk of `capacity_bytes` (offsets are 4 KiB aligned). Errs
    /// when the disk is too small to scatter the footprint over.
    pub fn new(
        profile: TraceProfile,
        scale: f64,
        capacity_bytes: u64,
        rng: RngStream,
    ) -> Result<Self, String> {
        Self::with_options(
            profile,
            scale,
            capacity_bytes,
            LookalikeOptions::default(),
            rng,
        )
    }

    /// As [`SynthTrace::new`], drawn as `options` say.
    pub fn with_options(
        profile: TraceProfile,
        scale: f64,
        capacity_bytes: u64,
        options: LookalikeOptions,
        mut rng: RngStream,
    ) -> Result<Self, String> {
        let sizes = options.sizes;
        let theta = options.popularity_theta;
        if !(theta.is_finite() && (0.0..1.0).contains(&theta)) {
            return Err(format!(
                "popularity theta {theta} is out of range (0 <= theta < 1)"
            ));
        }
        let writes = profile.write_requests(scale);
        let reads = profile.read_requests(scale);
        let new = profile.new_writes(scale);
        let capacity_pages = capacity_bytes / PAGE_BYTES;
        // New data are placed at random where nothing was written: keep the
        // footprint under a quarter of the disk so that placement stays random.
        let largest = SIZE_MIX.iter().map(|s| s.0).max().unwrap_or(1) as u64;
        let item_pages = if sizes == RequestSizes::Paper {
            1
        } else {
            largest
        };
        let needed = 4 * item_pages * new.max(1);
        if capacity_pages < needed {
            return Err(format!(
                "a disk of {capacity_bytes} bytes is too small for the {} look-alike at scale {scale}: its {new} new writes need at least {} bytes",
                profile.name,
                needed * PAGE_BYTES
            ));
        }
        let footprint = Footprint::new(capacity_pages, new, theta, &mut rng);
        Ok(Self {
            rng,
            sizes,
            capacity_pages,
            writes_left: writes,
            new_left: new,
            reads_left: reads,
            footprint,
            size_deck: Vec::new(),
            arrivals: BurstyArrivals::new(writes + reads, scale),
            summary: SynthSummary::default(),
        })
    }

    /// Distinct bands of `band_bytes` with data written so far.
    pub fn bands_written(&self, band_bytes: u64) -> u64 {
        self.footprint.bands_written(band_bytes / PAGE_BYTES)
    }

    fn size_pages(&mut self) -> u32 {
        if self.sizes == RequestSizes::Paper {
            return 1;
        }
        if self.size_deck.is_empty() {
            let mut deck: Vec<u32> = SIZE_MIX
                .iter()
                .flat_map(|&(s, w)| std::iter::repeat_n(s, w as usize))
                .collect();
            for i in (1..deck.len()).rev() {
                let j = uniform_below(&mut self.rng, i as u64 + 1) as usize;
                deck.swap(i, j);
            }
            self.size_deck = deck;
        }
        self.size_deck.pop().expect("deck refilled")
    }

    fn write(&mut self) -> (u64, u32) {
        // Deal the new writes among the writes left (this one included).
        let new = self.footprint.is_empty()
            || uniform_below(&mut self.rng, self.writes_left + 1) < self.new_left;
        self.new_left = self.new_left.saturating_sub(new as u64);
        if new {
            let pages = self.size_pages();
            (self.footprint.create(pages, &mut self.rng), pages)
        } else {
            self.summary.updates += 1;
            self.footprint.pick(&mut self.rng)
        }
    }

    fn read(&mut self) -> (u64, u32) {
        if !self.footprint.is_empty() && unit(&mut self.rng) < READS_OF_WRITTEN {
            return self.footprint.pick(&mut self.rng);
        }
        let pages = self.size_pages();
        let first = uniform_below(&mut self.rng, self.capacity_pages - pages as u64 + 1);
        (first, pages)
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
        let time_ns = self.arrivals.next(&mut self.rng);
        self.summary.requests += 1;
        let (op, (first, pages)) = if is_write {
            self.writes_left -= 1;
            self.summary.writes += 1;
            (TraceOp::Write, self.write())
        } else {
            self.reads_left -= 1;
            (TraceOp::Read, self.read())
        };
        let size_bytes = pages as u64 * PAGE_BYTES;
        match op {
            TraceOp::Write => self.summary.written_bytes += size_bytes,
            _ => self.summary.read_bytes += size_bytes,
        }
        self.summary.footprint_pages = self.footprint.distinct_pages();
        Some(TraceRecord {
            time_ns,
            op,
            offset_bytes: first * PAGE_BYTES,
            size_bytes,
        })
    }
}

#[cfg(test)]
mod tests;
