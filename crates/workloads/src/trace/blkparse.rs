//! blkparse text: the default output of `blkparse` (Linux blktrace's formatter), one
//! event per line:
//!
//! `dev cpu seq time pid action rwbs sector + blocks [comm]`
//!
//! e.g. `  8,0    3       11     0.009507758   697  D   W 223490 + 8 [kjournald]`.
//!
//! Where the layout comes from: blktrace's `blkparse_fmt.c`. Its default header for
//! every event is `"%D %2c %8s %5T.%9t %5p %2a %3d "` (device as `major,minor`, CPU,
//! sequence number, seconds.nanoseconds since the trace started, PID, action, RWBS),
//! and for queue (`Q`), issue (`D`), complete (`C`) and merge events the rest is
//! `"%S + %n [%C]"` (start sector, number of 512-byte sectors, command or error).
//! The RWBS letters are the kernel's `blk_fill_rwbs()` (kernel/trace/blktrace.c): an
//! optional `F` (preflush), then the operation — `W` write, `D` discard (`DE` secure
//! erase), `R` read, `F` flush, `N` none — then `F` (FUA), `A` (readahead), `S` (sync),
//! `M` (metadata).
//!
//! What becomes a record:
//! - One action is replayed and the others skipped: `blkparse` (the default, and what
//!   `--format auto` picks) takes `D` (issued to the driver: the requests the device
//!   received, after the host's merges and splits); `blkparse-queue` takes `Q` (the
//!   requests as the host queued them). A full blktrace holds both for every request,
//!   so replaying both would double it.
//! - Operations: `W` → write, `R` → read, `D` → trim. Events without data (`N`,
//!   a bare flush `F`, and an empty preflush such as `FWS 0 + 0`) are skipped: ZoneLab's
//!   traces have no flush operation.
//! - The summary blkparse prints after the events (`CPU0 (8,0):`, `Total (8,0):`, ...)
//!   ends the records; any other line that is not an event is an error.
//! - The device column is `major,minor`; for `--disk` it is the number
//!   `major << 20 | minor` (the kernel's `MKDEV`), so `8,16` is `8388624`.
//! - A custom `blkparse -f` format is not read: use the default output, or convert to
//!   the plain CSV format.

use super::disksim::SECTOR_BYTES;
use super::error::{FieldProblem, LineError};
use super::parse::{check_end, parse_decimal_s_as_ns, parse_u64, scaled_field, Fields};
use super::{RawRecord, TraceOp};

pub(crate) const LAYOUT_TEXT: &str = "dev cpu seq time pid action rwbs sector + blocks [comm]";
pub(crate) const TIME_FIELD: &str = "time";
/// Fields up to and including `blocks`; `[comm]` may be missing or hold spaces.
const MIN_EVENT_FIELDS: usize = 10;
const DEVICE: usize = 0;
const TIME: usize = 3;
const ACTION: usize = 5;
const RWBS: usize = 6;
const SECTOR: usize = 7;
const PLUS: usize = 8;
const BLOCKS: usize = 9;

/// Which blktrace action a `blkparse` format replays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// `D`: issued to the device driver.
    Issue,
    /// `Q`: queued by the host.
    Queue,
}

impl Action {
    fn code(self) -> &'static [u8] {
        match self {
            Action::Issue => b"D",
            Action::Queue => b"Q",
        }
    }
}

/// What the reader does with a line of a blkparse file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineKind {
    /// An event to parse as a record (or a malformed line, which parsing reports).
    Record,
    /// An event of another action, or one without data.
    Skip,
    /// The start of blkparse's closing summary: no records follow.
    EndOfRecords,
}

/// `major,minor` as the kernel's `MKDEV(major, minor)` (`major << 20 | minor`).
fn device_number(field: &[u8]) -> Option<u64> {
    let comma = field.iter().position(|&b| b == b',')?;
    let major = parse_u64(&field[..comma]).ok()?;
    let minor = parse_u64(&field[comma + 1..]).ok()?;
    (major < (1 << 12) && minor < (1 << 20)).then_some(major << 20 | minor)
}

/// The operation the RWBS letters name, or `None` for an event without data.
fn op(rwbs: &[u8]) -> Option<TraceOp> {
    // A leading `F` is a preflush and a trailing `F` is FUA; neither is the operation.
    if rwbs.contains(&b'D') {
        Some(TraceOp::Trim)
    } else if rwbs.contains(&b'W') {
        Some(TraceOp::Write)
    } else if rwbs.contains(&b'R') {
        Some(TraceOp::Read)
    } else {
        None
    }
}

/// Whether the line starts blkparse's closing summary (`CPU0 (8,0):`, `Total (8,0):`).
fn starts_summary(line: &[u8]) -> bool {
    let cpu = line
        .strip_prefix(b"CPU")
        .is_some_and(|rest| rest.first().is_some_and(u8::is_ascii_digit));
    cpu || line.starts_with(b"Total (")
}

pub(crate) fn line_kind(fields: &Fields<'_>, line: &[u8], action: Action) -> LineKind {
    if fields.count() == 0 || device_number(fields.get(DEVICE)).is_none() {
        return if starts_summary(line) {
            LineKind::EndOfRecords
        } else {
            LineKind::Record // not an event: parsing names what is wrong
        };
    }
    if fields.count() <= RWBS || fields.get(ACTION) != action.code() {
        return LineKind::Skip;
    }
    let Some(_) = op(fields.get(RWBS)) else {
        return LineKind::Skip;
    };
    let empty_preflush = fields.get(RWBS).first() == Some(&b'F')
        && fields.count() > BLOCKS
        && fields.get(BLOCKS) == b"0";
    if empty_preflush {
        LineKind::Skip
    } else {
        LineKind::Record
    }
}

/// Whether a line looks like a blkparse event (for `--format auto`).
pub(crate) fn looks_like(fields: &Fields<'_>) -> bool {
    fields.count() > RWBS
        && device_number(fields.get(DEVICE)).is_some()
        && parse_decimal_s_as_ns(fields.get(TIME)).is_ok()
}

/// An event line that [`line_kind`] called a record; the time is in nanoseconds.
pub(crate) fn parse<'a>(fields: &Fields<'a>) -> Result<RawRecord<'a>, LineError> {
    if fields.count() < MIN_EVENT_FIELDS {
        return Err(LineError::FieldCount {
            expected: MIN_EVENT_FIELDS,
            found: fields.count(),
            layout: LAYOUT_TEXT,
            separator: "whitespace",
        });
    }
    let device = device_number(fields.get(DEVICE)).ok_or_else(|| {
        LineError::field_error(
            "dev",
            fields.get(DEVICE),
            FieldProblem::Malformed {
                expected: "major,minor such as 8,0",
            },
        )
    })?;
    let time = parse_decimal_s_as_ns(fields.get(TIME))
        .map_err(|p| LineError::field_error(TIME_FIELD, fields.get(TIME), p))?;
    let op = op(fields.get(RWBS)).ok_or_else(|| {
        LineError::field_error(
            "rwbs",
            fields.get(RWBS),
            FieldProblem::BadOp {
                expected: "RWBS letters with W, R or D",
            },
        )
    })?;
    if fields.get(PLUS) != b"+" {
        return Err(LineError::field_error(
            "+",
            fields.get(PLUS),
            FieldProblem::Malformed {
                expected: "`+` between sector and blocks",
            },
        ));
    }
    let offset_bytes = scaled_field(fields, SECTOR, "sector", SECTOR_BYTES)?;
    let size_bytes = scaled_field(fields, BLOCKS, "blocks", SECTOR_BYTES)?;
    check_end(fields, BLOCKS, "blocks", offset_bytes, size_bytes)?;
    Ok(RawRecord {
        device,
        time,
        time_field: fields.get(TIME),
        op,
        offset_bytes,
        size_bytes,
        placement_id: None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse::split_whitespace;
    use super::*;

    fn kind(line: &str, action: Action) -> LineKind {
        line_kind(&split_whitespace(line.as_bytes()), line.as_bytes(), action)
    }

    #[test]
    fn device_numbers_are_mkdev() {
        assert_eq!(device_number(b"8,0"), Some(8 << 20));
        assert_eq!(device_number(b"259,3"), Some(259 << 20 | 3));
        assert_eq!(device_number(b"8"), None);
        assert_eq!(device_number(b"8,x"), None);
        assert_eq!(device_number(b"4096,0"), None);
    }

    #[test]
    fn one_action_is_kept_and_dataless_events_are_skipped() {
        let issue = "8,0 3 11 0.009507758 697 D W 223490 + 8 [kjournald]";
        let queue = "8,0 3 9 0.009500000 697 Q W 223490 + 8 [kjournald]";
        assert_eq!(kind(issue, Action::Issue), LineKind::Record);
        assert_eq!(kind(queue, Action::Issue), LineKind::Skip);
        assert_eq!(kind(queue, Action::Queue), LineKind::Record);
        let flush = "8,0 0 5 0.1 12 D FN 0 + 0 [jbd2]";
        let empty_preflush = "8,0 0 6 0.1 12 D FWS 0 + 0 [jbd2]";
        let preflush_with_data = "8,0 0 7 0.1 12 D FWFS 100 + 8 [jbd2]";
        assert_eq!(kind(flush, Action::Issue), LineKind::Skip);
        assert_eq!(kind(empty_preflush, Action::Issue), LineKind::Skip);
        assert_eq!(kind(preflush_with_data, Action::Issue), LineKind::Record);
        assert_eq!(
            kind("8,0 1 0 0.2 0 m N cfq workload changed", Action::Issue),
            LineKind::Skip
        );
        assert_eq!(kind("CPU0 (8,0):", Action::Issue), LineKind::EndOfRecords);
        assert_eq!(kind("Total (8,0):", Action::Issue), LineKind::EndOfRecords);
        assert_eq!(kind("Reads Queued: 5", Action::Issue), LineKind::Record);
    }

    #[test]
    fn operations_from_rwbs() {
        assert_eq!(op(b"W"), Some(TraceOp::Write));
        assert_eq!(op(b"FWFS"), Some(TraceOp::Write));
        assert_eq!(op(b"RA"), Some(TraceOp::Read));
        assert_eq!(op(b"RM"), Some(TraceOp::Read));
        assert_eq!(op(b"D"), Some(TraceOp::Trim));
        assert_eq!(op(b"DE"), Some(TraceOp::Trim));
        assert_eq!(op(b"N"), None);
        assert_eq!(op(b"FN"), None);
    }
}
