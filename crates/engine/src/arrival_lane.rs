//! Arrivals known before a run starts (a trace's requests), popped together with an
//! [`EventQueue`] in exactly the order the queue would give had every arrival been
//! scheduled into it first — without holding them in the queue's heap.
//!
//! A replay that schedules all of a trace's N requests up front keeps N entries in
//! the heap, so every pop sifts through log₂ N levels spread over N × 32 bytes of
//! memory: at `reproduce mios --scale 1` that heap was the largest single cost of
//! the run. The lane reads the arrivals from the caller's own list (sorted by time
//! or, if not, through an index order) with a cursor instead; the heap then holds
//! only the events the run itself schedules.
//!
//! Order: arrivals scheduled before any other event have the lowest insertion
//! sequence numbers, so at equal times they pop before every other event, and among
//! themselves in index order. [`EventQueue::pop_with_lane`] keeps that rule.

use crate::event_queue::EventQueue;
use crate::time::Ns;

/// What [`EventQueue::pop_with_lane`] popped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Popped<E> {
    /// The arrival with this index in the list the lane was built from.
    Arrival(usize),
    /// An event scheduled in the queue.
    Event(E),
}

/// The arrivals of `items` (at `time_of(item)`) in the order they are due: by
/// time, then by index.
#[derive(Debug, Clone)]
pub struct ArrivalLane<'a, T> {
    items: &'a [T],
    time_of: fn(&T) -> Ns,
    /// Indices by (time, index); `None` when the items are already in time order.
    order: Option<Vec<usize>>,
    next: usize,
}

impl<'a, T> ArrivalLane<'a, T> {
    /// A lane of `items`, item `i` arriving at `time_of(&items[i])`; the items need
    /// not be sorted by time.
    pub fn new(items: &'a [T], time_of: fn(&T) -> Ns) -> Self {
        let sorted = items.windows(2).all(|w| time_of(&w[0]) <= time_of(&w[1]));
        let order = (!sorted).then(|| {
            let mut order: Vec<usize> = (0..items.len()).collect();
            // Stable: equal times keep index order, as their insertion order would.
            order.sort_by_key(|&i| time_of(&items[i]));
            order
        });
        Self {
            items,
            time_of,
            order,
            next: 0,
        }
    }

    /// The next arrival due: its index and time.
    #[inline]
    fn peek(&self) -> Option<(usize, Ns)> {
        if self.next >= self.items.len() {
            return None;
        }
        let i = self.order.as_ref().map_or(self.next, |o| o[self.next]);
        Some((i, (self.time_of)(&self.items[i])))
    }

    /// Arrivals not yet popped.
    pub fn remaining(&self) -> usize {
        self.items.len() - self.next
    }
}

impl<E> EventQueue<E> {
    /// Pops the next arrival of `lane` or the next scheduled event, whichever is
    /// due first (an arrival on a tie), and advances the clock to it. This is the
    /// order [`EventQueue::pop`] gives if every arrival of the lane was scheduled
    /// before any other event.
    #[inline]
    pub fn pop_with_lane<T>(&mut self, lane: &mut ArrivalLane<'_, T>) -> Option<(Ns, Popped<E>)> {
        match (lane.peek(), self.peek_time_ns()) {
            (Some((i, t)), queued) if queued.is_none_or(|q| t <= q) => {
                lane.next += 1;
                // Clamped as `schedule` clamps: an arrival is never before the clock.
                let t = t.max(self.now_ns());
                self.advance_to(t);
                Some((t, Popped::Arrival(i)))
            }
            _ => self.pop().map(|(t, e)| (t, Popped::Event(e))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Replays `arrivals` where every arrival, when popped, schedules follow-up
    /// events `delays` after itself (and a follow-up schedules nothing), either
    /// through the lane or with every arrival scheduled first. Returns the pops.
    fn replay(arrivals: &[Ns], delays: &[Ns], with_lane: bool) -> Vec<(Ns, Popped<usize>)> {
        #[derive(Clone, Copy)]
        enum Ev {
            Arrival(usize),
            FollowUp(usize),
        }
        let mut q = EventQueue::new();
        let mut lane = ArrivalLane::new(if with_lane { arrivals } else { &[] }, |t| *t);
        if !with_lane {
            for (i, &t) in arrivals.iter().enumerate() {
                q.schedule(t, Ev::Arrival(i));
            }
        }
        let mut pops = Vec::new();
        let mut follow_ups = 0;
        while let Some((now, p)) = q.pop_with_lane(&mut lane) {
            let arrival = match p {
                Popped::Arrival(i) | Popped::Event(Ev::Arrival(i)) => Some(i),
                Popped::Event(Ev::FollowUp(k)) => {
                    pops.push((now, Popped::Event(k)));
                    None
                }
            };
            if let Some(i) = arrival {
                pops.push((now, Popped::Arrival(i)));
                for &d in delays {
                    q.schedule(now + d, Ev::FollowUp(follow_ups));
                    follow_ups += 1;
                }
            }
        }
        pops
    }

    #[test]
    fn an_arrival_pops_before_an_event_due_at_the_same_time() {
        let mut q = EventQueue::new();
        let mut lane = ArrivalLane::new(&[10, 10, 20], |t| *t);
        q.schedule(10, 'x');
        let pops: Vec<_> = std::iter::from_fn(|| q.pop_with_lane(&mut lane)).collect();
        assert_eq!(
            pops,
            vec![
                (10, Popped::Arrival(0)),
                (10, Popped::Arrival(1)),
                (10, Popped::Event('x')),
                (20, Popped::Arrival(2)),
            ]
        );
        assert_eq!(lane.remaining(), 0);
        assert_eq!(q.now_ns(), 20);
    }

    #[test]
    fn unsorted_arrivals_pop_by_time_then_index() {
        let mut q: EventQueue<()> = EventQueue::new();
        let mut lane = ArrivalLane::new(&[30, 10, 30, 0], |t| *t);
        let pops: Vec<_> = std::iter::from_fn(|| q.pop_with_lane(&mut lane)).collect();
        let order: Vec<_> = pops.iter().map(|(t, p)| (*t, *p)).collect();
        assert_eq!(
            order,
            vec![
                (0, Popped::Arrival(3)),
                (10, Popped::Arrival(1)),
                (30, Popped::Arrival(0)),
                (30, Popped::Arrival(2)),
            ]
        );
    }

    proptest! {
        /// The lane pops exactly what scheduling every arrival first pops.
        #[test]
        fn the_lane_pops_what_scheduling_every_arrival_first_pops(
            arrivals in proptest::collection::vec(0u64..60, 0..80),
            delays in proptest::collection::vec(0u64..25, 0..3),
        ) {
            prop_assert_eq!(replay(&arrivals, &delays, true), replay(&arrivals, &delays, false));
        }
    }
}
