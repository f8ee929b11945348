//! The six logs (F2FS "current segments", `NR_CURSEG_TYPE` = 6): hot, warm and
//! cold data, hot, warm and cold node. Each appends to its current segment; a
//! full segment is followed by the next segment of the same section while it
//! has usable ones (a zone is written sequentially), then by a free section
//! (`new_curseg`). In adaptive mode, when free sections run low, a log instead
//! continues in a dirty segment's reusable blocks (slack-space recycling,
//! `get_ssr_segment` / `change_curseg`), choosing the segment with the fewest
//! blocks valid at the last checkpoint.

use super::error::FsError;
use super::layout::{MainGeometry, BLOCKS_PER_SEG};
use super::sit::{SecState, Sit};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogType {
    HotData = 0,
    WarmData = 1,
    ColdData = 2,
    HotNode = 3,
    WarmNode = 4,
    ColdNode = 5,
}

impl LogType {
    pub const ALL: [LogType; 6] = [
        LogType::HotData,
        LogType::WarmData,
        LogType::ColdData,
        LogType::HotNode,
        LogType::WarmNode,
        LogType::ColdNode,
    ];

    pub fn is_node(self) -> bool {
        self as u8 >= 3
    }
}

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Cur {
    seg: u32,
    off: u32,
    ssr: bool,
}

#[derive(Debug)]
pub struct Logs {
    cur: [Cur; 6],
    /// Log type that last wrote each segment (`NONE` if never), for SSR.
    seg_type: Vec<u8>,
    /// Segments a log moved off since the last checkpoint (their summary blocks
    /// are written at the checkpoint).
    closed: Vec<u32>,
    pub ssr_switches: u64,
}

impl Logs {
    pub fn new(g: &MainGeometry) -> Self {
        Self {
            cur: [Cur {
                seg: NONE,
                off: 0,
                ssr: false,
            }; 6],
            seg_type: vec![u8::MAX; g.segments as usize],
            closed: Vec::new(),
            ssr_switches: 0,
        }
    }

    /// Opens a section for every log (mkfs gives each of the six logs a
    /// current segment, `f2fs_write_check_point_pack`'s `cur_seg`).
    pub fn open_all(&mut self, g: &MainGeometry, sit: &mut Sit) -> Result<(), FsError> {
        for log in LogType::ALL {
            self.next_segment(log, g, sit, false)?;
        }
        Ok(())
    }

    /// Sections that are some log's current section.
    pub fn current_sections(&self, g: &MainGeometry) -> Vec<u32> {
        self.cur
            .iter()
            .filter(|c| c.seg != NONE)
            .map(|c| g.sec_of_seg(c.seg))
            .collect()
    }

    /// Segments closed since the last checkpoint; clears the list.
    pub fn take_closed(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.closed)
    }

    /// Allocates the next block of `log`. `ssr` allows slack-space recycling
    /// when the log needs a new segment.
    pub fn alloc(
        &mut self,
        log: LogType,
        g: &MainGeometry,
        sit: &mut Sit,
        ssr: bool,
    ) -> Result<u32, FsError> {
        // Each new segment has a block to give (a fresh one, or a recycled one
        // with a reusable block), so two segment changes in one allocation mean
        // the free-block bookkeeping is broken: fail instead of spinning.
        for _ in 0..3 {
            let c = self.cur[log as usize];
            if c.seg != NONE && c.off < BLOCKS_PER_SEG {
                let blk = c.seg * BLOCKS_PER_SEG + c.off;
                if c.ssr {
                    // Recycled segment: skip blocks still in use.
                    let next = (c.off..BLOCKS_PER_SEG)
                        .find(|&o| sit.is_reusable(c.seg * BLOCKS_PER_SEG + o));
                    match next {
                        Some(o) => {
                            self.cur[log as usize].off = o + 1;
                            return Ok(c.seg * BLOCKS_PER_SEG + o);
                        }
                        None => {
                            self.cur[log as usize].off = BLOCKS_PER_SEG;
                            continue;
                        }
                    }
                }
                self.cur[log as usize].off += 1;
                return Ok(blk);
            }
            self.next_segment(log, g, sit, ssr)?;
        }
        let c = self.cur[log as usize];
        Err(FsError::Invariant(format!(
            "{log:?} log made no progress: segment {} (recycled: {}) has no block to allocate",
            c.seg, c.ssr
        )))
    }

    fn next_segment(
        &mut self,
        log: LogType,
        g: &MainGeometry,
        sit: &mut Sit,
        ssr: bool,
    ) -> Result<(), FsError> {
        let c = self.cur[log as usize];
        if c.seg != NONE {
            self.closed.push(c.seg);
            let next = c.seg + 1;
            if !c.ssr
                && g.sec_of_seg(next) == g.sec_of_seg(c.seg)
                && g.seg_usable(next)
                && next < g.segments
            {
                self.open_segment(log, next, false);
                return Ok(());
            }
            sit.set_current(g.sec_of_seg(c.seg), false);
        }
        if ssr {
            if let Some(seg) = self.ssr_victim(log, g, sit) {
                self.ssr_switches += 1;
                sit.set_current(g.sec_of_seg(seg), true);
                self.open_segment(log, seg, true);
                return Ok(());
            }
        }
        let start = if c.seg == NONE {
            0
        } else {
            g.sec_of_seg(c.seg) + 1
        };
        let n = g.sections;
        let sec = (0..n)
            .map(|i| (start + i) % n)
            .find(|&s| sit.sec_state(s) == SecState::Free)
            .ok_or_else(|| {
                FsError::NoSpace(format!(
                    "no free section for the {:?} log ({} sections, all in use or prefree)",
                    log, n
                ))
            })?;
        sit.open_section(sec);
        self.open_segment(log, sec * g.segs_per_sec, false);
        Ok(())
    }

    fn open_segment(&mut self, log: LogType, seg: u32, ssr: bool) {
        self.cur[log as usize] = Cur { seg, off: 0, ssr };
        self.seg_type[seg as usize] = log as u8;
    }

    /// SSR victim: a non-current segment of the same kind (data or node) with
    /// reusable blocks, fewest blocks valid at the last checkpoint or written
    /// since first (gc.c `get_gc_cost` in SSR mode: `ckpt_valid_blocks`; a
    /// segment at the maximum cost is skipped). Counting the union is what
    /// guarantees the chosen segment has a block to reuse: counting valid and
    /// checkpointed blocks apart (the max of the two) chose segments whose two
    /// bitmaps together covered every block, and `alloc` then re-chose the
    /// same segment forever (the adaptive-mode livelock of issue 16).
    fn ssr_victim(&self, log: LogType, g: &MainGeometry, sit: &Sit) -> Option<u32> {
        (0..g.segments)
            .filter(|&s| {
                let t = self.seg_type[s as usize];
                t != u8::MAX
                    && LogType::ALL[t as usize].is_node() == log.is_node()
                    && sit.sec_state(g.sec_of_seg(s)) != SecState::Free
                    && !sit.is_current(g.sec_of_seg(s))
                    && sit.seg_ckpt_count(s) < BLOCKS_PER_SEG
            })
            .min_by_key(|&s| (sit.seg_ckpt_count(s), s))
    }

    /// Whether `log` writes into a recycled segment now.
    pub fn in_ssr(&self, log: LogType) -> bool {
        self.cur[log as usize].ssr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four one-segment sections on a block device.
    fn geo() -> MainGeometry {
        MainGeometry {
            segments: 4,
            segs_per_sec: 1,
            usable_segs_per_sec: 1,
            sections: 4,
            zoned: false,
            lba_base: 0,
        }
    }

    /// The history that livelocked adaptive mode: segment 0's first half is
    /// valid at the checkpoint and then dies, its second half is written after
    /// the checkpoint. Valid (256) and checkpointed (256) counts are both below
    /// the segment size, yet no block is reusable until the next checkpoint.
    #[test]
    fn recycling_skips_a_segment_whose_blocks_are_all_checkpointed_or_newly_written() {
        let g = geo();
        let mut sit = Sit::new(&g);
        let mut logs = Logs::new(&g);
        for _ in 0..BLOCKS_PER_SEG {
            let b = logs.alloc(LogType::HotData, &g, &mut sit, false).unwrap();
            assert!(b < BLOCKS_PER_SEG);
            if b < BLOCKS_PER_SEG / 2 {
                sit.mark_valid(b, 0);
            }
        }
        sit.commit_checkpoint();
        for b in BLOCKS_PER_SEG / 2..BLOCKS_PER_SEG {
            sit.mark_valid(b, 1);
        }
        for b in 0..BLOCKS_PER_SEG / 2 {
            sit.mark_invalid(b);
        }
        assert_eq!(sit.seg_valid_count(0), BLOCKS_PER_SEG / 2);
        assert_eq!(sit.seg_ckpt_count(0), BLOCKS_PER_SEG);
        assert!((0..BLOCKS_PER_SEG).all(|b| !sit.is_reusable(b)));
        // The log needs a new segment with recycling allowed: segment 0 has
        // nothing to give, so it takes a free section.
        let b = logs.alloc(LogType::HotData, &g, &mut sit, true).unwrap();
        assert_eq!(b / BLOCKS_PER_SEG, 1);
        assert_eq!(logs.ssr_switches, 0);
        // After the next checkpoint the dead half is reusable and recycled.
        sit.commit_checkpoint();
        sit.mark_valid(b, 2);
        for _ in 1..BLOCKS_PER_SEG {
            let b = logs.alloc(LogType::HotData, &g, &mut sit, true).unwrap();
            sit.mark_valid(b, 2);
        }
        let b = logs.alloc(LogType::HotData, &g, &mut sit, true).unwrap();
        assert!(b < BLOCKS_PER_SEG / 2, "recycled block {b}");
        assert_eq!(logs.ssr_switches, 1);
    }
}
