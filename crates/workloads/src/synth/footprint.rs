//! The write footprint of a look-alike trace: which sectors have been written,
//! where new data is placed, and which written data an update or a read picks.
//!
//! - **Items.** Each write to new sectors creates an *item* — an extent of one or
//!   more 4 KiB pages; later updates rewrite a whole item.
//! - **Placement.** A new item starts at a uniformly random page of the disk, never
//!   on a page already written (so "new" stays new). The traced volumes are 22 GB
//!   to over 1 TB (Narayanan et al., FAST'08, Table 1: `ts` is one 22 GB volume,
//!   `usr` three volumes of 1,367 GB) and the paper's disk has 10 GiB of bands
//!   (256 × 40 MiB, §IV-A), so a volume's addresses fold over the disk many times
//!   and data scattered over the volume land on bands all over the disk.
//! - **Popularity.** Items are ranked by a random permutation, and an update picks
//!   rank `r` with Zipfian probability ∝ 1 / (r + 1)^θ over all the trace's items;
//!   a rank whose item is not written yet is drawn again (so, at every moment, the
//!   written items keep the popularity they will have in the whole trace). θ is
//!   0.99 by default, YCSB's zipfian constant (`ZipfianGenerator.ZIPFIAN_CONSTANT`):
//!   an assumption (no per-volume popularity of the MSR traces is at hand), swept
//!   in `docs/mu-rmw.md`; θ = 0 is uniform.

use crate::ycsb::zipfian::{ZipfianGenerator, ZIPFIAN_CONSTANT};

/// The default Zipfian constant of update popularity (module doc).
pub const POPULARITY_THETA: f64 = ZIPFIAN_CONSTANT;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::RngStream;

/// Draws before an update of a not-yet-written rank falls back to a uniformly
/// chosen written item (only early in a trace, when few items exist).
const RANK_DRAWS: u32 = 64;

pub struct Footprint {
    capacity_pages: u64,
    /// One bit per page: written at least once.
    written: Vec<u64>,
    distinct_pages: u64,
    /// Items in creation order: (first page, pages).
    items: Vec<(u64, u32)>,
    /// Popularity rank → item index (a random permutation of the trace's items).
    rank_to_item: Vec<u32>,
    zipf: Option<ZipfianGenerator>,
}

impl Footprint {
    /// A footprint for `items` new writes on a disk of `capacity_pages`, updated
    /// with Zipfian popularity of constant `theta` (0 ≤ θ < 1).
    pub fn new(capacity_pages: u64, items: u64, theta: f64, rng: &mut RngStream) -> Self {
        let mut rank_to_item: Vec<u32> = (0..items as u32).collect();
        for i in (1..rank_to_item.len()).rev() {
            let j = uniform_below(rng, i as u64 + 1) as usize;
            rank_to_item.swap(i, j);
        }
        Self {
            capacity_pages,
            written: vec![0; capacity_pages.div_ceil(64) as usize],
            distinct_pages: 0,
            items: Vec::with_capacity(items as usize),
            rank_to_item,
            zipf: (items > 0).then(|| ZipfianGenerator::with_items(items, theta)),
        }
    }

    #[inline]
    fn is_written(&self, page: u64) -> bool {
        self.written[(page / 64) as usize] & (1 << (page % 64)) != 0
    }

    /// Places a new item of `pages` pages on pages never written; returns its first
    /// page. Draws again when a draw overlaps written pages.
    pub fn create(&mut self, pages: u32, rng: &mut RngStream) -> u64 {
        let span = self.capacity_pages - pages as u64 + 1;
        let first = loop {
            let first = uniform_below(rng, span);
            if (first..first + pages as u64).all(|p| !self.is_written(p)) {
                break first;
            }
        };
        for p in first..first + pages as u64 {
            self.written[(p / 64) as usize] |= 1 << (p % 64);
        }
        self.distinct_pages += pages as u64;
        self.items.push((first, pages));
        first
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// A written item chosen by popularity: (first page, pages).
    pub fn pick(&mut self, rng: &mut RngStream) -> (u64, u32) {
        let created = self.items.len() as u32;
        assert!(created > 0, "picking from an empty footprint");
        let zipf = self.zipf.as_mut().expect("items exist");
        for _ in 0..RANK_DRAWS {
            let item = self.rank_to_item[zipf.next(rng) as usize];
            if item < created {
                return self.items[item as usize];
            }
        }
        self.items[uniform_below(rng, created as u64) as usize]
    }

    /// Distinct pages written.
    pub fn distinct_pages(&self) -> u64 {
        self.distinct_pages
    }

    /// Distinct bands of `band_pages` pages with at least one written page.
    pub fn bands_written(&self, band_pages: u64) -> u64 {
        let bands = self.capacity_pages.div_ceil(band_pages);
        (0..bands)
            .filter(|&b| {
                let end = ((b + 1) * band_pages).min(self.capacity_pages);
                (b * band_pages..end).any(|p| self.is_written(p))
            })
            .count() as u64
    }
}
