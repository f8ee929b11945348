//! Submission without waiting, for callers that keep many requests in flight on
//! one thread (the fio engine's `iodepth`): `zl_submit_nowait` hands a request
//! to the model at the current virtual time and returns at once with the
//! wall-clock deadline at which it completes; the caller treats the request as
//! done only once `zl_clock_ns` has reached that deadline (`zl_wait_until`
//! waits for it, sleeping then spinning as the blocking calls do).
//!
//! The bytes move at submission: a write's buffer is consumed and a read's
//! buffer filled before `zl_submit_nowait` returns. The caller must still not
//! reuse them before the deadline if it wants the timing of a real device.

use crate::device::{device, in_buf, out_buf, ZlDevice};
use crate::status::{guard, Failure};
use crate::types::ZlCompletion;
use std::ffi::c_void;
use std::time::Duration;
use zonelab_devices::{Command, Payload};

/// Read `blocks` blocks from `lba` into `buf`.
pub const ZL_OP_READ: u32 = 0;
/// Write `blocks` blocks from `buf` at `lba`.
pub const ZL_OP_WRITE: u32 = 1;
/// Trim `blocks` blocks from `lba` (block devices).
pub const ZL_OP_TRIM: u32 = 2;
/// Flush (`lba`, `blocks`, `buf` unused).
pub const ZL_OP_FLUSH: u32 = 3;
/// Zone append of `blocks` blocks from `buf` to the zone starting at `lba`.
pub const ZL_OP_APPEND: u32 = 4;

/// Wall-clock nanoseconds since `dev` was opened: the clock of
/// `ZlCompletion::deadline_ns`.
fn clock_ns(dev: &ZlDevice) -> u64 {
    u64::try_from(dev.emu.start().elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Submits one request (`ZL_OP_*`) without waiting for its modelled completion
/// and fills `*out` (virtual submit and completion times, the LBA written —
/// for an append, where the data landed — and the wall-clock deadline on the
/// `zl_clock_ns` clock). `len` must be `blocks × block_bytes` for reads, writes
/// and appends, and is ignored (as is `buf`) for trim and flush. Rule violations
/// return their status at once and `*out` is zeroed.
///
/// # Safety
/// `dev` is a valid handle; `buf` points to `len` bytes (writable for a read);
/// `out` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_submit_nowait(
    dev: *const ZlDevice,
    op: u32,
    lba: u64,
    blocks: u32,
    buf: *mut c_void,
    len: usize,
    out: *mut ZlCompletion,
) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let out = out
            .as_mut()
            .ok_or_else(|| Failure::invalid("out pointer is NULL"))?;
        *out = ZlCompletion::default();
        let c = match op {
            ZL_OP_READ => d.emu.submit_nowait(
                &Command::Read { lba, blocks },
                Payload::Read(out_buf(buf, len)?),
            ),
            ZL_OP_WRITE => d.emu.submit_nowait(
                &Command::Write { lba, blocks },
                Payload::Write(in_buf(buf, len)?),
            ),
            ZL_OP_APPEND => d.emu.submit_nowait(
                &Command::Append {
                    zone_lba: lba,
                    blocks,
                },
                Payload::Write(in_buf(buf, len)?),
            ),
            ZL_OP_TRIM => d
                .emu
                .submit_nowait(&Command::Trim { lba, blocks }, Payload::SizeOnly),
            ZL_OP_FLUSH => d.emu.submit_nowait(&Command::Flush, Payload::SizeOnly),
            other => {
                return Err(Failure::invalid(format!(
                    "unknown op {other} (ZL_OP_READ 0, WRITE 1, TRIM 2, FLUSH 3, APPEND 4)"
                )))
            }
        }?;
        let deadline = c.deadline.saturating_duration_since(d.emu.start());
        *out = ZlCompletion {
            submit_ns: c.submit_ns,
            done_ns: c.done_ns,
            lba: c.lba,
            deadline_ns: u64::try_from(deadline.as_nanos()).unwrap_or(u64::MAX),
        };
        Ok(())
    })
}

/// `*now_ns` = wall-clock nanoseconds since `dev` was opened (monotonic).
///
/// # Safety
/// `dev` is a valid handle; `now_ns` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_clock_ns(dev: *const ZlDevice, now_ns: *mut u64) -> i32 {
    guard(|| {
        let d = device(dev)?;
        *now_ns
            .as_mut()
            .ok_or_else(|| Failure::invalid("now_ns pointer is NULL"))? = clock_ns(d);
        Ok(())
    })
}

/// Blocks until `zl_clock_ns` reaches `deadline_ns` (at once if it has): sleeps,
/// then spins the last 200 µs, as the blocking calls do.
///
/// # Safety
/// `dev` is a valid handle.
#[no_mangle]
pub unsafe extern "C" fn zl_wait_until(dev: *const ZlDevice, deadline_ns: u64) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let start = d.emu.start();
        let deadline = start
            .checked_add(Duration::from_nanos(deadline_ns))
            .ok_or_else(|| Failure::invalid("deadline_ns is too far in the future"))?;
        d.emu.wait_until(deadline);
        Ok(())
    })
}
