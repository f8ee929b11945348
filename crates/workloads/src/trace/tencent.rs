//! Tencent CBS block traces (a warehouse of Tencent's production cloud block storage,
//! 5,584 cloud virtual volumes, 1–10 Oct. 2018; the traces behind the ATC '20 paper
//! "OSCA: An Online-Model Based Cache Allocation Scheme in Cloud Block Storage
//! Systems"):
//!
//! `Timestamp,Offset,Size,IOType,VolumeID`
//!
//! Where the layout comes from: the trace distribution's `README.txt`, section
//! "3. I/O trace file format" (read through a public copy of it,
//! `https://huggingface.erdda.com/datasets/1a1a11a/jason_original/blob/main/tencent/tencentBlock_README`):
//! comma-separated text; `Timestamp` is when the I/O was issued, as Unix time in
//! *seconds*; `Offset` is the start of the I/O in *sectors* (1 sector = 512 bytes)
//! from the start of the cloud virtual volume; `Size` is the transfer size in
//! *sectors*; `IOType` is `Read(0)`, `Write(1)`; `VolumeID` is the volume's number.
//! A line looks like `1538323199,105352008,584,1,1576` (a 292 KiB write to volume 1576).
//!
//! The files have no header; a `Timestamp,Offset,Size,IOType,VolumeID` header is
//! skipped if present. Times are whole seconds in the published traces, so many
//! requests share one time; a decimal fraction (`1538323199.25`) is accepted and
//! converted exactly. `VolumeID` is the device column: `--disk` selects one volume.

use super::disksim::SECTOR_BYTES;
use super::error::{FieldProblem, LineError};
use super::parse::{
    check_end, parse_decimal_s_as_ns, parse_u64, scaled_field, split_commas, u64_field, Fields,
    Layout,
};
use super::{RawRecord, TraceOp};

pub(crate) const LAYOUT: Layout = Layout {
    names: &["Timestamp", "Offset", "Size", "IOType", "VolumeID"],
    text: "Timestamp,Offset,Size,IOType,VolumeID",
    separator: "comma",
};
pub(crate) const TIME_FIELD: &str = "Timestamp";
const OP_FIELD: &str = "IOType";

fn op(value: &[u8]) -> Option<TraceOp> {
    match value {
        b"0" => Some(TraceOp::Read),
        b"1" => Some(TraceOp::Write),
        _ => None,
    }
}

pub(crate) fn is_header(line: &[u8]) -> bool {
    let fields = split_commas(line);
    fields.count() == LAYOUT.names.len() && fields.get(0).eq_ignore_ascii_case(b"Timestamp")
}

pub(crate) fn looks_like(fields: &Fields<'_>) -> bool {
    fields.count() == LAYOUT.names.len()
        && parse_decimal_s_as_ns(fields.get(0)).is_ok()
        && op(fields.get(3)).is_some()
        && [1, 2, 4].iter().all(|&i| parse_u64(fields.get(i)).is_ok())
}

/// A Tencent CBS line; the time is returned in nanoseconds.
pub(crate) fn parse(line: &[u8]) -> Result<RawRecord<'_>, LineError> {
    let fields = split_commas(line);
    fields.expect(&LAYOUT)?;
    let time = parse_decimal_s_as_ns(fields.get(0))
        .map_err(|p| LineError::field_error(TIME_FIELD, fields.get(0), p))?;
    let offset_bytes = scaled_field(&fields, 1, "Offset", SECTOR_BYTES)?;
    let size_bytes = scaled_field(&fields, 2, "Size", SECTOR_BYTES)?;
    check_end(&fields, 2, "Size", offset_bytes, size_bytes)?;
    let op = op(fields.get(3)).ok_or_else(|| {
        LineError::field_error(
            OP_FIELD,
            fields.get(3),
            FieldProblem::BadOp {
                expected: "0 (read) or 1 (write)",
            },
        )
    })?;
    let device = u64_field(&fields, 4, "VolumeID")?;
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
