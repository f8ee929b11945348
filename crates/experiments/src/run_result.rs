//! The result of one `bench` or `replay` run, as printed with `--json` (schema in
//! docs/results-schema.md). Deterministic: no wall-clock or host data in here.

use serde::Serialize;
use zonelab_devices::{Command, Device, DeviceError, DeviceInfo, DeviceStats, Payload};
use zonelab_engine::{LatencyHistogram, LatencySummary, Ns, TimeSeries, MIB, NS_PER_S};

/// The most points a throughput series keeps. Past it the series' interval doubles
/// (buckets merge pairwise), so a run's memory does not grow with its virtual
/// length; the CLI rejects an explicit `--sample-interval` that would need more.
/// A million points holds a week of 1 s samples (an MSR Cambridge trace) and a
/// day of 100 ms samples, as 8 MB in memory.
pub const MAX_SERIES_POINTS: usize = 1_000_000;

/// The shortest series interval that keeps a run of `duration_ns` within
/// [`MAX_SERIES_POINTS`] (buckets `0..=duration / interval`).
pub fn min_series_interval_ns(duration_ns: Ns) -> Ns {
    duration_ns / MAX_SERIES_POINTS as u64 + 1
}

/// Drains the device's write buffers after a run: one flush submitted at `at_ns`
/// (the run's last completion), not counted among the run's requests. Afterwards
/// data the host wrote is on the media wherever the model's flush puts it there
/// (volatile buffers of SSDs, disk write caches); power-loss-protected buffers
/// (ZNS SSDs) keep it and report it as `buffered_write_bytes`. Returns when the
/// flush completed.
pub fn drain(device: &mut dyn Device, at_ns: Ns) -> Result<Ns, DeviceError> {
    device
        .submit(at_ns, &Command::Flush, Payload::SizeOnly)
        .map(|c| c.done_ns)
}

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
    /// When the end-of-run drain (a flush after the last completion) completed;
    /// `None` when the run was not drained. `device_stats` include the drain.
    pub drain_done_ns: Option<Ns>,
    /// Throughput over virtual time, MiB/s per interval.
    pub throughput_series: ThroughputSeries,
    /// Flexible Data Placement log pages and handle status, on devices with FDP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fdp: Option<zonelab_devices::fdp::FdpReport>,
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
            series: TimeSeries::bounded(series_interval_ns, MAX_SERIES_POINTS),
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

    /// Builds the result with the device's statistics up to `drained_ns` (the end
    /// of an end-of-run drain) or the last completion.
    pub fn finish_drained(
        self,
        kind: &str,
        seed: u64,
        config: serde_json::Value,
        device: &dyn Device,
        drained_ns: Option<Ns>,
    ) -> RunResult {
        let elapsed = drained_ns.unwrap_or(0).max(self.last_done_ns);
        let mut r = self.finish(
            kind,
            seed,
            config,
            device.info().clone(),
            device.stats(elapsed),
        );
        r.drain_done_ns = drained_ns;
        r.fdp = device.fdp();
        r
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
            drain_done_ns: None,
            fdp: None,
            throughput_series: ThroughputSeries {
                interval_ns: self.series.interval_ns,
                mib_s,
            },
        }
    }
}
