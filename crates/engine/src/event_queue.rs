//! A discrete-event queue ordered by virtual time, with ties broken by insertion
//! order so that a run is deterministic whatever the events are.
//!
//! A trace's arrivals, known before the run, need not sit in the heap:
//! [`EventQueue::pop_with_lane`] (`arrival_lane.rs`) pops them from a sorted list
//! in the same order.

use crate::time::Ns;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

#[derive(Clone)]
struct Entry<E> {
    at_ns: Ns,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.at_ns == other.at_ns && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // BinaryHeap is a max-heap: invert so the earliest (then first-inserted) pops first.
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .at_ns
            .cmp(&self.at_ns)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

/// Events of type `E` ordered by (time, insertion sequence). `now_ns` is the time of
/// the last popped event; scheduling in the past is a logic error.
#[derive(Clone)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now_ns: Ns,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::new(),
            next_seq: 0,
            now_ns: 0,
        }
    }

    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(capacity),
            next_seq: 0,
            now_ns: 0,
        }
    }

    /// The current virtual time: the time of the last event popped.
    #[inline]
    pub fn now_ns(&self) -> Ns {
        self.now_ns
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Schedules `event` at `at_ns` (clamped to now: the past cannot be scheduled).
    #[inline]
    pub fn schedule(&mut self, at_ns: Ns, event: E) {
        debug_assert!(at_ns >= self.now_ns, "event scheduled in the past");
        let at_ns = at_ns.max(self.now_ns);
        self.heap.push(Entry {
            at_ns,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
    }

    /// Moves the clock forward to `at_ns` (e.g. to start a run where an earlier one
    /// ended); never backwards.
    pub fn advance_to(&mut self, at_ns: Ns) {
        self.now_ns = self.now_ns.max(at_ns);
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time_ns(&self) -> Option<Ns> {
        self.heap.peek().map(|e| e.at_ns)
    }

    /// Pops the next event and advances the clock to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        let e = self.heap.pop()?;
        self.now_ns = e.at_ns;
        Some((e.at_ns, e.event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a');
        q.schedule(3, 'b');
        q.schedule(5, 'c');
        q.schedule(3, 'd');
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(3, 'b'), (3, 'd'), (5, 'a'), (5, 'c')]);
        assert_eq!(q.now_ns(), 5);
    }

    proptest! {
        #[test]
        fn pops_are_sorted_by_time_then_sequence(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() { q.schedule(*t, i); }
            let mut last = (0u64, 0usize);
            let mut first = true;
            while let Some((t, i)) = q.pop() {
                prop_assert_eq!(t, times[i]);
                if !first { prop_assert!((t, i) > last); }
                last = (t, i);
                first = false;
            }
        }
    }
}
