//! The `extern "C"` device functions: open a profile in emulation mode, report
//! zones, zone management, read, write, zone append, flush, close.
//!
//! Every call blocks the calling thread until the model's completion time is
//! reached on the (dilated) wall clock, as `zonelab_emulation::EmulatedDevice`
//! does; rule violations return at once with a status code. A device handle may
//! be used from several threads at once; `zl_close` must be the last call on it.

use crate::status::{guard, Failure};
use crate::types::{ZlDeviceInfo, ZlZone};
use std::ffi::{c_char, c_void, CStr};
use std::path::PathBuf;
use zonelab_devices::profile::find_profile;
use zonelab_devices::{Command, Payload, ZoneAction};
use zonelab_emulation::{
    open_send_source, with_zone_capacity_mib, EmulatedDevice, EmulationConfig, EmulationError,
};

/// An open emulated device (opaque to C).
pub struct ZlDevice {
    pub(crate) emu: EmulatedDevice,
}

/// A non-NULL, UTF-8 C string argument, or `None` for NULL.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub(crate) unsafe fn opt_str<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, Failure> {
    if p.is_null() {
        return Ok(None);
    }
    CStr::from_ptr(p)
        .to_str()
        .map(Some)
        .map_err(|_| Failure::invalid(format!("{what} is not valid UTF-8")))
}

/// # Safety
/// `dev` is NULL or a handle from `zl_open` not yet closed.
pub(crate) unsafe fn device<'a>(dev: *const ZlDevice) -> Result<&'a ZlDevice, Failure> {
    dev.as_ref()
        .ok_or_else(|| Failure::invalid("device handle is NULL"))
}

/// Opens the profile `profile` (a built-in name such as "zn540", or a path to a
/// profile .toml) as an emulated device.
///
/// `backing_path`: NULL keeps payload bytes in memory (nothing persists);
/// otherwise a sparse backing file (created if missing) plus `<path>.zones`
/// holding the zone states, so reopening it resumes where the last flush or
/// close left it. `time_dilation` (>= 1): wall-clock time per modelled time;
/// 1.0 is real time, 10.0 makes every latency 10x longer. On success `*out` is
/// the new handle; on failure `*out` is set to NULL.
///
/// # Safety
/// `profile` is a NUL-terminated string; `backing_path` is NULL or one; `out` is
/// a valid pointer to a `ZlDevice *`.
#[no_mangle]
pub unsafe extern "C" fn zl_open(
    profile: *const c_char,
    backing_path: *const c_char,
    time_dilation: f64,
    out: *mut *mut ZlDevice,
) -> i32 {
    guard(|| open_into(profile, backing_path, time_dilation, 0, out))
}

/// `zl_open` with scaled-down zones: a zoned profile (`zns-ssd`, `hm-smr-hdd`)
/// gets zones of `zone_capacity_mib` MiB (a ZNS zone size becomes the next power
/// of two), keeping every timing parameter of the profile, so short runs wrap
/// and reset zones. `zone_capacity_mib` 0 keeps the profile's zones; other
/// models with a non-zero value fail with `ZL_ERR_PROFILE`.
///
/// # Safety
/// As `zl_open`.
#[no_mangle]
pub unsafe extern "C" fn zl_open_scaled(
    profile: *const c_char,
    backing_path: *const c_char,
    time_dilation: f64,
    zone_capacity_mib: u64,
    out: *mut *mut ZlDevice,
) -> i32 {
    guard(|| open_into(profile, backing_path, time_dilation, zone_capacity_mib, out))
}

/// The body of `zl_open` and `zl_open_scaled`.
unsafe fn open_into(
    profile: *const c_char,
    backing_path: *const c_char,
    time_dilation: f64,
    zone_capacity_mib: u64,
    out: *mut *mut ZlDevice,
) -> Result<(), Failure> {
    let out = out
        .as_mut()
        .ok_or_else(|| Failure::invalid("out pointer is NULL"))?;
    *out = std::ptr::null_mut();
    let profile =
        opt_str(profile, "profile")?.ok_or_else(|| Failure::invalid("profile is NULL"))?;
    let backing = opt_str(backing_path, "backing_path")?.map(PathBuf::from);
    let mut src = find_profile(profile).map_err(EmulationError::from)?;
    if zone_capacity_mib != 0 {
        src = with_zone_capacity_mib(&src, zone_capacity_mib)?;
    }
    let emu = EmulatedDevice::new(
        open_send_source(&src)?,
        EmulationConfig {
            time_dilation,
            backing_path: backing,
            ..Default::default()
        },
    )?;
    *out = Box::into_raw(Box::new(ZlDevice { emu }));
    Ok(())
}

/// Saves the zone states (with a backing file), then frees the device. NULL is
/// accepted and does nothing. The handle is invalid afterwards even if saving
/// failed (the status says so).
///
/// # Safety
/// `dev` is NULL or a handle from `zl_open` not yet closed, with no call on it
/// running in another thread.
#[no_mangle]
pub unsafe extern "C" fn zl_close(dev: *mut ZlDevice) -> i32 {
    guard(|| {
        if dev.is_null() {
            return Ok(());
        }
        let d = Box::from_raw(dev);
        let saved = d.emu.sync();
        drop(d);
        saved.map_err(Failure::from)
    })
}

/// Fills `*out` with the device's geometry.
///
/// # Safety
/// `dev` is a valid handle; `out` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_info(dev: *const ZlDevice, out: *mut ZlDeviceInfo) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let out = out
            .as_mut()
            .ok_or_else(|| Failure::invalid("out pointer is NULL"))?;
        *out = ZlDeviceInfo::from(d.emu.info());
        Ok(())
    })
}

/// Report zones: writes up to `max` descriptors from zone `first` into `zones`
/// and their number into `*count` (fewer near the last zone; 0 from past it).
///
/// # Safety
/// `dev` is a valid handle; `zones` points to `max` writable `ZlZone`s (may be
/// NULL if `max` is 0); `count` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_report_zones(
    dev: *const ZlDevice,
    first: u32,
    zones: *mut ZlZone,
    max: u32,
    count: *mut u32,
) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let count = count
            .as_mut()
            .ok_or_else(|| Failure::invalid("count pointer is NULL"))?;
        *count = 0;
        if zones.is_null() && max > 0 {
            return Err(Failure::invalid("zones is NULL but max > 0"));
        }
        let got = d.emu.report_zones(first, max)?;
        for (i, z) in got.iter().take(max as usize).enumerate() {
            *zones.add(i) = ZlZone::from(z);
        }
        *count = got.len().min(max as usize) as u32;
        Ok(())
    })
}

unsafe fn zone_action(dev: *const ZlDevice, action: ZoneAction, zone_lba: u64) -> i32 {
    guard(|| {
        device(dev)?
            .emu
            .submit(&Command::Zone { action, zone_lba }, Payload::SizeOnly)?;
        Ok(())
    })
}

/// Explicitly opens the zone starting at `zone_lba`.
///
/// # Safety
/// `dev` is a valid handle.
#[no_mangle]
pub unsafe extern "C" fn zl_zone_open(dev: *const ZlDevice, zone_lba: u64) -> i32 {
    zone_action(dev, ZoneAction::Open, zone_lba)
}

/// Closes the zone starting at `zone_lba`.
///
/// # Safety
/// `dev` is a valid handle.
#[no_mangle]
pub unsafe extern "C" fn zl_zone_close(dev: *const ZlDevice, zone_lba: u64) -> i32 {
    zone_action(dev, ZoneAction::Close, zone_lba)
}

/// Finishes the zone starting at `zone_lba` (it becomes full).
///
/// # Safety
/// `dev` is a valid handle.
#[no_mangle]
pub unsafe extern "C" fn zl_zone_finish(dev: *const ZlDevice, zone_lba: u64) -> i32 {
    zone_action(dev, ZoneAction::Finish, zone_lba)
}

/// Resets the zone starting at `zone_lba` (it becomes empty; its data reads as
/// zeros).
///
/// # Safety
/// `dev` is a valid handle.
#[no_mangle]
pub unsafe extern "C" fn zl_zone_reset(dev: *const ZlDevice, zone_lba: u64) -> i32 {
    zone_action(dev, ZoneAction::Reset, zone_lba)
}

/// `len` bytes at `buf` as a slice (NULL allowed only when `len` is 0).
pub(crate) unsafe fn in_buf<'a>(buf: *const c_void, len: usize) -> Result<&'a [u8], Failure> {
    match (buf.is_null(), len) {
        (_, 0) => Ok(&[]),
        (true, _) => Err(Failure::invalid("buffer is NULL but its length is not 0")),
        (false, _) => Ok(std::slice::from_raw_parts(buf as *const u8, len)),
    }
}

pub(crate) unsafe fn out_buf<'a>(buf: *mut c_void, len: usize) -> Result<&'a mut [u8], Failure> {
    match (buf.is_null(), len) {
        (_, 0) => Ok(&mut []),
        (true, _) => Err(Failure::invalid("buffer is NULL but its length is not 0")),
        (false, _) => Ok(std::slice::from_raw_parts_mut(buf as *mut u8, len)),
    }
}

/// Reads `blocks` blocks from `lba` into `buf`; `len` must be
/// `blocks * block_bytes`.
///
/// # Safety
/// `dev` is a valid handle; `buf` points to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn zl_read(
    dev: *const ZlDevice,
    lba: u64,
    blocks: u32,
    buf: *mut c_void,
    len: usize,
) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let out = out_buf(buf, len)?;
        d.emu
            .submit(&Command::Read { lba, blocks }, Payload::Read(out))?;
        Ok(())
    })
}

/// Writes `blocks` blocks from `buf` at `lba` (on a zoned device: exactly at the
/// zone's write pointer); `len` must be `blocks * block_bytes`.
///
/// # Safety
/// `dev` is a valid handle; `buf` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn zl_write(
    dev: *const ZlDevice,
    lba: u64,
    blocks: u32,
    buf: *const c_void,
    len: usize,
) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let data = in_buf(buf, len)?;
        d.emu
            .submit(&Command::Write { lba, blocks }, Payload::Write(data))?;
        Ok(())
    })
}

/// Writes like [`zl_write`] with an NVMe Flexible Data Placement directive: the
/// data goes to the reclaim unit handle that placement identifier `pid` names
/// (devices with an `[fdp]` profile section, e.g. `zn540-fdp`; others fail with
/// `ZL_ERR_UNSUPPORTED`). An identifier naming no handle is logged by the device
/// and written through handle 0, as NVMe FDP specifies.
///
/// # Safety
/// `dev` is a valid handle; `buf` points to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn zl_write_placed(
    dev: *const ZlDevice,
    lba: u64,
    blocks: u32,
    pid: u16,
    buf: *const c_void,
    len: usize,
) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let data = in_buf(buf, len)?;
        d.emu
            .submit_placed(&Command::Write { lba, blocks }, pid, Payload::Write(data))?;
        Ok(())
    })
}

/// Zone append: writes `blocks` blocks from `buf` at the write pointer of the
/// zone starting at `zone_lba`, and stores the LBA where they landed in
/// `*out_lba` (if not NULL).
///
/// # Safety
/// `dev` is a valid handle; `buf` points to `len` readable bytes; `out_lba` is
/// NULL or a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_append(
    dev: *const ZlDevice,
    zone_lba: u64,
    blocks: u32,
    buf: *const c_void,
    len: usize,
    out_lba: *mut u64,
) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let data = in_buf(buf, len)?;
        let c = d
            .emu
            .submit(&Command::Append { zone_lba, blocks }, Payload::Write(data))?;
        if let Some(o) = out_lba.as_mut() {
            *o = c.lba;
        }
        Ok(())
    })
}

/// Flush: makes acknowledged writes durable. With a backing file this also
/// fsyncs it and saves the zone states (what a reopen after a crash resumes
/// from).
///
/// # Safety
/// `dev` is a valid handle.
#[no_mangle]
pub unsafe extern "C" fn zl_flush(dev: *const ZlDevice) -> i32 {
    guard(|| {
        device(dev)?
            .emu
            .submit(&Command::Flush, Payload::SizeOnly)?;
        Ok(())
    })
}

/// Trim (deallocate) `blocks` blocks from `lba`: a block device forgets them (an
/// FTL SSD drops the mapping, so GC copies less); they read as zeros afterwards
/// with a backing file. Zoned devices refuse it (`ZL_ERR_UNSUPPORTED`): reset
/// the zone instead.
///
/// # Safety
/// `dev` is a valid handle.
#[no_mangle]
pub unsafe extern "C" fn zl_trim(dev: *const ZlDevice, lba: u64, blocks: u32) -> i32 {
    guard(|| {
        device(dev)?
            .emu
            .submit(&Command::Trim { lba, blocks }, Payload::SizeOnly)?;
        Ok(())
    })
}
