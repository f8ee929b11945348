//! YCSB's simple generators: `UniformLongGenerator`, `CounterGenerator` /
//! `AcknowledgedCounterGenerator` (single client thread), `DiscreteGenerator`,
//! `HotspotIntegerGenerator`, and the `-target` throttle of `ClientThread`.
//!
//! Follows `core/src/main/java/site/ycsb/generator/{UniformLongGenerator,
//! CounterGenerator,AcknowledgedCounterGenerator,DiscreteGenerator,
//! HotspotIntegerGenerator}.java` and `core/src/main/java/site/ycsb/{Client,
//! ClientThread}.java` (`targetOpsTickNs`, `throttleNanos`).

use rand::RngCore;
use zonelab_engine::RngStream;

/// A uniform double in `[0, 1)` with 53 random bits, like Java's `nextDouble()`.
#[inline]
pub fn next_double(rng: &mut RngStream) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform non-negative `long`, like Java's `Math.abs(nextLong())` (without the
/// one-in-2^64 negative `MIN_VALUE` case).
#[inline]
pub fn next_abs_long(rng: &mut RngStream) -> u64 {
    rng.next_u64() >> 1
}

/// YCSB's `UniformLongGenerator(lb, ub)`: `abs(nextLong()) % (ub − lb + 1) + lb`.
#[derive(Debug, Clone, Copy)]
pub struct UniformLongGenerator {
    lb: u64,
    interval: u64,
}

impl UniformLongGenerator {
    /// Uniform over `[lb, ub]` (requires `lb <= ub`).
    pub fn new(lb: u64, ub: u64) -> Self {
        assert!(lb <= ub, "UniformLongGenerator: lb {lb} > ub {ub}");
        Self {
            lb,
            interval: ub - lb + 1,
        }
    }

    pub fn next(&self, rng: &mut RngStream) -> u64 {
        next_abs_long(rng) % self.interval + self.lb
    }
}

/// YCSB's `AcknowledgedCounterGenerator` for one client thread: every issued value
/// is acknowledged at once, so `last_value()` (the acknowledged limit) is simply the
/// last value issued; before any, `countstart − 1`. Also serves as a
/// `CounterGenerator` (same `nextValue` / `lastValue`).
#[derive(Debug, Clone, Copy)]
pub struct AcknowledgedCounter {
    next: u64,
}

impl AcknowledgedCounter {
    /// Starts at `countstart` (requires `countstart >= 1` so `last_value` exists).
    pub fn new(countstart: u64) -> Self {
        assert!(countstart >= 1, "AcknowledgedCounter needs countstart >= 1");
        Self { next: countstart }
    }

    /// `nextValue()` followed by `acknowledge(value)`.
    pub fn next_value(&mut self) -> u64 {
        let v = self.next;
        self.next += 1;
        v
    }

    /// `lastValue()`: the highest acknowledged value.
    pub fn last_value(&self) -> u64 {
        self.next - 1
    }
}

/// YCSB's `DiscreteGenerator`: values with weights, chosen by walking the list with
/// `val = nextDouble()`, `pw = weight / sum`, `if val < pw return`, `val -= pw`.
#[derive(Debug, Clone)]
pub struct DiscreteGenerator<T: Copy> {
    /// (weight / sum, value), in insertion order.
    values: Vec<(f64, T)>,
}

impl<T: Copy> DiscreteGenerator<T> {
    /// From `(weight, value)` pairs in YCSB's `addValue` order; pairs with weight
    /// `<= 0` are skipped, as `createOperationGenerator` does. `None` if none is left.
    pub fn new(pairs: &[(f64, T)]) -> Option<Self> {
        let kept: Vec<(f64, T)> = pairs.iter().copied().filter(|(w, _)| *w > 0.0).collect();
        if kept.is_empty() {
            return None;
        }
        let mut sum = 0.0;
        for (w, _) in &kept {
            sum += *w;
        }
        Some(Self {
            values: kept.into_iter().map(|(w, v)| (w / sum, v)).collect(),
        })
    }

    pub fn next(&self, rng: &mut RngStream) -> T {
        let mut val = next_double(rng);
        for (pw, v) in &self.values {
            if val < *pw {
                return *v;
            }
            val -= pw;
        }
        // YCSB throws here ("should not get here"); only reachable by rounding.
        self.values[self.values.len() - 1].1
    }
}

/// YCSB's `HotspotIntegerGenerator`: a fraction `hot_opn_fraction` of draws is
/// uniform over the first `(int)(interval · hotset_fraction)` values, the rest
/// uniform over the remainder.
#[derive(Debug, Clone, Copy)]
pub struct HotspotGenerator {
    lower: u64,
    hot_interval: u64,
    cold_interval: u64,
    hot_opn_fraction: f64,
}

impl HotspotGenerator {
    /// Over `[lower, upper]`; the caller validates fractions in `[0, 1]` and that
    /// both the hot and the cold set are non-empty when they can be drawn.
    pub fn new(lower: u64, upper: u64, hotset_fraction: f64, hot_opn_fraction: f64) -> Self {
        let interval = upper - lower + 1;
        // Java: (int) (interval * hotsetFraction), then widened to long.
        let hot_interval = ((interval as f64 * hotset_fraction) as i32).max(0) as u64;
        Self {
            lower,
            hot_interval,
            cold_interval: interval - hot_interval,
            hot_opn_fraction,
        }
    }

    /// (hot, cold) interval sizes.
    pub fn intervals(&self) -> (u64, u64) {
        (self.hot_interval, self.cold_interval)
    }

    pub fn next(&self, rng: &mut RngStream) -> u64 {
        if next_double(rng) < self.hot_opn_fraction {
            self.lower + next_abs_long(rng) % self.hot_interval
        } else {
            self.lower + self.hot_interval + next_abs_long(rng) % self.cold_interval
        }
    }
}

/// YCSB's `-target` throttle in virtual time. `Client` gives each of `threads`
/// threads `target / threads / 1000` ops per ms; `ClientThread` sets
/// `targetOpsTickNs = (long)(1e6 / targetOpsPerMs)` and, after its `k`-th
/// operation, sleeps until `start + k · tick` (closed loop: never earlier than the
/// previous operation's completion).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Throttle {
    tick_ns: u64,
}

impl Throttle {
    /// `None` when `target_ops_per_s == 0` (YCSB: unthrottled).
    pub fn new(target_ops_per_s: u64, threads: u32) -> Option<Self> {
        if target_ops_per_s == 0 || threads == 0 {
            return None;
        }
        let per_thread_per_ms = (target_ops_per_s as f64 / threads as f64) / 1000.0;
        Some(Self {
            tick_ns: (1_000_000.0 / per_thread_per_ms) as u64,
        })
    }

    /// The per-thread inter-arrival time in ns.
    pub fn tick_ns(&self) -> u64 {
        self.tick_ns
    }

    /// The intended start of operation `ops_done` (0-based) of a thread that
    /// started at `start_ns` (YCSB's `deadline`, also its "intended start time").
    pub fn deadline_ns(&self, start_ns: u64, ops_done: u64) -> u64 {
        start_ns + ops_done * self.tick_ns
    }

    /// When operation `ops_done` actually starts if the previous one completed at
    /// `prev_completion_ns`: YCSB sleeps only when it is ahead of schedule.
    pub fn next_start_ns(&self, start_ns: u64, ops_done: u64, prev_completion_ns: u64) -> u64 {
        self.deadline_ns(start_ns, ops_done).max(prev_completion_ns)
    }
}
