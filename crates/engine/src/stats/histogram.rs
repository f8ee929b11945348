//! Latency histogram (HdrHistogram, 3 significant digits) reporting
//! p50/p90/p99/p99.9/p99.99/max in nanoseconds.

use crate::time::Ns;
use hdrhistogram::Histogram;
use serde::Serialize;

/// Records latencies in nanoseconds with 0.1% relative precision.
#[derive(Clone)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for LatencyHistogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LatencyHistogram({:?})", self.summary())
    }
}

/// A histogram's summary as reported in results JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LatencySummary {
    pub count: u64,
    pub min_ns: Ns,
    pub mean_ns: f64,
    pub p50_ns: Ns,
    pub p90_ns: Ns,
    pub p99_ns: Ns,
    pub p999_ns: Ns,
    pub p9999_ns: Ns,
    pub max_ns: Ns,
}

impl LatencyHistogram {
    pub fn new() -> Self {
        // Auto-resizing, 3 significant figures: values up to hours of virtual time.
        let mut hist = Histogram::new(3).expect("3 significant figures is a valid precision");
        hist.auto(true);
        Self { hist }
    }

    /// Records one latency.
    #[inline]
    pub fn record(&mut self, latency_ns: Ns) {
        // With auto-resize on, recording cannot fail for any u64.
        let _ = self.hist.record(latency_ns.max(1));
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// Merges another histogram into this one.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        let _ = self.hist.add(&other.hist);
    }

    /// Latency at quantile `q` in [0, 1].
    pub fn quantile_ns(&self, q: f64) -> Ns {
        if self.hist.is_empty() {
            return 0;
        }
        self.hist.value_at_quantile(q)
    }

    pub fn summary(&self) -> LatencySummary {
        if self.hist.is_empty() {
            return LatencySummary::default();
        }
        LatencySummary {
            count: self.hist.len(),
            min_ns: self.hist.min(),
            // Rounded to the nanosecond so JSON is stable across float formatting.
            mean_ns: self.hist.mean().round(),
            p50_ns: self.quantile_ns(0.50),
            p90_ns: self.quantile_ns(0.90),
            p99_ns: self.quantile_ns(0.99),
            p999_ns: self.quantile_ns(0.999),
            p9999_ns: self.quantile_ns(0.9999),
            max_ns: self.hist.max(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_uniform_ramp() {
        let mut h = LatencyHistogram::new();
        for v in 1..=10_000u64 {
            h.record(v * 1000);
        }
        let s = h.summary();
        assert_eq!(s.count, 10_000);
        let close = |got: u64, want: u64| (got as f64 - want as f64).abs() / want as f64 <= 0.002;
        assert!(close(s.p50_ns, 5_000_000), "{s:?}");
        assert!(close(s.p99_ns, 9_900_000), "{s:?}");
        assert!(close(s.max_ns, 10_000_000), "{s:?}");
        assert!(s.p50_ns <= s.p90_ns && s.p90_ns <= s.p99_ns && s.p99_ns <= s.p999_ns);
    }

    #[test]
    fn empty_histogram_summarises_to_zero() {
        assert_eq!(LatencyHistogram::new().summary(), LatencySummary::default());
    }
}
