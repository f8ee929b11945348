//! Greedy, incremental foreground garbage collection for the page-mapped FTL.
//!
//! - **Trigger.** GC becomes active when, at the start of a host program unit,
//!   free superblocks are at or below the low watermark; it stays active until
//!   the free superblocks reach the target and no victim is half-collected.
//! - **Steps.** While active, every host program unit started runs one GC step
//!   in the write path: the step moves the victim scan forward until it has
//!   reclaimed `reclaim_ratio ×` the host program unit's slots (net: invalid
//!   slots passed over), so GC work is interleaved with host writes in proportion
//!   to them rather than done in one long burst. The write that started the
//!   program unit waits for the step ([`GcOutcome::done_ns`]).
//! - **Victim.** The closed superblock with the fewest valid slots
//!   ([`Mapping::pick_victim`], bucketed by valid count: no scan).
//! - **Copies.** The victim is scanned one read group (one multi-plane page) at a
//!   time, die by die in turn so consecutive reads go to different dies; a group
//!   with valid slots costs a read on its die (tR, then the channel transfer of the
//!   valid bytes). A step books all its reads first and only then the programs
//!   of the copies (at the end of the step, or of the victim): each die runs its
//!   operations in the order they are booked, so a program booked between two
//!   reads would make the next read on that die wait for it, and the copy fed by
//!   that read would wait for the read — a ratchet that ran GC one program at a
//!   time across the whole array (measured: dies idle 87% of a GC-bound run;
//!   `docs/mios.md`, "Scale-1 collapse"). Copies are written through the GC stream
//!   one program unit at a time; a program starts once the reads that filled *it*
//!   are done, on the die that fits best (see `place_pending`). A partial GC
//!   program unit waits in controller DRAM (reads are served from there) and is
//!   padded and programmed by a flush.
//! - **Erase.** When a victim's scan ends, each of its blocks is erased on its die
//!   after that die's last read, and the superblock becomes free. The host write
//!   does not wait for the erases ([`GcOutcome::erase_done_ns`]): its data is in
//!   the DRAM buffer, and an erase delays host I/O only through the die it holds
//!   (later programs on that die, hence buffer space, hence admission). Waiting
//!   for them made every write that finished a victim — one per superblock even
//!   when trims had left the victim empty — wait for the die's current program
//!   plus the erase, ~9 ms on `ssd-960evo` (`docs/mios.md`, "Fourth pass").
//! - **Emergency.** The last free superblock is reserved for the GC stream: if
//!   the host stream needs a new superblock and at most one is free, GC runs until
//!   the target is reached, and the host write waits for all of it. (GC takes at
//!   most one superblock per victim and frees one at its end, so it always has
//!   room.)
//!
//! - **Reclaim groups and streams** (FDP, `fdp.rs`): there is one collector per
//!   reclaim group; it takes victims only from its group, and copies a victim's
//!   data into the GC stream its opening stream names ([`Mapping::gc_dest`]), so
//!   data stays in its group and within its reclaim unit handle's isolation
//!   rules. Without FDP there is one group and the host stream's data goes to the
//!   one GC stream.
//!
//! Every operation reserves the same channel and die timelines as host I/O, so GC
//! delays host programs and reads, the write buffer backs up, and host writes see
//! it as latency.

use super::mapping::{Mapping, NONE};
use crate::block_store::BlockStore;
use zonelab_engine::Ns;
use zonelab_media::flash::FlashArray;

/// Free superblocks the host stream may not take (the GC stream's reserve).
const EMERGENCY_FREE_SUPERBLOCKS: u32 = 1;

/// What GC did during one call.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GcOutcome {
    /// GC became active (a new run started).
    pub started: bool,
    /// An emergency run (the host stream needed the reserved superblock).
    pub emergency: bool,
    /// When the last GC read or copy program issued in this call completes: the
    /// host write that triggered it completes no earlier.
    pub done_ns: Ns,
    /// When the last victim erase issued in this call completes (0 if none); the
    /// host write does not wait for it.
    pub erase_done_ns: Ns,
    pub steps: u64,
    pub victims: u64,
    pub copied_units: u64,
    pub read_bytes: u64,
    pub programmed_bytes: u64,
    pub padding_units: u64,
    pub erases: u64,
    /// No slot was left for a copy (unreachable with a validated profile, whose
    /// spare superblocks cover the open ones, the victim and the watermarks).
    pub stuck: bool,
}

/// A victim GC emptied: the stream that had opened it and the units it moved
/// (FDP's Media Reallocated event).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Relocation {
    pub owner: u16,
    pub superblock: u32,
    pub moved_units: u64,
}

/// Fixed parameters of the collector.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GcParams {
    pub unit_bytes: u64,
    pub program_unit_bytes: u64,
    /// GC becomes active at or below this many free superblocks.
    pub low_free_superblocks: u32,
    /// GC stays active until this many superblocks are free.
    pub target_free_superblocks: u32,
    /// Net slots one step reclaims (reclaim ratio × slots per program unit).
    pub step_reclaim_units: u64,
    /// Program units go to the least busy die with room (else round-robin).
    pub least_busy: bool,
}

/// The collector of one reclaim group: its state between steps.
#[derive(Debug, Clone)]
pub(crate) struct Collector {
    group: u32,
    active: bool,
    /// Superblock being collected, or `NONE`.
    victim: u32,
    /// The stream the victim's data goes to.
    dest: usize,
    /// Units moved out of the victim so far.
    victim_moved: u64,
    /// Read groups of the victim scanned so far (die-interleaved order).
    scanned_groups: u32,
    /// Per die of the group: when the victim's last read issued there completes.
    victim_read_done_ns: Vec<Ns>,
    /// Per stream: when the data in its staged GC program unit has all been read.
    staged_ready_ns: Vec<Ns>,
    /// The GC streams of this group (flushed by [`Collector::flush`]).
    gc_streams: Vec<usize>,
    /// Victims emptied since the owner last drained this list.
    pub relocations: Vec<Relocation>,
    /// Valid slots read but not yet placed (at most a step's or a victim's; all
    /// from the current victim, so all bound for `dest`), each with the time its
    /// read completes.
    pending: Vec<(u32, Ns)>,
}

impl Collector {
    /// The collector of reclaim group `group` of `map`.
    pub fn new(map: &Mapping, group: u32) -> Self {
        let l = map.layout();
        let mut gc_streams: Vec<usize> = (0..map.stream_count())
            .filter(|&s| map.stream_group(s) == group)
            .map(|s| map.gc_dest(s))
            .collect();
        gc_streams.sort_unstable();
        gc_streams.dedup();
        Self {
            group,
            active: false,
            victim: NONE,
            dest: 0,
            victim_moved: 0,
            scanned_groups: 0,
            victim_read_done_ns: vec![0; l.dies_per_group() as usize],
            staged_ready_ns: vec![0; map.stream_count()],
            gc_streams,
            relocations: Vec::new(),
            pending: Vec::with_capacity(
                (l.units_per_program_unit + l.units_per_read_group) as usize,
            ),
        }
    }

    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Flush: pads and programs a partial GC program unit so no copy is left only
    /// in DRAM; returns when that program completes (`ready_ns` if none).
    pub fn flush(
        &mut self,
        map: &mut Mapping,
        flash: &mut FlashArray,
        ready_ns: Ns,
        p: &GcParams,
    ) -> GcOutcome {
        let mut out = GcOutcome {
            done_ns: ready_ns,
            ..Default::default()
        };
        for i in 0..self.gc_streams.len() {
            let stream = self.gc_streams[i];
            if map.staged_units(stream) > 0 {
                self.staged_ready_ns[stream] = self.staged_ready_ns[stream].max(ready_ns);
                self.program_staged(map, flash, p, stream, &mut out);
            }
        }
        out
    }

    /// Called by the write path when host stream `stream` (of this collector's
    /// group) starts a program unit, at `ready_ns`.
    pub fn on_host_program_unit(
        &mut self,
        map: &mut Mapping,
        flash: &mut FlashArray,
        data: &mut Option<BlockStore>,
        ready_ns: Ns,
        p: &GcParams,
        stream: usize,
    ) -> Option<GcOutcome> {
        debug_assert_eq!(map.stream_group(stream), self.group);
        let free = map.free_in(self.group);
        let emergency = map.needs_superblock(stream) && free <= EMERGENCY_FREE_SUPERBLOCKS;
        let started = !self.active && (free <= p.low_free_superblocks || emergency);
        self.active |= started;
        if !self.active {
            return None;
        }
        let mut out = GcOutcome {
            started,
            done_ns: ready_ns,
            ..Default::default()
        };
        if emergency {
            out.emergency = true;
            let whole_superblock = map.layout().units_per_superblock() as u64;
            while map.free_in(self.group) < p.target_free_superblocks || self.victim != NONE {
                if !self.step(map, flash, data, ready_ns, whole_superblock, p, &mut out) {
                    break;
                }
            }
        } else {
            self.step(
                map,
                flash,
                data,
                ready_ns,
                p.step_reclaim_units,
                p,
                &mut out,
            );
        }
        if self.victim == NONE && map.free_in(self.group) >= p.target_free_superblocks {
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
        let groups_per_block = layout.units_per_block / group;
        let dies = layout.dies_per_group();
        let first_die = layout.first_die(self.group);
        let mut credit = reclaim_units as i64;
        let mut progressed = false;
        while credit > 0 {
            if self.victim == NONE {
                if map.free_in(self.group) >= p.target_free_superblocks {
                    break;
                }
                let Some(v) = map.pick_victim(self.group) else {
                    break;
                };
                self.victim = v;
                self.dest = map.gc_dest(map.owner(v) as usize);
                self.victim_moved = 0;
                self.scanned_groups = 0;
                self.victim_read_done_ns.fill(ready_ns);
            }
            let victim = self.victim;
            let die_in_group = self.scanned_groups % dies;
            let die = first_die + die_in_group;
            let g = layout.block_first_slot(victim, die) + (self.scanned_groups / dies) * group;
            let valid = (g..g + group).filter(|&s| map.lpn_at(s) != NONE).count() as u64;
            if valid > 0 {
                let read_done = flash.read(ready_ns, die, valid * p.unit_bytes);
                self.victim_read_done_ns[die_in_group as usize] = read_done;
                out.done_ns = out.done_ns.max(read_done);
                out.read_bytes += valid * p.unit_bytes;
                self.pending.extend(
                    (g..g + group)
                        .filter(|&s| map.lpn_at(s) != NONE)
                        .map(|s| (s, read_done)),
                );
            }
            progressed = true;
            credit -= (group as u64 - valid) as i64;
            self.scanned_groups += 1;
            if self.scanned_groups == groups_per_block * dies {
                if !self.place_pending(map, flash, data, p, out) {
                    return progressed;
                }
                for d in 0..dies {
                    let erased = flash.erase(self.victim_read_done_ns[d as usize], first_die + d);
                    out.erase_done_ns = out.erase_done_ns.max(erased);
                }
                out.erases += dies as u64;
                out.victims += 1;
                self.relocations.push(Relocation {
                    owner: map.owner(victim),
                    superblock: victim,
                    moved_units: self.victim_moved,
                });
                map.release_victim(victim);
                self.victim = NONE;
            }
        }
        self.place_pending(map, flash, data, p, out);
        progressed
    }

    /// Relocates the pending slots into the GC stream, programming each program
    /// unit that fills. A new program unit goes to the die that fits best: with
    /// least-busy allocation, the die whose timeline frees soonest at or after the
    /// data is ready (no idle gap the timelines could not backfill), else the one
    /// freeing latest before it. Returns false if no slot was left (the victim is
    /// put back).
    fn place_pending(
        &mut self,
        map: &mut Mapping,
        flash: &mut FlashArray,
        data: &mut Option<BlockStore>,
        p: &GcParams,
        out: &mut GcOutcome,
    ) -> bool {
        let mut pending = std::mem::take(&mut self.pending);
        let mut ok = true;
        let dest = self.dest;
        for &(slot, read_done) in &pending {
            debug_assert_ne!(map.lpn_at(slot), NONE);
            self.staged_ready_ns[dest] = self.staged_ready_ns[dest].max(read_done);
            let ready = self.staged_ready_ns[dest];
            let fit = |d: u32| {
                let free_at = flash.die_free_at_ns(d);
                match (p.least_busy, free_at >= ready) {
                    (false, _) => 0,
                    (true, true) => free_at - ready,
                    (true, false) => (1 << 62) + (ready - free_at),
                }
            };
            let Some(to) = map.next_slot(dest, fit) else {
                // Put the victim back; its scan restarts later.
                out.stuck = true;
                map.return_victim(self.victim);
                self.victim = NONE;
                ok = false;
                break;
            };
            map.relocate(slot, to);
            if let Some(store) = data.as_mut() {
                if let Some(bytes) = store.take(slot as u64) {
                    store.put(to as u64, bytes);
                }
            }
            out.copied_units += 1;
            self.victim_moved += 1;
            if map.staged_full(dest) {
                self.program_staged(map, flash, p, dest, out);
            }
        }
        pending.clear();
        self.pending = pending;
        ok
    }

    /// Programs GC stream `stream`'s staged program unit (padded if partial).
    fn program_staged(
        &mut self,
        map: &mut Mapping,
        flash: &mut FlashArray,
        p: &GcParams,
        stream: usize,
        out: &mut GcOutcome,
    ) {
        if let Some(unit) = map.take_staged(stream) {
            let done = flash.program(self.staged_ready_ns[stream], unit.die, p.program_unit_bytes);
            out.programmed_bytes += p.program_unit_bytes;
            out.padding_units += (map.layout().units_per_program_unit - unit.filled_units) as u64;
            out.done_ns = out.done_ns.max(done);
            self.staged_ready_ns[stream] = 0;
        }
    }
}
