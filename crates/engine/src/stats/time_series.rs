//! A time series sampled at a fixed virtual interval: values added at time t are
//! summed into the bucket `t / interval`, so a series of bytes becomes throughput.
//! A bounded series ([`TimeSeries::bounded`]) keeps at most a given number of
//! buckets: when a value falls past the last one, the interval doubles and pairs of
//! buckets merge, so memory stays bounded whatever the run's length.

use crate::time::{Ns, NS_PER_S};
use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TimeSeries {
    pub interval_ns: Ns,
    /// Sum of the values added in each interval, from time 0.
    pub sums: Vec<f64>,
    /// At most this many buckets (`usize::MAX`: unbounded).
    #[serde(skip)]
    max_points: usize,
}

impl TimeSeries {
    pub fn new(interval_ns: Ns) -> Self {
        Self::bounded(interval_ns, usize::MAX)
    }

    /// A series of at most `max_points` (≥ 2) buckets: the interval doubles as often
    /// as needed to keep every value.
    pub fn bounded(interval_ns: Ns, max_points: usize) -> Self {
        assert!(interval_ns > 0, "time series interval must be positive");
        assert!(
            max_points >= 2,
            "a bounded series needs at least two points"
        );
        Self {
            interval_ns,
            sums: Vec::new(),
            max_points,
        }
    }

    /// Adds `value` at virtual time `at_ns`.
    #[inline]
    pub fn add(&mut self, at_ns: Ns, value: f64) {
        let mut bucket = at_ns / self.interval_ns;
        while bucket >= self.max_points as u64 {
            self.coarsen();
            bucket = at_ns / self.interval_ns;
        }
        let bucket = bucket as usize;
        if bucket >= self.sums.len() {
            self.sums.resize(bucket + 1, 0.0);
        }
        self.sums[bucket] += value;
    }

    /// Doubles the interval, merging buckets pairwise.
    fn coarsen(&mut self) {
        self.interval_ns = self.interval_ns.saturating_mul(2);
        self.sums = self.sums.chunks(2).map(|pair| pair.iter().sum()).collect();
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

    #[test]
    fn a_bounded_series_doubles_its_interval_instead_of_growing() {
        let mut ts = TimeSeries::bounded(10, 4);
        for t in [0, 15, 35] {
            ts.add(t, 1.0);
        }
        assert_eq!(
            (ts.interval_ns, ts.sums.clone()),
            (10, vec![1.0, 1.0, 0.0, 1.0])
        );
        ts.add(40, 1.0); // bucket 4 of 10 ns: the interval becomes 20 ns
        assert_eq!((ts.interval_ns, ts.sums.clone()), (20, vec![2.0, 1.0, 1.0]));
        ts.add(u64::MAX, 1.0); // far away: still bounded, nothing lost
        assert!(ts.sums.len() <= 4);
        assert_eq!(ts.sums.iter().sum::<f64>(), 5.0);
    }
}
