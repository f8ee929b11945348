//! MSR Cambridge / SNIA IOTTA block traces (CSV, no header in the published files):
//!
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`
//!
//! `Timestamp` is a Windows filetime (100 ns ticks since 1601-01-01 UTC), `Type` is
//! `Read` or `Write` (any case), `Offset` and `Size` are bytes. `Hostname` and
//! `ResponseTime` are not used and not checked. A header line whose first field is
//! `Timestamp` is skipped.

use super::error::{FieldProblem, LineError};
use super::parse::{check_end, split_commas, u64_field, Fields, Layout};
use super::{RawRecord, TraceOp};

/// One Windows filetime tick, in nanoseconds.
pub const FILETIME_TICK_NS: u64 = 100;

/// The start of the MSR Cambridge traces as a Windows filetime: 2007-02-22
/// 17:00 GMT (Narayanan et al., FAST'08: traces "starting from 5PM GMT on the 22nd
/// February 2007"), for writing records in the published layout.
pub const MSR_START_FILETIME: u64 = 128_166_372_000_000_000;

/// Writes `r` as one line of the published layout (no header): time as a Windows
/// filetime from `start_filetime`, `host` and `disk` as given, response time 0.
pub fn write_record<W: std::io::Write>(
    out: &mut W,
    r: &super::TraceRecord,
    start_filetime: u64,
    host: &str,
    disk: u32,
) -> std::io::Result<()> {
    let kind = match r.op {
        TraceOp::Read => "Read",
        TraceOp::Write => "Write",
        TraceOp::Trim => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the MSR layout has no trim records",
            ))
        }
    };
    writeln!(
        out,
        "{},{host},{disk},{kind},{},{},0",
        start_filetime + r.time_ns / FILETIME_TICK_NS,
        r.offset_bytes,
        r.size_bytes
    )
}

pub(crate) const LAYOUT: Layout = Layout {
    names: &[
        "Timestamp",
        "Hostname",
        "DiskNumber",
        "Type",
        "Offset",
        "Size",
        "ResponseTime",
    ],
    text: "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
    separator: "comma",
};
pub(crate) const TIME_FIELD: &str = "Timestamp";

fn op(value: &[u8]) -> Option<TraceOp> {
    if value.eq_ignore_ascii_case(b"read") {
        Some(TraceOp::Read)
    } else if value.eq_ignore_ascii_case(b"write") {
        Some(TraceOp::Write)
    } else {
        None
    }
}

pub(crate) fn is_header(line: &[u8]) -> bool {
    let fields = split_commas(line);
    fields.count() == LAYOUT.names.len() && fields.get(0).eq_ignore_ascii_case(b"timestamp")
}

pub(crate) fn looks_like(fields: &Fields<'_>) -> bool {
    fields.count() == LAYOUT.names.len()
        && fields.get(0).iter().all(u8::is_ascii_digit)
        && op(fields.get(3)).is_some()
}

pub(crate) fn parse(line: &[u8]) -> Result<RawRecord<'_>, LineError> {
    let fields = split_commas(line);
    fields.expect(&LAYOUT)?;
    let time = u64_field(&fields, 0, TIME_FIELD)?;
    let device = u64_field(&fields, 2, "DiskNumber")?;
    let op = op(fields.get(3)).ok_or_else(|| {
        LineError::field_error(
            "Type",
            fields.get(3),
            FieldProblem::BadOp {
                expected: "Read or Write",
            },
        )
    })?;
    let offset_bytes = u64_field(&fields, 4, "Offset")?;
    let size_bytes = u64_field(&fields, 5, "Size")?;
    check_end(&fields, 5, "Size", offset_bytes, size_bytes)?;
    Ok(RawRecord {
        device,
        time,
        time_field: fields.get(0),
        op,
        offset_bytes,
        size_bytes,
        placement_id: None,
    })
}
