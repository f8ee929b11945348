//! Read-first die scheduling with program/erase suspend-resume (issue 22).
//!
//! Without it a die serves its work strictly in booking order: a host read waits
//! behind every program and erase booked before it, so a write backlog puts
//! hundreds of milliseconds in front of a 4 KiB read. Real controllers keep
//! per-die queues and serve reads first (MQSim's `OUT_OF_ORDER` transaction
//! scheduling, Tavakkol et al., FAST'18 §4.2), and NAND dies can suspend an
//! ongoing program or erase for a read and resume it afterwards (Wu and He,
//! "Reducing SSD Read Latency via NAND Flash Program and Erase Suspension",
//! FAST'12; MQSim's `CMD_Suspension_Support`).
//!
//! A [`DieQueue`] keeps the die's operations that may still be in the future as
//! disjoint, sorted intervals. Programs, erases and background reads (GC, SLC
//! folding) are booked at the end, first-come first-served. A host read
//! [`plan`](DieQueue::plan_read)s its place: before the first operation that has
//! not started when the read is ready (read-first), or, when the operation in
//! progress is a program or erase with suspensions left, inside it after the
//! suspend latency; the suspended remainder resumes after the read with a resume
//! cost. Later operations are pushed back by the time inserted (work on the die is
//! conserved). Completion times already returned for pushed-back operations are
//! not revised (a reservation model books work when it is submitted); callers
//! that must know when a program really ends (the write buffer releasing its
//! data) keep its [`OpId`] and ask [`DieQueue::end_of`] again later. The die's
//! later work, and so throughput, is right either way; a GC step's reported end
//! may be early by the reads inserted before it.

use std::collections::VecDeque;
use zonelab_engine::Ns;

/// What a die does. Reads not started by the host (GC, folding) are `Read`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DieOp {
    Read,
    Program,
    Erase,
    /// The part of a suspended program or erase done before its suspension.
    Suspended,
}

/// Read-first scheduling and suspension parameters of a die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DieScheduling {
    /// Host reads go before programs and erases that have not started.
    pub read_first: bool,
    /// Time from the suspend command until the die can read; `None`: programs are
    /// not suspended.
    pub program_suspend_ns: Option<Ns>,
    /// As `program_suspend_ns`, for erases.
    pub erase_suspend_ns: Option<Ns>,
    /// Extra die time a suspended operation needs when it resumes.
    pub resume_ns: Ns,
    /// Suspensions one program or erase may take; then reads wait for its end.
    pub max_suspends_per_op: u32,
}

/// Counters of the scheduler's decisions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DieQueueCounters {
    /// Host reads placed before a program or erase that had not started.
    pub reads_ahead: u64,
    pub program_suspends: u64,
    pub erase_suspends: u64,
    /// Reads that found a program or erase in progress that could not be
    /// suspended any more (its suspensions used up).
    pub suspend_limit_waits: u64,
    /// Die time added by suspensions (suspend latency is overlapped with the
    /// operation; the resume cost is added).
    pub resume_overhead_ns: Ns,
}

/// Names one booked operation of a die (see [`DieQueue::end_of`]).
pub type OpId = u64;

/// Id of intervals nobody asks about (host reads, suspended prefixes).
const NO_ID: OpId = OpId::MAX;

#[derive(Debug, Clone, Copy)]
struct Interval {
    start_ns: Ns,
    end_ns: Ns,
    op: DieOp,
    suspends: u32,
    id: OpId,
}

/// Where a host read goes, from [`DieQueue::plan_read`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadPlan {
    /// When the die starts sensing.
    pub start_ns: Ns,
    index: usize,
    /// The read suspends the operation at `index` (else it is inserted before it).
    suspends: bool,
    /// The read waited for a program or erase whose suspensions were used up.
    limit_wait: bool,
}

/// One die's operations still in the future, sorted and disjoint.
#[derive(Debug, Clone, Default)]
pub struct DieQueue {
    ops: VecDeque<Interval>,
    free_at_ns: Ns,
    busy_ns: Ns,
    next_id: OpId,
}

impl DieQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// End of the last booked operation.
    #[inline]
    pub fn free_at_ns(&self) -> Ns {
        self.free_at_ns
    }

    /// Total die time booked (for utilisation).
    #[inline]
    pub fn busy_ns(&self) -> Ns {
        self.busy_ns
    }

    /// Operations still kept (for tests).
    pub fn queued(&self) -> usize {
        self.ops.len()
    }

    /// Drops operations that end by `now_ns` (nothing later can be ready before).
    #[inline]
    pub fn forget_before(&mut self, now_ns: Ns) {
        while self.ops.front().is_some_and(|o| o.end_ns <= now_ns) {
            self.ops.pop_front();
        }
    }

    /// Books `duration_ns` of `op` after everything booked, no earlier than
    /// `ready_ns` (first-come first-served); returns (start, end).
    pub fn book(&mut self, ready_ns: Ns, duration_ns: Ns, op: DieOp) -> (Ns, Ns) {
        let start_ns = ready_ns.max(self.free_at_ns);
        let end_ns = start_ns + duration_ns;
        let id = self.next_id;
        self.next_id += 1;
        self.ops.push_back(Interval {
            start_ns,
            end_ns,
            op,
            suspends: 0,
            id,
        });
        self.free_at_ns = end_ns;
        self.busy_ns += duration_ns;
        (start_ns, end_ns)
    }

    /// The id of the operation [`book`](Self::book) booked last.
    pub fn last_booked(&self) -> OpId {
        self.next_id.wrapping_sub(1)
    }

    /// When operation `id` ends now (reads inserted before it since it was
    /// booked push it back); `None` once it is forgotten (it ended in the past).
    pub fn end_of(&self, id: OpId) -> Option<Ns> {
        self.ops.iter().find(|o| o.id == id).map(|o| o.end_ns)
    }

    /// Keeps the last booked operation going until `until_ns` (a read whose page
    /// register holds data until the channel has moved it out).
    pub fn hold_last_until(&mut self, until_ns: Ns) {
        if let Some(last) = self.ops.back_mut() {
            if until_ns > last.end_ns {
                self.busy_ns += until_ns - last.end_ns;
                last.end_ns = until_ns;
                self.free_at_ns = until_ns;
            }
        }
    }

    /// Where a host read ready at `ready_ns` goes under `s`.
    pub fn plan_read(&self, ready_ns: Ns, s: &DieScheduling) -> ReadPlan {
        let mut t = ready_ns;
        let mut limit_wait = false;
        for (index, o) in self.ops.iter().enumerate() {
            if o.end_ns <= t {
                continue;
            }
            if o.start_ns >= t {
                // Not started when the read is ready: the read goes first.
                return ReadPlan {
                    start_ns: t,
                    index,
                    suspends: false,
                    limit_wait,
                };
            }
            let suspend_ns = match o.op {
                DieOp::Program => s.program_suspend_ns,
                DieOp::Erase => s.erase_suspend_ns,
                DieOp::Read | DieOp::Suspended => None,
            };
            if let Some(sus) = suspend_ns {
                // Suspending only pays if the operation would run past the suspend point.
                if o.suspends >= s.max_suspends_per_op {
                    limit_wait = true;
                } else if o.end_ns > t + sus {
                    return ReadPlan {
                        start_ns: t + sus,
                        index,
                        suspends: true,
                        limit_wait,
                    };
                }
            }
            t = o.end_ns;
        }
        ReadPlan {
            start_ns: t,
            index: self.ops.len(),
            suspends: false,
            limit_wait,
        }
    }

    /// Books the planned read, busy on the die until `out_ns` (its data is off
    /// the channel), and pushes later operations back.
    pub fn commit_read(
        &mut self,
        plan: ReadPlan,
        out_ns: Ns,
        s: &DieScheduling,
        counters: &mut DieQueueCounters,
    ) {
        let read = Interval {
            start_ns: plan.start_ns,
            end_ns: out_ns,
            op: DieOp::Read,
            suspends: 0,
            id: NO_ID,
        };
        self.busy_ns += out_ns - plan.start_ns;
        let mut next = plan.index;
        if plan.suspends {
            let o = self.ops[plan.index];
            // The operation runs on to its suspend point, then waits out the read.
            let remaining_ns = o.end_ns - plan.start_ns;
            self.ops[plan.index].end_ns = plan.start_ns;
            self.ops[plan.index].op = DieOp::Suspended;
            self.ops[plan.index].id = NO_ID;
            self.ops.insert(plan.index + 1, read);
            self.ops.insert(
                plan.index + 2,
                Interval {
                    start_ns: out_ns,
                    end_ns: out_ns + s.resume_ns + remaining_ns,
                    op: o.op,
                    suspends: o.suspends + 1,
                    id: o.id,
                },
            );
            self.busy_ns += s.resume_ns;
            counters.resume_overhead_ns += s.resume_ns;
            match o.op {
                DieOp::Program => counters.program_suspends += 1,
                _ => counters.erase_suspends += 1,
            }
            next = plan.index + 3;
        } else {
            if next < self.ops.len() && self.ops[next].start_ns < out_ns {
                counters.reads_ahead += 1;
            }
            if plan.limit_wait {
                counters.suspend_limit_waits += 1;
            }
            self.ops.insert(next, read);
            next += 1;
        }
        // Push later operations back until one starts after the previous ends.
        let mut prev_end = self.ops[next - 1].end_ns;
        while next < self.ops.len() {
            let o = &mut self.ops[next];
            if o.start_ns >= prev_end {
                break;
            }
            let shift = prev_end - o.start_ns;
            o.start_ns += shift;
            o.end_ns += shift;
            prev_end = o.end_ns;
            next += 1;
        }
        self.free_at_ns = self.free_at_ns.max(prev_end);
        if let Some(last) = self.ops.back() {
            self.free_at_ns = self.free_at_ns.max(last.end_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Ns = 1_000;

    fn sched(suspend: bool) -> DieScheduling {
        DieScheduling {
            read_first: true,
            program_suspend_ns: suspend.then_some(100 * US),
            erase_suspend_ns: suspend.then_some(700 * US),
            resume_ns: 10 * US,
            max_suspends_per_op: 2,
        }
    }

    /// Books a host read of `read_ns` (no channel) and returns its end.
    fn host_read(
        q: &mut DieQueue,
        ready: Ns,
        read_ns: Ns,
        s: &DieScheduling,
        c: &mut DieQueueCounters,
    ) -> Ns {
        let plan = q.plan_read(ready, s);
        let out = plan.start_ns + read_ns;
        q.commit_read(plan, out, s, c);
        out
    }

    fn check_disjoint(q: &DieQueue) {
        for w in q.ops.iter().collect::<Vec<_>>().windows(2) {
            assert!(
                w[0].end_ns <= w[1].start_ns,
                "overlap {:?} {:?}",
                w[0],
                w[1]
            );
        }
        if let Some(last) = q.ops.back() {
            assert_eq!(q.free_at_ns, last.end_ns);
        }
    }

    #[test]
    fn read_goes_before_queued_programs_and_pushes_them_back() {
        let s = sched(false);
        let mut c = DieQueueCounters::default();
        let mut q = DieQueue::new();
        for _ in 0..10 {
            q.book(0, 1000 * US, DieOp::Program);
        }
        // Ready at 1.5 ms: program 2 is running (no suspension), programs 3..10 wait.
        let done = host_read(&mut q, 1500 * US, 60 * US, &s, &mut c);
        assert_eq!(done, 2000 * US + 60 * US);
        assert_eq!(c.reads_ahead, 1);
        assert_eq!(q.free_at_ns(), 10_060 * US, "die work is conserved");
        // The last program was booked to end at 10 ms; it now ends 60 us later.
        assert_eq!(q.end_of(q.last_booked()), Some(10_060 * US));
        check_disjoint(&q);
    }

    #[test]
    fn fifo_reads_wait_for_the_whole_backlog() {
        let mut q = DieQueue::new();
        for _ in 0..10 {
            q.book(0, 1000 * US, DieOp::Program);
        }
        assert_eq!(q.book(1500 * US, 60 * US, DieOp::Read).1, 10_060 * US);
    }

    #[test]
    fn suspension_reads_after_the_suspend_latency_and_resumes_with_a_cost() {
        let s = sched(true);
        let mut c = DieQueueCounters::default();
        let mut q = DieQueue::new();
        q.book(0, 1000 * US, DieOp::Program);
        let done = host_read(&mut q, 200 * US, 60 * US, &s, &mut c);
        assert_eq!(done, 360 * US);
        assert_eq!(c.program_suspends, 1);
        // The program ran on to its suspend point (300 us): 700 us are left after
        // the read, plus the resume cost.
        assert_eq!(q.free_at_ns(), 360 * US + 10 * US + 700 * US);
        assert_eq!(q.end_of(q.last_booked()), Some(1070 * US));
        q.forget_before(2000 * US);
        assert_eq!(q.end_of(0), None, "forgotten once over");
        check_disjoint(&q);
    }

    #[test]
    fn suspensions_per_operation_are_bounded() {
        let s = sched(true);
        let mut c = DieQueueCounters::default();
        let mut q = DieQueue::new();
        q.book(0, 3800 * US, DieOp::Erase);
        // (A read ready when the erase starts would simply go first.)
        let first = host_read(&mut q, US, 60 * US, &s, &mut c);
        assert_eq!(first, 761 * US);
        let second = host_read(&mut q, first + US, 60 * US, &s, &mut c);
        assert_eq!(second, first + US + 760 * US);
        assert_eq!(c.erase_suspends, 2);
        // The third read waits for the erase's end.
        let end = q.free_at_ns();
        let third = host_read(&mut q, second + US, 60 * US, &s, &mut c);
        assert_eq!(third, end + 60 * US);
        assert_eq!(c.erase_suspends, 2);
        assert_eq!(c.suspend_limit_waits, 1);
        check_disjoint(&q);
    }

    #[test]
    fn short_remainders_are_not_suspended() {
        let s = sched(true);
        let mut c = DieQueueCounters::default();
        let mut q = DieQueue::new();
        q.book(0, 1000 * US, DieOp::Program);
        // 50 us left < 100 us suspend latency: wait for the end.
        assert_eq!(host_read(&mut q, 950 * US, 60 * US, &s, &mut c), 1060 * US);
        assert_eq!(c.program_suspends, 0);
    }

    #[test]
    fn reads_queue_behind_reads_and_gaps_absorb_shifts() {
        let s = sched(true);
        let mut c = DieQueueCounters::default();
        let mut q = DieQueue::new();
        q.book(0, 60 * US, DieOp::Read);
        q.book(5000 * US, 1000 * US, DieOp::Program);
        assert_eq!(host_read(&mut q, 10 * US, 60 * US, &s, &mut c), 120 * US);
        // The program booked far ahead is not moved: the gap absorbed the read.
        assert_eq!(q.free_at_ns(), 6000 * US);
        assert_eq!(c.reads_ahead, 0);
        q.forget_before(200 * US);
        assert_eq!(q.queued(), 1);
        check_disjoint(&q);
    }
}
