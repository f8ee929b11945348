//! The SLC area (§2.1, §3.2, §3.4): the first n blocks of every chip run in SLC
//! mode (a third of a TLC block's capacity, a quarter of a QLC block's) and form
//! SLC superblocks (one block per chip). Space is allocated page by page (4 KiB
//! partial programming), rotating over the chips one SLC program unit (page ×
//! planes) at a time. Every page records its owner so GC can migrate valid data
//! and a superblock whose pages are all invalid is erased directly.
//!
//! Pages are allocated from an open superblock per *stream*: one shared stream
//! when SLC is managed per page (`pageslc`), one stream per zone (or per
//! sub-zone when every write is staged in SLC, the reference's `SUB_ZONE_MAP`
//! reservation) when it is managed per zone (`zonedslc`, §6.5), so a zone's SLC
//! data never shares a superblock with another zone's.
//!
//! Victims: SLC GC (TLC, writes bypass SLC) takes the full superblock with the
//! fewest valid pages (reference `select_victim_line`, `zms_read_write.c:1343`);
//! migration (QLC, everything staged) takes the oldest fully written one
//! (reference `get_migrate_line`, a FIFO by write order, `zms_read_write.c:
//! 1789-1811`; lines enter it when fully written, 1538-1546).

use std::collections::VecDeque;

/// No owner: the page is free or invalid.
pub const NO_OWNER: u64 = u64::MAX;

/// Owner tag of an SLC page: namespace and logical page.
#[inline]
pub fn owner(ns: u8, lpn: u64) -> u64 {
    ((ns as u64) << 56) | lpn
}

#[inline]
pub fn owner_ns(o: u64) -> u8 {
    (o >> 56) as u8
}

#[inline]
pub fn owner_lpn(o: u64) -> u64 {
    o & ((1 << 56) - 1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SbState {
    Free,
    Open,
    Full,
}

/// SLC superblocks of one namespace.
#[derive(Debug)]
pub struct SlcArea {
    chips: u32,
    unit_pages: u64,
    sb_pages: u64,
    owner: Vec<u64>,
    valid: Vec<u64>,
    written: Vec<u64>,
    state: Vec<SbState>,
    free: VecDeque<u32>,
    /// Open superblock of each stream, by stream id (few streams: a small Vec).
    open: Vec<(u64, u32)>,
    /// Order in which each superblock became full (reference `write_order`).
    full_order: Vec<u64>,
    next_order: u64,
    /// Superblocks erased because all their pages were invalid (no copy).
    pub direct_erases: u64,
    /// Superblocks erased by GC after migrating their valid pages.
    pub gc_erases: u64,
}

impl SlcArea {
    /// `superblocks` SLC superblocks of `chips` blocks of `block_pages` pages each.
    pub fn new(superblocks: u32, chips: u32, block_pages: u64, unit_pages: u64) -> Self {
        let sb_pages = block_pages * chips as u64;
        Self {
            chips,
            unit_pages,
            sb_pages,
            owner: vec![NO_OWNER; (sb_pages * superblocks as u64) as usize],
            valid: vec![0; superblocks as usize],
            written: vec![0; superblocks as usize],
            state: vec![SbState::Free; superblocks as usize],
            free: (0..superblocks).collect(),
            open: Vec::new(),
            full_order: vec![0; superblocks as usize],
            next_order: 0,
            direct_erases: 0,
            gc_erases: 0,
        }
    }

    pub fn superblocks(&self) -> u32 {
        self.valid.len() as u32
    }

    pub fn sb_pages(&self) -> u64 {
        self.sb_pages
    }

    /// Free superblocks (not counting the open one's remaining space).
    pub fn free_count(&self) -> u32 {
        self.free.len() as u32
    }

    pub fn valid_pages_total(&self) -> u64 {
        self.valid.iter().sum()
    }

    #[inline]
    pub fn chip_of(&self, ppn: u64) -> u32 {
        ((ppn % self.sb_pages / self.unit_pages) % self.chips as u64) as u32
    }

    /// Flash page (chip-local SLC program unit) holding `ppn`, for grouping reads.
    #[inline]
    pub fn flash_page_of(&self, ppn: u64) -> u64 {
        ppn / self.unit_pages
    }

    #[inline]
    pub fn owner_of(&self, ppn: u64) -> u64 {
        self.owner[ppn as usize]
    }

    /// Allocates the next page for `owner` in `stream`'s open superblock (opening
    /// a free one if needed); `None` when no space is left.
    pub fn alloc(&mut self, owner: u64, stream: u64) -> Option<u64> {
        let sb = match self.open.iter().find(|o| o.0 == stream) {
            Some(&(_, sb)) => sb,
            None => {
                let sb = self.free.pop_front()?;
                self.state[sb as usize] = SbState::Open;
                self.open.push((stream, sb));
                sb
            }
        };
        let ppn = sb as u64 * self.sb_pages + self.written[sb as usize];
        self.written[sb as usize] += 1;
        self.valid[sb as usize] += 1;
        self.owner[ppn as usize] = owner;
        if self.written[sb as usize] == self.sb_pages {
            self.open.retain(|o| o.1 != sb);
            self.close(sb);
        }
        Some(ppn)
    }

    /// Closes `stream`'s open superblock (its zone was reset). Returns it if it
    /// holds no valid page, for the caller to erase (`erase_done`).
    pub fn close_stream(&mut self, stream: u64) -> Option<u32> {
        let i = self.open.iter().position(|o| o.0 == stream)?;
        let (_, sb) = self.open.remove(i);
        self.close(sb);
        (self.valid[sb as usize] == 0).then_some(sb)
    }

    fn close(&mut self, sb: u32) {
        self.state[sb as usize] = SbState::Full;
        self.next_order += 1;
        self.full_order[sb as usize] = self.next_order;
    }

    /// Invalidates `ppn`. Returns the superblock if it is now full and holds no
    /// valid page (the caller erases it with [`erase_done`](Self::erase_done)).
    pub fn invalidate(&mut self, ppn: u64) -> Option<u32> {
        debug_assert_ne!(self.owner[ppn as usize], NO_OWNER);
        self.owner[ppn as usize] = NO_OWNER;
        let sb = (ppn / self.sb_pages) as u32;
        self.valid[sb as usize] -= 1;
        (self.state[sb as usize] == SbState::Full && self.valid[sb as usize] == 0).then_some(sb)
    }

    /// GC victim: the full superblock with the fewest valid pages (lowest id on ties).
    pub fn victim(&self) -> Option<u32> {
        (0..self.superblocks())
            .filter(|&sb| self.state[sb as usize] == SbState::Full)
            .min_by_key(|&sb| (self.valid[sb as usize], sb))
    }

    /// Migration victim: the full superblock that became full first (FIFO).
    pub fn oldest_full(&self) -> Option<u32> {
        (0..self.superblocks())
            .filter(|&sb| self.state[sb as usize] == SbState::Full)
            .min_by_key(|&sb| (self.full_order[sb as usize], sb))
    }

    /// Superblock holding SLC page `ppn`.
    #[inline]
    pub fn superblock_of(&self, ppn: u64) -> u32 {
        (ppn / self.sb_pages) as u32
    }

    /// Valid pages of `sb`, in page order.
    pub fn valid_in(&self, sb: u32) -> Vec<u64> {
        let first = sb as u64 * self.sb_pages;
        (first..first + self.written[sb as usize])
            .filter(|&p| self.owner[p as usize] != NO_OWNER)
            .collect()
    }

    pub fn is_full(&self, sb: u32) -> bool {
        self.state[sb as usize] == SbState::Full
    }

    pub fn valid_count(&self, sb: u32) -> u64 {
        self.valid[sb as usize]
    }

    /// `sb` was erased: it returns to the free pool.
    pub fn erase_done(&mut self, sb: u32, by_gc: bool) {
        debug_assert_eq!(self.valid[sb as usize], 0);
        if by_gc {
            self.gc_erases += 1;
        } else {
            self.direct_erases += 1;
        }
        self.written[sb as usize] = 0;
        self.state[sb as usize] = SbState::Free;
        self.open.retain(|o| o.1 != sb);
        self.free.push_back(sb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_rotate_over_chips_per_unit_and_full_invalid_superblocks_are_reported() {
        let mut s = SlcArea::new(2, 2, 4, 2);
        let pages: Vec<u64> = (0..8).map(|i| s.alloc(owner(0, i), 0).unwrap()).collect();
        let chips: Vec<u32> = pages.iter().map(|&p| s.chip_of(p)).collect();
        assert_eq!(chips, vec![0, 0, 1, 1, 0, 0, 1, 1]);
        assert_eq!(s.free_count(), 1);
        for &p in &pages[..7] {
            assert_eq!(s.invalidate(p), None);
        }
        assert_eq!(s.invalidate(pages[7]), Some(0));
        s.erase_done(0, false);
        assert_eq!(s.free_count(), 2);
        assert_eq!(s.direct_erases, 1);
        // Per-stream superblocks: two streams never share one.
        let a = s.alloc(owner(0, 100), 1).unwrap();
        let b = s.alloc(owner(0, 200), 2).unwrap();
        assert_ne!(a / s.sb_pages(), b / s.sb_pages());
        s.invalidate(a);
        assert_eq!(s.close_stream(1), Some((a / s.sb_pages()) as u32));
    }

    #[test]
    fn gc_victim_is_the_full_superblock_with_fewest_valid_pages() {
        let mut s = SlcArea::new(4, 1, 4, 1);
        let pages: Vec<u64> = (0..12).map(|i| s.alloc(owner(0, i), 0).unwrap()).collect();
        // Superblocks 0, 1, 2 are full; invalidate 1 page of sb 0 and 3 of sb 1.
        s.invalidate(pages[0]);
        for &p in &pages[4..7] {
            s.invalidate(p);
        }
        assert_eq!(s.victim(), Some(1));
        assert_eq!(s.valid_in(1), vec![pages[7]]);
        // The open superblock is never a victim.
        let _ = s.alloc(owner(0, 99), 0).unwrap();
        assert_eq!(s.victim(), Some(1));
        // The migration victim is the oldest full superblock, whatever its
        // valid count.
        assert_eq!(s.oldest_full(), Some(0));
    }
}
