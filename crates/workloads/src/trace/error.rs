//! Errors of the trace readers. Every message is one line and names the file, the
//! 1-based line number, the field and what was wrong with it, e.g.
//! `trace.csv:17: field size_bytes: "abc" is not an unsigned integer`.
//!
//! The wrapped `io::Error`s are printed inside the message rather than exposed as a
//! `source()`, so an error-chain printer shows each reason once.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::TraceFormat;

/// At most this many characters of an offending field value are quoted in a message.
pub(crate) const MAX_QUOTED_CHARS: usize = 64;

/// An error from opening, detecting or reading a trace.
#[derive(Debug, Error)]
pub enum TraceError {
    /// The file could not be opened.
    #[error("{}: cannot open trace file: {cause}", show(.path))]
    Open { path: PathBuf, cause: io::Error },
    /// Reading failed part-way (`line` is the line that was being read).
    #[error("{}:{line}: cannot read trace file: {cause}", show(.path))]
    Read {
        path: PathBuf,
        line: u64,
        cause: io::Error,
    },
    /// A line is malformed.
    #[error("{}:{line}: {problem}", show(.path))]
    Line {
        path: PathBuf,
        line: u64,
        problem: LineError,
    },
    /// `--format auto`: the first record line matches no format, or more than one.
    #[error("{}:{line}: cannot detect the trace format: {reason}", show(.path))]
    Detect {
        path: PathBuf,
        line: u64,
        reason: DetectError,
    },
    /// `--format auto`: the file has no record line to look at.
    #[error("{}: cannot detect the trace format: the file has no record lines (only blank or comment lines)", show(.path))]
    NoRecords { path: PathBuf },
    /// A device filter was asked for, but the format has no device column.
    #[error("{}: a device filter was given, but the {format} trace format has no device column", show(.path))]
    NoDeviceColumn { path: PathBuf, format: TraceFormat },
}

impl TraceError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TraceError::Open { path, .. }
            | TraceError::Read { path, .. }
            | TraceError::Line { path, .. }
            | TraceError::Detect { path, .. }
            | TraceError::NoRecords { path }
            | TraceError::NoDeviceColumn { path, .. } => path,
        }
    }

    /// The 1-based line number, when the error is about one line.
    pub fn line(&self) -> Option<u64> {
        match self {
            TraceError::Read { line, .. }
            | TraceError::Line { line, .. }
            | TraceError::Detect { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// What was wrong with the line, for a malformed line.
    pub fn line_error(&self) -> Option<&LineError> {
        match self {
            TraceError::Line { problem, .. } => Some(problem),
            _ => None,
        }
    }
}

/// What is wrong with one trace line.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LineError {
    /// The line has the wrong number of fields.
    #[error("expected {expected} {separator}-separated fields ({layout}), found {found}")]
    FieldCount {
        expected: usize,
        found: usize,
        /// The format's columns, e.g. `time_ns,op,offset_bytes,size_bytes`.
        layout: &'static str,
        /// `comma` or `whitespace`.
        separator: &'static str,
    },
    /// One field is malformed; `value` is the field as written (at most
    /// 64 characters of it, then `…`).
    #[error("field {field}: {value:?} {problem}")]
    Field {
        field: &'static str,
        value: String,
        problem: FieldProblem,
    },
    /// The line is longer than the reader accepts (memory stays bounded).
    #[error("line is longer than {max_bytes} bytes")]
    TooLong { max_bytes: usize },
}

impl LineError {
    /// The field named by the error, if it is about one field.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            LineError::Field { field, .. } => Some(field),
            _ => None,
        }
    }

    /// The problem with the field, if the error is about one field.
    pub fn field_problem(&self) -> Option<&FieldProblem> {
        match self {
            LineError::Field { problem, .. } => Some(problem),
            _ => None,
        }
    }

    pub(crate) fn field_error(field: &'static str, value: &[u8], problem: FieldProblem) -> Self {
        LineError::Field {
            field,
            value: quote_value(value),
            problem,
        }
    }
}

/// What is wrong with one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldProblem {
    /// Not made only of decimal digits (also: empty).
    NotUnsigned,
    /// A minus sign: the field must be unsigned.
    Negative,
    /// More than `u64::MAX`.
    TooLarge,
    /// Fits in a `u64`, but not once converted to `unit` (sectors → bytes,
    /// milliseconds → nanoseconds).
    ScaledTooLarge { unit: &'static str },
    /// Not a non-negative decimal number such as `12`, `12.5` or `.5`.
    NotDecimal,
    /// Not a hexadecimal integer (an optional `0x` prefix is allowed).
    NotHex,
    /// Not one of the format's operation codes.
    BadOp { expected: &'static str },
    /// Not in the shape the format writes (blkparse's `major,minor`, its `+`).
    Malformed { expected: &'static str },
    /// `offset + size` is past the largest 64-bit byte address.
    EndOverflow { offset_bytes: u64 },
    /// The time relative to the first record does not fit in `u64` nanoseconds.
    TimeOverflow,
    /// The time is earlier than the previous record's (and `allow_unsorted` is off).
    Backwards { previous_line: u64 },
    /// An integer above the largest value the field takes.
    AboveMax { max: u64 },
}

impl fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldProblem::NotUnsigned => f.write_str("is not an unsigned integer"),
            FieldProblem::Negative => f.write_str("is negative; an unsigned integer is required"),
            FieldProblem::TooLarge => f.write_str("is too large for a 64-bit unsigned integer"),
            FieldProblem::ScaledTooLarge { unit } => write!(
                f,
                "is too large: converted to {unit} it overflows a 64-bit unsigned integer"
            ),
            FieldProblem::NotDecimal => f.write_str("is not a non-negative decimal number"),
            FieldProblem::NotHex => f.write_str("is not a hexadecimal integer"),
            FieldProblem::BadOp { expected } => {
                write!(f, "is not a valid operation; expected {expected}")
            }
            FieldProblem::Malformed { expected } => write!(f, "is malformed; expected {expected}"),
            FieldProblem::EndOverflow { offset_bytes } => write!(
                f,
                "at offset {offset_bytes} ends past the largest 64-bit byte address"
            ),
            FieldProblem::TimeOverflow => f.write_str(
                "is too far from the first record's time: the relative time overflows 64-bit nanoseconds",
            ),
            FieldProblem::AboveMax { max } => write!(f, "is above {max}, the largest value allowed"),
            FieldProblem::Backwards { previous_line } => write!(
                f,
                "is earlier than the previous record's time (line {previous_line}); the trace is not sorted by time"
            ),
        }
    }
}

/// Why `TraceFormat::detect` could not pick a format.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DetectError {
    /// The line is blank or a comment.
    #[error("the line is blank or a comment, not a record")]
    NotARecord,
    /// The line matches none of the formats.
    #[error("the line matches none of the formats msr, disksim, mqsim, csv, alibaba, tencent; name the format explicitly")]
    Unrecognized,
    /// Five whitespace-separated integers: DiskSim (milliseconds) and MQSim
    /// (nanoseconds) lay lines out alike, and only a decimal point in the time
    /// tells them apart.
    #[error("integer arrival times could be DiskSim milliseconds or MQSim nanoseconds; name the format explicitly (disksim or mqsim)")]
    DiskSimOrMqsim,
}

/// An unknown trace format name.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "unknown trace format {name:?}; expected one of msr, disksim, mqsim, csv, alibaba, tencent"
)]
pub struct ParseFormatError {
    pub name: String,
}

/// A field value as quoted in an error: lossy UTF-8, at most `MAX_QUOTED_CHARS`.
pub(crate) fn quote_value(value: &[u8]) -> String {
    let text = String::from_utf8_lossy(value);
    if text.chars().count() <= MAX_QUOTED_CHARS {
        text.into_owned()
    } else {
        let mut short: String = text.chars().take(MAX_QUOTED_CHARS).collect();
        short.push('…');
        short
    }
}

/// A path for a one-line message: control characters (a newline in a file name)
/// are escaped.
fn show(path: &Path) -> String {
    let text = path.display().to_string();
    if text.chars().any(char::is_control) {
        text.chars().flat_map(char::escape_default).collect()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_cut() {
        let long = vec![b'x'; 200];
        let quoted = quote_value(&long);
        assert_eq!(quoted.chars().count(), MAX_QUOTED_CHARS + 1);
        assert!(quoted.ends_with('…'));
    }

    #[test]
    fn control_characters_in_paths_are_escaped() {
        let e = TraceError::NoRecords {
            path: PathBuf::from("a\nb.csv"),
        };
        let text = e.to_string();
        assert!(!text.contains('\n'), "{text}");
        assert!(text.starts_with("a\\nb.csv: "), "{text}");
    }
}
