//! `zonelab replay`: replays a block trace on a device in virtual time.
//!
//! - **Open loop**: record i is submitted at `start_ns` + its timestamp ÷ `speed`,
//!   whatever the device's state (arrivals do not wait for completions), as trace
//!   replayers such as DiskSim and MQSim do. Scaled times are checked: a record whose
//!   arrival would pass [`MAX_ARRIVAL_NS`] is an error naming the speed it needs.
//!   Records are issued in file order at max(previous arrival, own time): a record
//!   earlier than its predecessor (a trace read with `allow_unsorted`) is submitted
//!   at the predecessor's time, since the device accepts requests in time order; the
//!   number of such records is reported (`reordered_arrivals`).
//! - **Closed loop**: `qd` requests in flight; a completion issues the next record.
//!   Timestamps are not used, so their order does not matter.
//!
//! A run that replays nothing (an empty or header-only trace, a device filter that
//! matches no line, only zero-size records) is an error, not an empty result.
//! `drain_at_end` flushes the device's write buffers after the last completion so
//! the statistics describe data on the media (see [`crate::run_result::drain`]).
//!
//! Byte offsets and sizes are widened to whole device blocks (a 512-byte-aligned MSR
//! request on a 4 KiB-block device covers the blocks it touches); the number of
//! widened records is reported. Records of size 0 are counted and skipped.

use crate::run_result::{drain, OpClass, Recorder, RunResult};
use std::io::BufRead;
use thiserror::Error;
use zonelab_devices::{Command, Device, DeviceError, Payload};
use zonelab_engine::{EventQueue, Ns};
use zonelab_workloads::trace::{TraceError, TraceOp, TraceReader, TraceRecord};

mod footprint;
pub use footprint::{Footprint, FOOTPRINT_CHUNK_BYTES};

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayMode {
    OpenLoop { speed: f64 },
    ClosedLoop { qd: u32 },
}

/// The latest virtual time a record may be issued at: 2^62 ns, about 146 years.
/// Device models add service times to arrival times in plain `u64` nanoseconds; a
/// quarter of the range leaves them room, and no recorded trace comes near it.
pub const MAX_ARRIVAL_NS: Ns = 1 << 62;

#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    pub mode: ReplayMode,
    pub series_interval_ns: Ns,
    /// Stop after this many records.
    pub limit: Option<u64>,
    /// Fold offsets beyond the device into it (block address modulo the device's
    /// capacity), e.g. to replay a trace of a large volume on a small modelled
    /// disk. Folded records are counted; without this, they are errors.
    pub fold_to_capacity: bool,
    /// Virtual time of the trace's first record: the `end_ns` of earlier work on
    /// the device (e.g. preconditioning), so its resources are not in the future.
    pub start_ns: Ns,
    /// Flush the device's write buffers after the last completion (the CLI's
    /// default; `--no-drain` turns it off).
    pub drain_at_end: bool,
}

impl Default for ReplayOptions {
    /// Open loop at speed 1, a 1 s series, no limit, no folding, from time 0, no drain.
    fn default() -> Self {
        Self {
            mode: ReplayMode::OpenLoop { speed: 1.0 },
            series_interval_ns: zonelab_engine::NS_PER_S,
            limit: None,
            fold_to_capacity: false,
            start_ns: 0,
            drain_at_end: false,
        }
    }
}

#[derive(Debug, Error)]
pub enum ReplayError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error(
        "{path}:{line}: {command} of {blocks} blocks at LBA {lba} failed on the device: {source}"
    )]
    Device {
        path: String,
        line: u64,
        command: &'static str,
        lba: u64,
        blocks: u64,
        source: DeviceError,
    },
    #[error(
        "{path}:{line}: request of {size_bytes} bytes is larger than one device command allows"
    )]
    TooLarge {
        path: String,
        line: u64,
        size_bytes: u64,
    },
    #[error("replay option {option}: {reason}")]
    BadOption {
        option: &'static str,
        reason: String,
    },
    #[error("{path}:{line}: speed {speed:e} puts this record (time {time_ns} ns) at {scaled_ns:.3e} ns of virtual time, past its limit of {MAX_ARRIVAL_NS} ns (about 146 years); this record needs a speed of at least {min_speed:.3e}")]
    SpeedOverflow {
        path: String,
        line: u64,
        speed: f64,
        time_ns: u64,
        scaled_ns: f64,
        min_speed: f64,
    },
    #[error("{path}: nothing to replay: {reason}")]
    NothingToReplay { path: String, reason: String },
    #[error("end-of-run drain (flush) failed on the device: {0}")]
    Drain(DeviceError),
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What the replay did to the trace's records, reported alongside the results.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct ReplayCounts {
    pub records: u64,
    pub widened_to_blocks: u64,
    pub skipped_zero_size: u64,
    /// Records issued at their predecessor's arrival because their own time was
    /// earlier (open loop).
    pub reordered_arrivals: u64,
    /// Records whose time is earlier than the previous record's in the file (read
    /// with `allow_unsorted`; in closed loop their order does not matter).
    pub unsorted_records: u64,
    pub folded_to_capacity: u64,
    /// Placement identifiers not sent: on records other than writes, or because
    /// the device has no Flexible Data Placement (reported only when non-zero).
    #[serde(skip_serializing_if = "is_zero")]
    pub placement_ids_ignored: u64,
    /// The latest record time seen (relative to the first record, unscaled): the
    /// trace's time span, for the plausibility warning of the CLI.
    pub trace_span_ns: u64,
}

/// Where replayed records come from: a trace file or a generator.
pub trait RecordSource {
    fn next_record(&mut self) -> Option<Result<TraceRecord, TraceError>>;
    /// Position of the last record, for error messages (a file's line number).
    fn position(&self) -> u64;
    /// The NVMe FDP placement identifier of the last record, if it had one.
    fn placement_id(&self) -> Option<u16> {
        None
    }
    /// Name for error messages (a file's path).
    fn source_name(&self) -> String;
    /// Records so far whose time is earlier than their predecessor's.
    fn unsorted_records(&self) -> u64 {
        0
    }
    /// Why the source yielded no record, for the "nothing to replay" error.
    fn empty_reason(&self) -> String {
        "the source has no records".to_string()
    }
}

impl<R: BufRead> RecordSource for TraceReader<R> {
    fn next_record(&mut self) -> Option<Result<TraceRecord, TraceError>> {
        self.next()
    }
    fn position(&self) -> u64 {
        self.line_number()
    }
    fn placement_id(&self) -> Option<u16> {
        TraceReader::placement_id(self)
    }
    fn source_name(&self) -> String {
        self.path().display().to_string()
    }
    fn unsorted_records(&self) -> u64 {
        TraceReader::unsorted_records(self)
    }
    fn empty_reason(&self) -> String {
        match self.options().device {
            Some(device) => {
                let others = self.other_devices();
                if others.is_empty() {
                    format!("no line of device {device}, and the trace has no other records (empty, or only a header and comments)")
                } else {
                    let mut list: Vec<String> = others.iter().map(u64::to_string).collect();
                    if list.len() == zonelab_workloads::trace::MAX_OTHER_DEVICES {
                        list.push("...".into());
                    }
                    format!(
                        "no line of device {device} (the trace's lines name device{} {})",
                        if list.len() > 1 { "s" } else { "" },
                        list.join(", ")
                    )
                }
            }
            None => "the trace has no records (empty, or only a header and comments)".to_string(),
        }
    }
}

/// A generated trace (e.g. a look-alike): positions are record numbers.
pub struct GeneratedTrace<I> {
    pub name: String,
    pub records: I,
    pub count: u64,
}

impl<I: Iterator<Item = TraceRecord>> RecordSource for GeneratedTrace<I> {
    fn next_record(&mut self) -> Option<Result<TraceRecord, TraceError>> {
        let r = self.records.next()?;
        self.count += 1;
        Some(Ok(r))
    }
    fn position(&self) -> u64 {
        self.count
    }
    fn source_name(&self) -> String {
        self.name.clone()
    }
}

/// A trace record turned into a device command: its record, command, position and
/// the placement identifier a write carries (`None` for plain commands).
type Converted = (TraceRecord, Command, u64, Option<u16>);

/// Turns trace records into device commands: widened to whole blocks, folded when
/// asked, zero-size records skipped; counts what it did.
struct Converter {
    /// The device takes placement identifiers (it has FDP).
    placement: bool,
    block_bytes: u64,
    capacity_blocks: u64,
    fold: bool,
    limit: u64,
    path: String,
    counts: ReplayCounts,
}

impl Converter {
    fn new(device: &dyn Device, opts: &ReplayOptions, path: String) -> Self {
        Self {
            placement: device.fdp().is_some(),
            block_bytes: device.info().block_bytes as u64,
            capacity_blocks: device.info().capacity_blocks,
            fold: opts.fold_to_capacity,
            limit: opts.limit.unwrap_or(u64::MAX),
            path,
            counts: ReplayCounts::default(),
        }
    }

    /// The next record as a command, skipping empty ones; `None` at the end.
    fn next<S: RecordSource>(&mut self, reader: &mut S) -> Result<Option<Converted>, ReplayError> {
        let bb = self.block_bytes;
        let counts = &mut self.counts;
        loop {
            if counts.records >= self.limit {
                return Ok(None);
            }
            let Some(r) = reader.next_record() else {
                return Ok(None);
            };
            let r = r?;
            counts.records += 1;
            counts.trace_span_ns = counts.trace_span_ns.max(r.time_ns);
            let line = reader.position();
            let pid = reader.placement_id();
            if r.size_bytes == 0 {
                counts.skipped_zero_size += 1;
                continue;
            }
            let mut first = r.offset_bytes / bb;
            let end = r.offset_bytes.saturating_add(r.size_bytes).div_ceil(bb);
            let blocks = end - first;
            if self.fold && first + blocks > self.capacity_blocks && blocks <= self.capacity_blocks
            {
                first %= self.capacity_blocks - blocks + 1;
                counts.folded_to_capacity += 1;
            }
            if blocks > u32::MAX as u64 {
                return Err(ReplayError::TooLarge {
                    path: self.path.clone(),
                    line,
                    size_bytes: r.size_bytes,
                });
            }
            if r.offset_bytes % bb != 0 || blocks * bb != r.size_bytes {
                counts.widened_to_blocks += 1;
            }
            let blocks = blocks as u32;
            let cmd = match r.op {
                TraceOp::Read => Command::Read { lba: first, blocks },
                TraceOp::Write => Command::Write { lba: first, blocks },
                TraceOp::Trim => Command::Trim { lba: first, blocks },
            };
            // Placement identifiers go with writes to a device with FDP; elsewhere
            // they are counted as ignored (the same trace replays on any device).
            let pid = match (r.op, pid) {
                (TraceOp::Write, Some(p)) if self.placement => Some(p),
                (_, Some(_)) => {
                    counts.placement_ids_ignored += 1;
                    None
                }
                _ => None,
            };
            return Ok(Some((r, cmd, line, pid)));
        }
    }
}

/// Replays the records of `reader` on `device`.
pub fn run_replay<S: RecordSource>(
    device: &mut dyn Device,
    reader: &mut S,
    opts: &ReplayOptions,
    mut config: serde_json::Value,
    mut progress: Option<&mut dyn FnMut(u64)>,
) -> Result<RunResult, ReplayError> {
    match opts.mode {
        ReplayMode::OpenLoop { speed } if !(speed.is_finite() && speed > 0.0) => {
            return Err(ReplayError::BadOption {
                option: "speed",
                reason: format!("{speed} must be a positive number"),
            })
        }
        ReplayMode::ClosedLoop { qd } if qd == 0 || qd > 65_536 => {
            return Err(ReplayError::BadOption {
                option: "qd",
                reason: format!("{qd} must be in 1..=65536"),
            })
        }
        _ => {}
    }
    if opts.limit == Some(0) {
        return Err(ReplayError::BadOption {
            option: "limit",
            reason: "0 replays nothing; give at least 1 record".to_string(),
        });
    }
    let bb = device.info().block_bytes as u64;
    let path = reader.source_name();
    let start_ns = opts.start_ns;
    let mut rec = Recorder::new(opts.series_interval_ns, start_ns);
    let mut conv = Converter::new(device, opts, path.clone());
    let submit = |device: &mut dyn Device,
                  at: Ns,
                  cmd: &Command,
                  line: u64,
                  pid: Option<u16>|
     -> Result<Ns, ReplayError> {
        match pid {
            Some(p) => device.submit_placed(at, cmd, p, Payload::SizeOnly),
            None => device.submit(at, cmd, Payload::SizeOnly),
        }
        .map(|c| c.done_ns)
        .map_err(|source| {
            let (lba, blocks) = match *cmd {
                Command::Read { lba, blocks }
                | Command::Write { lba, blocks }
                | Command::Trim { lba, blocks } => (lba, blocks as u64),
                _ => (0, 0),
            };
            ReplayError::Device {
                path: path.clone(),
                line,
                command: cmd.name(),
                lba,
                blocks,
                source,
            }
        })
    };
    let class_of = |cmd: &Command| match cmd {
        Command::Read { .. } => OpClass::Read,
        Command::Write { .. } => OpClass::Write,
        _ => OpClass::Trim,
    };
    match opts.mode {
        ReplayMode::OpenLoop { speed } => {
            let mut last_arrival: Ns = start_ns;
            while let Some((r, cmd, line, pid)) = conv.next(reader)? {
                let mut arrival = scaled_arrival(start_ns, r.time_ns, speed).ok_or_else(|| {
                    let scaled_ns = r.time_ns as f64 / speed;
                    ReplayError::SpeedOverflow {
                        path: path.clone(),
                        line,
                        speed,
                        time_ns: r.time_ns,
                        scaled_ns,
                        min_speed: r.time_ns as f64 / (MAX_ARRIVAL_NS - start_ns) as f64,
                    }
                })?;
                if arrival < last_arrival {
                    conv.counts.reordered_arrivals += 1;
                    arrival = last_arrival;
                }
                last_arrival = arrival;
                let done = submit(device, arrival, &cmd, line, pid)?;
                rec.record(class_of(&cmd), cmd.data_blocks() as u64 * bb, arrival, done);
                if conv.counts.records % 65_536 == 0 {
                    if let Some(p) = progress.as_mut() {
                        p(conv.counts.records);
                    }
                }
            }
        }
        ReplayMode::ClosedLoop { qd } => {
            let mut queue: EventQueue<(Ns, OpClass, u64)> = EventQueue::with_capacity(qd as usize);
            queue.advance_to(start_ns);
            for _ in 0..qd {
                if let Some((_, cmd, line, pid)) = conv.next(reader)? {
                    let done = submit(device, start_ns, &cmd, line, pid)?;
                    queue.schedule(
                        done,
                        (start_ns, class_of(&cmd), cmd.data_blocks() as u64 * bb),
                    );
                }
            }
            while let Some((now, (submitted, class, bytes))) = queue.pop() {
                rec.record(class, bytes, submitted, now);
                if let Some((_, cmd, line, pid)) = conv.next(reader)? {
                    let done = submit(device, now, &cmd, line, pid)?;
                    queue.schedule(done, (now, class_of(&cmd), cmd.data_blocks() as u64 * bb));
                }
                if conv.counts.records % 65_536 == 0 {
                    if let Some(p) = progress.as_mut() {
                        p(conv.counts.records);
                    }
                }
            }
        }
    }
    let mut counts = conv.counts;
    counts.unsorted_records = reader.unsorted_records();
    if let Some(p) = progress.as_mut() {
        p(counts.records);
    }
    if counts.records == 0 {
        return Err(ReplayError::NothingToReplay {
            path,
            reason: reader.empty_reason(),
        });
    }
    if counts.records == counts.skipped_zero_size {
        return Err(ReplayError::NothingToReplay {
            path,
            reason: format!(
                "all {} records have size 0 (zero-size records are skipped)",
                counts.records
            ),
        });
    }
    if let serde_json::Value::Object(m) = &mut config {
        m.insert(
            "mode".into(),
            serde_json::to_value(opts.mode).expect("mode serialises"),
        );
        m.insert(
            "limit".into(),
            serde_json::to_value(opts.limit).expect("limit serialises"),
        );
        m.insert(
            "record_counts".into(),
            serde_json::to_value(counts).expect("counts serialise"),
        );
    }
    let drained_ns = if opts.drain_at_end {
        Some(drain(device, rec.last_done_ns).map_err(ReplayError::Drain)?)
    } else {
        None
    };
    Ok(rec.finish_drained("replay", 0, config, device, drained_ns))
}

/// `start_ns + time_ns / speed` in whole nanoseconds, or `None` past
/// [`MAX_ARRIVAL_NS`]. The division is done in floating point, where `time / 1e-300`
/// is finite or infinite but never wraps; speed 1 is exact.
fn scaled_arrival(start_ns: Ns, time_ns: u64, speed: f64) -> Option<Ns> {
    let scaled_ns = if speed == 1.0 {
        time_ns
    } else {
        let scaled = (time_ns as f64 / speed).round();
        if !(scaled <= MAX_ARRIVAL_NS as f64) {
            return None;
        }
        scaled as Ns
    };
    start_ns
        .checked_add(scaled_ns)
        .filter(|&at| at <= MAX_ARRIVAL_NS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_arrivals_are_checked_against_virtual_time() {
        assert_eq!(scaled_arrival(10, 1_000, 2.0), Some(510));
        assert_eq!(
            scaled_arrival(0, 1_000_000, 1e-9),
            Some(1_000_000_000_000_000)
        );
        assert_eq!(
            scaled_arrival(0, 1_000_000, 1e-12),
            Some(1_000_000_000_000_000_000)
        );
        assert_eq!(scaled_arrival(0, 1_000_000, 1e-13), None); // 1e19 ns > 2^62 ns
        assert_eq!(scaled_arrival(0, 1, 1e-300), None);
        assert_eq!(scaled_arrival(0, 0, 1e-300), Some(0));
        assert_eq!(scaled_arrival(MAX_ARRIVAL_NS, 1, 1.0), None);
        assert_eq!(scaled_arrival(MAX_ARRIVAL_NS, 1, 2.0), None);
        assert_eq!(scaled_arrival(0, u64::MAX, 1.0), None);
    }
}
