//! The zone file store's `extern "C"` functions, part 1: open and close the
//! store, create, level, delete, rename (issue 9 part 2; the contract in
//! docs/c-api.md, "Zone file store"). Files are named by RocksDB's base names.
//! Every function returns a status and sets the thread's last error message; a
//! `ZlFs` handle may be used from many threads at once.

use crate::status::{guard, Failure};
use std::ffi::{c_char, CStr};
use std::path::Path;
use zonelab_zonefs::ZoneFs;

/// File kind: a write-ahead log (RocksDB `*.log`) or any other non-SST file.
pub const ZL_FILE_WAL: i32 = 1;
/// File kind: an SST (RocksDB `*.sst`).
pub const ZL_FILE_SST: i32 = 2;

/// An open zone file store (opaque to C).
pub struct ZlFs {
    pub(crate) fs: ZoneFs,
}

/// A non-NULL UTF-8 C string.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub(crate) unsafe fn arg_str<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::invalid(format!("{what} is NULL")));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| Failure::invalid(format!("{what} is not valid UTF-8")))
}

/// # Safety
/// `fs` is NULL or a handle from `zl_fs_open` not yet closed.
pub(crate) unsafe fn handle<'a>(fs: *const ZlFs) -> Result<&'a ZoneFs, Failure> {
    fs.as_ref()
        .map(|h| &h.fs)
        .ok_or_else(|| Failure::invalid("file store handle is NULL"))
}

/// Opens, creating or recovering, an HHZS zone file store described by the TOML
/// config file at `config_path` (keys in docs/c-api.md). A store with a `dir`
/// recovers from its metadata log after a crash. On failure `*out` is NULL.
///
/// # Safety
/// `config_path` is a NUL-terminated string; `out` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_open(config_path: *const c_char, out: *mut *mut ZlFs) -> i32 {
    guard(|| {
        let out = out
            .as_mut()
            .ok_or_else(|| Failure::invalid("out pointer is NULL"))?;
        *out = std::ptr::null_mut();
        let path = arg_str(config_path, "config_path")?;
        let fs = ZoneFs::open(Path::new(path))?;
        *out = Box::into_raw(Box::new(ZlFs { fs }));
        Ok(())
    })
}

/// Syncs every file and the metadata, then frees the handle (invalid afterwards
/// even if the sync failed). NULL is a no-op.
///
/// # Safety
/// `fs` is NULL or a handle from `zl_fs_open`, with no call on it running.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_close(fs: *mut ZlFs) -> i32 {
    guard(|| {
        if fs.is_null() {
            return Ok(());
        }
        let h = Box::from_raw(fs);
        h.fs.close()?;
        Ok(())
    })
}

/// Creates an empty file `name` of `kind` (`ZL_FILE_WAL` / `ZL_FILE_SST`) with
/// its SST `level` (-1: not known yet). `ZL_ERR_EXISTS` if the name is taken.
///
/// # Safety
/// `fs` is a valid handle; `name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_create(
    fs: *mut ZlFs,
    name: *const c_char,
    kind: i32,
    level: i32,
) -> i32 {
    guard(|| Ok(handle(fs)?.create(arg_str(name, "name")?, kind, level)?))
}

/// SST level hint; takes effect until the file's first append (zones are
/// allocated lazily at the first append), later calls are counted and ignored.
///
/// # Safety
/// `fs` is a valid handle; `name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_set_level(fs: *mut ZlFs, name: *const c_char, level: i32) -> i32 {
    guard(|| Ok(handle(fs)?.set_level(arg_str(name, "name")?, level)?))
}

/// Deletes `name` (`ZL_ERR_NOT_FOUND` if absent). Its zones are reset once no
/// other file uses them, after the delete is durable in the metadata log.
///
/// # Safety
/// `fs` is a valid handle; `name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_delete(fs: *mut ZlFs, name: *const c_char) -> i32 {
    guard(|| Ok(handle(fs)?.delete(arg_str(name, "name")?)?))
}

/// Renames `from` to `to`, replacing `to` if it exists; durable on return.
///
/// # Safety
/// `fs` is a valid handle; `from` and `to` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_rename(
    fs: *mut ZlFs,
    from: *const c_char,
    to: *const c_char,
) -> i32 {
    guard(|| Ok(handle(fs)?.rename(arg_str(from, "from")?, arg_str(to, "to")?)?))
}
