//! What an emulated device did, for the tools that drive it in real time (the fio
//! engine, the NBD server, any C program through `zl_stats_json`): the requests
//! the model saw, their modelled latencies, the rule violations it refused, and
//! the model's own statistics (WAF, GC, zone resets), as one JSON object shaped
//! like `zonelab bench`'s result (docs/results-schema.md): the same `device`,
//! `read`/`write`/`trim` {`ops`, `bytes`, `latency`} and `device_stats` fields.
//!
//! Latencies are *modelled* (virtual) nanoseconds, `done_ns - submit_ns` of each
//! completion: what the device model charged, not what the wall clock showed
//! (that is the tool's own measurement, e.g. fio's clat).

use serde::Serialize;
use std::collections::BTreeMap;
use zonelab_devices::{Command, DeviceError, DeviceInfo, DeviceStats, ZoneAction};
use zonelab_engine::{LatencyHistogram, LatencySummary, MIB, NS_PER_S};

/// Per-direction totals with modelled latencies.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OpTotals {
    pub ops: u64,
    pub bytes: u64,
    pub latency: LatencySummary,
}

/// Requests the model refused (zone rule violations, out-of-range, …).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct ErrorCounts {
    pub count: u64,
    /// Refusals per command name (`write`, `zone-reset`, …).
    pub by_command: BTreeMap<String, u64>,
    /// The first refusal's message (`null` when there was none).
    pub first: Option<String>,
}

/// The report of one emulated device, from open to now.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EmulationReport {
    pub zonelab_version: String,
    /// Who drove the device: "fio", "nbd", "capi", …
    pub kind: String,
    pub device: DeviceInfo,
    pub time_dilation: f64,
    /// The sparse backing file, or `null` when the bytes live in memory.
    pub backing_file: Option<String>,
    /// Virtual time of the first request and of the last completion (the model's
    /// clock; after a restore from a backing file it does not start at 0).
    pub start_ns: u64,
    pub end_ns: u64,
    pub duration_ns: u64,
    /// Wall-clock seconds from opening the device to this report.
    pub wall_s: f64,
    /// Read + write ops and bytes over `duration_ns` of modelled time.
    pub ops: u64,
    pub bytes: u64,
    pub throughput_mib_s: f64,
    pub iops: f64,
    pub read: OpTotals,
    pub write: OpTotals,
    pub trim: OpTotals,
    pub flushes: u64,
    /// Zone resets the host asked for (the model's `device_stats.zone_resets`
    /// also counts its own).
    pub host_zone_resets: u64,
    pub zone_management: u64,
    pub errors: ErrorCounts,
    pub device_stats: DeviceStats,
}

/// Accumulates what [`crate::EmulatedDevice`] submitted; kept under its lock.
pub(crate) struct OpRecorder {
    read: LatencyHistogram,
    write: LatencyHistogram,
    trim: LatencyHistogram,
    read_bytes: u64,
    write_bytes: u64,
    trim_bytes: u64,
    flushes: u64,
    host_zone_resets: u64,
    zone_management: u64,
    errors: ErrorCounts,
    first_submit_ns: Option<u64>,
    last_done_ns: u64,
}

impl OpRecorder {
    pub(crate) fn new() -> Self {
        OpRecorder {
            read: LatencyHistogram::new(),
            write: LatencyHistogram::new(),
            trim: LatencyHistogram::new(),
            read_bytes: 0,
            write_bytes: 0,
            trim_bytes: 0,
            flushes: 0,
            host_zone_resets: 0,
            zone_management: 0,
            errors: ErrorCounts::default(),
            first_submit_ns: None,
            last_done_ns: 0,
        }
    }

    /// Records a completed request of `block_bytes`-sized blocks.
    pub(crate) fn completed(
        &mut self,
        cmd: &Command,
        block_bytes: u32,
        submit_ns: u64,
        done_ns: u64,
    ) {
        let lat = done_ns.saturating_sub(submit_ns);
        let bytes = |blocks: u32| blocks as u64 * block_bytes as u64;
        match *cmd {
            Command::Read { blocks, .. } => {
                self.read.record(lat);
                self.read_bytes += bytes(blocks);
            }
            Command::Write { blocks, .. } | Command::Append { blocks, .. } => {
                self.write.record(lat);
                self.write_bytes += bytes(blocks);
            }
            Command::Trim { blocks, .. } => {
                self.trim.record(lat);
                self.trim_bytes += bytes(blocks);
            }
            Command::Flush => self.flushes += 1,
            Command::Zone { action, .. } => {
                self.zone_management += 1;
                if action == ZoneAction::Reset {
                    self.host_zone_resets += 1;
                }
            }
        }
        self.first_submit_ns.get_or_insert(submit_ns);
        self.last_done_ns = self.last_done_ns.max(done_ns);
    }

    /// Records a request the model refused.
    pub(crate) fn refused(&mut self, cmd: &Command, e: &DeviceError) {
        let e_count = &mut self.errors;
        e_count.count += 1;
        *e_count
            .by_command
            .entry(cmd.name().to_string())
            .or_insert(0) += 1;
        if e_count.first.is_none() {
            e_count.first = Some(e.to_string());
        }
    }

    pub(crate) fn report(
        &self,
        kind: &str,
        device: DeviceInfo,
        time_dilation: f64,
        backing_file: Option<String>,
        wall_s: f64,
        device_stats: DeviceStats,
    ) -> EmulationReport {
        let start_ns = self.first_submit_ns.unwrap_or(self.last_done_ns);
        let end_ns = self.last_done_ns.max(start_ns);
        let duration_ns = end_ns - start_ns;
        let ops = self.read.count() + self.write.count();
        let bytes = self.read_bytes + self.write_bytes;
        let secs = duration_ns as f64 / NS_PER_S as f64;
        let per_s = |x: f64| if secs > 0.0 { round3(x / secs) } else { 0.0 };
        let totals = |h: &LatencyHistogram, bytes: u64| OpTotals {
            ops: h.count(),
            bytes,
            latency: h.summary(),
        };
        EmulationReport {
            zonelab_version: env!("CARGO_PKG_VERSION").to_string(),
            kind: kind.to_string(),
            device,
            time_dilation,
            backing_file,
            start_ns,
            end_ns,
            duration_ns,
            wall_s: round3(wall_s),
            ops,
            bytes,
            throughput_mib_s: per_s(bytes as f64 / MIB as f64),
            iops: per_s(ops as f64),
            read: totals(&self.read, self.read_bytes),
            write: totals(&self.write, self.write_bytes),
            trim: totals(&self.trim, self.trim_bytes),
            flushes: self.flushes,
            host_zone_resets: self.host_zone_resets,
            zone_management: self.zone_management,
            errors: self.errors.clone(),
            device_stats,
        }
    }
}

/// Rounds to 3 decimals so the JSON stays readable.
fn round3(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}
