//! The memory model's state: one entry per anonymous page (its PTE: resident or
//! the swap slot it is in), the LRU of resident pages, and frame accounting
//! against the cgroup limit — resident pages plus pages under swap-out writeback
//! (a page's frame is freed only when its write completes, as in Linux, where a
//! page stays in the swap cache until writeback ends).

use super::backend::IoEvents;
use super::lru::Lru;
use super::{PageId, Slot, NONE};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonelab_engine::Ns;

/// Write of a page still in a bio list (completion not known yet).
pub const PENDING_NS: Ns = Ns::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageState {
    /// Never touched: the first touch allocates a zeroed frame.
    Untouched,
    Resident,
    /// Not mapped; the content is in `slot`.
    Swapped,
}

/// A page's entry (its page-table entry plus the swap bookkeeping of the model).
#[derive(Debug, Clone, Copy)]
pub struct PageEntry {
    pub state: PageState,
    /// Modified since it was last read from / written to its slot.
    pub dirty: bool,
    /// Swap slot holding the content (NONE = none). A resident clean page keeps
    /// its slot (swap cache) until it is written.
    pub slot: Slot,
    /// Incremented by every write access: the content's identity.
    pub version: u32,
    /// Swap-outs with a write so far (identifies a writeback).
    pub wb_gen: u32,
    /// When the last swap-out write completes (PENDING_NS while in a bio list).
    pub wb_done_ns: Ns,
    /// GC relocation in progress: old slot and the window in which GC holds the
    /// page in memory.
    pub gc_old_slot: Slot,
    pub gc_read_done_ns: Ns,
    pub gc_write_done_ns: Ns,
    /// Brought in by readahead and not touched since.
    pub readahead: bool,
}

impl Default for PageEntry {
    fn default() -> Self {
        Self {
            state: PageState::Untouched,
            dirty: false,
            slot: NONE,
            version: 0,
            wb_gen: 0,
            wb_done_ns: 0,
            gc_old_slot: NONE,
            gc_read_done_ns: 0,
            gc_write_done_ns: 0,
            readahead: false,
        }
    }
}

/// Pages, LRU and frames.
pub struct Memory {
    pub pages: Vec<PageEntry>,
    pub lru: Lru,
    pub limit_pages: u32,
    pub resident: u32,
    /// Frames held by pages under swap-out writeback.
    pub writeback: u32,
    wb_heap: BinaryHeap<Reverse<(Ns, PageId, u32)>>,
    /// GC moves applied to page tables.
    pub gc_moves_applied: u64,
}

impl Memory {
    pub fn new(pages: u32, limit_pages: u32) -> Self {
        Self {
            pages: vec![PageEntry::default(); pages as usize],
            lru: Lru::new(pages),
            limit_pages,
            resident: 0,
            writeback: 0,
            wb_heap: BinaryHeap::new(),
            gc_moves_applied: 0,
        }
    }

    pub fn free_frames(&self) -> u32 {
        self.limit_pages
            .saturating_sub(self.resident + self.writeback)
    }

    /// Frees the frames of writebacks completed by `now_ns`.
    pub fn release_writeback(&mut self, now_ns: Ns) {
        while let Some(&Reverse((done, page, gen))) = self.wb_heap.peek() {
            if done > now_ns {
                break;
            }
            self.wb_heap.pop();
            let e = &mut self.pages[page as usize];
            if e.state == PageState::Swapped && e.wb_gen == gen && e.wb_done_ns == done {
                self.writeback -= 1;
            }
        }
    }

    /// Earliest writeback completion still outstanding.
    pub fn next_writeback_ns(&self) -> Option<Ns> {
        self.wb_heap.peek().map(|r| r.0 .0)
    }

    /// Applies what a back-end call reported: write completions and GC moves.
    pub fn apply(&mut self, ev: &mut IoEvents) {
        for &(done, page, slot) in &ev.written {
            let e = &mut self.pages[page as usize];
            if e.state == PageState::Swapped && e.slot == slot && e.wb_done_ns == PENDING_NS {
                e.wb_done_ns = done;
                self.wb_heap.push(Reverse((done, page, e.wb_gen)));
            }
        }
        for m in &ev.moves {
            let e = &mut self.pages[m.page as usize];
            if e.slot == m.old_slot {
                e.slot = m.new_slot;
                e.gc_old_slot = m.old_slot;
                e.gc_read_done_ns = m.read_done_ns;
                e.gc_write_done_ns = m.write_done_ns;
                self.gc_moves_applied += 1;
            }
        }
        ev.clear();
    }

    /// Checks the page table against a reverse map: every swapped page's slot is
    /// owned by it (tests).
    pub fn check_against(&self, owner: impl Fn(Slot) -> Option<PageId>) -> Result<(), String> {
        for (p, e) in self.pages.iter().enumerate() {
            if e.state == PageState::Swapped && owner(e.slot) != Some(p as PageId) {
                return Err(format!(
                    "page {p} is swapped to slot {} but the reverse map says {:?}",
                    e.slot,
                    owner(e.slot)
                ));
            }
            if e.state == PageState::Resident
                && e.slot != NONE
                && owner(e.slot) != Some(p as PageId)
            {
                return Err(format!(
                    "resident page {p} keeps slot {} owned by {:?}",
                    e.slot,
                    owner(e.slot)
                ));
            }
        }
        Ok(())
    }
}
