//! Alibaba block traces (`io_traces.csv` of the 2020 release, github.com/alibaba/block-traces):
//!
//! `device_id,opcode,offset,length,timestamp`
//!
//! `opcode` is `R` or `W` (either case accepted), `offset` and `length` are bytes,
//! `timestamp` is microseconds (Unix epoch) at which the server received the request.
//! A header line whose first field is `device_id` is skipped.

use super::error::{FieldProblem, LineError};
use super::parse::{check_end, parse_u64, split_commas, u64_field, Fields, Layout};
use super::{RawRecord, TraceOp};

pub(crate) const LAYOUT: Layout = Layout {
    names: &["device_id", "opcode", "offset", "length", "timestamp"],
    text: "device_id,opcode,offset,length,timestamp",
    separator: "comma",
};
pub(crate) const TIME_FIELD: &str = "timestamp";
pub(crate) const TIME_UNIT_NS: u64 = 1_000;

fn op(value: &[u8]) -> Option<TraceOp> {
    match value {
        b"R" | b"r" => Some(TraceOp::Read),
        b"W" | b"w" => Some(TraceOp::Write),
        _ => None,
    }
}

pub(crate) fn is_header(line: &[u8]) -> bool {
    let fields = split_commas(line);
    fields.count() == LAYOUT.names.len() && fields.get(0).eq_ignore_ascii_case(b"device_id")
}

pub(crate) fn looks_like(fields: &Fields<'_>) -> bool {
    fields.count() == LAYOUT.names.len()
        && op(fields.get(1)).is_some()
        && [0, 2, 3, 4]
            .iter()
            .all(|&i| parse_u64(fields.get(i)).is_ok())
}

pub(crate) fn parse(line: &[u8]) -> Result<RawRecord<'_>, LineError> {
    let fields = split_commas(line);
    fields.expect(&LAYOUT)?;
    let device = u64_field(&fields, 0, "device_id")?;
    let op = op(fields.get(1)).ok_or_else(|| {
        LineError::field_error(
            "opcode",
            fields.get(1),
            FieldProblem::BadOp { expected: "R or W" },
        )
    })?;
    let offset_bytes = u64_field(&fields, 2, "offset")?;
    let size_bytes = u64_field(&fields, 3, "length")?;
    check_end(&fields, 3, "length", offset_bytes, size_bytes)?;
    let time = u64_field(&fields, 4, TIME_FIELD)?;
    Ok(RawRecord {
        device,
        time,
        time_field: fields.get(4),
        op,
        offset_bytes,
        size_bytes,
        placement_id: None,
    })
}
