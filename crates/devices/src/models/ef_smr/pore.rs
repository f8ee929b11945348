//! PORE's STL (`policy = "pore"`): "Partially Open Region for Eviction", the
//! SMR-oriented cache of Wang et al., "Larger, Cheaper, but Faster: SSD-SMR Hybrid
//! Storage Boosted by a New SMR-oriented Cache Framework" (MSST'17, MU-RMW's [2]),
//! as its authors implemented it (Renmin University's SSD-SMR cache simulator,
//! `src/strategy/pore.c`, "PORE version 1.0", github.com/zfruc/smr-ssd-cache
//! commit dcd482d) and as MU-RMW §II-B / Fig. 2b places it in a flash cache.
//!
//! # What PORE does (from `pore.c`)
//!
//! - **Per-band (`ZoneCtrl`) state**: the cached blocks of the band in LRU order
//!   (`add2ArrayHead` / `move2ArrayHead` on every hit), their count
//!   (`pagecnt_dirty`) and the band's *heat*, the hits its cached blocks took
//!   (`hit()`; an evicted block takes its hits with it).
//! - **Periods.** At the start of a period (`redefineOpenZones`) every band with
//!   cached data gets the weight `dirty² / (heat + 1)`
//!   (`pause_and_caculate_weight_sizedivhot`: many cached blocks, few hits — much
//!   space released per write-back, little popularity lost); bands are ranked by
//!   weight and the top ones form the OPEN region, added until their cached blocks
//!   reach the period length (`while n_chooseblk < PeriodLenth`). Every other band
//!   is FORBIDDEN: its data stay cached. The period ends after `PeriodLenth`
//!   dirty evictions (`PeriodProgress % PeriodLenth == 0`).
//! - **Evictions** (`LogOutDesp_pore` / `getEvictZone`) come only from OPEN bands:
//!   the LRU-tail block with the oldest stamp among the OPEN bands' tails (a loser
//!   tree over them) goes first.
//!
//! # In the EF-SMR flash cache (the choices the papers leave open)
//!
//! - **Write-back granularity.** PORE evicts one cache block at a time into an
//!   SMR disk whose own persistent buffer batches them. Here there is no buffer
//!   below the cache: evicting any block of band `b` is an RMW of `b`, and that RMW
//!   rewrites the whole band anyway, so an eviction writes back **all** of the
//!   chosen band's cached sectors in one RMW (evicting them one by one would cost
//!   one RMW each). The chosen band is PORE's: the OPEN band whose LRU tail is the
//!   oldest.
//! - **Period length** (`PeriodLenth = NBLOCK_SMR_FIFO` in `pore.c`,
//!   `Cycle_Length = NBLOCK_SMR_PB` in the later code of the same group,
//!   github.com/cds-ruc/sac `src/main.c`): the capacity of the persistent buffer
//!   that absorbs one period's evictions. The EF-SMR of MU-RMW §IV-A organises its
//!   persistent cache in PC zones of one band's size (two of them in Skylight's
//!   setup), so a period is one PC zone: `stl.pore_period_sectors = 10240` (40 MiB)
//!   (`docs/mu-rmw.md` shows a sweep).
//! - **When to evict, and space.** All flash blocks are shared by all bands
//!   (§II-B: "all the flash blocks in PC can be associated with any SMR Bands"); host
//!   writes append to one global log (an active block, then the next free block).
//!   A cleaning runs when a write needs a block and none is free: a block whose
//!   pages are all stale (overwritten or written back) is erased (no write-back
//!   needed; the first in block order, one per cleaning, as MU-RMW's Algorithm 1
//!   erases one obsolete block per reclamation); if there is none, PORE evicts —
//!   one OPEN band at a time, each one RMW — until some block holds no valid page,
//!   and erases it. Nothing else reclaims space: FORBIDDEN data "remain in the
//!   cache" (§II-B) where they are, as in Skylight and MU-RMW, none of which copies
//!   valid pages inside the flash. A cleaning may so write back many bands before
//!   a block frees (the "PC-level" reclamation of §IV-B4).
//! - **Reads** return the cached copy if any (a hit: heat and LRU, as in
//!   `HitPoreBuffer`), else read the band. Reads are not cached (the cache is a
//!   write cache in all three STLs).
//!
//! **Ablation** (`stl.pore_eviction = "open-region"`, not PORE's code): every
//! cleaning starts a new period, writes back its whole OPEN region and erases every
//! block that left stale — how MU-RMW §II-B words PORE ("SMR Bands are tagged as
//! OPEN or FORBIDDEN to regulate the evictions during a cleaning process"), used in
//! `docs/mu-rmw.md` to show where the paper's PORE numbers come from.
//!
//! Cost: a write is O(1); a cleaning scans the blocks once per eviction and ranks
//! the bands once per period.

use super::hardware::{Hardware, Ppn, NONE};
use super::sector_map::SectorMap;
use super::stl::{sector_chunk, Stl};
use serde::Deserialize;
use std::collections::VecDeque;
use zonelab_engine::Ns;

/// When PORE writes data back (module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PoreEviction {
    /// PORE's code: evict only when no block is free and none is stale, one OPEN
    /// band at a time, until a block frees.
    #[default]
    OnDemand,
    /// Ablation: every cleaning writes back its whole (new) OPEN region first.
    OpenRegion,
}

pub struct Pore {
    map: SectorMap,
    /// Sectors evicted per period (the OPEN region's minimum size too).
    period_pages: u64,
    eviction: PoreEviction,
    /// Sectors evicted since the current period began.
    period_evicted: u64,
    /// OPEN (true) or FORBIDDEN (false), per band.
    open: Vec<bool>,
    /// The OPEN bands, ascending.
    open_set: Vec<u32>,
    /// Per band: hits its cached sectors took since they were cached.
    heat: Vec<u64>,
    /// LRU of each band's cached sectors, linked through the pages holding them:
    /// per page the previous / next page of the same band (NONE at the ends) and
    /// the access stamp; per band its most and least recently used page.
    lru_prev: Vec<Ppn>,
    lru_next: Vec<Ppn>,
    stamp: Vec<u64>,
    band_head: Vec<Ppn>,
    band_tail: Vec<Ppn>,
    clock: u64,
    /// Erased blocks, used in FIFO order.
    free: VecDeque<u32>,
    /// The block writes append to; NONE once it is full.
    active: u32,
    blocks: u32,
    pages_per_block: u32,
}

impl Pore {
    pub fn new(hw: &Hardware, period_pages: u64, eviction: PoreEviction) -> Self {
        assert!(
            period_pages >= 1,
            "PORE needs a period of at least one page"
        );
        let bands = hw.disk.bands as usize;
        let blocks = hw.flash.params.blocks;
        let pages = hw.flash.total_pages() as usize;
        Self {
            map: SectorMap::new(hw),
            period_pages,
            eviction,
            period_evicted: 0,
            open: vec![false; bands],
            open_set: Vec::new(),
            heat: vec![0; bands],
            lru_prev: vec![NONE; pages],
            lru_next: vec![NONE; pages],
            stamp: vec![0; pages],
            band_head: vec![NONE; bands],
            band_tail: vec![NONE; bands],
            clock: 0,
            free: (0..blocks).collect(),
            active: NONE,
            blocks,
            pages_per_block: hw.flash.params.pages_per_block,
        }
    }

    /// The current OPEN bands, ascending (tests, reports).
    pub fn open_set(&self) -> &[u32] {
        &self.open_set
    }

    /// Makes `ppn` the most recently used page of `band`.
    fn lru_push_head(&mut self, band: u32, ppn: Ppn) {
        let b = band as usize;
        self.clock += 1;
        self.stamp[ppn as usize] = self.clock;
        self.lru_prev[ppn as usize] = NONE;
        self.lru_next[ppn as usize] = self.band_head[b];
        if self.band_head[b] == NONE {
            self.band_tail[b] = ppn;
        } else {
            self.lru_prev[self.band_head[b] as usize] = ppn;
        }
        self.band_head[b] = ppn;
    }

    fn lru_unlink(&mut self, band: u32, ppn: Ppn) {
        let b = band as usize;
        let (prev, next) = (self.lru_prev[ppn as usize], self.lru_next[ppn as usize]);
        if prev == NONE {
            self.band_head[b] = next;
        } else {
            self.lru_next[prev as usize] = next;
        }
        if next == NONE {
            self.band_tail[b] = prev;
        } else {
            self.lru_prev[next as usize] = prev;
        }
        self.lru_prev[ppn as usize] = NONE;
        self.lru_next[ppn as usize] = NONE;
    }

    /// A new period: the OPEN region becomes the bands of highest weight
    /// `cached² / (heat + 1)` (ties: lower band first), added until they hold at
    /// least a period's sectors (`redefineOpenZones` in `pore.c`).
    fn select_open(&mut self) {
        for &b in &self.open_set {
            self.open[b as usize] = false;
        }
        let map = &self.map;
        let heat = &self.heat;
        let mut ranked: Vec<u32> = (0..map.bands())
            .filter(|&b| map.band_valid(b) > 0)
            .collect();
        // a before b when cached_a² / (heat_a + 1) > cached_b² / (heat_b + 1).
        let key = |b: u32| {
            let c = map.band_valid(b) as u128;
            (c * c, heat[b as usize] as u128 + 1)
        };
        ranked.sort_by(|&a, &b| {
            let ((na, da), (nb, db)) = (key(a), key(b));
            (nb * da).cmp(&(na * db)).then(a.cmp(&b))
        });
        let mut chosen = Vec::new();
        let mut sectors = 0u64;
        for b in ranked {
            if sectors >= self.period_pages {
                break;
            }
            sectors += self.map.band_valid(b) as u64;
            chosen.push(b);
        }
        chosen.sort_unstable();
        for &b in &chosen {
            self.open[b as usize] = true;
        }
        self.open_set = chosen;
        self.period_evicted = 0;
    }

    /// The next band to evict: the OPEN band whose LRU tail is the oldest; a new
    /// period begins first if this one has evicted its length or its OPEN bands
    /// hold nothing.
    fn next_victim(&mut self) -> u32 {
        let oldest = |s: &Self| {
            s.open_set
                .iter()
                .copied()
                .filter(|&b| s.map.band_valid(b) > 0)
                .min_by_key(|&b| (s.stamp[s.band_tail[b as usize] as usize], b))
        };
        if self.period_evicted < self.period_pages {
            if let Some(b) = oldest(self) {
                return b;
            }
        }
        self.select_open();
        oldest(self).expect("PORE cleaning with nothing cached")
    }

    /// Writes all of `band`'s cached sectors back with one RMW; returns when done.
    fn evict(&mut self, hw: &mut Hardware, ready_ns: Ns, band: u32) -> Ns {
        let b = band as usize;
        let mut pages = Vec::with_capacity(self.map.band_valid(band) as usize);
        let mut p = self.band_head[b];
        while p != NONE {
            pages.push(p);
            let next = self.lru_next[p as usize];
            self.lru_prev[p as usize] = NONE;
            self.lru_next[p as usize] = NONE;
            p = next;
        }
        self.band_head[b] = NONE;
        self.band_tail[b] = NONE;
        self.heat[b] = 0;
        self.period_evicted += pages.len() as u64;
        self.map.write_back(hw, ready_ns, band, &pages)
    }

    /// The first full block (other than the active one) without a valid page.
    fn stale_block(&self, hw: &Hardware) -> Option<u32> {
        (0..self.blocks).find(|&b| {
            b != self.active
                && hw.flash.programmed_pages(b) == self.pages_per_block
                && self.map.block_valid(b) == 0
        })
    }

    /// One cleaning (module doc): erase a stale block, evicting OPEN bands until
    /// there is one. Returns when its last operation ends.
    fn clean(&mut self, hw: &mut Hardware, start_ns: Ns) -> Ns {
        let mut t = start_ns;
        let mut rmws = 0;
        if self.eviction == PoreEviction::OpenRegion {
            self.select_open();
            let open = self.open_set.clone();
            let mut order: Vec<u32> = open
                .into_iter()
                .filter(|&b| self.map.band_valid(b) > 0)
                .collect();
            order.sort_by_key(|&b| (self.stamp[self.band_tail[b as usize] as usize], b));
            for band in order {
                t = self.evict(hw, t, band);
                rmws += 1;
            }
            // Like a Skylight zone cleaning, it reclaims all it freed at once.
            let mut end = t;
            while let Some(block) = self.stale_block(hw) {
                end = end.max(hw.flash.erase(t, block));
                self.free.push_back(block);
            }
            if end > t || !self.free.is_empty() {
                hw.record_cleaning(start_ns, end, rmws);
                return end;
            }
        }
        loop {
            if let Some(block) = self.stale_block(hw) {
                let end = hw.flash.erase(t, block);
                self.free.push_back(block);
                hw.record_cleaning(start_ns, end, rmws);
                return end;
            }
            let band = self.next_victim();
            t = self.evict(hw, t, band);
            rmws += 1;
        }
    }
}

impl Stl for Pore {
    fn name(&self) -> &'static str {
        "pore"
    }

    fn write(
        &mut self,
        hw: &mut Hardware,
        ready_ns: Ns,
        first: u32,
        count: u32,
        data: Option<&[u8]>,
    ) -> Ns {
        let sb = hw.flash.params.page_bytes as usize;
        let mut ready = ready_ns;
        let mut done = ready_ns;
        for i in 0..count {
            let sector = first + i;
            if self.active == NONE || hw.flash.next_free_page(self.active).is_none() {
                self.active = NONE; // a full block stays in the log
                if self.free.is_empty() {
                    ready = self.clean(hw, ready);
                }
                self.active = self.free.pop_front().expect("cleaning freed a block");
            }
            let band = self.map.band_of(sector);
            let old = self.map.lookup(sector);
            if old != NONE {
                // An update of cached data: a hit.
                self.heat[band as usize] += 1;
                self.lru_unlink(band, old);
            }
            let chunk = sector_chunk(data, i, sb);
            done = done.max(self.map.program(hw, ready, self.active, sector, chunk));
            let ppn = self.map.lookup(sector);
            self.lru_push_head(band, ppn);
        }
        done.max(ready)
    }

    fn read(
        &mut self,
        hw: &mut Hardware,
        ready_ns: Ns,
        first: u32,
        count: u32,
        out: Option<&mut [u8]>,
    ) -> Ns {
        for sector in first..first + count {
            let ppn = self.map.lookup(sector);
            if ppn != NONE {
                let band = self.map.band_of(sector);
                self.heat[band as usize] += 1;
                self.lru_unlink(band, ppn);
                self.lru_push_head(band, ppn);
            }
        }
        self.map.read_request(hw, ready_ns, first, count, out)
    }

    fn mapping_memory_bytes(&self) -> u64 {
        // Sector table and counts; per cached page its LRU links and stamp; per
        // band the LRU ends, heat and OPEN tag; the OPEN set; the free list (room
        // for every block id); the active block id.
        let pages = self.stamp.len() as u64;
        let bands = self.heat.len() as u64;
        self.map.memory_bytes()
            + pages * (4 + 4 + 8)
            + bands * (4 + 4 + 8 + 1)
            + 4 * self.open_set.len() as u64
            + 4 * self.blocks as u64
            + 4
    }

    fn check_invariants(&self, hw: &Hardware) -> Result<(), String> {
        self.map.check(hw)?;
        let ppb = self.pages_per_block;
        let mut is_free = vec![false; self.blocks as usize];
        for &b in &self.free {
            if std::mem::replace(&mut is_free[b as usize], true) {
                return Err(format!("block {b} twice in the free list"));
            }
            if hw.flash.programmed_pages(b) != 0 {
                return Err(format!("free block {b} is not erased"));
            }
            if b == self.active {
                return Err(format!("active block {b} is in the free list"));
            }
        }
        for b in 0..self.blocks {
            if !is_free[b as usize] && b != self.active && hw.flash.programmed_pages(b) != ppb {
                return Err(format!(
                    "block {b} is neither free, active nor full ({} pages)",
                    hw.flash.programmed_pages(b)
                ));
            }
        }
        // Each band's LRU list holds exactly its cached pages, newest first.
        for band in 0..self.map.bands() {
            let b = band as usize;
            let (mut n, mut prev, mut p) = (0u32, NONE, self.band_head[b]);
            while p != NONE {
                let tag = hw.flash.sector_tag(p);
                if tag == NONE || self.map.band_of(tag) != band || self.map.lookup(tag) != p {
                    return Err(format!(
                        "band {band}: LRU page {p} is not a cached page of it"
                    ));
                }
                if self.lru_prev[p as usize] != prev {
                    return Err(format!("band {band}: LRU back link of page {p} is wrong"));
                }
                if prev != NONE && self.stamp[prev as usize] <= self.stamp[p as usize] {
                    return Err(format!(
                        "band {band}: LRU stamps not decreasing at page {p}"
                    ));
                }
                n += 1;
                prev = p;
                p = self.lru_next[p as usize];
            }
            if prev != self.band_tail[b] {
                return Err(format!("band {band}: LRU tail is not the list's end"));
            }
            if n != self.map.band_valid(band) {
                return Err(format!(
                    "band {band}: {n} pages in its LRU, {} cached",
                    self.map.band_valid(band)
                ));
            }
            if n == 0 && self.heat[b] != 0 {
                return Err(format!("band {band} has heat but nothing cached"));
            }
        }
        if !self.open_set.windows(2).all(|w| w[0] < w[1]) {
            return Err(format!("OPEN set {:?} is not ascending", self.open_set));
        }
        let tagged = self.open.iter().filter(|&&o| o).count();
        if tagged != self.open_set.len() || self.open_set.iter().any(|&b| !self.open[b as usize]) {
            return Err("OPEN tags disagree with the OPEN set".into());
        }
        Ok(())
    }
}
