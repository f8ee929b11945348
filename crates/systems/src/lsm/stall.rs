//! Write stalls, after RocksDB 6.22's `ColumnFamilyData::
//! RecalculateWriteStallConditions`, `SetupDelay` and `WriteController`
//! (`db/column_family.cc`, `db/write_controller.cc`): writes stop at the MemTable
//! limit, the L0 stop trigger or the hard pending-compaction limit; they are delayed
//! to a rate near the limits (one MemTable short, L0 slowdown trigger, soft pending
//! limit), and that rate adapts: ×0.8 while compaction debt grows, ÷0.8 while it
//! shrinks, ×0.6 near a stop, ×1.4 when the delay ends.

use super::options::LsmOptions;
use serde::Serialize;
use zonelab_engine::Ns;

const MIN_WRITE_RATE_BYTES_PER_S: u64 = 16 * 1024;
const INC_SLOWDOWN_RATIO: f64 = 0.8;
const DEC_SLOWDOWN_RATIO: f64 = 1.0 / INC_SLOWDOWN_RATIO;
const NEAR_STOP_SLOWDOWN_RATIO: f64 = 0.6;
const DELAY_RECOVER_SLOWDOWN_RATIO: f64 = 1.4;

/// The write path's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StallState {
    Normal,
    Delayed,
    Stopped,
}

/// What stalled writes, for statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum StallCause {
    MemtableLimit,
    L0Files,
    PendingCompactionBytes,
}

/// The inputs of a recalculation.
#[derive(Debug, Clone, Copy)]
pub struct StallInputs {
    pub unflushed_memtables: u32,
    pub l0_files: u32,
    pub pending_compaction_bytes: u64,
}

/// RocksDB's write controller for one column family.
#[derive(Debug, Clone)]
pub struct WriteController {
    pub state: StallState,
    pub cause: Option<StallCause>,
    max_rate_bytes_per_s: u64,
    pub rate_bytes_per_s: u64,
    prev_pending_bytes: u64,
    /// Earliest time the next delayed write may go.
    next_free_ns: Ns,
    /// Whether compactions run in parallel (`NeedSpeedupCompaction`).
    pub speedup_compaction: bool,
}

impl WriteController {
    pub fn new(o: &LsmOptions) -> Self {
        Self {
            state: StallState::Normal,
            cause: None,
            max_rate_bytes_per_s: o.delayed_write_rate_bytes_per_s,
            rate_bytes_per_s: o.delayed_write_rate_bytes_per_s,
            prev_pending_bytes: 0,
            next_free_ns: 0,
            speedup_compaction: false,
        }
    }

    fn setup_delay(&mut self, pending: u64, penalize_stop: bool) {
        let mut rate = self.rate_bytes_per_s;
        if self.state == StallState::Delayed
            && self.max_rate_bytes_per_s > MIN_WRITE_RATE_BYTES_PER_S
        {
            if penalize_stop {
                rate = ((rate as f64 * NEAR_STOP_SLOWDOWN_RATIO) as u64)
                    .max(MIN_WRITE_RATE_BYTES_PER_S);
            } else if self.prev_pending_bytes > 0 && self.prev_pending_bytes <= pending {
                rate = ((rate as f64 * INC_SLOWDOWN_RATIO) as u64).max(MIN_WRITE_RATE_BYTES_PER_S);
            } else if self.prev_pending_bytes > pending {
                rate = ((rate as f64 * DEC_SLOWDOWN_RATIO) as u64).min(self.max_rate_bytes_per_s);
            }
        }
        self.rate_bytes_per_s = rate;
        self.state = StallState::Delayed;
    }

    /// Re-evaluates the conditions after a MemTable switch, flush or compaction.
    pub fn recalculate(&mut self, o: &LsmOptions, x: StallInputs) {
        let was_stopped = self.state == StallState::Stopped;
        let was_delayed = self.state == StallState::Delayed;
        let pending = x.pending_compaction_bytes;
        if x.unflushed_memtables >= o.max_write_buffers {
            self.state = StallState::Stopped;
            self.cause = Some(StallCause::MemtableLimit);
        } else if x.l0_files >= o.l0_stop_trigger_files {
            self.state = StallState::Stopped;
            self.cause = Some(StallCause::L0Files);
        } else if o.hard_pending_compaction_bytes > 0 && pending >= o.hard_pending_compaction_bytes
        {
            self.state = StallState::Stopped;
            self.cause = Some(StallCause::PendingCompactionBytes);
        } else if o.max_write_buffers > 3 && x.unflushed_memtables + 1 >= o.max_write_buffers {
            self.setup_delay(pending, was_stopped);
            self.cause = Some(StallCause::MemtableLimit);
        } else if x.l0_files >= o.l0_slowdown_trigger_files {
            let near_stop = x.l0_files + 2 >= o.l0_stop_trigger_files;
            self.setup_delay(pending, was_stopped || near_stop);
            self.cause = Some(StallCause::L0Files);
        } else if o.soft_pending_compaction_bytes > 0 && pending >= o.soft_pending_compaction_bytes
        {
            let gap = o.hard_pending_compaction_bytes - o.soft_pending_compaction_bytes;
            let near_stop = o.hard_pending_compaction_bytes > 0
                && pending - o.soft_pending_compaction_bytes > 3 * gap / 4;
            self.setup_delay(pending, was_stopped || near_stop);
            self.cause = Some(StallCause::PendingCompactionBytes);
        } else {
            if was_delayed {
                self.rate_bytes_per_s =
                    ((self.rate_bytes_per_s as f64 * DELAY_RECOVER_SLOWDOWN_RATIO) as u64)
                        .min(self.max_rate_bytes_per_s);
            }
            self.state = StallState::Normal;
            self.cause = None;
        }
        // GetL0ThresholdSpeedupCompaction and the pending-bytes speedup threshold
        // of RocksDB 6.22's RecalculateWriteStallConditions ("Increase compaction
        // threads if bytes needed for compaction exceeds 1/4 of threshold for
        // slowing down"): below them RocksDB runs a single compaction at a time.
        let l0_speedup = (2 * o.l0_compaction_trigger_files).min(
            o.l0_compaction_trigger_files
                + (o.l0_slowdown_trigger_files - o.l0_compaction_trigger_files) / 4,
        );
        let bytes_speedup = o.soft_pending_compaction_bytes / 4;
        self.speedup_compaction = self.state != StallState::Normal
            || x.l0_files >= l0_speedup
            || pending >= bytes_speedup;
        self.prev_pending_bytes = pending;
    }

    /// When a write of `bytes` arriving at `now` may proceed (delayed state), and
    /// reserves its share of the delayed rate.
    pub fn delay_write(&mut self, now: Ns, bytes: u64) -> Ns {
        if self.state != StallState::Delayed {
            return now;
        }
        let start = now.max(self.next_free_ns);
        let rate = self.rate_bytes_per_s.max(1);
        self.next_free_ns = start + (bytes as u128 * 1_000_000_000 / rate as u128) as Ns;
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(m: u32, l0: u32, p: u64) -> StallInputs {
        StallInputs {
            unflushed_memtables: m,
            l0_files: l0,
            pending_compaction_bytes: p,
        }
    }

    #[test]
    fn conditions_follow_rocksdb_order() {
        let o = LsmOptions::hhzs_paper();
        let mut w = WriteController::new(&o);
        w.recalculate(&o, inputs(4, 0, 0));
        assert_eq!(
            (w.state, w.cause),
            (StallState::Stopped, Some(StallCause::MemtableLimit))
        );
        w.recalculate(&o, inputs(1, 36, 0));
        assert_eq!(w.cause, Some(StallCause::L0Files));
        assert_eq!(w.state, StallState::Stopped);
        w.recalculate(&o, inputs(1, 20, 0));
        assert_eq!(w.state, StallState::Delayed);
        w.recalculate(&o, inputs(1, 1, 0));
        assert_eq!(w.state, StallState::Normal);
        assert!(!w.speedup_compaction);
        w.recalculate(&o, inputs(1, 4, 0));
        assert!(w.speedup_compaction);
    }

    #[test]
    fn delayed_writes_go_at_the_delayed_rate() {
        let o = LsmOptions::hhzs_paper();
        let mut w = WriteController::new(&o);
        w.recalculate(&o, inputs(1, 20, 0));
        let rate = w.rate_bytes_per_s;
        let mut t = 0;
        for _ in 0..1000 {
            t = w.delay_write(t, 1024);
        }
        let expected = 999 * 1024 * 1_000_000_000 / rate;
        assert!(
            (t as i64 - expected as i64).abs() < 1000,
            "{t} vs {expected}"
        );
        // Growing debt slows the rate down.
        w.recalculate(&o, inputs(1, 20, 10));
        w.recalculate(&o, inputs(1, 20, 20));
        assert!(w.rate_bytes_per_s < rate);
    }
}
