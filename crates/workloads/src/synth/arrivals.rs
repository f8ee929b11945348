//! Arrival times of a look-alike trace: bursts separated by idle gaps, spread so
//! the whole trace spans one week, as the MSR Cambridge traces do (Narayanan et
//! al., FAST'08 §3: one week of block-level traces per volume). Server volumes'
//! I/O is bursty, peaks an order of magnitude above the average (Narayanan et al.,
//! "Everest", OSDI'08 §2); the burst shape below is an assumption: geometric
//! bursts of mean 64 requests with exponential gaps of mean 2 ms inside a burst.

use rand::RngCore;
use zonelab_engine::{RngStream, NS_PER_S};

const BURST_MEAN_REQUESTS: u64 = 64;
const BURST_GAP_MEAN_NS: f64 = 2e6;
const TRACE_SPAN_NS: f64 = 7.0 * 24.0 * 3600.0 * NS_PER_S as f64;

pub struct BurstyArrivals {
    time_ns: u64,
    burst_left: u64,
    idle_mean_ns: f64,
}

/// A uniform draw in [0, 1).
pub fn unit(rng: &mut RngStream) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn exp(rng: &mut RngStream, mean: f64) -> u64 {
    (-mean * (1.0 - unit(rng)).ln()).round() as u64
}

impl BurstyArrivals {
    /// Arrivals for `requests` requests over one week × `span_scale` (≤ 1).
    pub fn new(requests: u64, span_scale: f64) -> Self {
        let requests = requests.max(1);
        let bursts = requests.div_ceil(BURST_MEAN_REQUESTS).max(1);
        let busy_ns = requests as f64 * BURST_GAP_MEAN_NS;
        let idle_mean_ns = ((TRACE_SPAN_NS * span_scale.min(1.0) - busy_ns) / bursts as f64)
            .max(BURST_GAP_MEAN_NS);
        Self {
            time_ns: 0,
            burst_left: 0,
            idle_mean_ns,
        }
    }

    /// The next request's arrival time.
    pub fn next(&mut self, rng: &mut RngStream) -> u64 {
        if self.burst_left == 0 {
            self.time_ns += exp(rng, self.idle_mean_ns);
            // Geometric burst length with the given mean.
            let p = 1.0 / BURST_MEAN_REQUESTS as f64;
            let u = unit(rng);
            self.burst_left = ((1.0 - u).ln() / (1.0 - p).ln()).ceil().max(1.0) as u64;
        } else {
            self.time_ns += exp(rng, BURST_GAP_MEAN_NS);
        }
        self.burst_left -= 1;
        self.time_ns
    }
}
