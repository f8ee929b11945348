//! The request rate of a Pangu-like trace over time (MIOS Table 1, §2.3): how busy
//! each one-second phase is.
//!
//! Table 1 gives, per node, the average rate and the *peak* rate — the largest
//! per-second rate in the node's trace. A second's rate is modelled as lognormal,
//! `exp(mu + sigma·Z)`, with its two parameters fixed by those two numbers: the
//! mean `exp(mu + sigma²/2)` is the average, and the quantile
//! `exp(mu + sigma·z_N)`, `z_N = Φ⁻¹(0.5^(1/N))` with N the node's duration in
//! seconds, is the peak: the median of the largest of N independent per-second
//! draws (all N stay below the quantile q with probability q^N). Eliminating
//! `mu`: `sigma·z_N − sigma²/2 = ln(peak / average)`, whose
//! smaller root is the one with the mean below the peak. A lognormal is the usual
//! shape for the intensity of bursty storage traffic; nothing else about it is
//! taken from the paper.

use serde::Serialize;

/// Lognormal phase rates fitted to an average and a peak.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RateModel {
    /// Log-space location and spread.
    pub mu: f64,
    pub sigma: f64,
    /// The standard normal quantile the peak was placed at.
    pub peak_quantile_z: f64,
}

impl RateModel {
    /// Fits `average_per_s` and `peak_per_s` over a trace of `duration_s` seconds.
    /// A peak no higher than the average gives a constant rate; a peak too far
    /// above it for any lognormal (`ln(peak/avg) > z²/2`) gets the largest spread
    /// that still has the mean at the average (`sigma = z`).
    pub fn fit(average_per_s: f64, peak_per_s: f64, duration_s: f64) -> Self {
        let n = duration_s.max(2.0);
        // The largest of n independent draws is below the quantile q with
        // probability q^n, so its median is the quantile 0.5^(1/n).
        let z = standard_normal_quantile(0.5f64.powf(1.0 / n));
        let ratio = (peak_per_s / average_per_s).max(1.0);
        let disc = z * z - 2.0 * ratio.ln();
        let sigma = z - disc.max(0.0).sqrt();
        Self {
            mu: average_per_s.ln() - sigma * sigma / 2.0,
            sigma,
            peak_quantile_z: z,
        }
    }

    /// The rate (per second) for a standard normal draw `z`.
    pub fn rate_per_s(&self, z: f64) -> f64 {
        (self.mu + self.sigma * z).exp()
    }

    /// Mean rate (per second).
    pub fn mean_per_s(&self) -> f64 {
        (self.mu + self.sigma * self.sigma / 2.0).exp()
    }

    /// Share of time whose rate exceeds `rate_per_s`.
    pub fn share_above(&self, rate_per_s: f64) -> f64 {
        let x = (rate_per_s.ln() - self.mu) / self.sigma.max(1e-12);
        0.5 * libm::erfc(x / std::f64::consts::SQRT_2)
    }
}

/// Φ⁻¹(p) for 0 < p < 1, by bisection on Φ (erfc from `libm`; 1e-12 in x).
pub fn standard_normal_quantile(p: f64) -> f64 {
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let (mut lo, mut hi) = (-40.0_f64, 40.0_f64);
    while hi - lo > 1e-12 {
        let mid = (lo + hi) / 2.0;
        let cdf = 0.5 * libm::erfc(-mid / std::f64::consts::SQRT_2);
        if cdf < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_matches_known_values() {
        assert!(standard_normal_quantile(0.5).abs() < 1e-9);
        assert!((standard_normal_quantile(0.975) - 1.959964).abs() < 1e-5);
        assert!((standard_normal_quantile(0.999) - 3.090232).abs() < 1e-5);
    }

    #[test]
    fn fit_keeps_the_mean_and_makes_the_peak_the_median_of_the_largest_second() {
        // MIOS Table 1, node A: 0.23 K average, 3.4 K peak over 45 min.
        let m = RateModel::fit(230.0, 3_400.0, 2_700.0);
        assert!((m.mean_per_s() - 230.0).abs() < 1e-6);
        assert!((m.rate_per_s(m.peak_quantile_z) - 3_400.0).abs() < 1e-6);
        // All 2,700 seconds stay below the peak with probability one half.
        let all_below = (1.0 - m.share_above(3_400.0)).powf(2_700.0);
        assert!((all_below - 0.5).abs() < 1e-6, "{all_below}");
        assert!(m.sigma > 0.5 && m.sigma < 1.5, "{}", m.sigma);
        // A steadier node has a smaller spread.
        let b = RateModel::fit(2_500.0, 9_300.0, 1_800.0);
        assert!(b.sigma < m.sigma);
        // No burst: constant rate.
        assert_eq!(RateModel::fit(100.0, 100.0, 60.0).sigma, 0.0);
    }
}
