//! Page-mapped FTL bookkeeping, without timing: where every 4 KiB logical unit
//! lives, which physical slots are valid, which blocks are free, open or closed,
//! and which closed block GC should take next.
//!
//! Physical layout. A *block* here is one erase unit of one die: the same block
//! index on every plane of the die (multi-plane erase), `units_per_block` 4 KiB
//! slots. Block `b` sits on die `b / blocks_per_die`. A block is written one
//! *program unit* (page × bits per cell × planes) at a time, in order. Inside a
//! program unit, slots fill one multi-plane page (one page on each plane) after
//! another, so a *read group* (slots that one tR senses) is `page/4 KiB × planes`
//! consecutive slots.
//!
//! Dense arrays only: L2P (`u32` per logical unit), P2L (`u32` per physical slot),
//! per-block valid counts, states and write pointers, per-die free-block stacks,
//! and intrusive lists of closed blocks bucketed by valid count so the greedy
//! victim (fewest valid slots) is found without scanning all blocks.
//!
//! Two *streams* place data: host writes and GC copies (hot/cold separation). Each
//! stream has at most one open block per die and stages one program unit at a
//! time. A new program unit goes to the die with the smallest caller-given key
//! among the dies with room (an open block with space or a free block), ties going
//! round-robin from the die after the last one used: a constant key gives plain
//! round-robin, the dies' next-free times give least-busy dynamic allocation.

/// An unmapped L2P entry or an invalid P2L entry.
pub(crate) const NONE: u32 = u32::MAX;

/// Stream indices.
pub(crate) const HOST: usize = 0;
pub(crate) const GC: usize = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockState {
    /// Erased, on its die's free stack.
    Free,
    /// A stream's open block: being written.
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
    pub blocks_per_die: u32,
    pub units_per_block: u32,
    pub units_per_program_unit: u32,
    pub units_per_read_group: u32,
    pub logical_units: u32,
}

impl Layout {
    pub fn total_blocks(&self) -> u32 {
        self.dies * self.blocks_per_die
    }

    pub fn physical_units(&self) -> u64 {
        self.total_blocks() as u64 * self.units_per_block as u64
    }

    pub fn program_units_per_block(&self) -> u32 {
        self.units_per_block / self.units_per_program_unit
    }
}

/// A stream's placement state.
#[derive(Debug, Clone)]
struct Stream {
    /// Per die: this stream's open block, or `NONE`.
    open: Vec<u32>,
    /// Die the next program unit goes to (round-robin start).
    next_die: u32,
    /// Block and first slot of the program unit being filled (`NONE` if none).
    staging_block: u32,
    staging_first: u32,
    staging_filled: u32,
}

/// A staged program unit handed to the flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StagedUnit {
    pub die: u32,
    /// Slots that carry data; the rest of the program unit is padding.
    pub filled_units: u32,
}

/// Closed blocks in doubly linked lists, one per valid count.
#[derive(Debug, Clone)]
struct Buckets {
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// No non-empty bucket below this index.
    min_hint: u32,
}

impl Buckets {
    fn new(blocks: u32, units_per_block: u32) -> Self {
        Self {
            head: vec![NONE; units_per_block as usize + 1],
            next: vec![NONE; blocks as usize],
            prev: vec![NONE; blocks as usize],
            min_hint: units_per_block + 1,
        }
    }

    #[inline]
    fn insert(&mut self, block: u32, valid: u32) {
        let h = self.head[valid as usize];
        self.next[block as usize] = h;
        self.prev[block as usize] = NONE;
        if h != NONE {
            self.prev[h as usize] = block;
        }
        self.head[valid as usize] = block;
        self.min_hint = self.min_hint.min(valid);
    }

    #[inline]
    fn remove(&mut self, block: u32, valid: u32) {
        let (p, n) = (self.prev[block as usize], self.next[block as usize]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.head[valid as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
        self.next[block as usize] = NONE;
        self.prev[block as usize] = NONE;
    }

    /// Removes and returns a block with the fewest valid slots, if that is below
    /// `below` (a fully valid block frees nothing).
    fn pop_min(&mut self, below: u32) -> Option<(u32, u32)> {
        while (self.min_hint as usize) < self.head.len() && self.head[self.min_hint as usize] == NONE {
            self.min_hint += 1;
        }
        let v = self.min_hint;
        if v >= below || v as usize >= self.head.len() {
            return None;
        }
        let b = self.head[v as usize];
        self.remove(b, v);
        Some((b, v))
    }
}

/// The FTL's mapping state.
#[derive(Debug, Clone)]
pub(crate) struct Mapping {
    layout: Layout,
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    valid: Vec<u32>,
    state: Vec<BlockState>,
    /// Per block: program units assigned so far.
    write_pu: Vec<u32>,
    /// Per die: erased blocks (a stack; lowest index on top initially).
    free: Vec<Vec<u32>>,
    free_count: u32,
    mapped_units: u64,
    buckets: Buckets,
    streams: [Stream; 2],
}

impl Mapping {
    pub fn new(layout: Layout) -> Self {
        let blocks = layout.total_blocks();
        let free = (0..layout.dies)
            .map(|d| {
                let first = d * layout.blocks_per_die;
                (first..first + layout.blocks_per_die).rev().collect::<Vec<u32>>()
            })
            .collect();
        let stream = Stream {
            open: vec![NONE; layout.dies as usize],
            next_die: 0,
            staging_block: NONE,
            staging_first: 0,
            staging_filled: 0,
        };
        Self {
            l2p: vec![NONE; layout.logical_units as usize],
            p2l: vec![NONE; layout.physical_units() as usize],
            valid: vec![0; blocks as usize],
            state: vec![BlockState::Free; blocks as usize],
            write_pu: vec![0; blocks as usize],
            free,
            free_count: blocks,
            mapped_units: 0,
            buckets: Buckets::new(blocks, layout.units_per_block),
            streams: [stream.clone(), stream],
            layout,
        }
    }

    #[inline]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    #[inline]
    pub fn free_blocks(&self) -> u32 {
        self.free_count
    }

    #[inline]
    pub fn mapped_units(&self) -> u64 {
        self.mapped_units
    }

    #[inline]
    pub fn die_of_block(&self, block: u32) -> u32 {
        block / self.layout.blocks_per_die
    }

    #[inline]
    pub fn die_of_slot(&self, slot: u32) -> u32 {
        self.die_of_block(slot / self.layout.units_per_block)
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
            s.staging_block != NONE && slot >= s.staging_first && slot < s.staging_first + s.staging_filled
        })
    }

    /// Counts per block state: (free, open, closed, victim).
    pub fn block_counts(&self) -> (u32, u32, u32, u32) {
        let mut c = (0, 0, 0, 0);
        for s in &self.state {
            match s {
                BlockState::Free => c.0 += 1,
                BlockState::Open => c.1 += 1,
                BlockState::Closed => c.2 += 1,
                BlockState::Victim => c.3 += 1,
            }
        }
        c
    }

    /// Whether `stream`'s next slot starts a new program unit.
    #[inline]
    pub fn needs_new_program_unit(&self, stream: usize) -> bool {
        self.streams[stream].staging_block == NONE
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
        self.drop_valid(slot / self.layout.units_per_block);
        Some(slot)
    }

    #[inline]
    fn drop_valid(&mut self, block: u32) {
        let v = self.valid[block as usize];
        debug_assert!(v > 0, "block {block} has no valid slot to drop");
        if self.state[block as usize] == BlockState::Closed {
            self.buckets.remove(block, v);
            self.buckets.insert(block, v - 1);
        }
        self.valid[block as usize] = v - 1;
    }

    /// Maps `lpn` (currently unmapped) to `slot` (fresh from [`next_slot`](Self::next_slot)).
    #[inline]
    pub fn map(&mut self, lpn: u32, slot: u32) {
        debug_assert_eq!(self.l2p[lpn as usize], NONE);
        debug_assert_eq!(self.p2l[slot as usize], NONE);
        let block = slot / self.layout.units_per_block;
        debug_assert_eq!(self.state[block as usize], BlockState::Open);
        self.l2p[lpn as usize] = slot;
        self.p2l[slot as usize] = lpn;
        self.valid[block as usize] += 1;
        self.mapped_units += 1;
    }

    /// Moves the unit in `from` (a victim's valid slot) to `to` (fresh from
    /// [`next_slot`](Self::next_slot)); returns its lpn. `L2P[lpn] == from` holds
    /// by the mapping's invariant, so the (cache-missing) L2P entry is only
    /// stored to, never loaded: GC's hot loop.
    #[inline]
    pub fn relocate(&mut self, from: u32, to: u32) -> u32 {
        let lpn = self.p2l[from as usize];
        debug_assert_ne!(lpn, NONE);
        debug_assert_eq!(self.l2p[lpn as usize], from);
        debug_assert_eq!(self.p2l[to as usize], NONE);
        let upb = self.layout.units_per_block;
        self.p2l[from as usize] = NONE;
        self.drop_valid(from / upb);
        self.p2l[to as usize] = lpn;
        self.l2p[lpn as usize] = to;
        let to_block = to / upb;
        debug_assert_eq!(self.state[to_block as usize], BlockState::Open);
        self.valid[to_block as usize] += 1;
        lpn
    }

    /// The next free slot of `stream`, opening a program unit (and, if needed, a
    /// block) on the die with the smallest `die_key` (see the module docs). `None`
    /// when no die has room.
    #[inline]
    pub fn next_slot(&mut self, stream: usize, die_key: impl Fn(u32) -> u64) -> Option<u32> {
        if self.streams[stream].staging_block == NONE && !self.open_program_unit(stream, die_key) {
            return None;
        }
        let s = &mut self.streams[stream];
        let slot = s.staging_first + s.staging_filled;
        s.staging_filled += 1;
        Some(slot)
    }

    fn open_program_unit(&mut self, stream: usize, die_key: impl Fn(u32) -> u64) -> bool {
        let dies = self.layout.dies;
        let start = self.streams[stream].next_die;
        let mut best: Option<(u64, u32)> = None;
        for i in 0..dies {
            let die = if start + i >= dies { start + i - dies } else { start + i };
            if self.streams[stream].open[die as usize] == NONE && self.free[die as usize].is_empty() {
                continue;
            }
            let key = die_key(die);
            if best.map_or(true, |(k, _)| key < k) {
                best = Some((key, die));
            }
        }
        let Some((_, die)) = best else { return false };
        let mut block = self.streams[stream].open[die as usize];
        if block == NONE {
            let Some(b) = self.free[die as usize].pop() else { return false };
            debug_assert_eq!(self.state[b as usize], BlockState::Free);
            self.free_count -= 1;
            self.state[b as usize] = BlockState::Open;
            self.write_pu[b as usize] = 0;
            self.valid[b as usize] = 0;
            self.streams[stream].open[die as usize] = b;
            block = b;
        }
        let pu = self.write_pu[block as usize];
        debug_assert!(pu < self.layout.program_units_per_block());
        self.write_pu[block as usize] = pu + 1;
        let s = &mut self.streams[stream];
        s.staging_block = block;
        s.staging_first = block * self.layout.units_per_block + pu * self.layout.units_per_program_unit;
        s.staging_filled = 0;
        s.next_die = if die + 1 == dies { 0 } else { die + 1 };
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
        if s.staging_block == NONE {
            0
        } else {
            s.staging_filled
        }
    }

    /// Hands `stream`'s staged program unit (full, or to be padded) to the flash;
    /// seals its block when that was the block's last program unit.
    pub fn take_staged(&mut self, stream: usize) -> Option<StagedUnit> {
        let s = &mut self.streams[stream];
        let block = s.staging_block;
        if block == NONE {
            return None;
        }
        let filled = s.staging_filled;
        s.staging_block = NONE;
        s.staging_filled = 0;
        let die = self.die_of_block(block);
        if self.write_pu[block as usize] == self.layout.program_units_per_block() {
            self.streams[stream].open[die as usize] = NONE;
            self.state[block as usize] = BlockState::Closed;
            self.buckets.insert(block, self.valid[block as usize]);
        }
        Some(StagedUnit { die, filled_units: filled })
    }

    /// Greedy victim: the closed block with the fewest valid slots, if it frees
    /// anything. The block becomes a [`BlockState::Victim`].
    pub fn pick_victim(&mut self) -> Option<u32> {
        let (block, _) = self.buckets.pop_min(self.layout.units_per_block)?;
        self.state[block as usize] = BlockState::Victim;
        Some(block)
    }

    /// Puts a victim GC could not finish back among the closed blocks.
    pub fn return_victim(&mut self, block: u32) {
        debug_assert_eq!(self.state[block as usize], BlockState::Victim);
        self.state[block as usize] = BlockState::Closed;
        self.buckets.insert(block, self.valid[block as usize]);
    }

    /// Returns an emptied victim to its die's free stack (after its erase).
    pub fn release_victim(&mut self, block: u32) {
        debug_assert_eq!(self.state[block as usize], BlockState::Victim);
        debug_assert_eq!(self.valid[block as usize], 0);
        self.state[block as usize] = BlockState::Free;
        self.write_pu[block as usize] = 0;
        let die = self.die_of_block(block);
        self.free[die as usize].push(block);
        self.free_count += 1;
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
                return Err(format!("L2P[{lpn}] = {slot} but P2L[{slot}] = {}", self.p2l[slot as usize]));
            }
        }
        if mapped != self.mapped_units {
            return Err(format!("{mapped} mapped units but the counter says {}", self.mapped_units));
        }
        let mut counted = vec![0u32; l.total_blocks() as usize];
        for (slot, &lpn) in self.p2l.iter().enumerate() {
            if lpn == NONE {
                continue;
            }
            if self.l2p[lpn as usize] != slot as u32 {
                return Err(format!("P2L[{slot}] = {lpn} but L2P[{lpn}] = {}", self.l2p[lpn as usize]));
            }
            counted[slot / l.units_per_block as usize] += 1;
        }
        for b in 0..l.total_blocks() as usize {
            if counted[b] != self.valid[b] {
                return Err(format!("block {b}: valid count {} but {} P2L entries point into it", self.valid[b], counted[b]));
            }
            let state = self.state[b];
            if state == BlockState::Free && self.valid[b] != 0 {
                return Err(format!("free block {b} has {} valid slots", self.valid[b]));
            }
            let written = self.write_pu[b] * l.units_per_program_unit;
            if counted[b] > written {
                return Err(format!("block {b}: {} valid slots beyond its write pointer {written}", counted[b]));
            }
        }
        let (free, open, closed, victim) = self.block_counts();
        if victim > 1 {
            return Err(format!("{victim} blocks are GC victims at once"));
        }
        if free + open + closed + victim != l.total_blocks() {
            return Err(format!("free {free} + open {open} + closed {closed} != total {}", l.total_blocks()));
        }
        if free != self.free_count || free as usize != self.free.iter().map(Vec::len).sum::<usize>() {
            return Err(format!("free block counter {} and stacks disagree with states ({free})", self.free_count));
        }
        for (d, stack) in self.free.iter().enumerate() {
            for &b in stack {
                if self.state[b as usize] != BlockState::Free || self.die_of_block(b) as usize != d {
                    return Err(format!("die {d}'s free stack holds block {b} in state {:?}", self.state[b as usize]));
                }
            }
        }
        let opened: u32 = self.streams.iter().map(|s| s.open.iter().filter(|&&b| b != NONE).count() as u32).sum();
        if opened != open {
            return Err(format!("{open} open blocks but streams hold {opened}"));
        }
        // Every closed block is in the bucket of its valid count.
        let mut in_buckets = 0;
        for (v, &h) in self.buckets.head.iter().enumerate() {
            let mut b = h;
            while b != NONE {
                if self.state[b as usize] != BlockState::Closed || self.valid[b as usize] != v as u32 {
                    return Err(format!("bucket {v} holds block {b} ({:?}, {} valid)", self.state[b as usize], self.valid[b as usize]));
                }
                if (v as u32) < self.buckets.min_hint {
                    return Err(format!("bucket {v} is below the minimum hint {}", self.buckets.min_hint));
                }
                in_buckets += 1;
                b = self.buckets.next[b as usize];
            }
        }
        if in_buckets != closed {
            return Err(format!("{closed} closed blocks but {in_buckets} in buckets"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout() -> Layout {
        Layout { dies: 2, blocks_per_die: 4, units_per_block: 8, units_per_program_unit: 4, units_per_read_group: 2, logical_units: 16 }
    }

    #[test]
    fn program_units_rotate_over_dies_and_blocks_seal() {
        let mut m = Mapping::new(layout());
        let mut dies = Vec::new();
        for lpn in 0..16 {
            let slot = m.next_slot(HOST, |_| 0).unwrap();
            m.map(lpn, slot);
            if m.staged_full(HOST) {
                dies.push(m.take_staged(HOST).unwrap().die);
            }
        }
        assert_eq!(dies, vec![0, 1, 0, 1]);
        // Two blocks (one per die) are now full and closed.
        assert_eq!(m.block_counts(), (6, 0, 2, 0));
        m.check_invariants().unwrap();
        for lpn in 0..6 {
            m.unmap(lpn);
        }
        // Block 0 (die 0) held lpns 0-3 and 8-11: 4 left valid; block 4 (die 1)
        // held 4-7 and 12-15: 6 left valid.
        assert_eq!(m.pick_victim(), Some(0));
        assert_eq!(m.pick_victim(), Some(4));
        assert_eq!(m.pick_victim(), None);
    }
}
