//! The completion times of requests in flight, to count how many are still
//! outstanding at a time (a host's queue length, e.g. MIOS's l(t)).
//!
//! Behind a FIFO dispatcher completions are mostly added in time order, and a
//! saturated device can have hundreds of thousands outstanding. A binary heap of
//! them costs a sift through log₂ n levels per completion; here the times that
//! arrive in order go to the back of a deque (retired from its front in O(1)),
//! and only those that arrive out of order go to a heap.

use crate::time::Ns;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// A multiset of completion times.
#[derive(Debug, Clone, Default)]
pub struct InFlight {
    /// Times added in non-decreasing order.
    in_order: VecDeque<Ns>,
    /// Times added below the deque's last one.
    out_of_order: BinaryHeap<Reverse<Ns>>,
}

impl InFlight {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a request that completes at `done_ns`.
    #[inline]
    pub fn push(&mut self, done_ns: Ns) {
        match self.in_order.back() {
            Some(&last) if done_ns < last => self.out_of_order.push(Reverse(done_ns)),
            _ => self.in_order.push_back(done_ns),
        }
    }

    /// Forgets the requests complete at `now_ns` (done ≤ now) and returns how many
    /// are still outstanding.
    #[inline]
    pub fn outstanding_at(&mut self, now_ns: Ns) -> usize {
        while self.in_order.front().is_some_and(|&t| t <= now_ns) {
            self.in_order.pop_front();
        }
        while self.out_of_order.peek().is_some_and(|r| r.0 <= now_ns) {
            self.out_of_order.pop();
        }
        self.in_order.len() + self.out_of_order.len()
    }

    /// The latest completion time held, if any.
    pub fn last_done_ns(&self) -> Option<Ns> {
        let heap_max = self.out_of_order.iter().map(|r| r.0).max();
        self.in_order.back().copied().max(heap_max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn counts_what_completes_after_now() {
        let mut f = InFlight::new();
        for t in [10, 20, 15, 30, 5] {
            f.push(t);
        }
        assert_eq!(f.last_done_ns(), Some(30));
        assert_eq!(f.outstanding_at(9), 4);
        assert_eq!(f.outstanding_at(15), 2);
        assert_eq!(f.outstanding_at(30), 0);
        assert_eq!(f.last_done_ns(), None);
    }

    proptest! {
        /// Against a plain list: any mix of pushes and queries at rising times.
        #[test]
        fn counts_as_a_list_does(ops in proptest::collection::vec((0u64..100, any::<bool>()), 0..200)) {
            let mut f = InFlight::new();
            let mut list: Vec<Ns> = Vec::new();
            let mut now = 0;
            for (t, query) in ops {
                if query {
                    now = now.max(t);
                    list.retain(|&d| d > now);
                    prop_assert_eq!(f.outstanding_at(now), list.len());
                } else {
                    f.push(t);
                    list.push(t);
                }
                prop_assert_eq!(f.last_done_ns(), list.iter().copied().max());
            }
        }
    }
}
