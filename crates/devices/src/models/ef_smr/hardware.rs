//! The hardware of an EF-SMR disk (MU-RMW §II-A, §IV-A): a NAND flash persistent
//! cache whose pages have a data area and an OOB area, and an SMR disk of bands
//! that can only be rewritten whole (the write head is three times the read head,
//! so writing a track destroys the next two: an update inside a band is a
//! read-modify-write of the band, done track by track). STLs drive these parts;
//! the parts keep time (one flash chip timeline, the disk actuator) and counts.

use crate::block_store::BlockStore;
use zonelab_engine::{Ns, Timeline};
use zonelab_media::disk::{DiskMechanics, DiskParams};

/// Physical page number in the flash cache.
pub type Ppn = u32;
/// No page / no sector.
pub const NONE: u32 = u32::MAX;

/// Flash cache geometry and timings.
#[derive(Debug, Clone, Copy)]
pub struct FlashCacheParams {
    pub blocks: u32,
    pub pages_per_block: u32,
    pub page_bytes: u32,
    /// OOB bytes per page (sub-table slots of MU-RMW live there).
    pub oob_bytes: u32,
    pub read_ns: Ns,
    pub program_ns: Ns,
    pub erase_ns: Ns,
}

/// The flash persistent cache: pages programmed in order within a block, erased a
/// block at a time, each page with an OOB area holding a logical-sector tag and
/// (for MU-RMW) a sector-mapping sub-table.
pub struct FlashCache {
    pub params: FlashCacheParams,
    chip: Timeline,
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
    pub fn new(params: FlashCacheParams) -> Self {
        let pages = (params.blocks * params.pages_per_block) as usize;
        Self {
            params,
            chip: Timeline::new(),
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
    pub fn read(&mut self, ready_ns: Ns, _ppn: Ppn) -> Ns {
        self.page_reads += 1;
        self.chip.reserve(ready_ns, self.params.read_ns).1
    }

    /// Reads only a page's OOB area (a sub-table); costs a page read.
    #[inline]
    pub fn read_oob(&mut self, ready_ns: Ns, ppn: Ppn) -> (Ns, Option<&[u32]>) {
        self.oob_reads += 1;
        let done = self.chip.reserve(ready_ns, self.params.read_ns).1;
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
        (ppn, self.chip.reserve(ready_ns, self.params.program_ns).1)
    }

    /// Copies the bytes stored in `ppn` into `out` (zeros if none were given).
    pub fn load(&self, ppn: Ppn, out: &mut [u8]) {
        match &self.data {
            Some(d) => d.read(ppn as u64, out),
            None => out.fill(0),
        }
    }

    /// Erases `block`; returns when done.
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
        self.chip.reserve(ready_ns, self.params.erase_ns).1
    }

    pub fn busy_ns(&self) -> Ns {
        self.chip.busy_ns()
    }
}

/// The SMR disk: `bands` bands of `band_sectors` sectors from the start of the
/// platter. Reads go anywhere; writes only as whole-band read-modify-writes.
pub struct BandDisk {
    mechanics: DiskMechanics,
    pub band_sectors: u32,
    pub bands: u32,
    pub sector_bytes: u32,
    data: Option<BlockStore>,
    pub rmws: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
}

impl BandDisk {
    pub fn new(params: &DiskParams, bands: u32, band_sectors: u32, sector_bytes: u32) -> Self {
        Self {
            mechanics: DiskMechanics::new(params),
            band_sectors,
            bands,
            sector_bytes,
            data: None,
            rmws: 0,
            bytes_read: 0,
            bytes_written: 0,
        }
    }

    #[inline]
    pub fn band_of(&self, sector: u32) -> u32 {
        sector / self.band_sectors
    }

    fn band_offset_bytes(&self, band: u32) -> u64 {
        band as u64 * self.band_sectors as u64 * self.sector_bytes as u64
    }

    /// Reads `count` sectors from `sector` on the platter.
    pub fn read(&mut self, ready_ns: Ns, sector: u32, count: u32) -> Ns {
        let bytes = count as u64 * self.sector_bytes as u64;
        self.bytes_read += bytes;
        self.mechanics
            .access(ready_ns, sector as u64 * self.sector_bytes as u64, bytes)
            .done_ns
    }

    /// Copies a sector's bytes from the platter into `out` (zeros if never written).
    pub fn load(&self, sector: u32, out: &mut [u8]) {
        match &self.data {
            Some(d) => d.read(sector as u64, out),
            None => out.fill(0),
        }
    }

    /// Read-modify-write of `band`: reads the whole band, merges `updates`
    /// (sector, bytes if payloads are used), writes the band back track by track.
    /// Returns when the write-back completes.
    pub fn rmw(&mut self, ready_ns: Ns, band: u32, updates: &[(u32, Option<Box<[u8]>>)]) -> Ns {
        let offset = self.band_offset_bytes(band);
        let band_bytes = self.band_sectors as u64 * self.sector_bytes as u64;
        let read_done = self.mechanics.access(ready_ns, offset, band_bytes).done_ns;
        let write_done = self.mechanics.access(read_done, offset, band_bytes).done_ns;
        for (sector, bytes) in updates {
            debug_assert_eq!(self.band_of(*sector), band, "RMW update outside its band");
            if let Some(b) = bytes {
                let sb = self.sector_bytes;
                self.data
                    .get_or_insert_with(|| BlockStore::new(sb))
                    .put(*sector as u64, b.clone());
            }
        }
        self.rmws += 1;
        self.bytes_read += band_bytes;
        self.bytes_written += band_bytes;
        write_done
    }

    pub fn utilisation(&self, elapsed_ns: Ns) -> f64 {
        self.mechanics.utilisation(elapsed_ns)
    }
}

/// Everything an STL works with, plus the cleaning statistics it reports.
pub struct Hardware {
    pub flash: FlashCache,
    pub disk: BandDisk,
    pub cleanings: u64,
    pub cleaning_ns_total: Ns,
    pub cleaning_ns_max: Ns,
}

impl Hardware {
    /// Records one cleaning that ran from `start_ns` to `end_ns`.
    pub fn record_cleaning(&mut self, start_ns: Ns, end_ns: Ns) {
        let d = end_ns.saturating_sub(start_ns);
        self.cleanings += 1;
        self.cleaning_ns_total += d;
        self.cleaning_ns_max = self.cleaning_ns_max.max(d);
    }
}
