//! ZoneLab's plain CSV trace: `time_ns,op,offset_bytes,size_bytes`, with `op` one of
//! `R`, `W`, `T` or `read`, `write`, `trim` (any case), and an optional fifth column
//! `placement_id`: the NVMe FDP placement identifier the write carries (0-65535;
//! replay sends it with the write). An optional header line whose first field is
//! `time_ns` is skipped. [`TraceRecord::write_csv`](super::TraceRecord::write_csv)
//! writes this format.

use super::error::{FieldProblem, LineError};
use super::parse::{check_end, parse_u64, split_commas, u64_field, Fields, Layout};
use super::{RawRecord, TraceOp};

/// The header line [`TraceRecord::write_csv`](super::TraceRecord::write_csv) pairs with.
pub const CSV_HEADER: &str = "time_ns,op,offset_bytes,size_bytes";

pub(crate) const LAYOUT: Layout = Layout {
    names: &["time_ns", "op", "offset_bytes", "size_bytes"],
    text: CSV_HEADER,
    separator: "comma",
};
pub(crate) const TIME_FIELD: &str = "time_ns";
/// Name of the optional fifth column.
pub(crate) const PLACEMENT_FIELD: &str = "placement_id";

/// Fields of a line with the placement column.
const PLACED_FIELDS: usize = 5;

fn op(value: &[u8]) -> Option<TraceOp> {
    match value {
        b"R" | b"r" => Some(TraceOp::Read),
        b"W" | b"w" => Some(TraceOp::Write),
        b"T" | b"t" => Some(TraceOp::Trim),
        _ if value.eq_ignore_ascii_case(b"read") => Some(TraceOp::Read),
        _ if value.eq_ignore_ascii_case(b"write") => Some(TraceOp::Write),
        _ if value.eq_ignore_ascii_case(b"trim") => Some(TraceOp::Trim),
        _ => None,
    }
}

pub(crate) fn is_header(line: &[u8]) -> bool {
    let fields = split_commas(line);
    (fields.count() == LAYOUT.names.len()
        || (fields.count() == PLACED_FIELDS
            && fields
                .get(4)
                .eq_ignore_ascii_case(PLACEMENT_FIELD.as_bytes())))
        && fields.get(0).eq_ignore_ascii_case(b"time_ns")
}

pub(crate) fn looks_like(fields: &Fields<'_>) -> bool {
    let placed_ok = match fields.count() {
        4 => true,
        PLACED_FIELDS => parse_u64(fields.get(4)).is_ok_and(|v| v <= u16::MAX as u64),
        _ => false,
    };
    placed_ok
        && op(fields.get(1)).is_some()
        && [0, 2, 3].iter().all(|&i| parse_u64(fields.get(i)).is_ok())
}

pub(crate) fn parse(line: &[u8]) -> Result<RawRecord<'_>, LineError> {
    let fields = split_commas(line);
    let placement_id = if fields.count() == PLACED_FIELDS {
        let v = u64_field(&fields, 4, PLACEMENT_FIELD)?;
        Some(u16::try_from(v).map_err(|_| {
            LineError::field_error(
                PLACEMENT_FIELD,
                fields.get(4),
                FieldProblem::AboveMax {
                    max: u16::MAX as u64,
                },
            )
        })?)
    } else {
        fields.expect(&LAYOUT)?;
        None
    };
    let time = u64_field(&fields, 0, TIME_FIELD)?;
    let op = op(fields.get(1)).ok_or_else(|| {
        LineError::field_error(
            "op",
            fields.get(1),
            FieldProblem::BadOp {
                expected: "R, W, T, read, write or trim",
            },
        )
    })?;
    let offset_bytes = u64_field(&fields, 2, "offset_bytes")?;
    let size_bytes = u64_field(&fields, 3, "size_bytes")?;
    check_end(&fields, 3, "size_bytes", offset_bytes, size_bytes)?;
    Ok(RawRecord {
        device: 0,
        time,
        time_field: fields.get(0),
        op,
        offset_bytes,
        size_bytes,
        placement_id,
    })
}
