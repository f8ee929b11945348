//! `zonelab replay`: replays a block trace on a device in virtual time.
//!
//! - **Open loop**: record i is submitted at its timestamp ÷ `speed`, whatever the
//!   device's state (arrivals do not wait for completions), as trace replayers such
//!   as DiskSim and MQSim do. With `allow_unsorted` a record earlier than its
//!   predecessor is submitted at the predecessor's time (the device accepts requests
//!   in time order); the number of such records is reported.
//! - **Closed loop**: `qd` requests in flight; a completion issues the next record.
//!
//! Byte offsets and sizes are widened to whole device blocks (a 512-byte-aligned MSR
//! request on a 4 KiB-block device covers the blocks it touches); the number of
//! widened records is reported. Records of size 0 are counted and skipped.

use crate::run_result::{OpClass, Recorder, RunResult};
use std::io::BufRead;
use thiserror::Error;
use zonelab_devices::{Command, Device, DeviceError, Payload};
use zonelab_engine::{EventQueue, Ns};
use zonelab_workloads::trace::{TraceError, TraceOp, TraceReader, TraceRecord};

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplayMode {
    OpenLoop { speed: f64 },
    ClosedLoop { qd: u32 },
}

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
}

/// What the replay did to the trace's records, reported alongside the results.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct ReplayCounts {
    pub records: u64,
    pub widened_to_blocks: u64,
    pub skipped_zero_size: u64,
    pub reordered_arrivals: u64,
    pub folded_to_capacity: u64,
}

/// Where replayed records come from: a trace file or a generator.
pub trait RecordSource {
    fn next_record(&mut self) -> Option<Result<TraceRecord, TraceError>>;
    /// Position of the last record, for error messages (a file's line number).
    fn position(&self) -> u64;
    /// Name for error messages (a file's path).
    fn source_name(&self) -> String;
}

impl<R: BufRead> RecordSource for TraceReader<R> {
    fn next_record(&mut self) -> Option<Result<TraceRecord, TraceError>> {
        self.next()
    }
    fn position(&self) -> u64 {
        self.line_number()
    }
    fn source_name(&self) -> String {
        self.path().display().to_string()
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
    let bb = device.info().block_bytes as u64;
    let capacity_blocks = device.info().capacity_blocks;
    let fold = opts.fold_to_capacity;
    let path = reader.source_name();
    let mut rec = Recorder::new(opts.series_interval_ns, 0);
    let mut counts = ReplayCounts::default();
    let limit = opts.limit.unwrap_or(u64::MAX);
    // Converts the next record into a command, skipping empty ones.
    let next_cmd = |reader: &mut S,
                    counts: &mut ReplayCounts|
     -> Result<Option<(TraceRecord, Command, u64)>, ReplayError> {
        loop {
            if counts.records >= limit {
                return Ok(None);
            }
            let Some(r) = reader.next_record() else {
                return Ok(None);
            };
            let r = r?;
            counts.records += 1;
            let line = reader.position();
            if r.size_bytes == 0 {
                counts.skipped_zero_size += 1;
                continue;
            }
            let mut first = r.offset_bytes / bb;
            let end = r.offset_bytes.saturating_add(r.size_bytes).div_ceil(bb);
            let blocks = end - first;
            if fold && first + blocks > capacity_blocks && blocks <= capacity_blocks {
                first %= capacity_blocks - blocks + 1;
                counts.folded_to_capacity += 1;
            }
            if blocks > u32::MAX as u64 {
                return Err(ReplayError::TooLarge {
                    path: path.clone(),
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
            return Ok(Some((r, cmd, line)));
        }
    };
    let submit =
        |device: &mut dyn Device, at: Ns, cmd: &Command, line: u64| -> Result<Ns, ReplayError> {
            device
                .submit(at, cmd, Payload::SizeOnly)
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
            let mut last_arrival: Ns = 0;
            while let Some((r, cmd, line)) = next_cmd(reader, &mut counts)? {
                let mut arrival = (r.time_ns as f64 / speed).round() as Ns;
                if arrival < last_arrival {
                    counts.reordered_arrivals += 1;
                    arrival = last_arrival;
                }
                last_arrival = arrival;
                let done = submit(device, arrival, &cmd, line)?;
                rec.record(class_of(&cmd), cmd.data_blocks() as u64 * bb, arrival, done);
                if counts.records % 65_536 == 0 {
                    if let Some(p) = progress.as_mut() {
                        p(counts.records);
                    }
                }
            }
        }
        ReplayMode::ClosedLoop { qd } => {
            let mut queue: EventQueue<(Ns, OpClass, u64)> = EventQueue::with_capacity(qd as usize);
            for _ in 0..qd {
                if let Some((_, cmd, line)) = next_cmd(reader, &mut counts)? {
                    let done = submit(device, 0, &cmd, line)?;
                    queue.schedule(done, (0, class_of(&cmd), cmd.data_blocks() as u64 * bb));
                }
            }
            while let Some((now, (submitted, class, bytes))) = queue.pop() {
                rec.record(class, bytes, submitted, now);
                if let Some((_, cmd, line)) = next_cmd(reader, &mut counts)? {
                    let done = submit(device, now, &cmd, line)?;
                    queue.schedule(done, (now, class_of(&cmd), cmd.data_blocks() as u64 * bb));
                }
                if counts.records % 65_536 == 0 {
                    if let Some(p) = progress.as_mut() {
                        p(counts.records);
                    }
                }
            }
        }
    }
    if let Some(p) = progress.as_mut() {
        p(counts.records);
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
    let elapsed = rec.last_done_ns;
    Ok(rec.finish(
        "replay",
        0,
        config,
        device.info().clone(),
        device.stats(elapsed),
    ))
}
