//! The segment information table (F2FS SIT, segment.c): per segment a valid-block
//! bitmap and the bitmap as of the last checkpoint (`cur_valid_map` /
//! `ckpt_valid_map`), per section valid counts, modification time and state.
//!
//! As in F2FS's `update_sit_entry` ("SSR should never reuse block which is
//! checkpointed or newly invalidated"), a block that becomes valid also sets its
//! checkpoint bit, so the checkpoint map holds the blocks valid at the last
//! checkpoint *or* written since; its count is then exactly what slack-space
//! recycling cannot reuse, and a segment whose count is below the segment size
//! has a reusable block.
//!
//! A section is *free* (allocatable), *in use* (holding or having held data
//! since it was last freed) or *prefree* (all its blocks invalid, but reusable
//! only after the next checkpoint commits that, so the last checkpoint's blocks
//! are never overwritten: `PRE` dirty segments in F2FS).

use super::layout::{MainGeometry, BLOCKS_PER_SEG};
use zonelab_engine::Ns;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecState {
    Free,
    InUse,
    Prefree,
}

#[derive(Debug, Clone, Copy, Default)]
struct Seg {
    valid: [u64; 8],
    ckpt: [u64; 8],
    vcount: u16,
    ckpt_count: u16,
    /// Changed since the last checkpoint (its SIT entry must be written).
    dirty: bool,
}

#[inline]
fn bit(map: &[u64; 8], off: u32) -> bool {
    map[(off / 64) as usize] >> (off % 64) & 1 == 1
}

#[derive(Debug)]
pub struct Sit {
    segs: Vec<Seg>,
    sec_valid: Vec<u32>,
    sec_ckpt: Vec<u32>,
    sec_state: Vec<SecState>,
    /// Weighted mean write time of each section's valid blocks (`mtime`).
    sec_mtime_ns: Vec<f64>,
    /// Sections that are some log's current section (never victims or prefree).
    current: Vec<bool>,
    free_sections: u32,
    dirty_segs: Vec<u32>,
    valid_blocks: u64,
    spp: u32,
    usable_spp: u32,
}

impl Sit {
    pub fn new(g: &MainGeometry) -> Self {
        Self {
            segs: vec![Seg::default(); g.segments as usize],
            sec_valid: vec![0; g.sections as usize],
            sec_ckpt: vec![0; g.sections as usize],
            sec_state: vec![SecState::Free; g.sections as usize],
            sec_mtime_ns: vec![0.0; g.sections as usize],
            current: vec![false; g.sections as usize],
            free_sections: g.sections,
            dirty_segs: Vec::new(),
            valid_blocks: 0,
            spp: g.segs_per_sec,
            usable_spp: g.usable_segs_per_sec,
        }
    }

    pub fn sections(&self) -> u32 {
        self.sec_valid.len() as u32
    }

    pub fn free_sections(&self) -> u32 {
        self.free_sections
    }

    pub fn valid_blocks(&self) -> u64 {
        self.valid_blocks
    }

    pub fn sec_valid(&self, sec: u32) -> u32 {
        self.sec_valid[sec as usize]
    }

    pub fn sec_state(&self, sec: u32) -> SecState {
        self.sec_state[sec as usize]
    }

    pub fn sec_mtime_ns(&self, sec: u32) -> f64 {
        self.sec_mtime_ns[sec as usize]
    }

    pub fn is_current(&self, sec: u32) -> bool {
        self.current[sec as usize]
    }

    pub fn seg_valid_count(&self, seg: u32) -> u32 {
        self.segs[seg as usize].vcount as u32
    }

    /// Blocks of `seg` valid at the last checkpoint or written since (F2FS
    /// `ckpt_valid_blocks`): the blocks slack-space recycling must skip.
    pub fn seg_ckpt_count(&self, seg: u32) -> u32 {
        self.segs[seg as usize].ckpt_count as u32
    }

    #[inline]
    pub fn is_valid(&self, blk: u32) -> bool {
        bit(
            &self.segs[(blk / BLOCKS_PER_SEG) as usize].valid,
            blk % BLOCKS_PER_SEG,
        )
    }

    #[inline]
    pub fn is_ckpt_valid(&self, blk: u32) -> bool {
        bit(
            &self.segs[(blk / BLOCKS_PER_SEG) as usize].ckpt,
            blk % BLOCKS_PER_SEG,
        )
    }

    /// A block slack-space recycling may reuse: not valid at the last
    /// checkpoint and not written since (the checkpoint map covers both).
    #[inline]
    pub fn is_reusable(&self, blk: u32) -> bool {
        !self.is_ckpt_valid(blk)
    }

    /// Segments of prefree sections (`prefree_segments`).
    pub fn prefree_segments(&self) -> u32 {
        self.sec_state
            .iter()
            .filter(|&&s| s == SecState::Prefree)
            .count() as u32
            * self.usable_spp
    }

    /// Takes free section `sec` for a log.
    pub fn open_section(&mut self, sec: u32) {
        debug_assert_eq!(self.sec_state[sec as usize], SecState::Free);
        self.sec_state[sec as usize] = SecState::InUse;
        self.current[sec as usize] = true;
        self.free_sections -= 1;
    }

    /// Section `sec` is no longer a log's current section.
    pub fn close_section(&mut self, sec: u32) {
        self.current[sec as usize] = false;
        self.maybe_prefree(sec);
    }

    /// Marks a current (or, for SSR / in-place, any in-use) section's section
    /// current again.
    pub fn set_current(&mut self, sec: u32, on: bool) {
        self.current[sec as usize] = on;
        if !on {
            self.maybe_prefree(sec);
        }
    }

    fn maybe_prefree(&mut self, sec: u32) {
        let s = sec as usize;
        if self.sec_state[s] == SecState::InUse && self.sec_valid[s] == 0 && !self.current[s] {
            self.sec_state[s] = SecState::Prefree;
        }
    }

    /// Block `blk` now holds live data written at `now`.
    pub fn mark_valid(&mut self, blk: u32, now: Ns) {
        let seg = blk / BLOCKS_PER_SEG;
        let off = blk % BLOCKS_PER_SEG;
        let s = &mut self.segs[seg as usize];
        debug_assert!(!bit(&s.valid, off), "block {blk} already valid");
        s.valid[(off / 64) as usize] |= 1 << (off % 64);
        s.vcount += 1;
        // update_sit_entry: `f2fs_test_and_set_bit(offset, se->ckpt_valid_map)`.
        if !bit(&s.ckpt, off) {
            s.ckpt[(off / 64) as usize] |= 1 << (off % 64);
            s.ckpt_count += 1;
        }
        if !s.dirty {
            s.dirty = true;
            self.dirty_segs.push(seg);
        }
        let sec = (seg / self.spp) as usize;
        let v = self.sec_valid[sec] as f64;
        self.sec_mtime_ns[sec] = (self.sec_mtime_ns[sec] * v + now as f64) / (v + 1.0);
        self.sec_valid[sec] += 1;
        self.valid_blocks += 1;
        if self.sec_state[sec] == SecState::Prefree {
            self.sec_state[sec] = SecState::InUse;
        }
    }

    /// Block `blk`'s data is dead.
    pub fn mark_invalid(&mut self, blk: u32) {
        let seg = blk / BLOCKS_PER_SEG;
        let off = blk % BLOCKS_PER_SEG;
        let s = &mut self.segs[seg as usize];
        debug_assert!(bit(&s.valid, off), "block {blk} not valid");
        s.valid[(off / 64) as usize] &= !(1 << (off % 64));
        s.vcount -= 1;
        if !s.dirty {
            s.dirty = true;
            self.dirty_segs.push(seg);
        }
        let sec = seg / self.spp;
        self.sec_valid[sec as usize] -= 1;
        self.valid_blocks -= 1;
        self.maybe_prefree(sec);
    }

    /// Valid blocks of segment `seg`, in order.
    pub fn valid_in_seg(&self, seg: u32, out: &mut Vec<u32>) {
        let s = &self.segs[seg as usize];
        for (w, word) in s.valid.iter().enumerate() {
            let mut x = *word;
            while x != 0 {
                let b = x.trailing_zeros();
                out.push(seg * BLOCKS_PER_SEG + w as u32 * 64 + b);
                x &= x - 1;
            }
        }
    }

    /// Segments whose SIT entries changed since the last checkpoint.
    pub fn dirty_segments(&self) -> &[u32] {
        &self.dirty_segs
    }

    /// Checkpoint commit: the checkpointed bitmaps become the current ones and
    /// prefree sections become free. Returns the sections freed.
    pub fn commit_checkpoint(&mut self) -> Vec<u32> {
        for &seg in &self.dirty_segs {
            let s = &mut self.segs[seg as usize];
            s.ckpt = s.valid;
            s.ckpt_count = s.vcount;
            s.dirty = false;
        }
        for seg in std::mem::take(&mut self.dirty_segs) {
            let sec = (seg / self.spp) as usize;
            self.sec_ckpt[sec] = 0;
        }
        for sec in 0..self.sec_valid.len() {
            let first = sec as u32 * self.spp;
            self.sec_ckpt[sec] = (first..first + self.spp)
                .map(|g| self.segs[g as usize].ckpt_count as u32)
                .sum();
        }
        let mut freed = Vec::new();
        for sec in 0..self.sec_state.len() {
            if self.sec_state[sec] == SecState::Prefree {
                debug_assert_eq!(self.sec_ckpt[sec], 0);
                self.sec_state[sec] = SecState::Free;
                self.sec_mtime_ns[sec] = 0.0;
                self.free_sections += 1;
                freed.push(sec as u32);
            }
        }
        freed
    }

    /// Blocks of section `sec` valid at the last checkpoint.
    pub fn sec_ckpt_blocks(&self, sec: u32) -> u32 {
        self.sec_ckpt[sec as usize]
    }
}
