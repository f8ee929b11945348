//! PORE's STL (`policy = "pore"`): "Partially Open Region for Eviction" (Wang et
//! al., MSST'17, the MU-RMW paper's [2]) as MU-RMW §II-B and Fig. 2b sketch it,
//! on the same sector-level mapping as Skylight.
//!
//! - **No static association.** Any flash block can hold any band's data: host
//!   writes (and cleaning's relocations) append to one global active block; when
//!   it is full the next block comes from a FIFO free list. Data of many bands mix
//!   inside blocks (Fig. 2b).
//! - **Mapping.** A sector-level table LSN → PPN, 4 B per sector ([`SectorMap`],
//!   §III-E), per-band and per-block valid counts, the free list, and a 1-byte
//!   OPEN/FORBIDDEN tag per band.
//! - **Reads** return the cached copy if any, else read the band.
//! - **OPEN / FORBIDDEN.** Bands are tagged OPEN or FORBIDDEN; a cleaning evicts
//!   (writes back by RMW) the cached data of OPEN bands only; FORBIDDEN data stay
//!   cached. This bounds the LBA range one cleaning touches to `open_bands` bands,
//!   hence at most `open_bands` RMWs per cleaning.
//!
//! ## The OPEN-set rule (a decision)
//!
//! At the start of every cleaning the OPEN set becomes the `open_bands` bands
//! with the most valid cached sectors (ties: lower band first); every other band
//! is FORBIDDEN. The tags then stay until the next cleaning, which moves the set
//! (the evicted bands have nothing cached left, so they drop out unless rewritten).
//! Initially the OPEN set is bands `0..open_bands` (the rule on an empty cache).
//! Why: MU-RMW says only that OPEN data may be evicted while FORBIDDEN data stay
//! cached, and that the OPEN region is smaller than the K+1 bands of a Skylight
//! zone, so a cleaning needs fewer RMWs; it does not say how the region moves
//! (and the PORE paper itself was not at hand). PORE's idea is to bound the LBA
//! range of each eviction while still evicting what pays, so the region is
//! chosen by write-back benefit — most cached data per RMW. That also guarantees
//! progress: the top `open_bands` of `U` bands hold at least `open_bands / U` of
//! the cached data, so each cleaning evicts at least that fraction. A blind
//! rotating window of consecutive bands would bound the range just as well but
//! could open bands with nothing cached and free nothing (and would be a poor,
//! unfair baseline under skewed traces).
//!
//! ## Cleaning and FORBIDDEN data (a decision)
//!
//! Cleaning triggers when the active block is full and only the reserve is left
//! in the free list. It then, in order:
//! 1. picks the OPEN set (above);
//! 2. writes back every OPEN band with cached data, in ascending band order: its
//!    valid pages are read from the flash, then one band RMW; its sectors are
//!    unmapped;
//! 3. erases every block (other than a partly written active block) with no
//!    valid page;
//! 4. relocates the valid pages — all FORBIDDEN data now — of every other
//!    partly-valid block to the active block (page read + program each, a block
//!    from the free list when the active one fills) and erases that block.
//!    Fully valid blocks stay as they are.
//!
//! FORBIDDEN data are thus *moved within the flash*, never written to the disk:
//! the cleaning's disk traffic stays bounded to the OPEN bands, which is what PORE
//! bounds, and the space the eviction invalidated becomes free blocks. PORE is a
//! cache policy on top of a flash device whose FTL garbage-collects as usual;
//! leaving mixed blocks in place instead would free (almost) nothing per cleaning
//! until every band sharing a block had been evicted — a Skylight-style full flush
//! spread over several cleanings. The whole cache is compacted in one go, the
//! "PC-level" reclamation scale MU-RMW §IV-B4 attributes to PORE. If a cleaning
//! still leaves no more than the reserve free (the cache was nearly all valid
//! data), the write runs another cleaning with the next OPEN set; each is recorded
//! as one cleaning, and the write waits for all of them.
//!
//! **Reserve.** One block (`RESERVE_BLOCKS`): host writes never take the last free
//! block, so step 4 always has a block to relocate into. Each relocated block has
//! fewer than a block's worth of valid pages, so it needs at most one new block
//! before its own erase returns one; the free count never drops below
//! `RESERVE_BLOCKS − 1` inside a cleaning.
//!
//! Cost: a cleaning scans every programmed page once (to find OPEN data and to
//! compact) and ranks the bands (O(bands)); it frees at least `open_bands / U`
//! of the cached data plus every stale page, so the work is O(1) amortised per
//! sector written for a fixed `U / open_bands`. Host writes and reads are O(1).

use super::hardware::{Hardware, NONE};
use super::sector_map::SectorMap;
use super::stl::Stl;
use std::collections::VecDeque;
use zonelab_engine::Ns;

/// Free blocks host writes never take: the relocation target of a cleaning.
pub const RESERVE_BLOCKS: u32 = 1;

pub struct Pore {
    map: SectorMap,
    open_bands: u32,
    /// OPEN (true) or FORBIDDEN (false), per band.
    open: Vec<bool>,
    /// The OPEN bands, ascending.
    open_set: Vec<u32>,
    /// Erased blocks, used in FIFO order.
    free: VecDeque<u32>,
    /// The block writes append to; NONE when a cleaning has retired a full one.
    active: u32,
    /// Page-sized scratch for relocations.
    buf: Vec<u8>,
    blocks: u32,
}

impl Pore {
    pub fn new(hw: &Hardware, open_bands: u32) -> Self {
        let bands = hw.disk.bands;
        let blocks = hw.flash.params.blocks;
        assert!(open_bands >= 1, "PORE needs at least one OPEN band");
        assert!(
            blocks >= RESERVE_BLOCKS + 2,
            "PORE needs at least {} flash blocks",
            RESERVE_BLOCKS + 2
        );
        let k = open_bands.min(bands);
        let mut open = vec![false; bands as usize];
        open[..k as usize].fill(true);
        let mut free: VecDeque<u32> = (0..blocks).collect();
        let active = free.pop_front().unwrap();
        Self {
            map: SectorMap::new(hw),
            open_bands: k,
            open,
            open_set: (0..k).collect(),
            free,
            active,
            buf: vec![0; hw.flash.params.page_bytes as usize],
            blocks,
        }
    }

    /// The current OPEN bands, ascending (tests, reports).
    pub fn open_set(&self) -> &[u32] {
        &self.open_set
    }

    /// Re-tags the bands: the `open_bands` with the most cached sectors are OPEN.
    fn select_open(&mut self) {
        for &b in &self.open_set {
            self.open[b as usize] = false;
        }
        let map = &self.map;
        let mut ranked: Vec<u32> = (0..map.bands()).collect();
        let k = self.open_bands as usize;
        let by_benefit =
            |a: &u32, b: &u32| map.band_valid(*b).cmp(&map.band_valid(*a)).then(a.cmp(b));
        if k < ranked.len() {
            ranked.select_nth_unstable_by(k - 1, by_benefit);
            ranked.truncate(k);
        }
        ranked.sort_unstable();
        for &b in &ranked {
            self.open[b as usize] = true;
        }
        self.open_set = ranked;
    }

    /// The active block if it has room, else a fresh one from the free list.
    fn writable_block(&mut self, hw: &Hardware) -> u32 {
        if self.active == NONE || hw.flash.next_free_page(self.active).is_none() {
            self.active = self
                .free
                .pop_front()
                .expect("PORE: no free block (reserve exhausted)");
        }
        self.active
    }

    /// One cleaning (module doc, steps 1–4). Returns when its last operation ends.
    fn clean(&mut self, hw: &mut Hardware, start_ns: Ns) -> Ns {
        let ppb = hw.flash.params.pages_per_block;
        if self.active != NONE && hw.flash.next_free_page(self.active).is_none() {
            self.active = NONE; // a full active block is reclaimed like any other
        }
        self.select_open();
        let blocks = hw.flash.params.blocks;
        // 2. Evict the OPEN bands: one RMW each, with all their cached sectors
        //    (a partly written active block may hold some too).
        let open = &self.open;
        let groups = self.map.gather(
            hw,
            (0..blocks).filter(|&b| hw.flash.programmed_pages(b) > 0),
            |band| open[band as usize],
        );
        let mut t = start_ns;
        for (band, pages) in groups.iter() {
            t = self.map.write_back(hw, t, band, pages);
        }

        // Blocks to reclaim: every written block but a partly written active one,
        // split now (before any erase) so that a block freed and refilled by this
        // cleaning's relocations is not taken for a victim.
        let mut empty = Vec::new();
        let mut partial = Vec::new();
        for block in (0..blocks).filter(|&b| b != self.active && hw.flash.programmed_pages(b) > 0) {
            match self.map.block_valid(block) {
                0 => empty.push(block),
                v if v < ppb => partial.push(block),
                _ => {}
            }
        }

        // 3. Erase the blocks left without a valid page.
        for &block in &empty {
            t = hw.flash.erase(t, block);
            self.free.push_back(block);
        }

        // 4. Compact: move the FORBIDDEN data out of partly valid blocks.
        for &block in &partial {
            for ppn in block * ppb..(block + 1) * ppb {
                if self.map.is_valid(hw, ppn) {
                    let dest = self.writable_block(hw);
                    debug_assert_ne!(dest, block, "relocating a block into itself");
                    t = self.map.relocate(hw, t, ppn, dest, &mut self.buf);
                }
            }
            debug_assert_eq!(self.map.block_valid(block), 0);
            t = hw.flash.erase(t, block);
            self.free.push_back(block);
        }
        hw.record_cleaning(start_ns, t);
        t
    }
}

impl Stl for Pore {
    fn name(&self) -> &'static str {
        "pore"
    }

    fn write(&mut self, hw: &mut Hardware, ready_ns: Ns, sector: u32, data: Option<&[u8]>) -> Ns {
        let mut t = ready_ns;
        if self.active == NONE || hw.flash.next_free_page(self.active).is_none() {
            while self.free.len() as u32 <= RESERVE_BLOCKS {
                t = self.clean(hw, t);
            }
        }
        let block = self.writable_block(hw);
        self.map.program(hw, t, block, sector, data)
    }

    fn read(&mut self, hw: &mut Hardware, ready_ns: Ns, sector: u32, out: Option<&mut [u8]>) -> Ns {
        self.map.read(hw, ready_ns, sector, out)
    }

    fn mapping_memory_bytes(&self) -> u64 {
        // Sector table and counts, OPEN tags (1 B per band), the OPEN set, the
        // free list (room for every block id), the active block id.
        self.map.memory_bytes()
            + self.open.len() as u64
            + 4 * self.open_set.len() as u64
            + 4 * self.blocks as u64
            + 4
    }

    fn check_invariants(&self, hw: &Hardware) -> Result<(), String> {
        self.map.check(hw)?;
        let blocks = hw.flash.params.blocks;
        let ppb = hw.flash.params.pages_per_block;
        if (self.free.len() as u32) < RESERVE_BLOCKS {
            return Err(format!(
                "{} free blocks, below the reserve of {RESERVE_BLOCKS}",
                self.free.len()
            ));
        }
        let mut is_free = vec![false; blocks as usize];
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
        for b in 0..blocks {
            if !is_free[b as usize] && b != self.active && hw.flash.programmed_pages(b) != ppb {
                return Err(format!(
                    "block {b} is neither free, active nor full ({} pages)",
                    hw.flash.programmed_pages(b)
                ));
            }
        }
        if self.open_set.len() as u32 != self.open_bands
            || !self.open_set.windows(2).all(|w| w[0] < w[1])
        {
            return Err(format!(
                "OPEN set {:?} is not {} ascending bands",
                self.open_set, self.open_bands
            ));
        }
        let tagged = self.open.iter().filter(|&&o| o).count();
        if tagged != self.open_set.len() || self.open_set.iter().any(|&b| !self.open[b as usize]) {
            return Err("OPEN tags disagree with the OPEN set".into());
        }
        Ok(())
    }
}
