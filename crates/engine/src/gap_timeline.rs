//! A resource timeline that can fill earlier gaps. [`crate::Timeline`] only keeps
//! the time a resource is next free, so a reservation booked far ahead (e.g. a GC
//! copy waiting for a busy die) makes every later request queue behind it even when
//! the resource is idle before then. A flash channel is such a resource: it moves
//! data whenever a die has some ready, in whatever order the dies become ready.
//! `GapTimeline` keeps the busy intervals still in the future and places a request
//! in the first gap long enough for it.

use crate::time::Ns;
use std::collections::VecDeque;

/// Busy intervals kept at most; beyond it the oldest are forgotten (treated as if
/// nothing could be placed before them), which bounds memory if a caller never
/// calls [`GapTimeline::forget_before`].
const MAX_INTERVALS: usize = 4096;

#[derive(Debug, Clone, Default)]
pub struct GapTimeline {
    /// Disjoint busy intervals `[start, end)`, sorted, adjacent ones merged.
    busy: VecDeque<(Ns, Ns)>,
    /// Nothing may be placed before this (forgotten history).
    floor_ns: Ns,
    busy_ns: Ns,
}

impl GapTimeline {
    pub fn new() -> Self {
        Self::default()
    }

    /// Total time reserved so far (for utilisation).
    pub fn busy_ns(&self) -> Ns {
        self.busy_ns
    }

    /// End of the last reservation.
    pub fn free_at_ns(&self) -> Ns {
        self.busy.back().map_or(self.floor_ns, |b| b.1)
    }

    /// Drops intervals that end by `now_ns`: no later request can be ready before
    /// `now_ns` (callers submit in time order), so they can never matter again.
    pub fn forget_before(&mut self, now_ns: Ns) {
        while let Some(&(_, end)) = self.busy.front() {
            if end > now_ns {
                break;
            }
            self.busy.pop_front();
        }
    }

    /// Reserves `duration_ns` in the first gap starting no earlier than `ready_ns`;
    /// returns (start, end).
    pub fn reserve(&mut self, ready_ns: Ns, duration_ns: Ns) -> (Ns, Ns) {
        let mut start = ready_ns.max(self.floor_ns);
        let mut pos = self.busy.len();
        for (i, &(s, e)) in self.busy.iter().enumerate() {
            if e <= start {
                continue;
            }
            if s >= start + duration_ns {
                pos = i;
                break;
            }
            start = start.max(e);
        }
        let end = start + duration_ns;
        self.busy_ns += duration_ns;
        if duration_ns == 0 {
            return (start, end);
        }
        self.insert(pos, start, end);
        if self.busy.len() > MAX_INTERVALS {
            if let Some((_, e)) = self.busy.pop_front() {
                self.floor_ns = self.floor_ns.max(e);
            }
        }
        (start, end)
    }

    /// Inserts `[start, end)` before index `pos`, merging with touching neighbours.
    fn insert(&mut self, pos: usize, start: Ns, end: Ns) {
        let touches_prev = pos > 0 && self.busy[pos - 1].1 == start;
        let touches_next = pos < self.busy.len() && self.busy[pos].0 == end;
        match (touches_prev, touches_next) {
            (true, true) => {
                let next_end = self.busy[pos].1;
                self.busy[pos - 1].1 = next_end;
                self.busy.remove(pos);
            }
            (true, false) => self.busy[pos - 1].1 = end,
            (false, true) => self.busy[pos].0 = start,
            (false, false) => self.busy.insert(pos, (start, end)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fills_a_gap_before_a_booking_ahead() {
        let mut t = GapTimeline::new();
        assert_eq!(t.reserve(100, 10), (100, 110));
        // Ready at 0, fits before the booking at 100.
        assert_eq!(t.reserve(0, 20), (0, 20));
        // Does not fit in [20, 100) after 95: goes after 110.
        assert_eq!(t.reserve(95, 10), (110, 120));
        assert_eq!(t.reserve(20, 80), (20, 100));
        assert_eq!(t.busy.len(), 1, "touching intervals merge: {:?}", t.busy);
        assert_eq!(t.busy_ns(), 120);
    }

    #[test]
    fn forgetting_the_past_keeps_future_bookings() {
        let mut t = GapTimeline::new();
        t.reserve(0, 10);
        t.reserve(50, 10);
        t.forget_before(20);
        assert_eq!(t.busy.len(), 1);
        assert_eq!(t.reserve(20, 5), (20, 25));
        assert_eq!(t.free_at_ns(), 60);
    }

    proptest! {
        #[test]
        fn reservations_never_overlap(reqs in proptest::collection::vec((0u64..1000, 1u64..50), 1..100)) {
            let mut t = GapTimeline::new();
            let mut placed: Vec<(u64, u64)> = Vec::new();
            for (ready, dur) in reqs {
                let (s, e) = t.reserve(ready, dur);
                prop_assert!(s >= ready && e == s + dur);
                for &(ps, pe) in &placed {
                    prop_assert!(e <= ps || s >= pe, "overlap {:?} with {:?}", (s, e), (ps, pe));
                }
                placed.push((s, e));
            }
        }
    }
}
