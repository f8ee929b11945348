//! The zoned namespace's flat mapping table and its hybrid granularity (§3.3
//! "Hybrid Mapping", Fig. 6). One entry per 4 KiB logical page: unmapped, in the
//! zone's reserved regular blocks (address computed from the offset in the zone,
//! §3.2) or an SLC page. A zone's regular data is always a prefix of the zone
//! (`reg_end`, whole program units), followed by SLC-resident pages, followed by
//! buffered pages. Entries aggregate to a chunk (4 MiB) entry when the chunk lies
//! wholly in regular blocks and to a zone entry when the whole zone does; SLC data
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
    pub policy: MappingPolicy,
    entries: Vec<u64>,
    /// Pages of each zone in regular blocks (a prefix).
    pub reg_end: Vec<u64>,
    /// Pages of each zone in SLC right after `reg_end`.
    pub slc_run: Vec<u64>,
}

impl ZoneMap {
    pub fn new(zones: u32, cap: u64, chunk_pages: u64, policy: MappingPolicy) -> Self {
        Self {
            cap,
            chunk_pages,
            policy,
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
        if self.policy == MappingPolicy::Page || self.get(zone, off) != REGULAR {
            return Gran::Page;
        }
        let reg_end = self.reg_end[zone as usize];
        if reg_end == self.cap {
            Gran::Zone
        } else if (off / self.chunk_pages + 1) * self.chunk_pages <= reg_end {
            Gran::Chunk
        } else {
            Gran::Page
        }
    }

    pub fn chunks_per_zone(&self) -> u64 {
        self.cap.div_ceil(self.chunk_pages)
    }
}
