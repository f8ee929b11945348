//! Regular (TLC) superblocks of the block device: page allocation from a host and
//! a GC frontier, a page-level reverse map and per-superblock valid counts for
//! greedy victim choice.

use super::super::slc::NO_OWNER;
use std::collections::VecDeque;

/// Regular superblocks with a page-level reverse map.
#[derive(Debug)]
pub(super) struct RegularArea {
    pub(super) sb_pages: u64,
    pub(super) p2l: Vec<u64>,
    pub(super) valid: Vec<u64>,
    pub(super) written: Vec<u64>,
    pub(super) full: Vec<bool>,
    pub(super) free: VecDeque<u32>,
    /// Open superblocks: [host, gc].
    pub(super) open: [Option<u32>; 2],
}

impl RegularArea {
    pub(super) fn new(superblocks: u32, sb_pages: u64) -> Self {
        Self {
            sb_pages,
            p2l: vec![NO_OWNER; (superblocks as u64 * sb_pages) as usize],
            valid: vec![0; superblocks as usize],
            written: vec![0; superblocks as usize],
            full: vec![false; superblocks as usize],
            free: (0..superblocks).collect(),
            open: [None, None],
        }
    }

    pub(super) fn alloc(&mut self, stream: usize, lpn: u64) -> Option<u64> {
        let sb = match self.open[stream] {
            Some(sb) => sb,
            None => {
                let sb = self.free.pop_front()?;
                self.open[stream] = Some(sb);
                sb
            }
        };
        let ppn = sb as u64 * self.sb_pages + self.written[sb as usize];
        self.written[sb as usize] += 1;
        self.valid[sb as usize] += 1;
        self.p2l[ppn as usize] = lpn;
        if self.written[sb as usize] == self.sb_pages {
            self.full[sb as usize] = true;
            self.open[stream] = None;
        }
        Some(ppn)
    }

    pub(super) fn invalidate(&mut self, ppn: u64) {
        self.p2l[ppn as usize] = NO_OWNER;
        self.valid[(ppn / self.sb_pages) as usize] -= 1;
    }

    pub(super) fn victim(&self) -> Option<u32> {
        (0..self.valid.len() as u32)
            .filter(|&sb| self.full[sb as usize])
            .min_by_key(|&sb| (self.valid[sb as usize], sb))
    }
}
