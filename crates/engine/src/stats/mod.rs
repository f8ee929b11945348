//! Statistics every run reports: latency histograms, named counters and time series
//! sampled at a fixed virtual interval.

mod counters;
mod histogram;
mod time_series;

pub use counters::Counters;
pub use histogram::{LatencyHistogram, LatencySummary};
pub use time_series::TimeSeries;
