//! The zone file store's `extern "C"` functions, part 2: append, sync, close a
//! file, read, size (docs/c-api.md, "Zone file store"). Calls block until the
//! modelled devices complete the I/O on the (dilated) wall clock.

use crate::fs::{arg_str, handle, ZlFs};
use crate::status::{guard, Failure};
use std::ffi::c_char;

/// `len` bytes at `buf` (NULL allowed only when `len` is 0).
pub(crate) unsafe fn bytes<'a>(buf: *const u8, len: u64, what: &str) -> Result<&'a [u8], Failure> {
    match (buf.is_null(), len) {
        (_, 0) => Ok(&[]),
        (true, _) => Err(Failure::invalid(format!(
            "{what} is NULL but its length is {len}"
        ))),
        (false, n) => Ok(std::slice::from_raw_parts(buf, n as usize)),
    }
}

/// `len` writable bytes at `buf` (NULL allowed only when `len` is 0).
pub(crate) unsafe fn bytes_mut<'a>(
    buf: *mut u8,
    len: u64,
    what: &str,
) -> Result<&'a mut [u8], Failure> {
    match (buf.is_null(), len) {
        (_, 0) => Ok(&mut []),
        (true, _) => Err(Failure::invalid(format!(
            "{what} is NULL but its length is {len}"
        ))),
        (false, n) => Ok(std::slice::from_raw_parts_mut(buf, n as usize)),
    }
}

/// Appends `len` bytes to `name`. Whole blocks go to the zones; a partial last
/// block waits in memory until it fills or the file is synced or closed.
///
/// # Safety
/// `fs` is a valid handle; `name` a NUL-terminated string; `buf` has `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_append(
    fs: *mut ZlFs,
    name: *const c_char,
    buf: *const u8,
    len: u64,
) -> i32 {
    guard(|| Ok(handle(fs)?.append(arg_str(name, "name")?, bytes(buf, len, "buf")?)?))
}

/// Makes the file's appended bytes and the store's metadata durable: they
/// survive a crash (kill -9) once this returns.
///
/// # Safety
/// `fs` is a valid handle; `name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_sync(fs: *mut ZlFs, name: *const c_char) -> i32 {
    guard(|| Ok(handle(fs)?.sync(arg_str(name, "name")?)?))
}

/// No more appends (an SST is complete): writes its last partial block and
/// finishes its zones.
///
/// # Safety
/// `fs` is a valid handle; `name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_close_file(fs: *mut ZlFs, name: *const c_char) -> i32 {
    guard(|| Ok(handle(fs)?.close_file(arg_str(name, "name")?)?))
}

/// Reads up to `len` bytes of `name` at `offset` into `buf`; `*read` receives
/// the count (short at the end of the file, 0 past it).
///
/// # Safety
/// `fs` is a valid handle; `name` a NUL-terminated string; `buf` has `len`
/// writable bytes; `read` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_read(
    fs: *mut ZlFs,
    name: *const c_char,
    offset: u64,
    buf: *mut u8,
    len: u64,
    read: *mut u64,
) -> i32 {
    guard(|| {
        let read = read
            .as_mut()
            .ok_or_else(|| Failure::invalid("read pointer is NULL"))?;
        *read = 0;
        let out = bytes_mut(buf, len, "buf")?;
        *read = handle(fs)?.read(arg_str(name, "name")?, offset, out)?;
        Ok(())
    })
}

/// `*size` = the file's size in bytes (`ZL_ERR_NOT_FOUND` if absent).
///
/// # Safety
/// `fs` is a valid handle; `name` a NUL-terminated string; `size` valid.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_size(fs: *mut ZlFs, name: *const c_char, size: *mut u64) -> i32 {
    guard(|| {
        let size = size
            .as_mut()
            .ok_or_else(|| Failure::invalid("size pointer is NULL"))?;
        *size = handle(fs)?.size(arg_str(name, "name")?)?;
        Ok(())
    })
}
