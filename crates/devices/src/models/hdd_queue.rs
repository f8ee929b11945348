//! The host's block-layer I/O scheduler in front of a disk: Linux's mq-deadline
//! at the level of its dispatch decisions (issue 14, Exp#6 of HHZS).
//!
//! Why: the paper's HM-SMR disk is a zoned block device under Linux 5.11 (HHZS
//! §4.1), and a zoned block device needs an elevator with
//! `ELEVATOR_F_ZBD_SEQ_WRITE` — mq-deadline, the only one with it (zone write
//! locking). ZenFS reaches the disk through the block layer (libzbd for zone
//! commands, `pread`/`pwrite` with `O_DIRECT` on the device file for data), so
//! every HDD request of every scheme passes mq-deadline. Without a scheduler the
//! disk model serves requests in arrival order, and a point read waits behind
//! every compaction chunk queued before it.
//!
//! What mq-deadline does (`block/mq-deadline.c` of 5.x, `__dd_dispatch_request`;
//! `Documentation/block/deadline-iosched.rst`), and what is modelled:
//! - It holds requests only while the device's queue is full: blk-mq dispatches
//!   from the elevator while the device has a tag and budget left
//!   (`blk_mq_do_dispatch_sched`). `device_queue_depth` is that depth — libata
//!   sets `min(can_queue, the drive's NCQ depth, ATA_MAX_QUEUE = 32)`
//!   (`ata_scsi_dev_config`). Requests the drive already holds are served in
//!   the order it got them (the drive's own NCQ reordering is not modelled: its
//!   policy is not published for this drive).
//! - Direction: while any read is queued, reads are chosen, unless a write has
//!   been waiting and reads were already chosen `writes_starved` times
//!   (`starved++ >= writes_starved`, default 2); then writes are.
//! - A chosen direction is served as a batch of up to `fifo_batch` requests
//!   (default 16) before the direction is chosen again.
//! - Within a direction mq-deadline serves in sector order and falls back to
//!   the oldest request when its expiry (`read_expire` 500 ms, `write_expire`
//!   5 s) has passed. The model serves each direction in arrival order; the
//!   expiries therefore change nothing here and are not parameters: in the
//!   kernel they are consulted (`deadline_check_fifo`) only *after* the
//!   direction has been chosen, so they never put a write before a queued read.
//!
//! How it fits a reservation model (DESIGN.md "Timing model"): every request is
//! booked when submitted and its completion time is returned at once. A read
//! arriving while requests are held in the scheduler is booked into the slot of
//! the first held request the rules above let it pass; that request and all
//! later ones are pushed back by the read's time (the disk's work is conserved,
//! and a broken sequential stream pays its repositioning). Completion times
//! already returned for pushed-back writes are not revised — the same trade as
//! the flash dies' read-first queue (`zonelab_media::die_queue`): the disk's
//! later work, and so throughput, is right; a pushed-back request's reported end
//! is early by the reads put before it (counted: `pushed_back_ns`).

use std::collections::VecDeque;
use zonelab_engine::Ns;
use zonelab_media::disk::{DiskAccess, DiskMechanics};

/// Linux mq-deadline's `writes_starved` (`block/mq-deadline.c`).
pub const LINUX_WRITES_STARVED: u32 = 2;
/// Linux mq-deadline's `fifo_batch` (`block/mq-deadline.c`).
pub const LINUX_FIFO_BATCH: u32 = 16;
/// libata's largest NCQ depth (`ATA_MAX_QUEUE`, used by `ata_scsi_dev_config`).
pub const LIBATA_MAX_QUEUE_DEPTH: u32 = 32;

/// mq-deadline's decision parameters and the device queue it feeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MqDeadline {
    /// Read batches that may be chosen while a write waits.
    pub writes_starved: u32,
    /// Requests served in one direction before the direction is chosen again.
    pub fifo_batch: u32,
    /// Requests the drive holds; the scheduler decides only beyond them.
    pub device_queue_depth: u32,
}

impl MqDeadline {
    /// The kernel's defaults on a SATA disk with NCQ.
    pub const LINUX_SATA: MqDeadline = MqDeadline {
        writes_starved: LINUX_WRITES_STARVED,
        fifo_batch: LINUX_FIFO_BATCH,
        device_queue_depth: LIBATA_MAX_QUEUE_DEPTH,
    };
}

/// Read or write (mq-deadline's two directions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Read,
    Write,
}

/// What the scheduler did, for the device's statistics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostQueueCounters {
    /// Reads submitted (with a scheduler).
    pub reads: u64,
    /// Reads that found requests held in the scheduler (more outstanding than
    /// the device queue holds).
    pub reads_found_held: u64,
    /// Reads booked ahead of held requests.
    pub reads_ahead: u64,
    /// Requests a read was put before, summed.
    pub requests_passed: u64,
    /// Write batches forced by `writes_starved` while reads waited.
    pub starved_write_batches: u64,
    /// Sum over reads of the requests outstanding when they arrived.
    pub outstanding_at_read_sum: u64,
    /// Most requests outstanding when a read arrived.
    pub outstanding_at_read_max: u64,
    /// Time booked requests were pushed back by reads put before them, summed
    /// over the pushed-back requests (how early their returned completions are).
    pub pushed_back_ns: u64,
}

/// One booked access that has not completed yet.
#[derive(Debug, Clone, Copy)]
struct Booked {
    dir: Direction,
    start_ns: Ns,
    end_ns: Ns,
    first_track: u64,
    end_track: u64,
    /// Continued the sequential stream of the access before it.
    streamed: bool,
    /// Read batches chosen while this write waited (since the last write batch).
    read_batches_passed: u32,
}

/// The host queue of one disk: FIFO (`None`, the kernel's `none` scheduler with
/// a FIFO drive) or mq-deadline.
#[derive(Debug, Clone, Default)]
pub struct HostQueue {
    sched: Option<MqDeadline>,
    booked: VecDeque<Booked>,
    counters: HostQueueCounters,
}

impl HostQueue {
    pub fn new(sched: Option<MqDeadline>) -> Self {
        Self {
            sched,
            booked: VecDeque::new(),
            counters: HostQueueCounters::default(),
        }
    }

    pub fn scheduler(&self) -> Option<MqDeadline> {
        self.sched
    }

    pub fn counters(&self) -> HostQueueCounters {
        self.counters
    }

    /// Books an access of `len_bytes` at byte `offset_bytes` arriving at
    /// `now_ns` and ready for the disk at `ready_ns` (after the command overhead).
    pub fn access(
        &mut self,
        mech: &mut DiskMechanics,
        dir: Direction,
        now_ns: Ns,
        ready_ns: Ns,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> DiskAccess {
        let Some(sched) = self.sched else {
            return Self::access_in_order(mech, dir, ready_ns, offset_bytes, len_bytes);
        };
        while self.booked.front().is_some_and(|b| b.end_ns <= now_ns) {
            self.booked.pop_front();
        }
        let first_track = mech.track_of(offset_bytes);
        let end_track = mech.track_of(offset_bytes + len_bytes - 1);
        let mut booked = Booked {
            dir,
            start_ns: 0,
            end_ns: 0,
            first_track,
            end_track,
            streamed: false,
            read_batches_passed: 0,
        };
        if dir == Direction::Read {
            let outstanding = self.booked.len() as u64;
            let c = &mut self.counters;
            c.reads += 1;
            c.outstanding_at_read_sum += outstanding;
            c.outstanding_at_read_max = c.outstanding_at_read_max.max(outstanding);
            if outstanding > sched.device_queue_depth as u64 {
                c.reads_found_held += 1;
            }
            if let Some(j) = self.read_slot(sched) {
                let from_track = self.booked[j - 1].end_track;
                let next = self.booked[j];
                let (a, shift) = mech.access_ahead(
                    ready_ns,
                    next.start_ns,
                    from_track,
                    offset_bytes,
                    len_bytes,
                    next.streamed.then_some(next.first_track),
                );
                for b in self.booked.range_mut(j..) {
                    b.start_ns += shift;
                    b.end_ns += shift;
                }
                self.booked[j].streamed = false;
                let passed = (self.booked.len() - j) as u64;
                self.counters.reads_ahead += 1;
                self.counters.requests_passed += passed;
                self.counters.pushed_back_ns += passed * shift;
                booked.start_ns = a.start_ns;
                booked.end_ns = a.media_done_ns;
                self.booked.insert(j, booked);
                return a;
            }
        }
        let a = Self::access_in_order(mech, dir, ready_ns, offset_bytes, len_bytes);
        booked.start_ns = a.start_ns;
        booked.end_ns = a.media_done_ns;
        booked.streamed = a.streamed;
        self.booked.push_back(booked);
        a
    }

    /// An access behind everything booked: a read may be served from the drive's
    /// buffer (`DiskMechanics::access_read`), a write may not.
    fn access_in_order(
        mech: &mut DiskMechanics,
        dir: Direction,
        ready_ns: Ns,
        offset_bytes: u64,
        len_bytes: u64,
    ) -> DiskAccess {
        match dir {
            Direction::Read => mech.access_read(ready_ns, offset_bytes, len_bytes),
            Direction::Write => mech.access(ready_ns, offset_bytes, len_bytes),
        }
    }

    /// Where a new read goes among the booked accesses: the index of the first
    /// access it is put before, or `None` for the tail. Held accesses are those
    /// beyond the device queue's depth; among them reads keep arrival order, and
    /// a read may pass held writes in a batch of its own only while they have
    /// seen fewer than `writes_starved` read batches — else the writes go first
    /// as a batch of up to `fifo_batch` (`__dd_dispatch_request`).
    fn read_slot(&mut self, s: MqDeadline) -> Option<usize> {
        let len = self.booked.len();
        let depth = (s.device_queue_depth as usize).max(1);
        if len <= depth {
            return None;
        }
        let mut j = self
            .booked
            .iter()
            .rposition(|b| b.dir == Direction::Read)
            .map_or(depth, |k| (k + 1).max(depth));
        while j < len {
            // Everything from j on is a held write (j follows the last read).
            let run = (depth..j)
                .rev()
                .take_while(|&k| self.booked[k].dir == Direction::Read)
                .count();
            if run > 0 && run < s.fifo_batch as usize {
                return Some(j); // joins the read batch before it
            }
            if self.booked[j].read_batches_passed < s.writes_starved {
                for b in self.booked.range_mut(j..) {
                    b.read_batches_passed += 1;
                }
                return Some(j);
            }
            // Starved: a write batch goes before the next read batch.
            self.counters.starved_write_batches += 1;
            j = (j + s.fifo_batch as usize).min(len);
            for b in self.booked.range_mut(j..) {
                b.read_batches_passed = 0;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_engine::{ms_to_ns, MIB};
    use zonelab_media::disk::DiskParams;

    fn mech() -> DiskMechanics {
        DiskMechanics::new(&DiskParams {
            capacity_bytes: 4096 * MIB,
            rpm: 7_200,
            heads: 2,
            recording_zones: 4,
            sector_bytes: 4096,
            outer_bytes_per_s: 200_000_000,
            inner_bytes_per_s: 100_000_000,
            head_switch_ns: ms_to_ns(1.0),
            single_cylinder_seek_ns: ms_to_ns(0.8),
            average_seek_ns: ms_to_ns(4.0),
            full_stroke_seek_ns: ms_to_ns(8.0),
        })
    }

    fn sched(depth: u32) -> Option<MqDeadline> {
        Some(MqDeadline {
            device_queue_depth: depth,
            ..MqDeadline::LINUX_SATA
        })
    }

    /// Submits `n` 1 MiB writes to scattered places at time 0; returns their ends.
    fn writes(q: &mut HostQueue, m: &mut DiskMechanics, n: u64) -> Vec<Ns> {
        (0..n)
            .map(|i| {
                q.access(m, Direction::Write, 0, 0, (i * 997 + 13) % 4000 * MIB, MIB)
                    .done_ns
            })
            .collect()
    }

    #[test]
    fn a_read_behind_a_batch_of_writes_is_dispatched_first() {
        let (mut m, mut q) = (mech(), HostQueue::new(sched(1)));
        let ends = writes(&mut q, &mut m, 8);
        let free_before = m.actuator_free_at_ns();
        let r = q.access(&mut m, Direction::Read, 1, 1, 2000 * MIB, 4096);
        // Served right after the write in service, not after all eight.
        assert!(r.start_ns == ends[0], "read starts at {}", r.start_ns);
        assert!(r.done_ns < ends[2]);
        // The disk's work is conserved: the booked writes end later.
        assert!(m.actuator_free_at_ns() > free_before);
        assert_eq!(q.counters().reads_ahead, 1);
        assert_eq!(q.counters().requests_passed, 7);

        // FIFO (the ablation): the same read waits for every write.
        let (mut m, mut q) = (mech(), HostQueue::new(None));
        let ends = writes(&mut q, &mut m, 8);
        let r = q.access(&mut m, Direction::Read, 1, 1, 2000 * MIB, 4096);
        assert!(r.start_ns >= ends[7]);
    }

    #[test]
    fn requests_the_drive_holds_are_not_passed() {
        let (mut m, mut q) = (mech(), HostQueue::new(sched(4)));
        let ends = writes(&mut q, &mut m, 8);
        let r = q.access(&mut m, Direction::Read, 1, 1, 2000 * MIB, 4096);
        assert_eq!(r.start_ns, ends[3], "after the four the drive holds");
        assert_eq!(q.counters().reads_found_held, 1);
        // With no more outstanding than the drive holds, nothing is reordered.
        let (mut m, mut q) = (mech(), HostQueue::new(sched(32)));
        let ends = writes(&mut q, &mut m, 8);
        let r = q.access(&mut m, Direction::Read, 1, 1, 2000 * MIB, 4096);
        assert!(r.start_ns >= ends[7]);
        assert_eq!(q.counters().reads_ahead, 0);
    }

    #[test]
    fn writes_are_not_starved_beyond_writes_starved_read_batches() {
        // fifo_batch 1: every read is a batch of its own.
        let s = MqDeadline {
            writes_starved: 2,
            fifo_batch: 1,
            device_queue_depth: 1,
        };
        let (mut m, mut q) = (mech(), HostQueue::new(Some(s)));
        let ends = writes(&mut q, &mut m, 4);
        let reads: Vec<Ns> = (0..4)
            .map(|i| {
                q.access(&mut m, Direction::Read, 1, 1, (100 + i) * 37 * MIB, 4096)
                    .start_ns
            })
            .collect();
        // Two read batches pass the waiting writes, then one write batch (one
        // write) goes, then reads again.
        assert_eq!(reads[0], ends[0]);
        assert!(reads[1] > reads[0]);
        let order: Vec<Direction> = q.booked.iter().map(|b| b.dir).collect();
        use Direction::*;
        assert_eq!(
            order,
            vec![Write, Read, Read, Write, Read, Read, Write, Write],
            "two read batches, a starved write, two read batches, the rest"
        );
        assert_eq!(q.counters().starved_write_batches, 1);
    }

    #[test]
    fn reads_join_a_batch_of_up_to_fifo_batch_reads() {
        let s = MqDeadline {
            writes_starved: 0,
            fifo_batch: 3,
            device_queue_depth: 1,
        };
        let (mut m, mut q) = (mech(), HostQueue::new(Some(s)));
        writes(&mut q, &mut m, 3);
        // writes_starved 0: a new read batch may never pass a waiting write,
        // but the first read... goes behind the next write batch (all three).
        q.access(&mut m, Direction::Read, 1, 1, 100 * MIB, 4096);
        use Direction::*;
        let order: Vec<Direction> = q.booked.iter().map(|b| b.dir).collect();
        assert_eq!(order, vec![Write, Write, Write, Read]);
        // A write arriving now waits behind the read batch, which later reads
        // join up to three reads; the fourth read forms a new batch, which
        // writes_starved 0 does not let pass the waiting write.
        q.access(&mut m, Direction::Write, 1, 1, 300 * MIB, MIB);
        for i in 0..3 {
            q.access(&mut m, Direction::Read, 1, 1, (400 + i) * MIB, 4096);
        }
        let order: Vec<Direction> = q.booked.iter().map(|b| b.dir).collect();
        assert_eq!(
            order,
            vec![Write, Write, Write, Read, Read, Read, Write, Read]
        );
    }

    #[test]
    fn scheduling_is_deterministic() {
        let run = || {
            let (mut m, mut q) = (mech(), HostQueue::new(sched(2)));
            let mut out = Vec::new();
            for i in 0..200u64 {
                let t = i * 3_000_000;
                let dir = if i % 3 == 0 {
                    Direction::Read
                } else {
                    Direction::Write
                };
                let off = (i * 7919) % 4000 * MIB;
                out.push(q.access(&mut m, dir, t, t + 100_000, off, MIB / 4).done_ns);
            }
            (out, q.counters(), m.actuator_free_at_ns())
        };
        assert_eq!(run(), run());
    }
}
