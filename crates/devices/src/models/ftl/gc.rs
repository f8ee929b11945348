//! Greedy, incremental foreground garbage collection for the page-mapped FTL.
//!
//! - **Trigger.** GC becomes active when, at the start of a host program unit,
//!   free blocks are at or below the low watermark; it stays active until the
//!   free blocks reach the target and no victim is half-collected.
//! - **Steps.** While active, every host program unit started runs one GC step
//!   in the write path: the step moves the victim scan forward until it has
//!   reclaimed `reclaim_ratio ×` the host program unit's slots (net: invalid
//!   slots passed over), so GC work is interleaved with host writes in proportion
//!   to them rather than done in one long burst.
//! - **Victim.** The closed block with the fewest valid slots
//!   ([`Mapping::pick_victim`], bucketed by valid count: no scan of all blocks).
//! - **Copies.** Valid slots are read one read group (one multi-plane page) at a
//!   time on the victim's die — tR, then the channel transfer of the valid bytes —
//!   and written through the GC stream one program unit at a time, round-robin over
//!   the dies; a program starts once the reads that filled it are done. Partial GC
//!   program units wait in controller DRAM (served from there on reads) and are
//!   padded and programmed by a flush.
//! - **Erase.** When a victim's scan ends it is erased on its die (after its last
//!   read) and returns to that die's free stack.
//! - **Emergency.** If a host program unit starts with at most one free block, GC
//!   runs until the target is reached and the host write waits for it.
//!
//! Every operation reserves the same channel and die timelines as host I/O, so GC
//! delays host programs and reads, the write buffer backs up, and host writes see
//! it as latency.

use super::mapping::{Mapping, GC, NONE};
use crate::block_store::BlockStore;
use zonelab_engine::Ns;
use zonelab_media::flash::FlashArray;

/// Free blocks at or below which GC blocks the host write.
const EMERGENCY_FREE_BLOCKS: u32 = 1;

/// What GC did during one call.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GcOutcome {
    /// GC became active (a new run started).
    pub started: bool,
    /// The host write must wait for `done_ns` (emergency GC).
    pub blocking: bool,
    /// When the last GC operation issued in this call completes.
    pub done_ns: Ns,
    pub steps: u64,
    pub victims: u64,
    pub copied_units: u64,
    pub read_bytes: u64,
    pub programmed_bytes: u64,
    pub padding_units: u64,
    pub erases: u64,
    /// No slot was left for a copy (unreachable with a validated profile, whose
    /// spare blocks cover the open blocks and the watermarks).
    pub stuck: bool,
}

/// Fixed parameters of the collector.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GcParams {
    pub unit_bytes: u64,
    pub program_unit_bytes: u64,
    /// GC becomes active at or below this many free blocks.
    pub low_free_blocks: u32,
    /// GC stays active until this many blocks are free.
    pub target_free_blocks: u32,
    /// Net slots one step reclaims (reclaim ratio × slots per program unit).
    pub step_reclaim_units: u64,
    /// Program units go to the least busy die with room (else round-robin).
    pub least_busy: bool,
}

/// The collector's state between steps.
#[derive(Debug, Clone)]
pub(crate) struct Collector {
    active: bool,
    /// Block being collected, or `NONE`.
    victim: u32,
    /// Next slot of the victim to scan.
    next_slot: u32,
    /// When the victim's last read issued so far completes.
    victim_read_done_ns: Ns,
    /// When the data in the GC stream's staged program unit has all been read.
    staged_ready_ns: Ns,
}

impl Collector {
    pub fn new() -> Self {
        Self { active: false, victim: NONE, next_slot: 0, victim_read_done_ns: 0, staged_ready_ns: 0 }
    }

    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Flush: pads and programs a partial GC program unit so no copy is left only
    /// in DRAM; returns when that program completes (`ready_ns` if none).
    pub fn flush(&mut self, map: &mut Mapping, flash: &mut FlashArray, ready_ns: Ns, p: &GcParams) -> GcOutcome {
        let mut out = GcOutcome { done_ns: ready_ns, ..Default::default() };
        if map.staged_units(GC) > 0 {
            self.staged_ready_ns = self.staged_ready_ns.max(ready_ns);
            self.program_staged(map, flash, p, &mut out);
        }
        out
    }

    /// Called by the write path when a host program unit starts, at `ready_ns`.
    pub fn on_host_program_unit(
        &mut self,
        map: &mut Mapping,
        flash: &mut FlashArray,
        data: &mut Option<BlockStore>,
        ready_ns: Ns,
        p: &GcParams,
    ) -> Option<GcOutcome> {
        let started = !self.active && map.free_blocks() <= p.low_free_blocks;
        self.active |= started;
        if !self.active {
            return None;
        }
        let mut out = GcOutcome { started, done_ns: ready_ns, ..Default::default() };
        if map.free_blocks() <= EMERGENCY_FREE_BLOCKS {
            out.blocking = true;
            let whole_block = map.layout().units_per_block as u64;
            while map.free_blocks() < p.target_free_blocks || self.victim != NONE {
                if !self.step(map, flash, data, ready_ns, whole_block, p, &mut out) {
                    break;
                }
            }
        } else {
            self.step(map, flash, data, ready_ns, p.step_reclaim_units, p, &mut out);
        }
        if self.victim == NONE && map.free_blocks() >= p.target_free_blocks {
            self.active = false;
        }
        Some(out)
    }

    /// Scans victims until `reclaim_units` slots (net) are reclaimed or the
    /// target is reached. Returns whether it made progress.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        map: &mut Mapping,
        flash: &mut FlashArray,
        data: &mut Option<BlockStore>,
        ready_ns: Ns,
        reclaim_units: u64,
        p: &GcParams,
        out: &mut GcOutcome,
    ) -> bool {
        out.steps += 1;
        let layout = *map.layout();
        let group = layout.units_per_read_group;
        let mut credit = reclaim_units as i64;
        let mut progressed = false;
        while credit > 0 {
            if self.victim == NONE {
                if map.free_blocks() >= p.target_free_blocks {
                    break;
                }
                let Some(v) = map.pick_victim() else { break };
                self.victim = v;
                self.next_slot = v * layout.units_per_block;
                self.victim_read_done_ns = ready_ns;
            }
            let victim = self.victim;
            let die = map.die_of_block(victim);
            let g = self.next_slot;
            let valid = (g..g + group).filter(|&s| map.owner(s) != NONE).count() as u64;
            if valid > 0 {
                let read_done = flash.read(ready_ns, die, valid * p.unit_bytes);
                self.victim_read_done_ns = self.victim_read_done_ns.max(read_done);
                self.staged_ready_ns = self.staged_ready_ns.max(read_done);
                out.read_bytes += valid * p.unit_bytes;
                for slot in g..g + group {
                    if map.owner(slot) == NONE {
                        continue;
                    }
                    let Some(to) = map.next_slot(GC, |d| if p.least_busy { flash.die_free_at_ns(d) } else { 0 }) else {
                        // Put the victim back; its scan restarts later.
                        out.stuck = true;
                        map.return_victim(victim);
                        self.victim = NONE;
                        return progressed;
                    };
                    map.relocate(slot, to);
                    if let Some(store) = data.as_mut() {
                        if let Some(bytes) = store.take(slot as u64) {
                            store.put(to as u64, bytes);
                        }
                    }
                    out.copied_units += 1;
                    if map.staged_full(GC) {
                        self.program_staged(map, flash, p, out);
                    }
                }
            }
            progressed = true;
            credit -= (group as u64 - valid) as i64;
            self.next_slot += group;
            if self.next_slot == (victim + 1) * layout.units_per_block {
                let erased = flash.erase(self.victim_read_done_ns, die);
                out.erases += 1;
                out.victims += 1;
                out.done_ns = out.done_ns.max(erased);
                map.release_victim(victim);
                self.victim = NONE;
            }
        }
        progressed
    }

    /// Programs the GC stream's staged program unit (padded if partial).
    fn program_staged(&mut self, map: &mut Mapping, flash: &mut FlashArray, p: &GcParams, out: &mut GcOutcome) {
        if let Some(unit) = map.take_staged(GC) {
            let done = flash.program(self.staged_ready_ns, unit.die, p.program_unit_bytes);
            out.programmed_bytes += p.program_unit_bytes;
            out.padding_units += (map.layout().units_per_program_unit - unit.filled_units) as u64;
            out.done_ns = out.done_ns.max(done);
            self.staged_ready_ns = 0;
        }
    }
}
