//! A time series sampled at a fixed virtual interval: values added at time t are
//! summed into the bucket `t / interval`, so a series of bytes becomes throughput.

use crate::time::{Ns, NS_PER_S};
use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TimeSeries {
    pub interval_ns: Ns,
    /// Sum of the values added in each interval, from time 0.
    pub sums: Vec<f64>,
}

impl TimeSeries {
    pub fn new(interval_ns: Ns) -> Self {
        assert!(interval_ns > 0, "time series interval must be positive");
        Self {
            interval_ns,
            sums: Vec::new(),
        }
    }

    /// Adds `value` at virtual time `at_ns`.
    #[inline]
    pub fn add(&mut self, at_ns: Ns, value: f64) {
        let bucket = (at_ns / self.interval_ns) as usize;
        if bucket >= self.sums.len() {
            self.sums.resize(bucket + 1, 0.0);
        }
        self.sums[bucket] += value;
    }

    /// (interval start in seconds, sum per second) pairs: a rate series.
    pub fn rate_per_s(&self) -> Vec<(f64, f64)> {
        let secs = self.interval_ns as f64 / NS_PER_S as f64;
        self.sums
            .iter()
            .enumerate()
            .map(|(i, s)| (i as f64 * secs, s / secs))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_sum_values_and_become_rates() {
        let mut ts = TimeSeries::new(NS_PER_S / 2);
        ts.add(0, 1.0);
        ts.add(NS_PER_S / 2 - 1, 1.0);
        ts.add(NS_PER_S * 2, 4.0);
        assert_eq!(ts.sums, vec![2.0, 0.0, 0.0, 0.0, 4.0]);
        let r = ts.rate_per_s();
        assert_eq!(r[0], (0.0, 4.0));
        assert_eq!(r[4], (2.0, 8.0));
    }
}
