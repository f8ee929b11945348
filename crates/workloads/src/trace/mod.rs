//! Block-trace readers: recorded I/O traces, streamed one line at a time into
//! [`TraceRecord`]s (time relative to the first record, operation, byte offset, byte size).
//!
//! ```no_run
//! use zonelab_workloads::trace::{TraceFormat, TraceOptions, TraceReader, TraceSummary};
//!
//! let path = "hm_0.csv";
//! let format = TraceFormat::detect_path(path)?; // `--format auto`
//! let reader = TraceReader::open(path, format, TraceOptions::default())?;
//! let summary = TraceSummary::from_reader(reader)?;
//! println!("{} records over {} ns", summary.records, summary.span_ns());
//! # Ok::<(), zonelab_workloads::trace::TraceError>(())
//! ```
//!
//! # Formats
//!
//! | name | layout | time | op | address, size |
//! |------|--------|------|----|---------------|
//! | `msr` | `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` | Windows filetime, 100 ns ticks | `Read`/`Write` (any case) | bytes |
//! | `disksim` | `time device start size flags` (whitespace) | decimal milliseconds | hex flags, bit 0 set = read | 512-byte sectors |
//! | `mqsim` | `time device start size type` (whitespace) | integer nanoseconds | `0` write, `1` read | 512-byte sectors |
//! | `csv` | `time_ns,op,offset_bytes,size_bytes[,placement_id]` | nanoseconds | `R`/`W`/`T` or `read`/`write`/`trim` | bytes |
//! | `alibaba` | `device_id,opcode,offset,length,timestamp` | microseconds | `R`/`W` | bytes |
//! | `tencent` | `Timestamp,Offset,Size,IOType,VolumeID` | Unix seconds (decimal accepted) | `0` read, `1` write | 512-byte sectors |
//!
//! Where the layouts come from:
//! - MSR Cambridge traces as distributed by SNIA IOTTA: the column list above; the
//!   files have no header (a `Timestamp,...` header is skipped if present).
//! - DiskSim: DiskSim 4.0 `src/disksim_iotrace.c`, `iotrace_ascii_get_ioreq_event`,
//!   reads each line with `sscanf(line, "%lf %d %d %d %x", &time, &devno, &blkno,
//!   &bcount, &flags)`; `disksim_global.h` defines `WRITE 0x00000000` and
//!   `READ 0x00000001`; DiskSim's simulated time is a `double` of milliseconds (its
//!   `syssim_driver` documents it so, and the EMC trace reader multiplies seconds by
//!   1000.0 to get it).
//! - MQSim (github.com/CMU-SAFARI/MQSim): `src/host/ASCII_Trace_Definition.h` gives the
//!   columns (time 0, device 1, address 2, size 3, type 4) and the type codes (`"0"`
//!   write, `"1"` read); `src/host/IO_Flow_Trace_Based.cpp` reads the time with
//!   `strtoll` and uses it as simulator time, which is in nanoseconds
//!   (`SIM_TIME_TO_MICROSECONDS_COEFF 1000`), and stops with an error when arrival
//!   times decrease. The umn-cris/MQSim fork's `traces/README.md` documents the same
//!   five columns ("0 for write, 1 for read") with integer nanosecond times. MQSim thus
//!   reads the DiskSim layout but with *integer nanosecond* times and a *decimal*
//!   type code, so it is its own format here: DiskSim's `0.5` milliseconds and MQSim's
//!   `500000` nanoseconds are the same time.
//! - Alibaba block traces, github.com/alibaba/block-traces `README.md`, schema of
//!   `io_traces.csv`: `device_id` (uint32), `opcode` (`R` or `W`), `offset` (bytes),
//!   `length` (bytes), `timestamp` (microseconds, e.g. `1577808000000626`).
//! - Tencent CBS block traces (SNIA IOTTA, cloud block storage, 2018), the trace set's
//!   `README.txt`: `Timestamp` (Unix seconds), `Offset` and `Size` (512-byte
//!   sectors), `IOType` (`0` read, `1` write), `VolumeID`; the sources are cited
//!   in `trace/tencent.rs`.
//!
//! # Reading rules
//! - Lines are read one at a time into a reused buffer; a trace larger than memory
//!   streams. A line may be at most [`MAX_LINE_BYTES`] long.
//! - Blank lines and lines starting with `#` (after leading whitespace) are skipped;
//!   so is a header line as the first non-comment line (csv, msr, alibaba, tencent). `\r\n`
//!   line ends and a UTF-8 byte-order mark are accepted.
//! - Every line is fully checked, including lines of devices a device filter drops.
//!   A bad line is an error that names the file, the 1-based line number, the field and
//!   what is wrong; the reader then ends (it yields nothing after an error).
//! - Times are made relative to the first record that is kept. A time earlier than
//!   the previous record's is an error unless [`TraceOptions::allow_unsorted`] is set;
//!   records are never reordered (with the option, a record earlier than the first
//!   one is yielded at time 0 and counted).
//! - Sizes of zero are kept as they are; `offset + size` must fit in a `u64`.

mod alibaba;
mod blkparse;
mod disksim;
mod error;
pub mod msr;
mod parse;
mod plain_csv;
mod plausibility;
mod reader;
mod summary;
mod tencent;

use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use disksim::SECTOR_BYTES;
pub use error::{DetectError, FieldProblem, LineError, ParseFormatError, TraceError};
pub use msr::FILETIME_TICK_NS;
pub use plain_csv::CSV_HEADER;
pub use plausibility::{timing_warning, PLAUSIBLE_MAX_RATE_PER_S, PLAUSIBLE_MAX_SPAN_NS};
pub use reader::{TraceOptions, TraceReader, MAX_LINE_BYTES, MAX_OTHER_DEVICES};
pub use summary::TraceSummary;

/// What a trace record asks the device to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceOp {
    Read,
    Write,
    Trim,
}

impl TraceOp {
    /// `read`, `write` or `trim`.
    pub fn name(self) -> &'static str {
        match self {
            TraceOp::Read => "read",
            TraceOp::Write => "write",
            TraceOp::Trim => "trim",
        }
    }

    /// The one-letter code of the plain CSV format: `R`, `W` or `T`.
    pub fn csv_code(self) -> char {
        match self {
            TraceOp::Read => 'R',
            TraceOp::Write => 'W',
            TraceOp::Trim => 'T',
        }
    }
}

impl fmt::Display for TraceOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One request of a trace, in the units ZoneLab uses everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Arrival time relative to the trace's first (kept) record.
    pub time_ns: u64,
    pub op: TraceOp,
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

impl TraceRecord {
    /// The first byte past the request (`offset_bytes + size_bytes`; a reader never
    /// yields a record where this overflows).
    pub fn end_bytes(&self) -> u64 {
        self.offset_bytes.saturating_add(self.size_bytes)
    }

    /// Writes the record as one line of the plain CSV format (`csv`), newline included.
    pub fn write_csv<W: Write>(&self, out: &mut W) -> io::Result<()> {
        writeln!(
            out,
            "{},{},{},{}",
            self.time_ns,
            self.op.csv_code(),
            self.offset_bytes,
            self.size_bytes
        )
    }
}

/// A trace file format; see the [module documentation](self) for the layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceFormat {
    /// MSR Cambridge / SNIA IOTTA CSV.
    Msr,
    /// DiskSim ASCII (milliseconds, hex flags).
    DiskSim,
    /// MQSim ASCII (integer nanoseconds, `0`/`1` type).
    Mqsim,
    /// ZoneLab's plain `time_ns,op,offset_bytes,size_bytes` CSV.
    Csv,
    /// Alibaba block traces CSV.
    Alibaba,
    /// Tencent CBS block traces CSV (seconds, sectors, `0` read / `1` write).
    Tencent,
    /// blkparse's default text output, its `D` (issue) events.
    Blkparse,
    /// blkparse's default text output, its `Q` (queue) events.
    BlkparseQueue,
}

/// One parsed line, before time rebasing: `time` is in the format's own unit.
pub(crate) struct RawRecord<'a> {
    pub(crate) device: u64,
    pub(crate) time: u64,
    pub(crate) time_field: &'a [u8],
    pub(crate) op: TraceOp,
    pub(crate) offset_bytes: u64,
    pub(crate) size_bytes: u64,
    /// NVMe FDP placement identifier (the plain CSV format's optional 5th column).
    pub(crate) placement_id: Option<u16>,
}

impl TraceFormat {
    /// Every format, in the order error messages list them.
    pub const ALL: [TraceFormat; 8] = [
        TraceFormat::Msr,
        TraceFormat::DiskSim,
        TraceFormat::Mqsim,
        TraceFormat::Csv,
        TraceFormat::Alibaba,
        TraceFormat::Tencent,
        TraceFormat::Blkparse,
        TraceFormat::BlkparseQueue,
    ];

    /// The name `FromStr` accepts: `msr`, `disksim`, `mqsim`, `csv`, `alibaba`,
    /// `tencent`, `blkparse` or `blkparse-queue`.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::DiskSim => "disksim",
            TraceFormat::Mqsim => "mqsim",
            TraceFormat::Csv => "csv",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::BlkparseQueue => "blkparse-queue",
        }
    }

    /// What the format is, for help texts (`MSR Cambridge / SNIA IOTTA CSV`).
    pub fn description(self) -> &'static str {
        match self {
            TraceFormat::Msr => "MSR Cambridge / SNIA IOTTA CSV",
            TraceFormat::DiskSim => "DiskSim ASCII",
            TraceFormat::Mqsim => "MQSim ASCII (DiskSim's columns)",
            TraceFormat::Csv => "ZoneLab's plain CSV time_ns,op,offset_bytes,size_bytes",
            TraceFormat::Alibaba => "Alibaba block traces CSV",
            TraceFormat::Tencent => "Tencent CBS CSV Timestamp,Offset,Size,IOType,VolumeID",
            TraceFormat::Blkparse => "blkparse default text; its D (issued) events",
            TraceFormat::BlkparseQueue => "blkparse default text; its Q (queued) events",
        }
    }

    /// The unit of the time column as written in a file, for help texts and warnings.
    pub fn time_unit(self) -> &'static str {
        match self {
            TraceFormat::Msr => "100 ns ticks (Windows filetime)",
            TraceFormat::DiskSim => "milliseconds (decimal)",
            TraceFormat::Mqsim => "nanoseconds (integer)",
            TraceFormat::Csv => "nanoseconds",
            TraceFormat::Alibaba => "microseconds",
            TraceFormat::Tencent => "seconds (Unix time)",
            TraceFormat::Blkparse | TraceFormat::BlkparseQueue => {
                "seconds (decimal) since the trace started"
            }
        }
    }

    /// The columns of a line, as a line (`time_ns,op,offset_bytes,size_bytes`).
    pub fn layout(self) -> &'static str {
        match self {
            TraceFormat::Msr => msr::LAYOUT.text,
            TraceFormat::DiskSim => disksim::DISKSIM_LAYOUT.text,
            TraceFormat::Mqsim => disksim::MQSIM_LAYOUT.text,
            TraceFormat::Csv => plain_csv::LAYOUT.text,
            TraceFormat::Alibaba => alibaba::LAYOUT.text,
            TraceFormat::Tencent => tencent::LAYOUT.text,
            TraceFormat::Blkparse | TraceFormat::BlkparseQueue => blkparse::LAYOUT_TEXT,
        }
    }

    /// Whether lines carry a device number, so that
    /// [`TraceOptions::device`] can select one device.
    pub fn has_device_column(self) -> bool {
        !matches!(self, TraceFormat::Csv)
    }

    /// Nanoseconds per unit of the time column as `parse_line` returns it.
    pub(crate) fn time_unit_ns(self) -> u64 {
        match self {
            TraceFormat::Msr => FILETIME_TICK_NS,
            TraceFormat::Alibaba => alibaba::TIME_UNIT_NS,
            // DiskSim milliseconds and Tencent and blkparse seconds are converted to
            // nanoseconds while parsing.
            TraceFormat::DiskSim
            | TraceFormat::Mqsim
            | TraceFormat::Csv
            | TraceFormat::Tencent
            | TraceFormat::Blkparse
            | TraceFormat::BlkparseQueue => 1,
        }
    }

    pub(crate) fn time_field(self) -> &'static str {
        match self {
            TraceFormat::Msr => msr::TIME_FIELD,
            TraceFormat::DiskSim => disksim::DISKSIM_TIME_FIELD,
            TraceFormat::Mqsim => disksim::MQSIM_TIME_FIELD,
            TraceFormat::Csv => plain_csv::TIME_FIELD,
            TraceFormat::Alibaba => alibaba::TIME_FIELD,
            TraceFormat::Tencent => tencent::TIME_FIELD,
            TraceFormat::Blkparse | TraceFormat::BlkparseQueue => blkparse::TIME_FIELD,
        }
    }

    #[inline]
    pub(crate) fn parse_line(self, line: &[u8]) -> Result<RawRecord<'_>, LineError> {
        match self {
            TraceFormat::Msr => msr::parse(line),
            TraceFormat::DiskSim => disksim::parse_disksim(line),
            TraceFormat::Mqsim => disksim::parse_mqsim(line),
            TraceFormat::Csv => plain_csv::parse(line),
            TraceFormat::Alibaba => alibaba::parse(line),
            TraceFormat::Tencent => tencent::parse(line),
            TraceFormat::Blkparse | TraceFormat::BlkparseQueue => {
                blkparse::parse(&parse::split_whitespace(line))
            }
        }
    }

    /// Whether a line is a record, a line to skip or the end of the records: only
    /// blkparse files have lines of the last two kinds (events of other actions, its
    /// closing summary).
    #[inline]
    pub(crate) fn line_kind(self, line: &[u8]) -> blkparse::LineKind {
        let action = match self {
            TraceFormat::Blkparse => blkparse::Action::Issue,
            TraceFormat::BlkparseQueue => blkparse::Action::Queue,
            _ => return blkparse::LineKind::Record,
        };
        blkparse::line_kind(&parse::split_whitespace(line), line, action)
    }

    pub(crate) fn is_header(self, line: &[u8]) -> bool {
        match self {
            TraceFormat::Msr => msr::is_header(line),
            TraceFormat::Csv => plain_csv::is_header(line),
            TraceFormat::Alibaba => alibaba::is_header(line),
            TraceFormat::Tencent => tencent::is_header(line),
            TraceFormat::DiskSim
            | TraceFormat::Mqsim
            | TraceFormat::Blkparse
            | TraceFormat::BlkparseQueue => false,
        }
    }

    /// Picks the format of a trace from its first non-comment line (a record or a
    /// header), for `--format auto`.
    ///
    /// Five whitespace-separated numbers are DiskSim when the time has a decimal
    /// point; with an integer time they could be DiskSim milliseconds or MQSim
    /// nanoseconds, and the answer is [`DetectError::DiskSimOrMqsim`] rather than a
    /// guess. A blkparse event line (`8,0 3 11 0.009507758 697 D W 223490 + 8 [comm]`)
    /// is `blkparse`, its `D` events; ask for `blkparse-queue` to replay `Q` events.
    pub fn detect(line: &str) -> Result<TraceFormat, DetectError> {
        let line = line.strip_prefix('\u{feff}').unwrap_or(line).trim_ascii();
        let bytes = line.as_bytes();
        if bytes.is_empty() || bytes[0] == b'#' {
            return Err(DetectError::NotARecord);
        }
        if blkparse::looks_like(&parse::split_whitespace(bytes)) {
            return Ok(TraceFormat::Blkparse);
        }
        if bytes.contains(&b',') {
            let fields = parse::split_commas(bytes);
            for format in [
                TraceFormat::Msr,
                TraceFormat::Alibaba,
                TraceFormat::Tencent,
                TraceFormat::Csv,
            ] {
                let matches = format.is_header(bytes)
                    || match format {
                        TraceFormat::Msr => msr::looks_like(&fields),
                        TraceFormat::Alibaba => alibaba::looks_like(&fields),
                        TraceFormat::Tencent => tencent::looks_like(&fields),
                        _ => plain_csv::looks_like(&fields),
                    };
                if matches {
                    return Ok(format);
                }
            }
            return Err(DetectError::Unrecognized);
        }
        match disksim::shape(&parse::split_whitespace(bytes)) {
            disksim::Shape::DecimalTime => Ok(TraceFormat::DiskSim),
            disksim::Shape::IntegerTime => Err(DetectError::DiskSimOrMqsim),
            disksim::Shape::No => Err(DetectError::Unrecognized),
        }
    }

    /// [`detect`](Self::detect) on the first non-blank, non-comment line of a file
    /// (reading only up to that line).
    pub fn detect_path(path: impl AsRef<Path>) -> Result<TraceFormat, TraceError> {
        let path = path.as_ref();
        let mut lines = reader::LineSource::open(path)?;
        match lines.next_content_line(path)? {
            None => Err(TraceError::NoRecords {
                path: path.to_path_buf(),
            }),
            Some((line, content)) => {
                let text = String::from_utf8_lossy(content);
                TraceFormat::detect(&text).map_err(|reason| TraceError::Detect {
                    path: path.to_path_buf(),
                    line,
                    reason,
                })
            }
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TraceFormat {
    type Err = ParseFormatError;

    /// A format name, in any case: `msr`, `disksim`, `mqsim`, `csv`, `alibaba` or
    /// `tencent`. (`auto` is not a format: call [`TraceFormat::detect_path`] for it.)
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        TraceFormat::ALL
            .into_iter()
            .find(|format| name.trim().eq_ignore_ascii_case(format.name()))
            .ok_or_else(|| ParseFormatError {
                name: name.to_string(),
            })
    }
}
