//! The result of one `bench` or `replay` run, as printed with `--json` (schema in
//! docs/results-schema.md). Deterministic: no wall-clock or host data in here.

use serde::Serialize;
use zonelab_devices::{DeviceInfo, DeviceStats};
use zonelab_engine::{LatencyHistogram, LatencySummary, Ns, TimeSeries, MIB, NS_PER_S};

use crate::reproduce_result::round_sig;

/// Per-direction totals and latency.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OpTotals {
    pub ops: u64,
    pub bytes: u64,
    pub latency: LatencySummary,
}

/// One run's results.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunResult {
    pub zonelab_version: String,
    /// "bench" or "replay".
    pub kind: String,
    pub seed: u64,
    /// The job or replay options, echoed.
    pub config: serde_json::Value,
    pub device: DeviceInfo,
    pub ops: u64,
    pub bytes: u64,
    /// Virtual time the run started (later than 0 when the device was used before,
    /// e.g. preconditioned) and the time of its last completion.
    pub start_ns: Ns,
    pub end_ns: Ns,
    pub duration_ns: Ns,
    pub throughput_mib_s: f64,
    pub iops: f64,
    pub latency: LatencySummary,
    pub read: OpTotals,
    pub write: OpTotals,
    pub trim: OpTotals,
    /// Zone resets issued by the job itself (wrapping zoned writes).
    pub job_zone_resets: u64,
    pub device_stats: DeviceStats,
    /// Throughput over virtual time, MiB/s per interval.
    pub throughput_series: ThroughputSeries,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ThroughputSeries {
    pub interval_ns: Ns,
    pub mib_s: Vec<f64>,
}

/// Accumulates a run's measurements.
pub struct Recorder {
    pub all: LatencyHistogram,
    pub read: LatencyHistogram,
    pub write: LatencyHistogram,
    pub trim: LatencyHistogram,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub trim_bytes: u64,
    pub series: TimeSeries,
    pub job_zone_resets: u64,
    pub start_ns: Ns,
    pub last_done_ns: Ns,
}

/// Which histogram a completed request belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpClass {
    Read,
    Write,
    Trim,
    Other,
}

impl Recorder {
    /// A recorder for a run starting at virtual time `start_ns`.
    pub fn new(series_interval_ns: Ns, start_ns: Ns) -> Self {
        Self {
            all: LatencyHistogram::new(),
            read: LatencyHistogram::new(),
            write: LatencyHistogram::new(),
            trim: LatencyHistogram::new(),
            read_bytes: 0,
            write_bytes: 0,
            trim_bytes: 0,
            series: TimeSeries::new(series_interval_ns),
            job_zone_resets: 0,
            start_ns,
            last_done_ns: start_ns,
        }
    }

    #[inline]
    pub fn record(&mut self, class: OpClass, bytes: u64, submit_ns: Ns, done_ns: Ns) {
        let lat = done_ns - submit_ns;
        self.all.record(lat);
        match class {
            OpClass::Read => {
                self.read.record(lat);
                self.read_bytes += bytes;
            }
            OpClass::Write => {
                self.write.record(lat);
                self.write_bytes += bytes;
            }
            OpClass::Trim => {
                self.trim.record(lat);
                self.trim_bytes += bytes;
            }
            OpClass::Other => {}
        }
        if matches!(class, OpClass::Read | OpClass::Write) {
            self.series.add(done_ns - self.start_ns, bytes as f64);
        }
        self.last_done_ns = self.last_done_ns.max(done_ns);
    }

    /// Builds the result.
    pub fn finish(
        self,
        kind: &str,
        seed: u64,
        config: serde_json::Value,
        device: DeviceInfo,
        device_stats: DeviceStats,
    ) -> RunResult {
        let duration_ns = self.last_done_ns - self.start_ns;
        let bytes = self.read_bytes + self.write_bytes;
        let ops = self.read.count() + self.write.count() + self.trim.count();
        let secs = duration_ns as f64 / NS_PER_S as f64;
        let per_s = |x: f64| if secs > 0.0 { round_sig(x / secs) } else { 0.0 };
        let mib_s = self
            .series
            .rate_per_s()
            .iter()
            .map(|(_, b)| round_sig(b / MIB as f64))
            .collect();
        RunResult {
            zonelab_version: env!("CARGO_PKG_VERSION").to_string(),
            kind: kind.to_string(),
            seed,
            config,
            device,
            ops,
            bytes,
            start_ns: self.start_ns,
            end_ns: self.last_done_ns,
            duration_ns,
            throughput_mib_s: per_s(bytes as f64 / MIB as f64),
            iops: per_s(ops as f64),
            latency: self.all.summary(),
            read: OpTotals {
                ops: self.read.count(),
                bytes: self.read_bytes,
                latency: self.read.summary(),
            },
            write: OpTotals {
                ops: self.write.count(),
                bytes: self.write_bytes,
                latency: self.write.summary(),
            },
            trim: OpTotals {
                ops: self.trim.count(),
                bytes: self.trim_bytes,
                latency: self.trim.summary(),
            },
            job_zone_resets: self.job_zone_resets,
            device_stats,
            throughput_series: ThroughputSeries {
                interval_ns: self.series.interval_ns,
                mib_s,
            },
        }
    }
}
