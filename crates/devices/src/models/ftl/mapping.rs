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
//! Dense arrays only: L2P (`u32` per logical unit), P2L (`u32` per physical slot),
//! per-superblock valid counts and states, per-block write pointers, a stack of
//! free superblocks, and intrusive lists of closed superblocks bucketed by valid
//! count, so the greedy victim (fewest valid slots) is found without a scan.
//!
//! Two *streams* place data: host writes and GC copies (hot/cold separation). Each
//! stream has one open superblock (so one open block per die) and stages one
//! program unit at a time. A new program unit goes to the die with the smallest
//! caller-given key among the dies whose block in the open superblock has room,
//! ties going round-robin from the die after the last one used: a constant key
//! gives plain round-robin, the dies' next-free times give least-busy dynamic
//! allocation. A superblock closes when all its blocks are full.

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
    /// Blocks per die = superblocks.
    pub superblocks: u32,
    pub units_per_block: u32,
    pub units_per_program_unit: u32,
    pub units_per_read_group: u32,
    pub logical_units: u32,
}

impl Layout {
    pub fn units_per_superblock(&self) -> u32 {
        self.units_per_block * self.dies
    }

    pub fn physical_units(&self) -> u64 {
        self.superblocks as u64 * self.units_per_superblock() as u64
    }

    pub fn program_units_per_block(&self) -> u32 {
        self.units_per_block / self.units_per_program_unit
    }

    /// First slot of die `die`'s block in superblock `sb`.
    #[inline]
    pub fn block_first_slot(&self, sb: u32, die: u32) -> u32 {
        (sb * self.dies + die) * self.units_per_block
    }

    #[inline]
    pub fn superblock_of_slot(&self, slot: u32) -> u32 {
        slot / self.units_per_superblock()
    }

    #[inline]
    pub fn die_of_slot(&self, slot: u32) -> u32 {
        (slot / self.units_per_block) % self.dies
    }
}

/// A stream's placement state.
#[derive(Debug, Clone)]
struct Stream {
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

/// The FTL's mapping state.
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    layout: Layout,
    l2p: Vec<u32>,
    p2l: Vec<u32>,
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
    /// Erased superblocks (a stack; lowest index on top initially).
    free: Vec<u32>,
    mapped_units: u64,
    buckets: Buckets,
    streams: [Stream; 2],
}

impl Mapping {
    pub fn new(layout: Layout) -> Self {
        let sbs = layout.superblocks;
        let stream = Stream {
            open: NONE,
            next_die: 0,
            staging: false,
            staging_first: 0,
            staging_filled: 0,
        };
        Self {
            l2p: vec![NONE; layout.logical_units as usize],
            p2l: vec![NONE; layout.physical_units() as usize],
            valid: vec![0; sbs as usize],
            state: vec![SbState::Free; sbs as usize],
            assigned_pus: vec![0; sbs as usize],
            epoch: vec![0; sbs as usize],
            write_pu: vec![0; (sbs * layout.dies) as usize],
            free: (0..sbs).rev().collect(),
            mapped_units: 0,
            buckets: Buckets::new(sbs, layout.units_per_superblock()),
            streams: [stream.clone(), stream],
            layout,
        }
    }

    #[inline]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    #[inline]
    pub fn free_superblocks(&self) -> u32 {
        self.free.len() as u32
    }

    #[inline]
    pub fn mapped_units(&self) -> u64 {
        self.mapped_units
    }

    /// Physical slot of logical unit `lpn`, or `NONE`.
    #[inline]
    pub fn lookup(&self, lpn: u32) -> u32 {
        self.l2p[lpn as usize]
    }

    /// Logical unit stored in `slot`, or `NONE` (invalid or padding).
    #[inline]
    pub fn owner(&self, slot: u32) -> u32 {
        self.p2l[slot as usize]
    }

    /// Whether `slot` is in a program unit still being filled (its data is only in
    /// the controller's DRAM).
    #[inline]
    pub fn is_staged(&self, slot: u32) -> bool {
        self.streams.iter().any(|s| {
            s.staging && slot >= s.staging_first && slot < s.staging_first + s.staging_filled
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
        let slot = self.l2p[lpn as usize];
        if slot == NONE {
            return None;
        }
        self.l2p[lpn as usize] = NONE;
        self.p2l[slot as usize] = NONE;
        self.mapped_units -= 1;
        self.drop_valid(self.layout.superblock_of_slot(slot));
        Some(slot)
    }

    #[inline]
    fn drop_valid(&mut self, sb: u32) {
        let v = self.valid[sb as usize];
        debug_assert!(v > 0, "superblock {sb} has no valid slot to drop");
        if self.state[sb as usize] == SbState::Closed {
            self.buckets.remove(sb, v);
            self.buckets.insert(sb, v - 1);
        }
        self.valid[sb as usize] = v - 1;
    }

    /// Maps `lpn` (currently unmapped) to `slot` (fresh from [`next_slot`](Self::next_slot)).
    #[inline]
    pub fn map(&mut self, lpn: u32, slot: u32) {
        debug_assert_eq!(self.l2p[lpn as usize], NONE);
        debug_assert_eq!(self.p2l[slot as usize], NONE);
        let sb = self.layout.superblock_of_slot(slot);
        debug_assert_eq!(self.state[sb as usize], SbState::Open);
        self.l2p[lpn as usize] = slot;
        self.p2l[slot as usize] = lpn;
        self.valid[sb as usize] += 1;
        self.mapped_units += 1;
    }

    /// Moves the unit in `from` (a victim's valid slot) to `to` (fresh from
    /// [`next_slot`](Self::next_slot)); returns its lpn. `L2P[lpn] == from` holds
    /// by the mapping's invariant, so the (cache-missing) L2P entry is only
    /// stored to, never loaded: this is GC's hot loop.
    #[inline]
    pub fn relocate(&mut self, from: u32, to: u32) -> u32 {
        let lpn = self.p2l[from as usize];
        debug_assert_ne!(lpn, NONE);
        debug_assert_eq!(self.l2p[lpn as usize], from);
        debug_assert_eq!(self.p2l[to as usize], NONE);
        self.p2l[from as usize] = NONE;
        self.drop_valid(self.layout.superblock_of_slot(from));
        self.p2l[to as usize] = lpn;
        self.l2p[lpn as usize] = to;
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
        let mut sb = self.streams[stream].open;
        if sb == NONE {
            let Some(fresh) = self.free.pop() else {
                return false;
            };
            debug_assert_eq!(self.state[fresh as usize], SbState::Free);
            self.state[fresh as usize] = SbState::Open;
            self.valid[fresh as usize] = 0;
            self.assigned_pus[fresh as usize] = 0;
            self.epoch[fresh as usize] = self.epoch[fresh as usize].wrapping_add(1);
            let first_block = (fresh * l.dies) as usize;
            self.write_pu[first_block..first_block + l.dies as usize].fill(0);
            self.streams[stream].open = fresh;
            sb = fresh;
        }
        let first_block = sb * l.dies;
        let start = self.streams[stream].next_die;
        let mut best: Option<(u64, u32)> = None;
        for i in 0..l.dies {
            let die = if start + i >= l.dies {
                start + i - l.dies
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
        s.next_die = if die + 1 == l.dies { 0 } else { die + 1 };
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
        if self.assigned_pus[sb as usize] == l.program_units_per_block() * l.dies {
            self.streams[stream].open = NONE;
            self.state[sb as usize] = SbState::Closed;
            self.buckets.insert(sb, self.valid[sb as usize]);
        }
        Some(unit)
    }

    /// Greedy victim: the closed superblock with the fewest valid slots, if it
    /// frees anything. It becomes a [`SbState::Victim`].
    pub fn pick_victim(&mut self) -> Option<u32> {
        let sb = self.buckets.pop_min(self.layout.units_per_superblock())?;
        self.state[sb as usize] = SbState::Victim;
        Some(sb)
    }

    /// Puts a victim GC could not finish back among the closed superblocks.
    pub fn return_victim(&mut self, sb: u32) {
        debug_assert_eq!(self.state[sb as usize], SbState::Victim);
        self.state[sb as usize] = SbState::Closed;
        self.buckets.insert(sb, self.valid[sb as usize]);
    }

    /// Returns an emptied victim to the free stack (after its erase).
    pub fn release_victim(&mut self, sb: u32) {
        debug_assert_eq!(self.state[sb as usize], SbState::Victim);
        debug_assert_eq!(self.valid[sb as usize], 0);
        self.state[sb as usize] = SbState::Free;
        self.free.push(sb);
    }

    /// Checks every invariant of the mapping; the first violation is returned.
    #[cfg(test)]
    pub fn check_invariants(&self) -> Result<(), String> {
        let l = &self.layout;
        let mut mapped = 0u64;
        for (lpn, &slot) in self.l2p.iter().enumerate() {
            if slot == NONE {
                continue;
            }
            mapped += 1;
            if slot as u64 >= l.physical_units() {
                return Err(format!("L2P[{lpn}] = {slot} is beyond the physical space"));
            }
            if self.p2l[slot as usize] != lpn as u32 {
                return Err(format!(
                    "L2P[{lpn}] = {slot} but P2L[{slot}] = {}",
                    self.p2l[slot as usize]
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
        for (slot, &lpn) in self.p2l.iter().enumerate() {
            if lpn == NONE {
                continue;
            }
            if self.l2p[lpn as usize] != slot as u32 {
                return Err(format!(
                    "P2L[{slot}] = {lpn} but L2P[{lpn}] = {}",
                    self.l2p[lpn as usize]
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
            let pus: u32 = self.write_pu[sb * l.dies as usize..(sb + 1) * l.dies as usize]
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
        if victim > 1 {
            return Err(format!("{victim} superblocks are GC victims at once"));
        }
        if free as usize != self.free.len()
            || self
                .free
                .iter()
                .any(|&sb| self.state[sb as usize] != SbState::Free)
        {
            return Err(format!(
                "the free stack ({}) disagrees with the states ({free} free)",
                self.free.len()
            ));
        }
        let opened = self.streams.iter().filter(|s| s.open != NONE).count() as u32;
        if opened != open {
            return Err(format!(
                "{open} open superblocks but the streams hold {opened}"
            ));
        }
        let mut in_buckets = 0;
        for (v, &h) in self.buckets.head.iter().enumerate() {
            let mut sb = h;
            while sb != NONE {
                if self.state[sb as usize] != SbState::Closed || self.valid[sb as usize] != v as u32
                {
                    return Err(format!(
                        "bucket {v} holds superblock {sb} ({:?}, {} valid)",
                        self.state[sb as usize], self.valid[sb as usize]
                    ));
                }
                if (v as u32) < self.buckets.min_hint {
                    return Err(format!(
                        "bucket {v} is below the minimum hint {}",
                        self.buckets.min_hint
                    ));
                }
                in_buckets += 1;
                sb = self.buckets.next[sb as usize];
            }
        }
        if in_buckets != closed {
            return Err(format!(
                "{closed} closed superblocks but {in_buckets} in buckets"
            ));
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
        }
    }

    #[test]
    fn program_units_rotate_over_dies_and_superblocks_close() {
        let mut m = Mapping::new(layout());
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
        assert_eq!(m.pick_victim(), Some(0));
        assert_eq!(m.pick_victim(), Some(1));
        assert_eq!(m.pick_victim(), None);
    }

    #[test]
    fn least_key_die_wins_and_full_blocks_are_skipped() {
        let mut m = Mapping::new(layout());
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
