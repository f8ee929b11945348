//! Per-chip command queue (ConZone+ §4.2). Without preemption commands run FIFO
//! in the order they are booked. With preemption (the reference's behaviour, on
//! by default) only SLC→regular *migration* commands are preemptible: any other
//! command (a user read or program, an SLC GC copy, a mapping read) does not wait
//! for queued migration work — it runs as soon as the chip finishes its other
//! commands and the migration command already in progress — and every migration
//! command still queued is pushed back by its duration (DingcuiYu/ConZone
//! `ssd.c:729-811` `plane_getstime` / `plane_update`: `ncmd->type != MIGRATE_IO`
//! preempts queued `MIGRATE_IO` commands only; GC commands are not preempted).
//!
//! With preemption the non-preemptible commands are placed on a
//! [`GapTimeline`]: a command that reaches the chip earlier than one booked
//! further ahead (a host write held back behind a migration, say) runs in the
//! gap before it, as it would in the reference, where a held-back request is
//! retried later and never occupies the queue meanwhile.

use std::collections::VecDeque;
use zonelab_engine::{GapTimeline, Ns};

/// Who issued a flash command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Host reads and writes (buffer flushes), mapping reads, direct erases.
    User,
    /// SLC GC copies and erases (reference `GC_IO`): not preemptible.
    Gc,
    /// SLC→regular migration reads, programs and erases (reference
    /// `MIGRATE_IO`): preemptible when preemption is on.
    Migration,
}

impl OpKind {
    /// Whether queued commands of this kind yield to other commands (§4.2).
    #[inline]
    pub fn preemptible(self) -> bool {
        self == OpKind::Migration
    }
}

#[derive(Debug, Clone, Default)]
pub struct ChipQueue {
    /// The chip is free of every booked command from here.
    free_ns: Ns,
    /// Non-preemptible commands booked so far (with preemption).
    user: GapTimeline,
    busy_ns: Ns,
    /// Booked migration commands (start, end), in order; only with preemption.
    background: VecDeque<(Ns, Ns)>,
}

impl ChipQueue {
    pub fn busy_ns(&self) -> Ns {
        self.busy_ns
    }

    /// Books `dur` from `ready`; returns (start, end).
    pub fn reserve(&mut self, ready: Ns, dur: Ns, kind: OpKind, preempt: bool) -> (Ns, Ns) {
        self.busy_ns += dur;
        if !preempt {
            let start = ready.max(self.free_ns);
            self.free_ns = start + dur;
            return (start, start + dur);
        }
        match kind.preemptible() {
            true => {
                let start = ready.max(self.free_ns);
                self.free_ns = start + dur;
                self.background.push_back((start, start + dur));
                (start, start + dur)
            }
            false => {
                while self.background.front().is_some_and(|b| b.1 <= ready) {
                    self.background.pop_front();
                }
                let running_end = self
                    .background
                    .iter()
                    .find(|b| b.0 <= ready && b.1 > ready)
                    .map_or(ready, |b| b.1);
                let (start, end) = self.user.reserve(ready.max(running_end), dur);
                self.push_back_queued(start, dur);
                (start, end)
            }
        }
    }

    /// A command booked as (start, `old_end`) holds the chip until `new_end`
    /// (a read keeps its page register until the data is off the channel).
    pub fn extend(&mut self, old_end: Ns, new_end: Ns, kind: OpKind, preempt: bool) {
        if new_end <= old_end {
            return;
        }
        let extra = new_end - old_end;
        self.busy_ns += extra;
        if !preempt {
            self.free_ns = self.free_ns.max(new_end);
            return;
        }
        match kind.preemptible() {
            true => {
                if let Some(b) = self.background.iter_mut().find(|b| b.1 == old_end) {
                    b.1 = new_end;
                }
                self.free_ns = self.free_ns.max(new_end);
            }
            false => {
                self.user.reserve(old_end, extra);
                self.push_back_queued(old_end, extra);
            }
        }
    }

    /// The chip is free of every booked command from here.
    pub fn free_ns(&self) -> Ns {
        self.free_ns.max(self.user.free_at_ns())
    }

    /// Forgets non-preemptible bookings that ended by `now_ns` (no later command
    /// can be ready before it).
    pub fn forget_before(&mut self, now_ns: Ns) {
        self.user.forget_before(now_ns);
    }

    /// End of the last queued migration command (preemption may have pushed it
    /// back since it was booked); 0 without preemption or when none is queued.
    pub fn migration_end_ns(&self) -> Ns {
        self.background.back().map_or(0, |b| b.1)
    }

    /// Migration commands not yet started at `from` move back by `dur`.
    fn push_back_queued(&mut self, from: Ns, dur: Ns) {
        let mut shifted = false;
        for b in self.background.iter_mut().filter(|b| b.0 >= from) {
            b.0 += dur;
            b.1 += dur;
            shifted = true;
        }
        self.free_ns = if shifted {
            self.free_ns + dur
        } else {
            self.free_ns.max(from + dur)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_without_preemption_and_user_first_with_it() {
        let mut q = ChipQueue::default();
        assert_eq!(q.reserve(0, 100, OpKind::Migration, false), (0, 100));
        assert_eq!(q.reserve(10, 5, OpKind::User, false), (100, 105));
        let mut p = ChipQueue::default();
        p.reserve(0, 100, OpKind::Migration, true);
        p.reserve(0, 100, OpKind::Migration, true); // queued: 100..200
                                                    // A user read at 10 waits for the running migration op only.
        assert_eq!(p.reserve(10, 5, OpKind::User, true), (100, 105));
        // The queued migration op moved back by 5: the chip is free at 205.
        assert_eq!(p.reserve(0, 1, OpKind::Migration, true), (205, 206));
    }

    #[test]
    fn gc_commands_are_not_preempted_but_preempt_migration() {
        let mut p = ChipQueue::default();
        p.reserve(0, 100, OpKind::Gc, true);
        // A user command waits for a queued / running GC command (FIFO).
        assert_eq!(p.reserve(10, 5, OpKind::User, true), (100, 105));
        let mut m = ChipQueue::default();
        m.reserve(0, 100, OpKind::Migration, true);
        m.reserve(0, 100, OpKind::Migration, true);
        // A GC copy is not migration: it preempts the queued migration command.
        assert_eq!(m.reserve(10, 5, OpKind::Gc, true), (100, 105));
    }
}
