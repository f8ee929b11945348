//! Cleaning policies: when the GC thread cleans, how much, with which victim
//! rule, and when a writer must clean first. The mechanism (victim search, block
//! moves, checkpoints) is in [`super::gc`] and [`super::checkpoint`]; a policy
//! only decides. Two follow Linux 6.12's `fs/f2fs/gc.c` `gc_thread_func` (the
//! kernel of ConZone+ §6.1), one the paper's "zoned-config" (§6.4).

use zonelab_engine::{Ns, NS_PER_MS};

/// What a policy sees of the file system.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpaceView {
    pub free_sections: u32,
    pub total_sections: u32,
    pub reserved_sections: u32,
    /// `user_block_count`.
    pub user_blocks: u64,
    /// Valid blocks (`written_block_count`).
    pub valid_blocks: u64,
    /// Free blocks less the over-provisioned ones (`free_user_blocks`).
    pub free_user_blocks: u64,
    /// Time since the last user request.
    pub idle_ns: Ns,
}

/// Victim rule (gc.c `select_gc_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VictimRule {
    /// Fewest valid blocks (`GC_GREEDY`, foreground GC).
    Greedy,
    /// Cost-benefit on age and utilisation (`GC_CB`, background GC).
    CostBenefit,
}

/// One GC round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GcRound {
    pub rule: VictimRule,
    /// Segments of the victim moved this round; `None` moves the whole section
    /// (FG_GC). A background victim persists across rounds until emptied.
    pub segments: Option<u32>,
    /// Skip victims at least this valid (one-time GC's `valid_thresh_ratio`).
    pub max_valid_ratio: Option<f64>,
}

/// The GC thread's decision on waking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BgDecision {
    Sleep,
    Clean(GcRound),
}

/// A cleaning policy.
pub trait CleaningPolicy {
    fn name(&self) -> &'static str;
    /// The GC thread woke up with `s`: clean or not (and set the next sleep).
    fn on_wake(&mut self, s: &SpaceView) -> BgDecision;
    /// A round ended; `found` tells whether it had a victim.
    fn after_round(&mut self, found: bool);
    /// How long the GC thread sleeps before waking again.
    fn sleep_ns(&self) -> Ns;
    /// Whether a writer must clean before allocating (`has_not_enough_free_secs`
    /// in `f2fs_balance_fs`: free sections at or below the reserved sections
    /// plus one for the logs' next sections).
    fn needs_foreground(&self, s: &SpaceView) -> bool {
        s.free_sections <= s.reserved_sections.max(1) + 1
    }
}

/// Sleep bookkeeping shared by the F2FS policies (gc.h `increase_sleep_time`,
/// `decrease_sleep_time`).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Sleep {
    min_ms: u64,
    max_ms: u64,
    no_gc_ms: u64,
    wait_ms: u64,
}

impl Sleep {
    fn increase(&mut self) {
        if self.wait_ms == self.no_gc_ms {
            return;
        }
        self.wait_ms = (self.wait_ms + self.min_ms).min(self.max_ms);
    }

    fn decrease(&mut self) {
        if self.wait_ms == self.no_gc_ms {
            self.wait_ms = self.max_ms;
        }
        self.wait_ms = if self.wait_ms < 2 * self.min_ms {
            self.min_ms
        } else {
            self.wait_ms - self.min_ms
        };
    }

    fn after_round(&mut self, found: bool) {
        if !found {
            self.wait_ms = self.no_gc_ms;
        } else if self.wait_ms == self.no_gc_ms {
            self.wait_ms = self.min_ms;
        }
    }
}

/// F2FS on a zoned device (Linux 6.12, gc.c / gc.h, patches [14]-[16] of the
/// paper): the thread wakes every 10-20 ms; no GC while more than
/// `no_zoned_gc_percent` (60 %) of the sections are free; below that, background
/// GC by cost-benefit moving `migration_granularity` (3) segments of its victim
/// per round; at or below `boost_zoned_gc_percent` (25 %) free, boosted: a
/// foreground-type (`one_time`) greedy round whose window is
/// `BOOST_GC_MULTIPLE` (5) times the migration granularity (gc.c
/// `do_garbage_collect`: `if (gc_type == BG_GC || one_time)` the window is
/// `migration_window_granularity`, × `BOOST_GC_MULTIPLE` while boosted),
/// skipping victims at least `valid_thresh_ratio` (95 %) valid.
#[derive(Debug, Clone, PartialEq)]
pub struct F2fsZoned {
    sleep: Sleep,
    pub no_gc_percent: u32,
    pub boost_percent: u32,
    pub granularity_segments: u32,
    /// `BOOST_GC_MULTIPLE`: the window of a boosted round, in granularities.
    pub boost_multiple: u32,
    pub valid_thresh_ratio: f64,
    name: &'static str,
}

impl F2fsZoned {
    /// The kernel's defaults for zoned devices.
    pub fn new() -> Self {
        Self {
            // DEF_GC_THREAD_{MIN,MAX,NOGC}_SLEEP_TIME_ZONED 10, 20, 60000 ms.
            sleep: Sleep {
                min_ms: 10,
                max_ms: 20,
                no_gc_ms: 60_000,
                wait_ms: 10,
            },
            no_gc_percent: 60,        // LIMIT_NO_ZONED_GC
            boost_percent: 25,        // LIMIT_BOOST_ZONED_GC
            granularity_segments: 3,  // DEF_MIGRATION_WINDOW_GRANULARITY_ZONED
            boost_multiple: 5,        // BOOST_GC_MULTIPLE
            valid_thresh_ratio: 0.95, // DEF_GC_THREAD_VALID_THRESH_RATIO (6.12)
            name: "f2fs-zoned",
        }
    }

    /// §6.4 "zoned-config": block storage's GC sleep times
    /// (`gc_{min,max,no_gc}_sleep_time` 30 s, 60 s, 300 s) and
    /// `gc_boost_zoned_gc_percent = gc_no_zoned_gc_percent = 0`.
    pub fn zoned_config() -> Self {
        Self {
            sleep: Sleep {
                min_ms: 30_000,
                max_ms: 60_000,
                no_gc_ms: 300_000,
                wait_ms: 30_000,
            },
            no_gc_percent: 0,
            boost_percent: 0,
            name: "f2fs-zoned-config",
            ..Self::new()
        }
    }

    fn has_enough_free(s: &SpaceView, percent: u32) -> bool {
        s.free_sections as u64 > s.total_sections as u64 * percent as u64 / 100
    }
}

impl Default for F2fsZoned {
    fn default() -> Self {
        Self::new()
    }
}

impl CleaningPolicy for F2fsZoned {
    fn name(&self) -> &'static str {
        self.name
    }

    fn on_wake(&mut self, s: &SpaceView) -> BgDecision {
        if Self::has_enough_free(s, self.no_gc_percent) {
            self.sleep.wait_ms = self.sleep.no_gc_ms;
            return BgDecision::Sleep;
        }
        if self.sleep.wait_ms == self.sleep.no_gc_ms {
            self.sleep.wait_ms = self.sleep.max_ms;
        }
        if !Self::has_enough_free(s, self.boost_percent) {
            self.sleep.decrease();
            BgDecision::Clean(GcRound {
                rule: VictimRule::Greedy,
                segments: Some(self.granularity_segments * self.boost_multiple),
                max_valid_ratio: Some(self.valid_thresh_ratio),
            })
        } else {
            self.sleep.increase();
            BgDecision::Clean(GcRound {
                rule: VictimRule::CostBenefit,
                segments: Some(self.granularity_segments),
                max_valid_ratio: None,
            })
        }
    }

    fn after_round(&mut self, found: bool) {
        self.sleep.after_round(found);
    }

    fn sleep_ns(&self) -> Ns {
        self.sleep.wait_ms * NS_PER_MS
    }
}

/// F2FS on a block device (gc.c `gc_thread_func`, non-zoned path): the thread
/// wakes every 30-60 s and cleans one section by cost-benefit only when the
/// I/O subsystem has been idle (`is_idle(sbi, GC_TIME)`, 5 s without user
/// requests); it sleeps shorter while invalid blocks exceed 40 % of user space
/// and free space is under 40 % of what could be reclaimed
/// (`has_enough_invalid_blocks`).
#[derive(Debug, Clone, PartialEq)]
pub struct F2fsBlock {
    sleep: Sleep,
    pub idle_ns: Ns,
}

impl F2fsBlock {
    pub fn new(idle_ns: Ns) -> Self {
        Self {
            // DEF_GC_THREAD_{MIN,MAX,NOGC}_SLEEP_TIME 30000, 60000, 300000 ms.
            sleep: Sleep {
                min_ms: 30_000,
                max_ms: 60_000,
                no_gc_ms: 300_000,
                wait_ms: 30_000,
            },
            idle_ns,
        }
    }

    fn has_enough_invalid(s: &SpaceView) -> bool {
        // LIMIT_INVALID_BLOCK 40 %, LIMIT_FREE_BLOCK 40 %.
        let invalid = s.user_blocks.saturating_sub(s.valid_blocks);
        invalid > s.user_blocks * 40 / 100 && s.free_user_blocks < invalid * 40 / 100
    }
}

impl CleaningPolicy for F2fsBlock {
    fn name(&self) -> &'static str {
        "f2fs-block"
    }

    fn on_wake(&mut self, s: &SpaceView) -> BgDecision {
        if s.idle_ns < self.idle_ns {
            self.sleep.increase();
            return BgDecision::Sleep;
        }
        if Self::has_enough_invalid(s) {
            self.sleep.decrease();
        } else {
            self.sleep.increase();
        }
        BgDecision::Clean(GcRound {
            rule: VictimRule::CostBenefit,
            segments: None,
            max_valid_ratio: None,
        })
    }

    fn after_round(&mut self, found: bool) {
        self.sleep.after_round(found);
    }

    fn sleep_ns(&self) -> Ns {
        self.sleep.wait_ms * NS_PER_MS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(free: u32) -> SpaceView {
        SpaceView {
            free_sections: free,
            total_sections: 100,
            reserved_sections: 1,
            user_blocks: 1000,
            valid_blocks: 500,
            free_user_blocks: 100,
            idle_ns: 0,
        }
    }

    #[test]
    fn zoned_thresholds_follow_the_kernel() {
        let mut p = F2fsZoned::new();
        assert_eq!(p.on_wake(&view(61)), BgDecision::Sleep);
        assert_eq!(p.sleep_ns(), 60_000 * NS_PER_MS);
        match p.on_wake(&view(60)) {
            BgDecision::Clean(r) => {
                assert_eq!(r.rule, VictimRule::CostBenefit);
                assert_eq!(r.segments, Some(3));
            }
            d => panic!("{d:?}"),
        }
        assert_eq!(p.sleep_ns(), 20 * NS_PER_MS);
        match p.on_wake(&view(25)) {
            BgDecision::Clean(r) => {
                assert_eq!(r.rule, VictimRule::Greedy);
                assert_eq!(r.segments, Some(15));
            }
            d => panic!("{d:?}"),
        }
        assert_eq!(p.sleep_ns(), 10 * NS_PER_MS);
        // zoned-config never cleans in the background while any section is free.
        let mut c = F2fsZoned::zoned_config();
        assert_eq!(c.on_wake(&view(1)), BgDecision::Sleep);
    }

    #[test]
    fn block_gc_waits_for_idle() {
        let mut p = F2fsBlock::new(5_000 * NS_PER_MS);
        assert_eq!(p.on_wake(&view(10)), BgDecision::Sleep);
        let mut idle = view(10);
        idle.idle_ns = 6_000 * NS_PER_MS;
        assert!(matches!(p.on_wake(&idle), BgDecision::Clean(_)));
        assert!(p.needs_foreground(&view(2)));
        assert!(!p.needs_foreground(&view(3)));
    }
}
