//! The run loop: workload threads and a background swap-zone GC actor in virtual
//! time, each step taken by the actor with the earliest time (ties: lowest id).
//!
//! A thread's access to a page:
//! - resident: an LRU touch; a write dirties the page and frees its swap slot (a
//!   slot becomes invalid when its page is written after swap-in, as Linux frees
//!   the swap entry on a write fault);
//! - untouched: first touch, a zeroed frame;
//! - swapped: a swap-cache hit (minor fault) if its swap-out write has not
//!   completed; a minor fault if GC holds it in memory and updates page tables
//!   (ZNSage §4.4), else a **GC-induced fault** reading the victim zone; otherwise a
//!   major fault reading the slot plus a readahead window of neighbouring slots
//!   (Linux `swapin_nr_pages`: the window grows with readahead hits, up to
//!   2^page_cluster, and is 1 for non-sequential faults without hits).
//!
//! CPU: thread `t` runs on core `t mod cores`; every piece of CPU work (an access,
//! a fault's handling, reclaim, the block layer's submission and completion of a
//! request, spinning on the I/O scheduler's lock, GC's page-table updates) is
//! placed on a core's timeline ([`super::host::Cores`]), so threads sharing a core,
//! completion interrupts and the GC kthread compete for it.
//!
//! Frames: when resident + writeback pages would exceed the limit, the faulting
//! thread reclaims (direct reclaim): it takes `reclaim_batch_pages` pages from the
//! LRU tail, drops clean ones that still have a valid slot, and swaps out the rest
//! sorted by page (adjacent pages get adjacent slots, as Linux's sequential slot
//! allocation gives pages reclaimed together); then it waits for the earliest
//! writeback to complete if still short.

use super::backend::{IoEvents, PageTag, SwapBackend};
use super::config::MemoryConfig;
use super::error::SwapError;
use super::host::{Cores, CpuKind, HostStats};
use super::memory::{Memory, PageState, PENDING_NS};
use super::workloads::{Access, Workload};
use super::{PageId, Slot, NONE};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonelab_engine::Ns;

/// Counters of one run (one workload phase).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SwapRunStats {
    pub start_ns: Ns,
    pub end_ns: Ns,
    pub accesses: u64,
    pub ops: u64,
    pub zero_fills: u64,
    pub minor_faults: u64,
    pub major_faults: u64,
    pub swapcache_hits: u64,
    pub readahead_pages: u64,
    pub readahead_hits: u64,
    /// Faults on pages GC held in memory that read the victim zone (no page-table
    /// update, §4.4).
    pub gc_induced_faults: u64,
    /// Faults on pages GC held in memory served from memory (page-table update).
    pub gc_faults_avoided: u64,
    pub clean_drops: u64,
    pub swap_out_pages: u64,
    pub swap_in_pages: u64,
    pub gc_copied_pages: u64,
    pub gc_victims: u64,
    pub reclaim_waits: u64,
    /// Payload mode: pages whose swapped-in content was checked ...
    pub verified_pages: u64,
    /// ... and those that came back with other content than last swapped out.
    pub verify_mismatches: u64,
    pub first_mismatch: Option<String>,
    /// CPU time reserved on all cores during the run (threads, block layer, GC).
    pub cpu_busy_ns: u64,
    /// The back end's host block-path counters during the run.
    pub host: HostStats,
}

impl SwapRunStats {
    pub fn elapsed_ns(&self) -> Ns {
        self.end_ns - self.start_ns
    }
}

/// Outcome of a thread step.
enum Step {
    Done(Ns),
    Wait(Ns),
}

/// Readahead state (Linux `swapin_readahead_hits`, `prev_offset`, `last_readahead_pages`).
#[derive(Debug, Clone, Copy, Default)]
struct Readahead {
    hits: u32,
    prev_slot: Slot,
    last_pages: u32,
}

pub struct SwapSim {
    cfg: MemoryConfig,
    backend: Box<dyn SwapBackend>,
    pub mem: Memory,
    ev: IoEvents,
    slots_buf: Vec<Slot>,
    tags_buf: Vec<PageTag>,
    ra: Readahead,
    verify: bool,
    stats: SwapRunStats,
    cores: Cores,
    /// Where the current step's CPU work has got to on its core.
    cursor_ns: Ns,
    clock_ns: Ns,
    gc_next_ns: Option<Ns>,
    /// Slots freed so far (a free can give GC a victim again).
    slot_frees: u64,
    /// `slot_frees` when GC last found nothing to collect although it was wanted.
    gc_stalled_at_frees: Option<u64>,
}

const GC_ACTOR: u32 = u32::MAX;

impl SwapSim {
    /// A memory of `pages` anonymous pages under `cfg.limit_pages`, swapping to
    /// `backend`. `verify`: check every swapped-in page's content (payload mode).
    pub fn new(
        cfg: MemoryConfig,
        pages: u32,
        backend: Box<dyn SwapBackend>,
        verify: bool,
    ) -> Result<Self, SwapError> {
        cfg.validate()?;
        if pages == 0 || pages == NONE {
            return Err(super::error::bad_config(
                "workload.pages",
                pages,
                "1..4294967295",
            ));
        }
        let limit = cfg.limit_pages;
        let cores = Cores::new(cfg.cores);
        Ok(Self {
            cfg,
            backend,
            mem: Memory::new(pages, limit),
            ev: IoEvents::default(),
            slots_buf: Vec::new(),
            tags_buf: Vec::new(),
            ra: Readahead {
                prev_slot: NONE,
                ..Default::default()
            },
            verify,
            stats: SwapRunStats::default(),
            cores,
            cursor_ns: 0,
            clock_ns: 0,
            gc_next_ns: None,
            slot_frees: 0,
            gc_stalled_at_frees: None,
        })
    }

    pub fn backend(&self) -> &dyn SwapBackend {
        self.backend.as_ref()
    }

    pub fn now_ns(&self) -> Ns {
        self.clock_ns
    }

    /// Runs `w` to the end from the current clock; returns its counters.
    pub fn run(&mut self, w: &mut dyn Workload) -> Result<SwapRunStats, SwapError> {
        self.stats = SwapRunStats {
            start_ns: self.clock_ns,
            ..Default::default()
        };
        let b0 = self.backend.stats();
        let h0 = self.backend.host_stats();
        let cpu0 = self.cores.busy_ns();
        let threads = w.threads();
        let mut heap: BinaryHeap<Reverse<(Ns, u32)>> = BinaryHeap::new();
        for t in 0..threads {
            heap.push(Reverse((self.clock_ns, t)));
        }
        let mut current: Vec<Option<Access>> = vec![None; threads as usize];
        let mut live = threads;
        let mut end = self.clock_ns;
        if let Some(g) = self.gc_next_ns {
            heap.push(Reverse((g.max(self.clock_ns), GC_ACTOR)));
        }
        while let Some(Reverse((now, actor))) = heap.pop() {
            self.clock_ns = self.clock_ns.max(now);
            self.cores.forget_before(now);
            self.backend.forget_before(now);
            if actor == GC_ACTOR {
                self.gc_next_ns = None;
                if live == 0 {
                    self.gc_next_ns = Some(now);
                    continue;
                }
                if self.backend.gc_wanted() {
                    // The GC kthread is unbound: it runs where the CPU frees first.
                    let core = self.cores.least_busy();
                    self.cursor_ns = now;
                    match self.backend.gc_step(now, &mut self.ev)? {
                        Some(next) => {
                            let cpu_end = self.place_cpu(core);
                            self.mem.apply(&mut self.ev);
                            let next = next.max(cpu_end).max(now + 1);
                            self.gc_next_ns = Some(next);
                            self.gc_stalled_at_frees = None;
                            heap.push(Reverse((next, GC_ACTOR)));
                        }
                        None => {
                            self.place_cpu(core);
                            self.gc_stalled_at_frees = Some(self.slot_frees);
                        }
                    }
                }
                continue;
            }
            let a = match current[actor as usize].take() {
                Some(a) => a,
                None => match w.next(actor) {
                    Some(a) => a,
                    None => {
                        live -= 1;
                        end = end.max(now);
                        continue;
                    }
                },
            };
            if a.page as usize >= self.mem.pages.len() {
                return Err(super::error::bad_config(
                    "workload.page",
                    a.page,
                    &format!(
                        "below the {} pages the run was set up with",
                        self.mem.pages.len()
                    ),
                ));
            }
            match self.step(actor, now, a)? {
                Step::Done(t) => {
                    self.stats.accesses += 1;
                    if a.ends_op {
                        self.stats.ops += 1;
                    }
                    heap.push(Reverse((t, actor)));
                }
                Step::Wait(t) => {
                    current[actor as usize] = Some(a);
                    heap.push(Reverse((t.max(now + 1), actor)));
                }
            }
            if self.gc_next_ns.is_none() && !self.gc_stalled() && self.backend.gc_wanted() {
                self.gc_next_ns = Some(now);
                heap.push(Reverse((now, GC_ACTOR)));
            }
        }
        self.stats.end_ns = end;
        self.clock_ns = self.clock_ns.max(end);
        let b1 = self.backend.stats();
        self.stats.swap_out_pages = b1.swap_out_pages - b0.swap_out_pages;
        self.stats.swap_in_pages = b1.swap_in_pages - b0.swap_in_pages;
        self.stats.gc_copied_pages = b1.gc_copied_pages - b0.gc_copied_pages;
        self.stats.gc_victims = b1.gc_victims - b0.gc_victims;
        self.stats.host = self.backend.host_stats().since(&h0);
        self.stats.cpu_busy_ns = self.cores.busy_ns() - cpu0;
        Ok(self.stats.clone())
    }

    /// GC found nothing to collect and no slot was freed since.
    fn gc_stalled(&self) -> bool {
        self.gc_stalled_at_frees == Some(self.slot_frees)
    }

    /// Checks the page table against the back end's reverse map (tests).
    pub fn check_consistency(&self) -> Result<(), String> {
        self.backend.check_consistency()?;
        self.mem.check_against(|s| self.backend.owner(s))?;
        let swapped_or_cached = self
            .mem
            .pages
            .iter()
            .filter(|e| e.slot != NONE && e.state != PageState::Untouched)
            .count() as u64;
        if swapped_or_cached != self.backend.valid_slots() {
            return Err(format!(
                "{swapped_or_cached} pages hold a slot but the back end has {} valid slots",
                self.backend.valid_slots()
            ));
        }
        Ok(())
    }

    /// Runs `duration_ns` of the current step's CPU work on `core`; returns its end.
    fn cpu(&mut self, core: u32, duration_ns: Ns) -> Ns {
        self.cursor_ns = self.cores.run(core, self.cursor_ns, duration_ns);
        self.cursor_ns
    }

    /// Places the CPU work of the last back-end call on `core`: the caller's own
    /// work (submission, lock spinning, GC's page-table walk) continues its cursor;
    /// completion interrupts run at their time. Returns when the last interrupt the
    /// caller waits for ends (the cursor if none).
    fn place_cpu(&mut self, core: u32) -> Ns {
        let mut wake = self.cursor_ns;
        for item in std::mem::take(&mut self.ev.cpu) {
            match item.kind {
                CpuKind::Sync => {
                    let ready = self.cursor_ns.max(item.ready_ns);
                    self.cursor_ns = self.cores.run(core, ready, item.duration_ns);
                    wake = wake.max(self.cursor_ns);
                }
                CpuKind::Wakeup => {
                    let end = self.cores.run(core, item.ready_ns, item.duration_ns);
                    wake = wake.max(end);
                }
                CpuKind::Deferred => {
                    self.cores.run(core, item.ready_ns, item.duration_ns);
                }
            }
        }
        wake
    }

    fn step(&mut self, thread: u32, now: Ns, a: Access) -> Result<Step, SwapError> {
        self.mem.release_writeback(now);
        let core = thread % self.cfg.cores;
        self.cursor_ns = now;
        let p = a.page as usize;
        let e = self.mem.pages[p];
        match e.state {
            PageState::Resident => {
                if e.readahead {
                    self.ra.hits += 1;
                    self.stats.readahead_hits += 1;
                    self.mem.pages[p].readahead = false;
                }
            }
            PageState::Untouched => {
                if let Some(w) = self.get_frames(thread, now, 1)? {
                    return Ok(Step::Wait(w.max(self.cursor_ns)));
                }
                self.mem.resident += 1;
                let e = &mut self.mem.pages[p];
                e.state = PageState::Resident;
                e.dirty = true;
                self.stats.zero_fills += 1;
                self.cpu(core, self.cfg.zero_fill_ns);
            }
            PageState::Swapped if e.wb_done_ns > now => {
                // Still under writeback: the page is in the swap cache. Its write
                // may not have reached the device, so the slot is given up and the
                // page counts as dirty.
                self.mem.writeback -= 1;
                self.mem.resident += 1;
                self.backend.free(now, e.slot)?;
                self.slot_frees += 1;
                let e = &mut self.mem.pages[p];
                e.state = PageState::Resident;
                e.dirty = true;
                e.slot = NONE;
                self.stats.minor_faults += 1;
                self.stats.swapcache_hits += 1;
                self.cpu(core, self.cfg.minor_fault_ns);
            }
            PageState::Swapped if e.gc_read_done_ns <= now && now < e.gc_write_done_ns => {
                if let Some(w) = self.get_frames(thread, now, 1)? {
                    return Ok(Step::Wait(w.max(self.cursor_ns)));
                }
                if self.backend.gc_updates_page_table() {
                    self.stats.minor_faults += 1;
                    self.stats.gc_faults_avoided += 1;
                    self.map_in(p, false);
                    self.cpu(core, self.cfg.minor_fault_ns);
                } else {
                    // The PTE still names the victim slot: read it from there.
                    self.stats.major_faults += 1;
                    self.stats.gc_induced_faults += 1;
                    let old = e.gc_old_slot;
                    self.cpu(core, self.cfg.major_fault_cpu_ns);
                    let mut tags = std::mem::take(&mut self.tags_buf);
                    tags.clear();
                    let t =
                        self.backend
                            .read(self.cursor_ns, old, 1, Some(&mut tags), &mut self.ev)?;
                    self.check_tags(&[a.page], &tags);
                    self.tags_buf = tags;
                    self.cursor_ns = self.place_cpu(core).max(t);
                    self.map_in(p, false);
                }
            }
            PageState::Swapped => {
                if let Step::Wait(w) = self.major_fault(thread, now, a.page)? {
                    return Ok(Step::Wait(w.max(self.cursor_ns)));
                }
            }
        }
        // The access itself on the CPU; the thread's think time (a KV client's
        // network round trip) uses no core.
        let done = self.cpu(core, self.cfg.access_ns) + a.think_ns;
        self.mem.lru.touch(a.page);
        if a.write {
            let e = &mut self.mem.pages[p];
            e.version = e.version.wrapping_add(1);
            e.dirty = true;
            if e.slot != NONE {
                let s = e.slot;
                e.slot = NONE;
                self.backend.free(now, s)?;
                self.slot_frees += 1;
            }
        }
        Ok(Step::Done(done))
    }

    /// Maps a swapped page in as a clean swap-cache page that keeps its slot.
    fn map_in(&mut self, p: usize, readahead: bool) {
        self.mem.resident += 1;
        let e = &mut self.mem.pages[p];
        e.state = PageState::Resident;
        e.dirty = false;
        e.readahead = readahead;
    }

    fn check_tags(&mut self, pages: &[PageId], tags: &[PageTag]) {
        if !self.verify {
            return;
        }
        for (i, &pg) in pages.iter().enumerate() {
            self.stats.verified_pages += 1;
            let want = PageTag {
                page: pg,
                version: self.mem.pages[pg as usize].version,
            };
            let got = tags.get(i).copied();
            if got != Some(want) {
                self.stats.verify_mismatches += 1;
                if self.stats.first_mismatch.is_none() {
                    self.stats.first_mismatch = Some(format!(
                        "page {pg}: expected {want:?}, swap-in returned {got:?}"
                    ));
                }
            }
        }
    }

    /// Readahead window size for a fault at `slot` (Linux `__swapin_nr_pages`).
    fn window(&mut self, slot: Slot) -> u32 {
        let max_pages = 1u32 << self.cfg.page_cluster;
        let hits = std::mem::take(&mut self.ra.hits);
        let mut pages = hits + 2;
        if pages == 2 {
            let prev = self.ra.prev_slot;
            if prev == NONE || (slot != prev.wrapping_add(1) && slot.wrapping_add(1) != prev) {
                pages = 1;
            }
        } else {
            pages = pages.next_power_of_two();
        }
        pages = pages.min(max_pages);
        let last = self.ra.last_pages;
        if pages < last / 2 {
            pages = last / 2;
        }
        self.ra.last_pages = pages;
        self.ra.prev_slot = slot;
        pages.max(1)
    }

    /// A major fault on `page`: reads its slot and a readahead window, one request
    /// per run of consecutive slots; the thread waits for all of them. Done(t) =
    /// the thread's cursor when the pages are mapped.
    fn major_fault(&mut self, thread: u32, now: Ns, page: PageId) -> Result<Step, SwapError> {
        let core = thread % self.cfg.cores;
        let slot = self.mem.pages[page as usize].slot;
        let win = self.window(slot);
        // Slots to read: the faulting one and readahead candidates in the aligned window.
        let mut sel: Vec<(Slot, PageId)> = vec![(slot, page)];
        if win > 1 {
            let start = slot - slot % win;
            let end = (start as u64 + win as u64).min(self.backend.slot_space()) as Slot;
            for s in start..end {
                if s == slot {
                    continue;
                }
                if let Some(q) = self.backend.owner(s) {
                    let e = &self.mem.pages[q as usize];
                    let in_gc = e.gc_read_done_ns <= now && now < e.gc_write_done_ns;
                    if e.state == PageState::Swapped && e.slot == s && e.wb_done_ns <= now && !in_gc
                    {
                        sel.push((s, q));
                    }
                }
            }
            sel.sort_unstable();
        }
        if let Some(w) = self.get_frames(thread, now, sel.len() as u32)? {
            // Give back the window decision: the fault is retried.
            return Ok(Step::Wait(w));
        }
        // Fault entry, swap-cache pages, readahead set-up (before the reads).
        self.cpu(core, self.cfg.major_fault_cpu_ns);
        let mut done = self.cursor_ns;
        let mut tags = std::mem::take(&mut self.tags_buf);
        let mut i = 0;
        while i < sel.len() {
            let mut j = i + 1;
            while j < sel.len()
                && sel[j].0 == sel[j - 1].0 + 1
                && self.backend.contiguous(sel[j - 1].0)
            {
                j += 1;
            }
            tags.clear();
            let t = self.backend.read(
                self.cursor_ns,
                sel[i].0,
                (j - i) as u32,
                Some(&mut tags),
                &mut self.ev,
            )?;
            let pages: Vec<PageId> = sel[i..j].iter().map(|&(_, q)| q).collect();
            self.check_tags(&pages, &tags);
            done = done.max(t).max(self.place_cpu(core));
            i = j;
        }
        self.tags_buf = tags;
        for &(_, q) in &sel {
            let ra = q != page;
            self.map_in(q as usize, ra);
            if ra {
                self.mem.lru.touch(q);
                self.stats.readahead_pages += 1;
            }
        }
        self.stats.major_faults += 1;
        self.cursor_ns = done;
        Ok(Step::Done(done))
    }

    /// Makes room for `n` frames; Some(t) = wait until t and retry.
    fn get_frames(&mut self, thread: u32, now: Ns, n: u32) -> Result<Option<Ns>, SwapError> {
        let core = thread % self.cfg.cores;
        loop {
            self.mem.release_writeback(now);
            if self.mem.free_frames() >= n {
                return Ok(None);
            }
            if self.mem.writeback < self.cfg.max_writeback_pages && !self.mem.lru.is_empty() {
                let batch = self.cfg.reclaim_batch_pages.min(self.mem.lru.len());
                if self.backend.can_accept(core, batch) {
                    self.reclaim(core, batch)?;
                    continue;
                }
                // Swap zones exhausted: wait for GC.
                self.stats.reclaim_waits += 1;
                return match self.gc_next_ns {
                    Some(g) => Ok(Some(g.max(now + 1))),
                    None if !self.gc_stalled() && self.backend.gc_wanted() => {
                        // GC will be scheduled after this step; retry shortly.
                        Ok(Some(self.mem.next_writeback_ns().unwrap_or(now + 1)))
                    }
                    // GC has nothing to collect: only a writeback completing
                    // (and other threads freeing slots) can help.
                    None => match self.mem.next_writeback_ns() {
                        Some(t) => Ok(Some(t)),
                        None => Err(SwapError::GcStuck {
                            backend: self.backend.name(),
                        }),
                    },
                };
            }
            self.stats.reclaim_waits += 1;
            if let Some(t) = self.mem.next_writeback_ns() {
                return Ok(Some(t));
            }
            if self.mem.writeback > 0 {
                // Everything is in bio lists: submit them.
                self.backend.flush(self.cursor_ns, &mut self.ev)?;
                self.place_cpu(core);
                self.mem.apply(&mut self.ev);
                if self.mem.next_writeback_ns().is_none() {
                    return Err(SwapError::GcStuck {
                        backend: self.backend.name(),
                    });
                }
                continue;
            }
            return Err(super::error::bad_config(
                "memory.limit_pages",
                self.cfg.limit_pages,
                "enough for one fault's pages (raise it or lower page_cluster)",
            ));
        }
    }

    /// Reclaims up to `batch` pages from the LRU tail on `core`, from the step's cursor.
    fn reclaim(&mut self, core: u32, batch: u32) -> Result<(), SwapError> {
        let mut to_write: Vec<PageId> = Vec::with_capacity(batch as usize);
        for _ in 0..batch {
            let Some(q) = self.mem.lru.pop_lru() else {
                break;
            };
            let e = &mut self.mem.pages[q as usize];
            e.readahead = false;
            if !e.dirty && e.slot != NONE {
                // Clean with a valid slot: drop it, no I/O.
                e.state = PageState::Swapped;
                e.wb_done_ns = 0;
                self.mem.resident -= 1;
                self.stats.clean_drops += 1;
            } else {
                to_write.push(q);
            }
        }
        if to_write.is_empty() {
            return Ok(());
        }
        to_write.sort_unstable();
        // Unmap, swap-cache insertion, slot allocation (before the writes).
        self.cpu(
            core,
            self.cfg.reclaim_cpu_per_page_ns * to_write.len() as u64,
        );
        let tags: Vec<PageTag> = to_write
            .iter()
            .map(|&q| PageTag {
                page: q,
                version: self.mem.pages[q as usize].version,
            })
            .collect();
        self.slots_buf.clear();
        let mut slots = std::mem::take(&mut self.slots_buf);
        let r = self
            .backend
            .swap_out(self.cursor_ns, core, &tags, &mut slots, &mut self.ev);
        if let Err(e) = r {
            self.slots_buf = slots;
            return Err(e);
        }
        for (i, &q) in to_write.iter().enumerate() {
            let e = &mut self.mem.pages[q as usize];
            debug_assert_eq!(e.slot, NONE, "a dirty page holds no slot");
            e.slot = slots[i];
            e.state = PageState::Swapped;
            e.dirty = false;
            e.wb_gen = e.wb_gen.wrapping_add(1);
            e.wb_done_ns = PENDING_NS;
            e.gc_read_done_ns = 0;
            e.gc_write_done_ns = 0;
        }
        self.slots_buf = slots;
        self.mem.resident -= to_write.len() as u32;
        self.mem.writeback += to_write.len() as u32;
        self.place_cpu(core);
        self.mem.apply(&mut self.ev);
        Ok(())
    }
}
