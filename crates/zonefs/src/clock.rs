//! Virtual time of a store run in real time (issue 9 part 1's time dilation, as
//! `zonelab_emulation::EmulatedDevice` maps it): virtual ns = base + wall ns since
//! the start / dilation.

use std::time::{Duration, Instant};

/// Maps wall-clock instants to virtual nanoseconds and back.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    start: Instant,
    base_ns: u64,
    dilation: f64,
}

impl Clock {
    /// Virtual time `base_ns` is now; `dilation >= 1` wall ns per virtual ns.
    pub fn new(base_ns: u64, dilation: f64) -> Self {
        Clock {
            start: Instant::now(),
            base_ns,
            dilation,
        }
    }

    pub fn now_ns(&self) -> u64 {
        let wall = self.start.elapsed().as_nanos() as f64;
        self.base_ns.saturating_add((wall / self.dilation) as u64)
    }

    /// The wall instant of virtual time `ns` (rounded up; far future saturates).
    pub fn wall_of(&self, ns: u64) -> Instant {
        let wall = (ns.saturating_sub(self.base_ns) as f64 * self.dilation).ceil();
        let far = Duration::from_secs(100 * 365 * 86_400);
        let d = if wall >= far.as_nanos() as f64 {
            far
        } else {
            Duration::from_nanos(wall as u64)
        };
        self.start.checked_add(d).unwrap_or(self.start)
    }
}
