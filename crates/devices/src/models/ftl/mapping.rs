//! Page-mapped FTL bookkeeping, without timing: where every 4 KiB logical unit
//! lives, which physical slots are valid, which superblocks are free, open or
//! closed, and which closed superblock GC should take next.
//!
//! Physical layout. A *block* is one erase unit of one die: the same block index
//! on every plane of the die (multi-plane erase), `units_per_block` 4 KiB slots.
//! A *superblock* is block `i` of every die; it is the unit of allocation, GC and
//! erase (as in FEMU's lines and most SSD firmware), so GC reads and erases spread
//! over all dies. Block `b` is block `b / dies` of die `b % dies`; slot `s` is in
//! block `s / units_per_block`. A block is written one *program unit* (page × bits
//! per cell × planes) at a time, in order. Inside a program unit, slots fill one
//! multi-plane page (one page on each plane) after another, so a *read group*
//! (the slots one tR senses) is `page/4 KiB × planes` consecutive slots.
//!
//! Dense arrays only: L2P (`u32` per logical unit), P2L (`u32` per physical slot;
//! both copy on write, `cow_array.rs`, so clones of an aged drive share them),
//! per-superblock valid counts and states, per-block write pointers, a stack of
//! free superblocks, and intrusive lists of closed superblocks bucketed by valid
//! count, so the greedy victim (fewest valid slots) is found without a scan.
//!
//! *Streams* place data: by default two, host writes and GC copies (hot/cold
//! separation); with NVMe Flexible Data Placement (`fdp.rs`) one host stream per
//! (reclaim group, reclaim unit handle) and the GC streams its isolation rules
//! need. Each stream has one open superblock (so one open block per die of its
//! group) and stages one program unit at a time. A new program unit goes to the
//! die with the smallest caller-given key among the dies whose block in the open
//! superblock has room, ties going round-robin from the die after the last one
//! used: a constant key gives plain round-robin, the dies' next-free times give
//! least-busy dynamic allocation. A superblock closes when all its blocks are
//! full. Each stream names the stream its data goes to when GC moves it.
//!
//! *Reclaim groups* (FDP): the dies are split into `groups` runs of consecutive
//! dies; a superblock is then one block on every die of one group — FDP's
//! reclaim unit — and free stacks, GC victims and streams are per group. One
//! group (the default) is the whole array. Superblock `sb` is block row
//! `sb / groups` on the dies of group `sb % groups`.
//!
//! Each superblock remembers the stream that opened it and, when the FTL tags
//! data (FDP: the reclaim unit handle that wrote it), each logical unit its tag,
//! so isolation can be checked ([`Mapping::check_isolation`]).

use super::cow_array::CowArray;

/// An unmapped L2P entry, an invalid P2L entry, or "no superblock".
pub(crate) const NONE: u32 = u32::MAX;

/// Stream indices.
pub(crate) const HOST: usize = 0;
pub(crate) const GC: usize = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SbState {
    /// Erased, on the free stack.
    Free,
    /// A stream's open superblock: being written.
    Open,
    /// Fully written; in a valid-count bucket, a GC candidate.
    Closed,
    /// Picked by GC; its valid slots are being moved out.
    Victim,
}

/// Shape of the physical space in mapping units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub dies: u32,
    /// Superblocks in all: blocks per die × groups.
    pub superblocks: u32,
    /// Reclaim groups: equal runs of consecutive dies (a divisor of `dies`).
    pub groups: u32,
    pub units_per_block: u32,
    pub units_per_program_unit: u32,
    pub units_per_read_group: u32,
    pub logical_units: u32,
}

impl Layout {
    #[inline]
    pub fn dies_per_group(&self) -> u32 {
        self.dies / self.groups
    }

    /// First die of reclaim group `group`.
    #[inline]
    pub fn first_die(&self, group: u32) -> u32 {
        group * self.dies_per_group()
    }

    #[inline]
    pub fn group_of_superblock(&self, sb: u32) -> u32 {
        sb % self.groups
    }

    #[inline]
    pub fn units_per_superblock(&self) -> u32 {
        self.units_per_block * self.dies_per_group()
    }

    pub fn physical_units(&self) -> u64 {
        self.superblocks as u64 * self.units_per_superblock() as u64
    }

    pub fn program_units_per_block(&self) -> u32 {
        self.units_per_block / self.units_per_program_unit
    }

    /// First slot of die `die`'s block in superblock `sb` (`die` is one of the
    /// dies of `sb`'s group).
    #[inline]
    pub fn block_first_slot(&self, sb: u32, die: u32) -> u32 {
        ((sb / self.groups) * self.dies + die) * self.units_per_block
    }

    #[inline]
    pub fn superblock_of_slot(&self, slot: u32) -> u32 {
        if self.groups == 1 {
            return slot / self.units_per_superblock();
        }
        let block = slot / self.units_per_block;
        (block / self.dies) * self.groups + (block % self.dies) / self.dies_per_group()
    }

    #[inline]
    pub fn die_of_slot(&self, slot: u32) -> u32 {
        (slot / self.units_per_block) % self.dies
    }
}

/// A stream's placement state.
#[derive(Debug, Clone)]
struct Stream {
    /// The reclaim group it writes to.
    group: u32,
    /// The stream GC moves this stream's data to.
    gc_dest: usize,
    /// The open superblock, or `NONE`.
    open: u32,
    /// Die after the last one used (round-robin start for ties).
    next_die: u32,
    /// First slot of the program unit being filled (valid when `staging`).
    staging: bool,
    staging_first: u32,
    staging_filled: u32,
}

/// A staged program unit handed to the flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StagedUnit {
    pub die: u32,
    /// First slot of the program unit (program unit index = this / units per unit).
    pub first_slot: u32,
    /// Slots that carry data; the rest of the program unit is padding.
    pub filled_units: u32,
}

/// Closed superblocks in doubly linked lists, one per valid count.
#[derive(Debug, Clone)]
struct Buckets {
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// No non-empty bucket below this index.
    min_hint: u32,
}

impl Buckets {
    fn new(superblocks: u32, max_valid: u32) -> Self {
        Self {
            head: vec![NONE; max_valid as usize + 1],
            next: vec![NONE; superblocks as usize],
            prev: vec![NONE; superblocks as usize],
            min_hint: max_valid + 1,
        }
    }

    #[inline]
    fn insert(&mut self, sb: u32, valid: u32) {
        let h = self.head[valid as usize];
        self.next[sb as usize] = h;
        self.prev[sb as usize] = NONE;
        if h != NONE {
            self.prev[h as usize] = sb;
        }
        self.head[valid as usize] = sb;
        self.min_hint = self.min_hint.min(valid);
    }

    #[inline]
    fn remove(&mut self, sb: u32, valid: u32) {
        let (p, n) = (self.prev[sb as usize], self.next[sb as usize]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.head[valid as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
    }

    /// Removes and returns a superblock with the fewest valid slots, if that is
    /// below `below` (a fully valid superblock frees nothing).
    fn pop_min(&mut self, below: u32) -> Option<u32> {
        while (self.min_hint as usize) < self.head.len()
            && self.head[self.min_hint as usize] == NONE
        {
            self.min_hint += 1;
        }
        let v = self.min_hint;
        if v >= below || v as usize >= self.head.len() {
            return None;
        }
        let sb = self.head[v as usize];
        self.remove(sb, v);
        Some(sb)
    }
}

/// Where a stream writes and where GC moves its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StreamSpec {
    pub group: u32,
    pub gc_dest: usize,
}

/// The default streams: host writes (0) and GC copies (1), both in group 0.
pub(crate) const HOST_AND_GC: [StreamSpec; 2] = [
    StreamSpec {
        group: 0,
        gc_dest: GC,
    },
    StreamSpec {
        group: 0,
        gc_dest: GC,
    },
];

/// `owner` of a superblock no stream has opened since it was erased.
pub(crate) const NO_OWNER: u16 = u16::MAX;

/// The FTL's mapping state.
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    layout: Layout,
    /// Copy on write, so clones of a preconditioned drive share it (`cow_array.rs`).
    l2p: CowArray,
    p2l: CowArray,
    /// Per superblock: valid slots.
    valid: Vec<u32>,
    state: Vec<SbState>,
    /// Per superblock: program units assigned so far (all its blocks).
    assigned_pus: Vec<u32>,
    /// Per superblock: times it has been opened (so state kept per program unit
    /// elsewhere, e.g. the SLC cache's, can tell a reused superblock's units apart).
    epoch: Vec<u32>,
    /// Per block: program units assigned so far.
    write_pu: Vec<u32>,
    /// Per group: erased superblocks (a stack; lowest index on top initially).
    free: Vec<Vec<u32>>,
    mapped_units: u64,
    /// Per group: closed superblocks by valid count.
    buckets: Vec<Buckets>,
    streams: Vec<Stream>,
    /// Per superblock: the stream that opened it last ([`NO_OWNER`] if none).
    owner: Vec<u16>,
    /// Per logical unit: the tag of its data (FDP: the reclaim unit handle that
    /// wrote it); empty when the FTL does not tag.
    tags: Vec<u8>,
}

impl Mapping {
    /// A fresh mapping with `streams` (see [`HOST_AND_GC`]); `tagged` keeps a tag
    /// per logical unit.
    pub fn new(layout: Layout, streams: &[StreamSpec], tagged: bool) -> Self {
        let sbs = layout.superblocks;
        assert!(layout.groups >= 1 && layout.dies.is_multiple_of(layout.groups));
        assert!(sbs.is_multiple_of(layout.groups));
        assert!(streams
            .iter()
            .all(|s| s.group < layout.groups && s.gc_dest < streams.len()));
        Self {
            l2p: CowArray::filled(layout.logical_units as usize, NONE),
            p2l: CowArray::filled(layout.physical_units() as usize, NONE),
            valid: vec![0; sbs as usize],
            state: vec![SbState::Free; sbs as usize],
            assigned_pus: vec![0; sbs as usize],
            epoch: vec![0; sbs as usize],
            write_pu: vec![0; (sbs / layout.groups * layout.dies) as usize],
            free: (0..layout.groups)
                .map(|g| {
                    (0..sbs)
                        .rev()
                        .filter(|sb| sb % layout.groups == g)
                        .collect()
                })
                .collect(),
            mapped_units: 0,
            buckets: (0..layout.groups)
                .map(|_| Buckets::new(sbs, layout.units_per_superblock()))
                .collect(),
            streams: streams
                .iter()
                .map(|s| Stream {
                    group: s.group,
                    gc_dest: s.gc_dest,
                    open: NONE,
                    next_die: layout.first_die(s.group),
                    staging: false,
                    staging_first: 0,
                    staging_filled: 0,
                })
                .collect(),
            owner: vec![NO_OWNER; sbs as usize],
            tags: if tagged {
                vec![0; layout.logical_units as usize]
            } else {
                Vec::new()
            },
            layout,
        }
    }

    #[inline]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Free superblocks of reclaim group `group`.
    #[inline]
    pub fn free_in(&self, group: u32) -> u32 {
        self.free[group as usize].len() as u32
    }

    /// The reclaim group `stream` writes to.
    #[inline]
    pub fn stream_group(&self, stream: usize) -> u32 {
        self.streams[stream].group
    }

    /// The stream GC moves `stream`'s data to.
    #[inline]
    pub fn gc_dest(&self, stream: usize) -> usize {
        self.streams[stream].gc_dest
    }

    pub fn stream_count(&self) -> usize {
        self.streams.len()
    }

    /// The stream that opened superblock `sb` ([`NO_OWNER`] if none since its erase).
    #[inline]
    pub fn owner(&self, sb: u32) -> u16 {
        self.owner[sb as usize]
    }

    /// Superblocks of `stream` open now (0 or 1).
    pub fn open_superblock(&self, stream: usize) -> Option<u32> {
        let sb = self.streams[stream].open;
        (sb != NONE).then_some(sb)
    }

    /// Program units not yet assigned in `stream`'s open superblock (0 if none).
    pub fn unassigned_program_units(&self, stream: usize) -> u32 {
        match self.open_superblock(stream) {
            Some(sb) => {
                let l = self.layout;
                l.program_units_per_block() * l.dies_per_group() - self.assigned_pus[sb as usize]
            }
            None => 0,
        }
    }

    /// The tag of `lpn`'s data (only when tagging).
    #[cfg(test)]
    pub fn tag(&self, lpn: u32) -> u8 {
        self.tags[lpn as usize]
    }

    /// Sets the tag of `lpn`'s data (only when tagging).
    #[inline]
    pub fn set_tag(&mut self, lpn: u32, tag: u8) {
        self.tags[lpn as usize] = tag;
    }

    #[inline]
    pub fn mapped_units(&self) -> u64 {
        self.mapped_units
    }

    /// Physical slot of logical unit `lpn`, or `NONE`.
    #[inline]
    pub fn lookup(&self, lpn: u32) -> u32 {
        self.l2p.get(lpn as usize)
    }

    /// Logical unit stored in `slot`, or `NONE` (invalid or padding).
    #[inline]
    pub fn lpn_at(&self, slot: u32) -> u32 {
        self.p2l.get(slot as usize)
    }

    /// Whether `slot` is in a program unit still being filled (its data is only in
    /// the controller's DRAM).
    #[inline]
    pub fn is_staged(&self, slot: u32) -> bool {
        let sb = self.layout.superblock_of_slot(slot);
        self.streams.iter().any(|s| {
            s.open == sb
                && s.staging
                && slot >= s.staging_first
                && slot < s.staging_first + s.staging_filled
        })
    }

    /// How many times superblock `sb` has been opened (see the field's docs).
    #[inline]
    pub fn superblock_epoch(&self, sb: u32) -> u32 {
        self.epoch[sb as usize]
    }

    /// Logical units not mapped (never written or trimmed): the free user space.
    #[inline]
    pub fn unmapped_units(&self) -> u64 {
        self.layout.logical_units as u64 - self.mapped_units
    }

    /// Superblocks per state: (free, open, closed, victim).
    pub fn superblock_counts(&self) -> (u32, u32, u32, u32) {
        let mut c = (0, 0, 0, 0);
        for s in &self.state {
            match s {
                SbState::Free => c.0 += 1,
                SbState::Open => c.1 += 1,
                SbState::Closed => c.2 += 1,
                SbState::Victim => c.3 += 1,
            }
        }
        c
    }

    /// Whether `stream`'s next slot starts a new program unit.
    #[inline]
    pub fn needs_new_program_unit(&self, stream: usize) -> bool {
        !self.streams[stream].staging
    }

    /// Whether `stream`'s next program unit needs a fresh superblock.
    #[inline]
    pub fn needs_superblock(&self, stream: usize) -> bool {
        let s = &self.streams[stream];
        !s.staging && s.open == NONE
    }

    /// Unmaps `lpn`; returns the slot it occupied, if any.
    #[inline]
    pub fn unmap(&mut self, lpn: u32) -> Option<u32> {
        let slot = self.l2p.get(lpn as usize);
        if slot == NONE {
            return None;
        }
        self.l2p.set(lpn as usize, NONE);
        self.p2l.set(slot as usize, NONE);
        self.mapped_units -= 1;
        self.drop_valid(self.layout.superblock_of_slot(slot));
        Some(slot)
    }

    #[inline]
    fn drop_valid(&mut self, sb: u32) {
        let v = self.valid[sb as usize];
        debug_assert!(v > 0, "superblock {sb} has no valid slot to drop");
        if self.state[sb as usize] == SbState::Closed {
            let g = self.layout.group_of_superblock(sb) as usize;
            self.buckets[g].remove(sb, v);
            self.buckets[g].insert(sb, v - 1);
        }
        self.valid[sb as usize] = v - 1;
    }

    /// Maps `lpn` (currently unmapped) to `slot` (fresh from [`next_slot`](Self::next_slot)).
    #[inline]
    pub fn map(&mut self, lpn: u32, slot: u32) {
        debug_assert_eq!(self.l2p.get(lpn as usize), NONE);
        debug_assert_eq!(self.p2l.get(slot as usize), NONE);
        let sb = self.layout.superblock_of_slot(slot);
        debug_assert_eq!(self.state[sb as usize], SbState::Open);
        self.l2p.set(lpn as usize, slot);
        self.p2l.set(slot as usize, lpn);
        self.valid[sb as usize] += 1;
        self.mapped_units += 1;
    }

    /// Moves the unit in `from` (a victim's valid slot) to `to` (fresh from
    /// [`next_slot`](Self::next_slot)); returns its lpn. `L2P[lpn] == from` holds
    /// by the mapping's invariant, so the (cache-missing) L2P entry is only
    /// stored to, never loaded: this is GC's hot loop.
    #[inline]
    pub fn relocate(&mut self, from: u32, to: u32) -> u32 {
        let lpn = self.p2l.get(from as usize);
        debug_assert_ne!(lpn, NONE);
        debug_assert_eq!(self.l2p.get(lpn as usize), from);
        debug_assert_eq!(self.p2l.get(to as usize), NONE);
        self.p2l.set(from as usize, NONE);
        self.drop_valid(self.layout.superblock_of_slot(from));
        self.p2l.set(to as usize, lpn);
        self.l2p.set(lpn as usize, to);
        let to_sb = self.layout.superblock_of_slot(to);
        debug_assert_eq!(self.state[to_sb as usize], SbState::Open);
        self.valid[to_sb as usize] += 1;
        lpn
    }

    /// The next free slot of `stream`, opening a program unit (and, if needed, a
    /// superblock) on the die with the smallest `die_key` (see the module docs).
    /// `None` when no superblock is free.
    #[inline]
    pub fn next_slot(&mut self, stream: usize, die_key: impl Fn(u32) -> u64) -> Option<u32> {
        if !self.streams[stream].staging && !self.open_program_unit(stream, die_key) {
            return None;
        }
        let s = &mut self.streams[stream];
        let slot = s.staging_first + s.staging_filled;
        s.staging_filled += 1;
        Some(slot)
    }

    fn open_program_unit(&mut self, stream: usize, die_key: impl Fn(u32) -> u64) -> bool {
        let l = self.layout;
        let group = self.streams[stream].group;
        let first_die = l.first_die(group);
        let group_dies = l.dies_per_group();
        let mut sb = self.streams[stream].open;
        if sb == NONE {
            let Some(fresh) = self.free[group as usize].pop() else {
                return false;
            };
            debug_assert_eq!(self.state[fresh as usize], SbState::Free);
            self.state[fresh as usize] = SbState::Open;
            self.valid[fresh as usize] = 0;
            self.assigned_pus[fresh as usize] = 0;
            self.epoch[fresh as usize] = self.epoch[fresh as usize].wrapping_add(1);
            self.owner[fresh as usize] = stream as u16;
            let first_block = ((fresh / l.groups) * l.dies + first_die) as usize;
            self.write_pu[first_block..first_block + group_dies as usize].fill(0);
            self.streams[stream].open = fresh;
            sb = fresh;
        }
        let first_block = (sb / l.groups) * l.dies;
        // Dies are tried from the one after the last used, within the group.
        let start = self.streams[stream].next_die - first_die;
        let mut best: Option<(u64, u32)> = None;
        for i in 0..group_dies {
            let die = first_die
                + if start + i >= group_dies {
                    start + i - group_dies
                } else {
                    start + i
                };
            if self.write_pu[(first_block + die) as usize] == l.program_units_per_block() {
                continue;
            }
            let key = die_key(die);
            if best.is_none() || matches!(best, Some((k, _)) if key < k) {
                best = Some((key, die));
            }
        }
        // An open superblock always has room: it closes when its last unit is taken.
        let Some((_, die)) = best else { return false };
        let block = first_block + die;
        let pu = self.write_pu[block as usize];
        self.write_pu[block as usize] = pu + 1;
        self.assigned_pus[sb as usize] += 1;
        let s = &mut self.streams[stream];
        s.staging = true;
        s.staging_first = block * l.units_per_block + pu * l.units_per_program_unit;
        s.staging_filled = 0;
        s.next_die = if die + 1 == first_die + group_dies {
            first_die
        } else {
            die + 1
        };
        true
    }

    /// Whether `stream`'s staged program unit is full.
    #[inline]
    pub fn staged_full(&self, stream: usize) -> bool {
        self.streams[stream].staging_filled == self.layout.units_per_program_unit
    }

    /// Units in `stream`'s staged program unit (0 when none).
    #[inline]
    pub fn staged_units(&self, stream: usize) -> u32 {
        let s = &self.streams[stream];
        if s.staging {
            s.staging_filled
        } else {
            0
        }
    }

    /// Hands `stream`'s staged program unit (full, or to be padded) to the flash;
    /// closes its superblock when that was the superblock's last program unit.
    pub fn take_staged(&mut self, stream: usize) -> Option<StagedUnit> {
        let l = self.layout;
        let s = &mut self.streams[stream];
        if !s.staging {
            return None;
        }
        let unit = StagedUnit {
            die: l.die_of_slot(s.staging_first),
            first_slot: s.staging_first,
            filled_units: s.staging_filled,
        };
        s.staging = false;
        s.staging_filled = 0;
        let sb = s.open;
        if self.assigned_pus[sb as usize] == l.program_units_per_block() * l.dies_per_group() {
            self.close_open(stream);
        }
        Some(unit)
    }

    /// Closes `stream`'s open superblock: it becomes a GC candidate.
    fn close_open(&mut self, stream: usize) {
        let sb = self.streams[stream].open;
        self.streams[stream].open = NONE;
        self.state[sb as usize] = SbState::Closed;
        let g = self.layout.group_of_superblock(sb) as usize;
        self.buckets[g].insert(sb, self.valid[sb as usize]);
    }

    /// Closes `stream`'s open superblock before it is full (an FDP reclaim unit
    /// handle update): its unassigned program units stay erased and unwritten
    /// until GC erases the superblock. The stream must have no staged program
    /// unit (program it first). Returns the program units left unwritten.
    pub fn close_early(&mut self, stream: usize) -> u32 {
        debug_assert!(!self.streams[stream].staging);
        let Some(sb) = self.open_superblock(stream) else {
            return 0;
        };
        let l = self.layout;
        let per_block = l.program_units_per_block();
        let unwritten = per_block * l.dies_per_group() - self.assigned_pus[sb as usize];
        let first_block = (sb / l.groups) * l.dies + l.first_die(l.group_of_superblock(sb));
        for b in first_block..first_block + l.dies_per_group() {
            self.write_pu[b as usize] = per_block;
        }
        self.assigned_pus[sb as usize] = per_block * l.dies_per_group();
        self.close_open(stream);
        unwritten
    }

    /// Greedy victim: the closed superblock with the fewest valid slots, if it
    /// frees anything. It becomes a [`SbState::Victim`].
    pub fn pick_victim(&mut self, group: u32) -> Option<u32> {
        let sb = self.buckets[group as usize].pop_min(self.layout.units_per_superblock())?;
        self.state[sb as usize] = SbState::Victim;
        Some(sb)
    }

    /// Puts a victim GC could not finish back among the closed superblocks.
    pub fn return_victim(&mut self, sb: u32) {
        debug_assert_eq!(self.state[sb as usize], SbState::Victim);
        self.state[sb as usize] = SbState::Closed;
        let g = self.layout.group_of_superblock(sb) as usize;
        self.buckets[g].insert(sb, self.valid[sb as usize]);
    }

    /// Returns an emptied victim to the free stack (after its erase).
    pub fn release_victim(&mut self, sb: u32) {
        debug_assert_eq!(self.state[sb as usize], SbState::Victim);
        debug_assert_eq!(self.valid[sb as usize], 0);
        self.state[sb as usize] = SbState::Free;
        self.owner[sb as usize] = NO_OWNER;
        let g = self.layout.group_of_superblock(sb) as usize;
        self.free[g].push(sb);
    }

    /// Checks every invariant of the mapping; the first violation is returned.
    #[cfg(test)]
    pub fn check_invariants(&self) -> Result<(), String> {
        let l = &self.layout;
        let mut mapped = 0u64;
        for (lpn, slot) in self.l2p.iter().enumerate() {
            if slot == NONE {
                continue;
            }
            mapped += 1;
            if slot as u64 >= l.physical_units() {
                return Err(format!("L2P[{lpn}] = {slot} is beyond the physical space"));
            }
            if self.p2l.get(slot as usize) != lpn as u32 {
                return Err(format!(
                    "L2P[{lpn}] = {slot} but P2L[{slot}] = {}",
                    self.p2l.get(slot as usize)
                ));
            }
        }
        if mapped != self.mapped_units {
            return Err(format!(
                "{mapped} mapped units but the counter says {}",
                self.mapped_units
            ));
        }
        let mut counted = vec![0u32; l.superblocks as usize];
        for (slot, lpn) in self.p2l.iter().enumerate() {
            if lpn == NONE {
                continue;
            }
            if self.l2p.get(lpn as usize) != slot as u32 {
                return Err(format!(
                    "P2L[{slot}] = {lpn} but L2P[{lpn}] = {}",
                    self.l2p.get(lpn as usize)
                ));
            }
            let block = slot as u32 / l.units_per_block;
            if slot as u32 % l.units_per_block
                >= self.write_pu[block as usize] * l.units_per_program_unit
            {
                return Err(format!(
                    "slot {slot} is valid beyond its block's write pointer"
                ));
            }
            counted[l.superblock_of_slot(slot as u32) as usize] += 1;
        }
        #[allow(clippy::needless_range_loop)]
        for sb in 0..l.superblocks as usize {
            if counted[sb] != self.valid[sb] {
                return Err(format!(
                    "superblock {sb}: valid count {} but {} P2L entries point into it",
                    self.valid[sb], counted[sb]
                ));
            }
            if self.state[sb] == SbState::Free && self.valid[sb] != 0 {
                return Err(format!(
                    "free superblock {sb} has {} valid slots",
                    self.valid[sb]
                ));
            }
            let first_block =
                (sb as u32 / l.groups) * l.dies + l.first_die(l.group_of_superblock(sb as u32));
            let pus: u32 = self.write_pu
                [first_block as usize..(first_block + l.dies_per_group()) as usize]
                .iter()
                .sum();
            if self.state[sb] != SbState::Free && pus != self.assigned_pus[sb] {
                return Err(format!(
                    "superblock {sb}: {pus} program units in its blocks, {} assigned",
                    self.assigned_pus[sb]
                ));
            }
        }
        let (free, open, closed, victim) = self.superblock_counts();
        if free + open + closed + victim != l.superblocks {
            return Err(format!(
                "free {free} + open {open} + closed {closed} + victim {victim} != {}",
                l.superblocks
            ));
        }
        for g in 0..l.groups {
            let victims = (0..l.superblocks)
                .filter(|&sb| {
                    l.group_of_superblock(sb) == g && self.state[sb as usize] == SbState::Victim
                })
                .count();
            if victims > 1 {
                return Err(format!(
                    "{victims} superblocks of group {g} are GC victims at once"
                ));
            }
        }
        let stacked: usize = self.free.iter().map(|f| f.len()).sum();
        for (g, f) in self.free.iter().enumerate() {
            if let Some(&sb) = f.iter().find(|&&sb| {
                self.state[sb as usize] != SbState::Free || l.group_of_superblock(sb) != g as u32
            }) {
                return Err(format!(
                    "free stack of group {g} holds superblock {sb} ({:?}, group {})",
                    self.state[sb as usize],
                    l.group_of_superblock(sb)
                ));
            }
        }
        if free as usize != stacked {
            return Err(format!(
                "the free stacks ({stacked}) disagree with the states ({free} free)"
            ));
        }
        let opened = self.streams.iter().filter(|s| s.open != NONE).count() as u32;
        if opened != open {
            return Err(format!(
                "{open} open superblocks but the streams hold {opened}"
            ));
        }
        for (i, st) in self.streams.iter().enumerate() {
            if st.open != NONE
                && (l.group_of_superblock(st.open) != st.group
                    || self.owner[st.open as usize] != i as u16)
            {
                return Err(format!(
                    "stream {i} (group {}) holds superblock {} of group {} owned by {}",
                    st.group,
                    st.open,
                    l.group_of_superblock(st.open),
                    self.owner[st.open as usize]
                ));
            }
        }
        let mut in_buckets = 0;
        for (g, buckets) in self.buckets.iter().enumerate() {
            for (v, &h) in buckets.head.iter().enumerate() {
                let mut sb = h;
                while sb != NONE {
                    if self.state[sb as usize] != SbState::Closed
                        || self.valid[sb as usize] != v as u32
                        || l.group_of_superblock(sb) != g as u32
                    {
                        return Err(format!(
                            "bucket {v} of group {g} holds superblock {sb} ({:?}, {} valid)",
                            self.state[sb as usize], self.valid[sb as usize]
                        ));
                    }
                    if (v as u32) < buckets.min_hint {
                        return Err(format!(
                            "bucket {v} is below the minimum hint {}",
                            buckets.min_hint
                        ));
                    }
                    in_buckets += 1;
                    sb = buckets.next[sb as usize];
                }
            }
        }
        if in_buckets != closed {
            return Err(format!(
                "{closed} closed superblocks but {in_buckets} in buckets"
            ));
        }
        Ok(())
    }

    /// Checks that every valid unit sits in a superblock whose owning stream may
    /// hold data with its tag (`allowed(owner stream, tag)`); the first unit that
    /// may not is returned. Only meaningful when the mapping tags data.
    #[cfg(test)]
    pub fn check_isolation(&self, allowed: impl Fn(usize, u8) -> bool) -> Result<(), String> {
        if self.tags.is_empty() {
            return Ok(());
        }
        for (slot, lpn) in self.p2l.iter().enumerate() {
            if lpn == NONE {
                continue;
            }
            let sb = self.layout.superblock_of_slot(slot as u32);
            let owner = self.owner[sb as usize];
            let tag = self.tags[lpn as usize];
            if owner == NO_OWNER || !allowed(owner as usize, tag) {
                return Err(format!(
                    "superblock {sb} (opened by stream {owner}) holds LBA {lpn} tagged {tag}"
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout {
            dies: 2,
            superblocks: 4,
            units_per_block: 8,
            units_per_program_unit: 4,
            units_per_read_group: 2,
            logical_units: 32,
            groups: 1,
        }
    }

    #[test]
    fn program_units_rotate_over_dies_and_superblocks_close() {
        let mut m = Mapping::new(layout(), &HOST_AND_GC, false);
        let mut dies = Vec::new();
        for lpn in 0..32 {
            let slot = m.next_slot(HOST, |_| 0).unwrap();
            m.map(lpn, slot);
            if m.staged_full(HOST) {
                dies.push(m.take_staged(HOST).unwrap().die);
            }
        }
        assert_eq!(dies, vec![0, 1, 0, 1, 0, 1, 0, 1]);
        // Two superblocks of 16 units each are full and closed.
        assert_eq!(m.superblock_counts(), (2, 0, 2, 0));
        m.check_invariants().unwrap();
        // Superblock 0 holds lpns 0-15; superblock 1 holds 16-31.
        for lpn in (0..6).chain(16..18) {
            m.unmap(lpn);
        }
        m.check_invariants().unwrap();
        assert_eq!(m.pick_victim(0), Some(0));
        assert_eq!(m.pick_victim(0), Some(1));
        assert_eq!(m.pick_victim(0), None);
    }

    #[test]
    fn least_key_die_wins_and_full_blocks_are_skipped() {
        let mut m = Mapping::new(layout(), &HOST_AND_GC, false);
        // Die 1 preferred: both its program units first, then die 0's.
        let mut dies = Vec::new();
        for lpn in 0..16 {
            let slot = m.next_slot(HOST, |d| if d == 1 { 0 } else { 1 }).unwrap();
            m.map(lpn, slot);
            if m.staged_full(HOST) {
                dies.push(m.take_staged(HOST).unwrap().die);
            }
        }
        assert_eq!(dies, vec![1, 1, 0, 0]);
        m.check_invariants().unwrap();
    }
}
