//! Per-chip command queue (ConZone+ §4.2). By default commands run FIFO in the
//! order they are booked. With preemption on, a user command does not wait for
//! queued background work (SLC→regular migration, GC copies and erases): it runs
//! as soon as the chip finishes its user commands and the background command
//! already in progress, and every background command still queued is pushed back
//! by its duration (reference code: `plane_getstime` / `plane_update`).

use std::collections::VecDeque;
use zonelab_engine::Ns;

/// Who issued a flash command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    User,
    Background,
}

#[derive(Debug, Clone, Default)]
pub struct ChipQueue {
    /// The chip is free of every booked command from here.
    free_ns: Ns,
    /// The chip is free of user commands from here (used with preemption).
    user_free_ns: Ns,
    busy_ns: Ns,
    /// Booked background commands (start, end), in order; only with preemption.
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
        match kind {
            OpKind::Background => {
                let start = ready.max(self.free_ns);
                self.free_ns = start + dur;
                self.background.push_back((start, start + dur));
                (start, start + dur)
            }
            OpKind::User => {
                while self.background.front().is_some_and(|b| b.1 <= ready) {
                    self.background.pop_front();
                }
                let running_end = self
                    .background
                    .iter()
                    .find(|b| b.0 <= ready && b.1 > ready)
                    .map_or(ready, |b| b.1);
                let start = ready.max(self.user_free_ns).max(running_end);
                self.user_free_ns = start + dur;
                self.push_back_queued(start, dur);
                (start, start + dur)
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
        match kind {
            OpKind::Background => {
                if let Some(b) = self.background.iter_mut().find(|b| b.1 == old_end) {
                    b.1 = new_end;
                }
                self.free_ns = self.free_ns.max(new_end);
            }
            OpKind::User => {
                self.user_free_ns = self.user_free_ns.max(new_end);
                self.push_back_queued(old_end, extra);
            }
        }
    }

    /// Background commands not yet started at `from` move back by `dur`.
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
        assert_eq!(q.reserve(0, 100, OpKind::Background, false), (0, 100));
        assert_eq!(q.reserve(10, 5, OpKind::User, false), (100, 105));
        let mut p = ChipQueue::default();
        p.reserve(0, 100, OpKind::Background, true);
        p.reserve(0, 100, OpKind::Background, true); // queued: 100..200
                                                     // A user read at 10 waits for the running background op only.
        assert_eq!(p.reserve(10, 5, OpKind::User, true), (100, 105));
        // The queued background op moved back by 5: the chip is free at 205.
        assert_eq!(p.reserve(0, 1, OpKind::Background, true), (205, 206));
    }
}
