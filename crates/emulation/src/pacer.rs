//! Waiting for a wall-clock deadline: sleep most of the way, spin the rest.

use std::time::{Duration, Instant};

/// Default spin window: the last 200 µs before a deadline are spun, not slept,
/// because OS sleeps overshoot. Measured on the project's 2-core VMs, a sleep
/// returns 85–135 µs late, so a 50 µs window left 100 µs waits 25% late; 200 µs
/// brings the median error below 0.2% at 20 µs–10 ms (docs/PERFORMANCE.md).
pub const DEFAULT_SPIN_WINDOW: Duration = Duration::from_micros(200);

/// Waits until a wall-clock deadline. Sleeps (`std::thread::sleep`) until
/// `spin_window` before the deadline, then spins (`std::hint::spin_loop`) until it.
///
/// Guarantee: [`Pacer::wait_until`] never returns before the deadline. How late it
/// returns depends on the OS scheduler; `examples/emulation_fidelity.rs` measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacer {
    spin_window: Duration,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            spin_window: DEFAULT_SPIN_WINDOW,
        }
    }
}

impl Pacer {
    /// A pacer that spins for the last `spin_window` before each deadline. A zero
    /// window only sleeps (cheapest on CPU, least accurate); a window larger than
    /// every wait only spins (most accurate, burns a core).
    pub fn new(spin_window: Duration) -> Self {
        Pacer { spin_window }
    }

    pub fn spin_window(&self) -> Duration {
        self.spin_window
    }

    /// Blocks the calling thread until `Instant::now() >= deadline`; returns the
    /// instant it observed on leaving (always `>= deadline`). Returns at once if the
    /// deadline has passed.
    pub fn wait_until(&self, deadline: Instant) -> Instant {
        loop {
            let now = Instant::now();
            if now >= deadline {
                return now;
            }
            let remaining = deadline - now;
            if remaining > self.spin_window {
                std::thread::sleep(remaining - self.spin_window);
            } else {
                std::hint::spin_loop();
            }
        }
    }
}
