//! The EF-SMR disk's embedded NAND flash persistent cache (MU-RMW §II-A, §IV-A):
//! blocks of pages, each page with a data area and an OOB area (a logical-sector
//! tag and, for MU-RMW, a sector-mapping sub-table), programmed in order within a
//! block and erased a block at a time.
//!
//! # Parallelism
//!
//! The flash has `chips × planes_per_chip` *parallel units*, each with its own
//! timeline. Blocks are striped over the units the way embedded controllers (e.MMC,
//! UFS) build super-blocks: page `i` of every block lives on unit
//! `i mod units`, so consecutive pages of a block — one request's pages, or a log's
//! next pages — are read and programmed on different units at the same time, and
//! a block erase erases its slice on every unit at once. Planes are modelled as
//! independent units (a multi-plane command is as fast as a single-plane one);
//! the shared bus transfer is not modelled, as the paper's timings (0.2 / 1.3 /
//! 1.5 ms) have no transfer component either. With one unit this is the single
//! chip timeline of the paper's setup.

use crate::block_store::BlockStore;
use zonelab_engine::{Ns, Timeline};

/// Physical page number in the flash cache.
pub type Ppn = u32;
/// No page / no sector.
pub const NONE: u32 = u32::MAX;

/// Flash cache geometry, parallelism and timings.
#[derive(Debug, Clone, Copy)]
pub struct FlashCacheParams {
    pub blocks: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    /// OOB bytes per page (sub-table slots of MU-RMW live there).
    pub oob_bytes: u32,
    /// Dies that work in parallel.
    pub chips: u32,
    /// Planes per die that work in parallel.
    pub planes_per_chip: u32,
    pub read_ns: Ns,
    pub program_ns: Ns,
    pub erase_ns: Ns,
}

impl FlashCacheParams {
    /// Parallel units (chips × planes).
    pub fn units(&self) -> u32 {
        self.chips * self.planes_per_chip
    }
}

pub struct FlashCache {
    pub params: FlashCacheParams,
    units: Vec<Timeline>,
    /// Next page to program in each block (programs are in order).
    next_page: Vec<u32>,
    /// OOB: the logical sector each page holds (NONE if unused).
    sector_tag: Vec<u32>,
    /// OOB: the sub-table stored with each page, if any.
    sub_tables: Vec<Option<Box<[u32]>>>,
    data: Option<BlockStore>,
    pub page_reads: u64,
    pub oob_reads: u64,
    pub page_programs: u64,
    pub erases: u64,
}

impl FlashCache {
    /// `params` must have at least one unit; the device validates its profile.
    pub fn new(params: FlashCacheParams) -> Self {
        assert!(params.units() >= 1, "a flash cache needs a parallel unit");
        let pages = (params.blocks * params.pages_per_block) as usize;
        Self {
            params,
            units: vec![Timeline::new(); params.units() as usize],
            next_page: vec![0; params.blocks as usize],
            sector_tag: vec![NONE; pages],
            sub_tables: (0..pages).map(|_| None).collect(),
            data: None,
            page_reads: 0,
            oob_reads: 0,
            page_programs: 0,
            erases: 0,
        }
    }

    pub fn total_pages(&self) -> u32 {
        self.params.blocks * self.params.pages_per_block
    }

    /// Sub-table slots one OOB area holds (4 bytes each).
    pub fn oob_slots(&self) -> u32 {
        self.params.oob_bytes / 4
    }

    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        ppn / self.params.pages_per_block
    }

    /// The parallel unit holding `ppn` (page `i` of a block is on unit `i mod units`).
    #[inline]
    pub fn unit_of(&self, ppn: Ppn) -> usize {
        ((ppn % self.params.pages_per_block) % self.units.len() as u32) as usize
    }

    /// Next free page of `block`, or `None` if it is full.
    #[inline]
    pub fn next_free_page(&self, block: u32) -> Option<Ppn> {
        let n = self.next_page[block as usize];
        (n < self.params.pages_per_block).then(|| block * self.params.pages_per_block + n)
    }

    /// Pages programmed in `block` since its last erase.
    #[inline]
    pub fn programmed_pages(&self, block: u32) -> u32 {
        self.next_page[block as usize]
    }

    /// Reads a page (data and OOB) at `ready_ns`; returns when done.
    #[inline]
    pub fn read(&mut self, ready_ns: Ns, ppn: Ppn) -> Ns {
        self.page_reads += 1;
        let u = self.unit_of(ppn);
        self.units[u].reserve(ready_ns, self.params.read_ns).1
    }

    /// Reads only a page's OOB area (a sub-table); costs a page read on its unit.
    #[inline]
    pub fn read_oob(&mut self, ready_ns: Ns, ppn: Ppn) -> (Ns, Option<&[u32]>) {
        self.oob_reads += 1;
        let u = self.unit_of(ppn);
        let done = self.units[u].reserve(ready_ns, self.params.read_ns).1;
        (done, self.sub_tables[ppn as usize].as_deref())
    }

    /// The sub-table stored in `ppn`'s OOB, without timing (for consistency checks).
    pub fn peek_oob(&self, ppn: Ppn) -> Option<&[u32]> {
        self.sub_tables[ppn as usize].as_deref()
    }

    /// The logical sector tag in `ppn`'s OOB (NONE if unused).
    #[inline]
    pub fn sector_tag(&self, ppn: Ppn) -> u32 {
        self.sector_tag[ppn as usize]
    }

    /// Programs the next page of `block` with `sector`'s data and an optional
    /// sub-table in its OOB. Returns (page, completion time).
    ///
    /// Panics if the block is full: STLs allocate, and a full block is their bug.
    pub fn program(
        &mut self,
        ready_ns: Ns,
        block: u32,
        sector: u32,
        sub_table: Option<Box<[u32]>>,
        data: Option<&[u8]>,
    ) -> (Ppn, Ns) {
        let ppn = self
            .next_free_page(block)
            .expect("STL programmed a full flash block");
        debug_assert!(
            sub_table
                .as_ref()
                .is_none_or(|t| t.len() as u32 <= self.oob_slots()),
            "sub-table larger than the OOB area"
        );
        self.next_page[block as usize] += 1;
        self.sector_tag[ppn as usize] = sector;
        self.sub_tables[ppn as usize] = sub_table;
        if let Some(bytes) = data {
            let pb = self.params.page_bytes;
            self.data
                .get_or_insert_with(|| BlockStore::new(pb))
                .write(ppn as u64, bytes);
        }
        self.page_programs += 1;
        let u = self.unit_of(ppn);
        (
            ppn,
            self.units[u].reserve(ready_ns, self.params.program_ns).1,
        )
    }

    /// Copies the bytes stored in `ppn` into `out` (zeros if none were given).
    pub fn load(&self, ppn: Ppn, out: &mut [u8]) {
        match &self.data {
            Some(d) => d.read(ppn as u64, out),
            None => out.fill(0),
        }
    }

    /// Erases `block` (its slice on every unit, in parallel); returns when done.
    pub fn erase(&mut self, ready_ns: Ns, block: u32) -> Ns {
        let ppb = self.params.pages_per_block;
        let first = block * ppb;
        for p in first..first + ppb {
            self.sector_tag[p as usize] = NONE;
            self.sub_tables[p as usize] = None;
        }
        if let Some(d) = self.data.as_mut() {
            d.discard(first as u64, ppb as u64);
        }
        self.next_page[block as usize] = 0;
        self.erases += 1;
        let erase_ns = self.params.erase_ns;
        self.units
            .iter_mut()
            .map(|u| u.reserve(ready_ns, erase_ns).1)
            .max()
            .expect("at least one unit")
    }

    /// Mean busy time over the parallel units (for utilisation).
    pub fn busy_ns(&self) -> Ns {
        self.units.iter().map(|u| u.busy_ns()).sum::<Ns>() / self.units.len() as Ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(chips: u32, planes: u32) -> FlashCache {
        FlashCache::new(FlashCacheParams {
            blocks: 4,
            pages_per_block: 8,
            page_bytes: 4096,
            oob_bytes: 256,
            chips,
            planes_per_chip: planes,
            read_ns: 200,
            program_ns: 1_300,
            erase_ns: 1_500,
        })
    }

    #[test]
    fn consecutive_pages_of_a_block_program_in_parallel_on_distinct_units() {
        let mut one = cache(1, 1);
        let mut four = cache(2, 2);
        let ends_one: Vec<Ns> = (0..4).map(|s| one.program(0, 0, s, None, None).1).collect();
        let ends_four: Vec<Ns> = (0..4)
            .map(|s| four.program(0, 0, s, None, None).1)
            .collect();
        assert_eq!(ends_one, vec![1_300, 2_600, 3_900, 5_200]);
        assert_eq!(ends_four, vec![1_300; 4]);
        // The fifth page is on unit 0 again and queues behind the first.
        assert_eq!(four.program(0, 0, 4, None, None).1, 2_600);
        assert_eq!(four.unit_of(4), 0);
    }

    #[test]
    fn an_erase_occupies_every_unit() {
        let mut c = cache(2, 1);
        assert_eq!(c.erase(10, 1), 1_510);
        // Both units are busy until the erase ends.
        assert_eq!(c.read(0, 8), 1_710);
        assert_eq!(c.read(0, 9), 1_710);
        assert_eq!(c.busy_ns(), 1_500 + 200);
    }
}
