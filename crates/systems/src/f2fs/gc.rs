//! Cleaning mechanism (gc.c `f2fs_gc` / `do_garbage_collect`): victim search by a
//! [`VictimRule`], then a round in two steps the runner executes at their times —
//! read the victim's valid blocks, then rewrite the ones still valid: data to
//! the cold data log (GC'd pages are marked cold, `__get_segment_type_6`), nodes
//! to their node log (`f2fs_move_node_page`), each move dirtying the node that
//! points to the data (written later by fsync or checkpoint). An emptied section
//! becomes prefree; the next checkpoint frees it.

use super::error::FsError;
use super::fs::{F2fs, Owner};
use super::io::{submit_runs, IoKind};
use super::layout::BLOCKS_PER_SEG;
use super::logs::LogType;
use super::nat::NodeSlot;
use super::policy::{GcRound, VictimRule};
use super::sit::SecState;
use super::storage::{Area, FsStorage};
use zonelab_engine::Ns;

/// GC progress kept across steps and rounds.
#[derive(Debug, Clone, Default)]
pub struct GcState {
    /// Victim in progress of windowed rounds, per victim rule (the kernel's
    /// `next_victim_seg[gc_type]`: greedy = FG_GC, cost-benefit = BG_GC):
    /// (section, next segment offset in it).
    pub victim: [Option<(u32, u32)>; 2],
}

fn slot(rule: VictimRule) -> usize {
    match rule {
        VictimRule::Greedy => 0,
        VictimRule::CostBenefit => 1,
    }
}

impl F2fs {
    /// The victim `rule` picks among sections in use, not a log's current
    /// section, not full of valid blocks (and, with `max_valid_ratio`, less
    /// valid than that).
    pub fn select_victim(&self, rule: VictimRule, max_valid_ratio: Option<f64>) -> Option<u32> {
        let cap = self.geo.blocks_per_sec();
        let limit = max_valid_ratio.map_or(cap, |r| (cap as f64 * r) as u32);
        let candidates = (0..self.sit.sections()).filter(|&s| {
            self.sit.sec_state(s) == SecState::InUse
                && !self.sit.is_current(s)
                && self.sit.sec_valid(s) < cap.min(limit)
        });
        match rule {
            VictimRule::Greedy => candidates.min_by_key(|&s| (self.sit.sec_valid(s), s)),
            VictimRule::CostBenefit => {
                let c: Vec<u32> = candidates.collect();
                let (lo, hi) = c.iter().fold((f64::MAX, f64::MIN), |(lo, hi), &s| {
                    let m = self.sit.sec_mtime_ns(s);
                    (lo.min(m), hi.max(m))
                });
                // get_cb_cost: maximise (100 - u) * age / (100 + u), u in %.
                let score = |s: u32| {
                    let u = self.sit.sec_valid(s) as f64 * 100.0 / cap as f64;
                    let age = if hi > lo {
                        100.0 - 100.0 * (self.sit.sec_mtime_ns(s) - lo) / (hi - lo)
                    } else {
                        0.0
                    };
                    (100.0 - u) * age / (100.0 + u)
                };
                c.into_iter()
                    .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
            }
        }
    }

    /// Starts a round: picks (or continues) a victim and lists the valid blocks
    /// of the segments this round moves. `None` if there is no victim.
    pub fn gc_begin_round(&mut self, round: &GcRound) -> Option<(u32, Vec<u32>)> {
        let k = slot(round.rule);
        let (sec, first) = match round.segments {
            Some(_) => match self.gc.victim[k] {
                Some((s, next))
                    if self.sit.sec_state(s) == SecState::InUse
                        && !self.sit.is_current(s)
                        && self.sit.sec_valid(s) > 0
                        && next < self.geo.usable_segs_per_sec =>
                {
                    (s, next)
                }
                _ => (self.select_victim(round.rule, round.max_valid_ratio)?, 0),
            },
            None => (self.select_victim(round.rule, round.max_valid_ratio)?, 0),
        };
        let usable = self.geo.usable_segs_per_sec;
        let last = round.segments.map_or(usable, |n| (first + n).min(usable));
        self.gc.victim[k] = match round.segments {
            Some(_) if last < usable => Some((sec, last)),
            Some(_) => None,
            None => self.gc.victim[k],
        };
        self.stats.gc_window_blocks += (last - first) as u64 * BLOCKS_PER_SEG as u64;
        let mut blks = Vec::new();
        let base = sec * self.geo.segs_per_sec;
        for seg in base + first..base + last {
            self.sit.valid_in_seg(seg, &mut blks);
        }
        Some((sec, blks))
    }

    /// Reads `blks` (GC's first step).
    pub fn gc_read(
        &mut self,
        st: &mut dyn FsStorage,
        blks: &[u32],
        now: Ns,
    ) -> Result<Ns, FsError> {
        let lbas: Vec<u64> = blks.iter().map(|&b| self.geo.lba(b)).collect();
        submit_runs(
            st,
            Area::Main,
            IoKind::Read,
            &lbas,
            self.cfg.max_io_blocks,
            now,
        )
    }

    /// Rewrites the blocks of `blks` still valid (GC's second step).
    pub fn gc_move(
        &mut self,
        st: &mut dyn FsStorage,
        blks: &[u32],
        now: Ns,
    ) -> Result<Ns, FsError> {
        let ssr = self.need_ssr();
        let mut lbas = Vec::with_capacity(blks.len());
        for &old in blks {
            if !self.sit.is_valid(old) {
                continue; // overwritten or deleted since it was read
            }
            match self.owner(old) {
                Owner::Free => continue,
                Owner::Data { file, idx } => {
                    let new = self.alloc_block(LogType::ColdData, ssr)?;
                    self.move_block(old, new, now);
                    let f = self.files[file as usize]
                        .as_mut()
                        .expect("file of a live block");
                    f.addrs[idx as usize] = new;
                    f.dirty_nodes.insert(NodeSlot::of_block(idx));
                    self.stats.gc_data_blocks += 1;
                    lbas.push(self.geo.lba(new));
                }
                Owner::Node { nid } => {
                    let o = self.nat.owner(nid).expect("owner of a live node");
                    let is_dir = self.file_at(o.file).is_some_and(|f| f.is_dir);
                    let log = match (o.slot.is_dnode(), is_dir) {
                        (true, true) => LogType::HotNode,
                        (true, false) => LogType::WarmNode,
                        (false, _) => LogType::ColdNode,
                    };
                    let new = self.alloc_block(log, ssr)?;
                    self.move_block(old, new, now);
                    self.nat.set_addr(nid, new);
                    self.stats.gc_node_blocks += 1;
                    lbas.push(self.geo.lba(new));
                }
            }
        }
        submit_runs(
            st,
            Area::Main,
            IoKind::Write,
            &lbas,
            self.cfg.max_io_blocks,
            now,
        )
    }

    /// Ends a round on `sec`: counts it cleaned if it is now empty.
    pub fn gc_end_round(&mut self, sec: u32) {
        if self.sit.sec_valid(sec) == 0 {
            self.stats.gc_sections += 1;
            for v in &mut self.gc.victim {
                if v.is_some_and(|(s, _)| s == sec) {
                    *v = None;
                }
            }
        }
    }

    /// Blocks of a section (usable part).
    pub fn section_blocks(&self) -> u32 {
        self.geo.usable_segs_per_sec * BLOCKS_PER_SEG
    }
}
