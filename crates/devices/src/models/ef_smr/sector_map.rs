//! The sector-level mapping table Skylight and PORE share (MU-RMW §III-E: "both
//! Skylight and PORE adopt a sector-level mapping table … P × U × 4 bytes"), and
//! the operations both build on: mapping a programmed page, serving a read request
//! from the cache and the bands, and writing a band's cached sectors back with one
//! read-modify-write.
//!
//! What lives in controller RAM (all dense `Vec`s, indexed directly):
//! - `map`: logical sector number → physical page number, [`NONE`] when the sector
//!   is not cached (its latest copy is in its band). 4 B per sector, like
//!   Skylight's `pba_map` (`dm-sadc.c`, one `int32` per usable PBA, −1 = unmapped).
//! - `band_valid`: cached sectors per band. Skylight's emulator keeps a bitmap of
//!   the bands that have data in each cache band (`cache_band.map`); a count says
//!   the same (bit set ⇔ count > 0) and also lets PORE rank bands.
//! - `block_valid`: valid (latest-copy) pages per flash block, for PORE's
//!   reclamation and both STLs' consistency checks.
//!
//! The OOB area of every programmed page carries its logical sector (the tag the
//! [`FlashCache`](super::hardware::FlashCache) keeps): a page is valid exactly when
//! `map[tag] == page`, so invalidating an old copy is one table update and a
//! cleaning finds the valid pages of a set of blocks by scanning their tags.

use super::hardware::{Hardware, Ppn, NONE};
use zonelab_engine::Ns;

/// Valid pages grouped by band: `bands[i] = (band, start, end)` names the slice
/// `pages[start..end]` (in the order the blocks were scanned, i.e. flash order).
pub struct BandGroups {
    pub pages: Vec<Ppn>,
    pub bands: Vec<(u32, usize, usize)>,
}

impl BandGroups {
    /// (band, its valid pages), bands in ascending order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &[Ppn])> + '_ {
        self.bands
            .iter()
            .map(move |&(b, s, e)| (b, &self.pages[s..e]))
    }
}

pub struct SectorMap {
    band_sectors: u32,
    pages_per_block: u32,
    map: Vec<Ppn>,
    band_valid: Vec<u32>,
    block_valid: Vec<u32>,
    /// Set once any write carried bytes: from then on write-backs and relocations
    /// carry the bytes too (sectors written size-only carry zeros).
    payloads: bool,
}

impl SectorMap {
    pub fn new(hw: &Hardware) -> Self {
        let sectors = hw.disk.bands as usize * hw.disk.band_sectors as usize;
        Self {
            band_sectors: hw.disk.band_sectors,
            pages_per_block: hw.flash.params.pages_per_block,
            map: vec![NONE; sectors],
            band_valid: vec![0; hw.disk.bands as usize],
            block_valid: vec![0; hw.flash.params.blocks as usize],
            payloads: false,
        }
    }

    #[inline]
    pub fn band_of(&self, sector: u32) -> u32 {
        sector / self.band_sectors
    }

    /// The page holding `sector`'s latest copy, or [`NONE`].
    #[inline]
    pub fn lookup(&self, sector: u32) -> Ppn {
        self.map[sector as usize]
    }

    #[inline]
    pub fn band_valid(&self, band: u32) -> u32 {
        self.band_valid[band as usize]
    }

    #[inline]
    pub fn block_valid(&self, block: u32) -> u32 {
        self.block_valid[block as usize]
    }

    pub fn bands(&self) -> u32 {
        self.band_valid.len() as u32
    }

    /// Whether `ppn` holds the latest copy of the sector in its OOB tag.
    #[inline]
    pub fn is_valid(&self, hw: &Hardware, ppn: Ppn) -> bool {
        let tag = hw.flash.sector_tag(ppn);
        tag != NONE && self.map[tag as usize] == ppn
    }

    /// Points `sector` at `ppn`, invalidating its previous cached copy.
    #[inline]
    fn remap(&mut self, sector: u32, ppn: Ppn) {
        let old = self.map[sector as usize];
        if old == NONE {
            self.band_valid[(sector / self.band_sectors) as usize] += 1;
        } else {
            self.block_valid[(old / self.pages_per_block) as usize] -= 1;
        }
        self.map[sector as usize] = ppn;
        self.block_valid[(ppn / self.pages_per_block) as usize] += 1;
    }

    /// Programs `sector` (with its bytes, if any) into the next page of `block`
    /// and maps it there. Returns when the program completes.
    #[inline]
    pub fn program(
        &mut self,
        hw: &mut Hardware,
        ready_ns: Ns,
        block: u32,
        sector: u32,
        data: Option<&[u8]>,
    ) -> Ns {
        self.payloads |= data.is_some();
        let (ppn, done) = hw.flash.program(ready_ns, block, sector, None, data);
        self.remap(sector, ppn);
        done
    }

    /// Serves a read request of `count` sectors from `first`: cached sectors are
    /// read from the flash (each on its unit, in parallel), each run of uncached
    /// sectors from its band in one disk access. Returns when the last completes.
    pub fn read_request(
        &self,
        hw: &mut Hardware,
        ready_ns: Ns,
        first: u32,
        count: u32,
        mut out: Option<&mut [u8]>,
    ) -> Ns {
        let sb = hw.flash.params.page_bytes as usize;
        let mut done = ready_ns;
        let mut run_from: Option<u32> = None;
        for i in 0..=count {
            let cached = if i < count {
                self.map[(first + i) as usize]
            } else {
                NONE
            };
            if i == count || cached != NONE {
                if let Some(from) = run_from.take() {
                    let (a, b) = ((from - first) as usize * sb, i as usize * sb);
                    let o = out.as_deref_mut().map(|o| &mut o[a..b]);
                    done = done.max(hw.disk.read_into(ready_ns, from, first + i - from, o));
                }
                if i == count {
                    break;
                }
                done = done.max(hw.flash.read(ready_ns, cached));
                if let Some(o) = out.as_deref_mut() {
                    hw.flash
                        .load(cached, &mut o[i as usize * sb..(i as usize + 1) * sb]);
                }
            } else if run_from.is_none() {
                run_from = Some(first + i);
            }
        }
        done
    }

    /// The valid pages of `blocks` whose band passes `keep`, grouped by band in
    /// ascending band order (each group in scan order). One pass over the blocks'
    /// programmed pages plus a counting sort over the bands: O(pages + bands).
    pub fn gather(
        &self,
        hw: &Hardware,
        blocks: impl IntoIterator<Item = u32>,
        keep: impl Fn(u32) -> bool,
    ) -> BandGroups {
        let ppb = self.pages_per_block;
        let mut found: Vec<(u32, Ppn)> = Vec::new();
        for block in blocks {
            let first = block * ppb;
            for ppn in first..first + hw.flash.programmed_pages(block) {
                if self.is_valid(hw, ppn) {
                    let band = self.band_of(hw.flash.sector_tag(ppn));
                    if keep(band) {
                        found.push((band, ppn));
                    }
                }
            }
        }
        let mut start = vec![0usize; self.band_valid.len() + 1];
        for &(band, _) in &found {
            start[band as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let bands: Vec<(u32, usize, usize)> = (0..self.band_valid.len())
            .filter(|&b| start[b + 1] > start[b])
            .map(|b| (b as u32, start[b], start[b + 1]))
            .collect();
        let mut pages = vec![NONE; found.len()];
        for &(band, ppn) in &found {
            pages[start[band as usize]] = ppn;
            start[band as usize] += 1;
        }
        BandGroups { pages, bands }
    }

    /// Writes `band`'s cached sectors (`pages`, all valid) back to the band: reads
    /// them from the flash (timed), then one read-modify-write of the band, then
    /// unmaps them (their pages become invalid). Returns when the RMW completes.
    pub fn write_back(&mut self, hw: &mut Hardware, ready_ns: Ns, band: u32, pages: &[Ppn]) -> Ns {
        let mut t = ready_ns;
        let page_bytes = hw.flash.params.page_bytes as usize;
        let mut updates: Vec<(u32, Option<Box<[u8]>>)> = Vec::with_capacity(pages.len());
        for &ppn in pages {
            debug_assert!(self.is_valid(hw, ppn), "writing back an invalid page");
            t = t.max(hw.flash.read(ready_ns, ppn));
            let sector = hw.flash.sector_tag(ppn);
            let bytes = self.payloads.then(|| {
                let mut b = vec![0u8; page_bytes].into_boxed_slice();
                hw.flash.load(ppn, &mut b);
                b
            });
            updates.push((sector, bytes));
        }
        let done = hw.disk.rmw(t, band, &updates);
        for &(sector, _) in &updates {
            let ppn = self.map[sector as usize];
            self.block_valid[(ppn / self.pages_per_block) as usize] -= 1;
            self.map[sector as usize] = NONE;
        }
        self.band_valid[band as usize] -= updates.len() as u32;
        debug_assert_eq!(
            self.band_valid[band as usize], 0,
            "band {band} still has cached sectors after its write-back"
        );
        done
    }

    /// Bytes of RAM the three tables occupy.
    pub fn memory_bytes(&self) -> u64 {
        4 * (self.map.len() + self.band_valid.len() + self.block_valid.len()) as u64
    }

    /// Mapping ↔ OOB tags agree; per-block and per-band valid counts are right;
    /// unprogrammed pages carry no tag.
    pub fn check(&self, hw: &Hardware) -> Result<(), String> {
        let ppb = self.pages_per_block;
        let total = hw.flash.total_pages();
        let mut mapped = 0u64;
        for (s, &ppn) in self.map.iter().enumerate() {
            if ppn == NONE {
                continue;
            }
            mapped += 1;
            if ppn >= total {
                return Err(format!(
                    "sector {s} maps to page {ppn} beyond the cache's {total}"
                ));
            }
            if ppn % ppb >= hw.flash.programmed_pages(ppn / ppb) {
                return Err(format!("sector {s} maps to unprogrammed page {ppn}"));
            }
            let tag = hw.flash.sector_tag(ppn);
            if tag != s as u32 {
                return Err(format!(
                    "sector {s} maps to page {ppn} whose OOB tag is {tag}"
                ));
            }
        }
        let mut band_count = vec![0u32; self.band_valid.len()];
        for block in 0..hw.flash.params.blocks {
            let programmed = hw.flash.programmed_pages(block);
            let mut valid = 0;
            for i in 0..ppb {
                let ppn = block * ppb + i;
                let tag = hw.flash.sector_tag(ppn);
                if i >= programmed {
                    if tag != NONE {
                        return Err(format!("unprogrammed page {ppn} carries tag {tag}"));
                    }
                    continue;
                }
                if tag == NONE || tag as usize >= self.map.len() {
                    return Err(format!("programmed page {ppn} has tag {tag}"));
                }
                if self.map[tag as usize] == ppn {
                    valid += 1;
                    band_count[self.band_of(tag) as usize] += 1;
                }
            }
            if valid != self.block_valid[block as usize] {
                return Err(format!(
                    "block {block}: {valid} valid pages, count says {}",
                    self.block_valid[block as usize]
                ));
            }
        }
        if let Some(b) = (0..band_count.len()).find(|&b| band_count[b] != self.band_valid[b]) {
            return Err(format!(
                "band {b}: {} cached sectors, count says {}",
                band_count[b], self.band_valid[b]
            ));
        }
        let counted: u64 = band_count.iter().map(|&c| c as u64).sum();
        if counted != mapped {
            return Err(format!("{mapped} mapped sectors but {counted} valid pages"));
        }
        Ok(())
    }
}
