//! The zoned namespace's flat mapping table and its hybrid granularity (§3.3
//! "Hybrid Mapping", Fig. 6). One entry per 4 KiB logical page: unmapped, in the
//! zone's reserved regular blocks (address computed from the offset in the zone,
//! §3.2) or an SLC page. A zone's regular data is always a prefix of the zone
//! (`reg_end`, whole program units), followed by SLC-resident pages, followed by
//! buffered pages.
//!
//! Entries aggregate, coarsest first as the reference's `map_type` order
//! (`ssd_config.h:387-396`, `zms_read_write.c:1554-1565`): a zone entry when the
//! whole zone lies in regular blocks; a sub-zone entry (an SLC superblock's worth
//! of the zone, `SUB_ZONE_MAP`) when the sub-zone lies wholly in regular blocks,
//! or — with zone-managed SLC staging every write (`ZONED_SLC && !SLC_BYPASS`,
//! `zms_read_write.c:1318-1329`) — wholly in one SLC superblock in order; a chunk
//! (4 MiB) entry when the chunk lies wholly in regular blocks. Other SLC data
//! stays page-mapped.

use super::config::MappingPolicy;
use super::l2p_cache::Gran;

pub const UNMAPPED: u64 = u64::MAX;
pub const REGULAR: u64 = u64::MAX - 1;

#[derive(Debug)]
pub struct ZoneMap {
    /// Pages of zone capacity.
    pub cap: u64,
    pub chunk_pages: u64,
    /// Pages of a sub-zone (an SLC superblock's capacity).
    pub subzone_pages: u64,
    pub policy: MappingPolicy,
    /// Whether SLC-resident sub-zones aggregate (zone-managed SLC staging all).
    slc_subzones: bool,
    entries: Vec<u64>,
    /// Pages of each zone in regular blocks (a prefix).
    pub reg_end: Vec<u64>,
    /// Pages of each zone in SLC right after `reg_end`.
    pub slc_run: Vec<u64>,
}

impl ZoneMap {
    pub fn new(
        zones: u32,
        cap: u64,
        chunk_pages: u64,
        subzone_pages: u64,
        policy: MappingPolicy,
        slc_subzones: bool,
    ) -> Self {
        Self {
            cap,
            chunk_pages,
            subzone_pages,
            policy,
            slc_subzones,
            entries: vec![UNMAPPED; (zones as u64 * cap) as usize],
            reg_end: vec![0; zones as usize],
            slc_run: vec![0; zones as usize],
        }
    }

    #[inline]
    pub fn get(&self, zone: u32, off: u64) -> u64 {
        self.entries[(zone as u64 * self.cap + off) as usize]
    }

    #[inline]
    pub fn set(&mut self, zone: u32, off: u64, e: u64) {
        self.entries[(zone as u64 * self.cap + off) as usize] = e;
    }

    /// Mapped pages of a zone: regular prefix plus SLC run.
    pub fn mapped(&self, zone: u32) -> u64 {
        self.reg_end[zone as usize] + self.slc_run[zone as usize]
    }

    /// Granularity of the mapping entry covering a mapped page.
    pub fn gran(&self, zone: u32, off: u64) -> Gran {
        if self.policy == MappingPolicy::Page {
            return Gran::Page;
        }
        let reg_end = self.reg_end[zone as usize];
        let e = self.get(zone, off);
        let sz_first = off / self.subzone_pages * self.subzone_pages;
        let sz_end = sz_first + self.subzone_pages;
        if e != REGULAR {
            return if self.slc_subzones && self.slc_subzone_whole(zone, sz_first) {
                Gran::SubZone
            } else {
                Gran::Page
            };
        }
        if reg_end == self.cap {
            Gran::Zone
        } else if sz_end <= reg_end {
            Gran::SubZone
        } else if (off / self.chunk_pages + 1) * self.chunk_pages <= reg_end {
            Gran::Chunk
        } else {
            Gran::Page
        }
    }

    /// Whether sub-zone `[first, first + subzone_pages)` lies wholly in SLC, in
    /// order, in one superblock (SLC page numbers are superblock-major, so equal
    /// superblock and contiguous page numbers mean one reserved superblock).
    fn slc_subzone_whole(&self, zone: u32, first: u64) -> bool {
        let reg_end = self.reg_end[zone as usize];
        let end = first + self.subzone_pages;
        if first < reg_end || end > reg_end + self.slc_run[zone as usize] || end > self.cap {
            return false;
        }
        let (a, b) = (self.get(zone, first), self.get(zone, end - 1));
        a / self.subzone_pages == b / self.subzone_pages && b == a + self.subzone_pages - 1
    }

    pub fn chunks_per_zone(&self) -> u64 {
        self.cap.div_ceil(self.chunk_pages)
    }

    pub fn subzones_per_zone(&self) -> u64 {
        self.cap.div_ceil(self.subzone_pages)
    }

    /// The L2P-cache address of the `gran` entry covering page `off` of `zone`
    /// (zone number, global sub-zone or chunk number, or global page number).
    pub fn entry_address(&self, zone: u32, off: u64, gran: Gran) -> u64 {
        match gran {
            Gran::Zone => zone as u64,
            Gran::SubZone => zone as u64 * self.subzones_per_zone() + off / self.subzone_pages,
            Gran::Chunk => zone as u64 * self.chunks_per_zone() + off / self.chunk_pages,
            Gran::Page => zone as u64 * self.cap + off,
        }
    }
}
