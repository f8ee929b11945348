//! A shared resource's timeline (DESIGN.md "Timing model"): it keeps the time the
//! resource is next free; a request reserves it for a duration no earlier than the
//! request is ready, and queueing emerges from that.

use crate::time::Ns;

/// One shared resource (a flash channel, die or plane; a disk actuator; a
/// write-buffer slot).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timeline {
    free_at_ns: Ns,
    busy_ns: Ns,
}

impl Timeline {
    pub const fn new() -> Self {
        Self {
            free_at_ns: 0,
            busy_ns: 0,
        }
    }

    /// The time this resource is next free.
    #[inline]
    pub fn free_at_ns(&self) -> Ns {
        self.free_at_ns
    }

    /// Total time reserved so far (for utilisation).
    #[inline]
    pub fn busy_ns(&self) -> Ns {
        self.busy_ns
    }

    /// Keeps the resource busy until at least `until_ns` (e.g. a die whose page
    /// register holds data until the channel has moved it out).
    #[inline]
    pub fn hold_until(&mut self, until_ns: Ns) {
        if until_ns > self.free_at_ns {
            self.busy_ns += until_ns - self.free_at_ns;
            self.free_at_ns = until_ns;
        }
    }

    /// Reserves the resource for `duration_ns`, starting no earlier than
    /// `ready_ns`; returns (start, end).
    #[inline]
    pub fn reserve(&mut self, ready_ns: Ns, duration_ns: Ns) -> (Ns, Ns) {
        let start = ready_ns.max(self.free_at_ns);
        let end = start + duration_ns;
        self.free_at_ns = end;
        self.busy_ns += duration_ns;
        (start, end)
    }

    /// Work was put in front of what is already reserved (a host scheduler
    /// dispatched a request ahead of booked ones): the booked work ends
    /// `shift_ns` later, `busy_ns` of it being the inserted work (work conserved).
    #[inline]
    pub fn push_back(&mut self, shift_ns: Ns, busy_ns: Ns) {
        self.free_at_ns += shift_ns;
        self.busy_ns += busy_ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_queue_behind_each_other() {
        let mut t = Timeline::new();
        assert_eq!(t.reserve(10, 5), (10, 15));
        assert_eq!(t.reserve(12, 5), (15, 20));
        assert_eq!(t.reserve(30, 1), (30, 31));
        assert_eq!(t.busy_ns(), 11);
        assert_eq!(t.free_at_ns(), 31);
    }
}
