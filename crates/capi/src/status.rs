//! Status codes, the thread-local last error, and the panic guard.
//!
//! Every `zl_*` function returns an `int32_t` status: [`ZL_OK`] (0) or a negative
//! `ZL_ERR_*` code. Each call also records its status and a one-line message for
//! the calling thread: [`zl_last_error`] and [`zl_last_error_message`] return
//! them until the thread's next `zl_*` call (a success records `ZL_OK` and an
//! empty message). Function bodies run under `catch_unwind`, so a Rust panic
//! becomes [`ZL_ERR_INTERNAL`] instead of unwinding into C.

use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use zonelab_devices::DeviceError;
use zonelab_emulation::EmulationError;

/// Success.
pub const ZL_OK: i32 = 0;
/// A NULL pointer, a string that is not UTF-8, a buffer whose length does not
/// match the block count, or a time dilation below 1.
pub const ZL_ERR_INVALID_ARGUMENT: i32 = -1;
/// Unknown profile name, unreadable or invalid profile file.
pub const ZL_ERR_PROFILE: i32 = -2;
/// The backing file cannot be opened, was made for another geometry, or its
/// zone-state file is corrupt.
pub const ZL_ERR_BACKING: i32 = -3;
/// Reading or writing the backing file failed.
pub const ZL_ERR_IO: i32 = -4;
/// A zoned write not at the zone's write pointer.
pub const ZL_ERR_NOT_AT_WRITE_POINTER: i32 = -5;
/// LBA range outside the device, crossing a zone boundary, or zero-length.
pub const ZL_ERR_OUT_OF_RANGE: i32 = -6;
/// The zone is full (a write or append does not fit).
pub const ZL_ERR_ZONE_FULL: i32 = -7;
/// Opening the zone would exceed the device's open or active zone limit.
pub const ZL_ERR_ZONE_LIMIT: i32 = -8;
/// The zone's state does not allow the command (invalid transition, read-only,
/// offline, conventional zone, not a zone start, read above the write pointer).
pub const ZL_ERR_ZONE_STATE: i32 = -9;
/// The device does not support the command (e.g. zone commands on a block
/// device), or the model cannot be shared between threads (`ef-smr`).
pub const ZL_ERR_UNSUPPORTED: i32 = -10;
/// The device has no free space left (FTL over-provisioning exhausted).
pub const ZL_ERR_NO_SPACE: i32 = -11;
/// Zone file store: no file of that name.
pub const ZL_ERR_NOT_FOUND: i32 = -12;
/// Zone file store: a file of that name exists already.
pub const ZL_ERR_EXISTS: i32 = -13;
/// Zone file store: the config file is unreadable, has an unknown key or a value
/// out of range (the message names the key).
pub const ZL_ERR_CONFIG: i32 = -14;
/// Zone file store: the metadata log or the zones are inconsistent
/// (`zl_fs_check`, recovery).
pub const ZL_ERR_CORRUPT: i32 = -15;
/// Zone file store: an operation failed in the store (no empty zone left for a
/// file, a device error); the message names the cause.
pub const ZL_ERR_STORE: i32 = -16;
/// A bug: a Rust panic was caught at the boundary.
pub const ZL_ERR_INTERNAL: i32 = -100;

/// A failed call: status code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl Failure {
    pub fn invalid(message: impl Into<String>) -> Self {
        Failure {
            code: ZL_ERR_INVALID_ARGUMENT,
            message: message.into(),
        }
    }
}

impl From<DeviceError> for Failure {
    fn from(e: DeviceError) -> Self {
        use DeviceError as E;
        let code = match &e {
            E::OutOfRange { .. } | E::ZeroLength { .. } | E::BoundaryCrossed { .. } => {
                ZL_ERR_OUT_OF_RANGE
            }
            E::PayloadSize { .. } => ZL_ERR_INVALID_ARGUMENT,
            E::Unsupported { .. } => ZL_ERR_UNSUPPORTED,
            E::NotAtWritePointer { .. } => ZL_ERR_NOT_AT_WRITE_POINTER,
            E::ZoneFull { .. } => ZL_ERR_ZONE_FULL,
            E::TooManyOpenZones { .. } | E::TooManyActiveZones { .. } => ZL_ERR_ZONE_LIMIT,
            E::InvalidTransition { .. }
            | E::ReadOnly { .. }
            | E::Offline { .. }
            | E::NotZoneStart { .. }
            | E::ConventionalZone { .. }
            | E::UnwrittenRead { .. }
            | E::NoZrwa { .. }
            | E::ZrwaAppend { .. }
            | E::ZrwaUnaligned { .. } => ZL_ERR_ZONE_STATE,
            E::OutsideZrwa { .. } => ZL_ERR_NOT_AT_WRITE_POINTER,
            E::ZrwaFlushRange { .. } | E::ZrwaFlushGranularity { .. } => ZL_ERR_OUT_OF_RANGE,
            E::NoZrwaResources { .. } => ZL_ERR_ZONE_LIMIT,
            E::ZrwaUnsupported { .. } => ZL_ERR_UNSUPPORTED,
            E::InvalidPlacement { .. } => ZL_ERR_INVALID_ARGUMENT,
            E::NoSpace { .. } => ZL_ERR_NO_SPACE,
            E::Io { .. } => ZL_ERR_IO,
        };
        Failure {
            code,
            message: e.to_string(),
        }
    }
}

impl From<EmulationError> for Failure {
    fn from(e: EmulationError) -> Self {
        use EmulationError as E;
        let code = match &e {
            E::InvalidDilation(_) => ZL_ERR_INVALID_ARGUMENT,
            E::Profile(_) | E::ZoneScaling { .. } => ZL_ERR_PROFILE,
            E::NotSend { .. } => ZL_ERR_UNSUPPORTED,
            E::Backing { .. } | E::BackingMismatch { .. } | E::BadSidecar { .. } => ZL_ERR_BACKING,
            E::Restore { .. } => ZL_ERR_BACKING,
        };
        Failure {
            code,
            message: e.to_string(),
        }
    }
}

impl From<zonelab_zonefs::FsError> for Failure {
    fn from(e: zonelab_zonefs::FsError) -> Self {
        use zonelab_zonefs::FsErrorKind as K;
        let code = match e.kind {
            K::Config => ZL_ERR_CONFIG,
            K::Profile => ZL_ERR_PROFILE,
            K::Backing => ZL_ERR_BACKING,
            K::NotFound => ZL_ERR_NOT_FOUND,
            K::Exists => ZL_ERR_EXISTS,
            K::Corrupt => ZL_ERR_CORRUPT,
            K::Invalid => ZL_ERR_INVALID_ARGUMENT,
            K::Store => ZL_ERR_STORE,
        };
        Failure {
            code,
            message: e.message,
        }
    }
}

thread_local! {
    static LAST: RefCell<(i32, CString)> = RefCell::new((ZL_OK, CString::default()));
}

fn record(code: i32, message: String) {
    // Interior NULs cannot appear in a C string; none of our messages has one,
    // but never fail here.
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // `try_with`: from an `atexit` handler the thread-local is already gone;
    // the status code still reaches the caller, only the message is lost.
    let _ = LAST.try_with(|l| *l.borrow_mut() = (code, c));
}

/// Runs `f` under `catch_unwind`, records its status as the thread's last error,
/// and returns the status code.
pub fn guard(f: impl FnOnce() -> Result<(), Failure>) -> i32 {
    let (code, message) = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => (ZL_OK, String::new()),
        Ok(Err(e)) => (e.code, e.message),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            (
                ZL_ERR_INTERNAL,
                format!("internal error (Rust panic caught at the C boundary): {what}"),
            )
        }
    };
    record(code, message);
    code
}

/// Status of this thread's most recent `zl_*` call (`ZL_OK` after a success).
#[no_mangle]
pub extern "C" fn zl_last_error() -> i32 {
    LAST.try_with(|l| l.borrow().0).unwrap_or(ZL_OK)
}

/// One-line message of this thread's most recent `zl_*` call ("" after a
/// success). The string belongs to the library and stays valid until this
/// thread's next `zl_*` call; copy it to keep it.
#[no_mangle]
pub extern "C" fn zl_last_error_message() -> *const c_char {
    LAST.try_with(|l| l.borrow().1.as_ptr())
        .unwrap_or(c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn last_message() -> String {
        // SAFETY: the pointer is the thread-local CString, valid until the next call.
        unsafe { CStr::from_ptr(zl_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let code = guard(|| panic!("boom {}", 7));
        assert_eq!(code, ZL_ERR_INTERNAL);
        assert_eq!(zl_last_error(), ZL_ERR_INTERNAL);
        assert!(last_message().contains("boom 7"), "{}", last_message());
        assert_eq!(guard(|| Ok(())), ZL_OK);
        assert_eq!(zl_last_error(), ZL_OK);
        assert_eq!(last_message(), "");
    }

    #[test]
    fn errors_are_per_thread() {
        assert_eq!(
            guard(|| Err(Failure::invalid("main thread"))),
            ZL_ERR_INVALID_ARGUMENT
        );
        std::thread::spawn(|| {
            assert_eq!(zl_last_error(), ZL_OK);
            assert_eq!(last_message(), "");
        })
        .join()
        .unwrap();
        assert_eq!(last_message(), "main thread");
    }
}
