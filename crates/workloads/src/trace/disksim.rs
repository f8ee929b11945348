//! DiskSim and MQSim ASCII traces: five whitespace-separated fields per line,
//!
//! `arrival_time device_number start_sector size_sectors flags`
//!
//! The two tools lay lines out alike but read the time and the last field differently:
//!
//! - **DiskSim** (`iotrace_ascii_get_ioreq_event` in DiskSim 4.0's `disksim_iotrace.c`
//!   reads a line with `sscanf("%lf %d %d %d %x")`): the time is a decimal number of
//!   *milliseconds* (DiskSim's simulated time is a `double` of milliseconds), the last
//!   field is a *hexadecimal* flag word whose bit 0 is `READ` (`disksim_global.h`:
//!   `WRITE 0x00000000`, `READ 0x00000001`); other flag bits are ignored.
//! - **MQSim** (`IO_Flow_Trace_Based.cpp` with `ASCII_Trace_Definition.h`): the time is an
//!   *integer* passed to `strtoll` and used directly as simulator time, which is
//!   *nanoseconds* (`SIM_TIME_TO_MICROSECONDS_COEFF 1000`); the last field is compared
//!   with the strings `"0"` (write) and `"1"` (read). Here exactly `0` and `1` are
//!   accepted; MQSim itself takes anything but `0` as a read.
//!
//! In both, the start address and size count 512-byte sectors (DiskSim: blocks of the
//! logical device, which the traces use as 512-byte sectors; MQSim: `SECTOR_SIZE_IN_BYTE`).
//! DiskSim and MQSim traces have no header line.

use super::error::{FieldProblem, LineError};
use super::parse::{
    check_end, parse_decimal_ms_as_ns, parse_hex_u64, parse_u64, scaled_field, split_whitespace,
    u64_field, Fields, Layout,
};
use super::{RawRecord, TraceOp};

/// Bytes in one sector of a DiskSim / MQSim trace.
pub const SECTOR_BYTES: u64 = 512;

pub(crate) const DISKSIM_LAYOUT: Layout = Layout {
    names: &[
        "arrival_time_ms",
        "device_number",
        "start_sector",
        "size_sectors",
        "flags",
    ],
    text: "arrival_time_ms device_number start_sector size_sectors flags",
    separator: "whitespace",
};
pub(crate) const DISKSIM_TIME_FIELD: &str = "arrival_time_ms";

pub(crate) const MQSIM_LAYOUT: Layout = Layout {
    names: &[
        "arrival_time_ns",
        "device_number",
        "start_sector",
        "size_sectors",
        "type",
    ],
    text: "arrival_time_ns device_number start_sector size_sectors type",
    separator: "whitespace",
};
pub(crate) const MQSIM_TIME_FIELD: &str = "arrival_time_ns";

/// Whether a line of five whitespace-separated fields could be either format; and
/// whether its time has a decimal point (then it can only be DiskSim).
pub(crate) enum Shape {
    No,
    IntegerTime,
    DecimalTime,
}

pub(crate) fn shape(fields: &Fields<'_>) -> Shape {
    let numeric = fields.count() == 5
        && [1, 2, 3].iter().all(|&i| parse_u64(fields.get(i)).is_ok())
        && parse_hex_u64(fields.get(4)).is_ok()
        && parse_decimal_ms_as_ns(fields.get(0)).is_ok();
    if !numeric {
        Shape::No
    } else if fields.get(0).contains(&b'.') {
        Shape::DecimalTime
    } else {
        Shape::IntegerTime
    }
}

/// Device, start and size (in bytes), shared by both formats.
fn address(fields: &Fields<'_>) -> Result<(u64, u64, u64), LineError> {
    let device = u64_field(fields, 1, "device_number")?;
    let offset_bytes = scaled_field(fields, 2, "start_sector", SECTOR_BYTES)?;
    let size_bytes = scaled_field(fields, 3, "size_sectors", SECTOR_BYTES)?;
    check_end(fields, 3, "size_sectors", offset_bytes, size_bytes)?;
    Ok((device, offset_bytes, size_bytes))
}

/// A DiskSim line; the time is returned in nanoseconds.
pub(crate) fn parse_disksim(line: &[u8]) -> Result<RawRecord<'_>, LineError> {
    let fields = split_whitespace(line);
    fields.expect(&DISKSIM_LAYOUT)?;
    let time = parse_decimal_ms_as_ns(fields.get(0))
        .map_err(|p| LineError::field_error(DISKSIM_TIME_FIELD, fields.get(0), p))?;
    let (device, offset_bytes, size_bytes) = address(&fields)?;
    let flags = parse_hex_u64(fields.get(4))
        .map_err(|p| LineError::field_error("flags", fields.get(4), p))?;
    let op = if flags & 1 == 1 {
        TraceOp::Read
    } else {
        TraceOp::Write
    };
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

/// An MQSim line; the time is nanoseconds.
pub(crate) fn parse_mqsim(line: &[u8]) -> Result<RawRecord<'_>, LineError> {
    let fields = split_whitespace(line);
    fields.expect(&MQSIM_LAYOUT)?;
    let time = u64_field(&fields, 0, MQSIM_TIME_FIELD)?;
    let (device, offset_bytes, size_bytes) = address(&fields)?;
    let op = match fields.get(4) {
        b"0" => TraceOp::Write,
        b"1" => TraceOp::Read,
        other => {
            return Err(LineError::field_error(
                "type",
                other,
                FieldProblem::BadOp {
                    expected: "0 (write) or 1 (read)",
                },
            ))
        }
    };
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
