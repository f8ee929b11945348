//! The zone file store's `extern "C"` functions, part 3: list, statistics, check
//! (docs/c-api.md). `zl_fs_list` and `zl_fs_stats_json` share a buffer
//! protocol: `*needed` receives the bytes required (terminating NULs included);
//! when it is larger than `cap` nothing is written and the call still returns
//! `ZL_OK` — call again with a buffer of `*needed` bytes.

use crate::fs::{handle, ZlFs};
use crate::status::{guard, Failure};
use std::ffi::c_char;

/// Copies `data` to `buf` if it fits in `cap`; `*needed` = its length.
pub(crate) unsafe fn fill(
    data: &[u8],
    buf: *mut c_char,
    cap: u64,
    needed: *mut u64,
) -> Result<(), Failure> {
    let needed = needed
        .as_mut()
        .ok_or_else(|| Failure::invalid("needed pointer is NULL"))?;
    *needed = data.len() as u64;
    if data.len() as u64 <= cap && !data.is_empty() {
        if buf.is_null() {
            return Err(Failure::invalid("buf is NULL but cap > 0"));
        }
        std::ptr::copy_nonoverlapping(data.as_ptr(), buf as *mut u8, data.len());
    }
    Ok(())
}

/// All file names, each terminated by NUL, into `buf` (sorted).
///
/// # Safety
/// `fs` is a valid handle; `buf` has `cap` writable bytes (NULL if `cap` is 0);
/// `needed` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_list(
    fs: *mut ZlFs,
    buf: *mut c_char,
    cap: u64,
    needed: *mut u64,
) -> i32 {
    guard(|| {
        let mut data = Vec::new();
        for n in handle(fs)?.list() {
            data.extend_from_slice(n.as_bytes());
            data.push(0);
        }
        fill(&data, buf, cap, needed)
    })
}

/// Statistics as one NUL-terminated JSON object: `policy`, `hints` {flush,
/// compaction_begin, compaction_end, sst_level, sst_level_late, trivial_move,
/// block_evicted, cache_lookups, cache_hits, cache_admitted, unknown_files},
/// `files` [{name, kind, level, size, device}], `devices` [{name, files,
/// live_bytes, zones_in_use, bytes_written, bytes_read, zone_resets,
/// migrated_in_bytes}], `migration`, `journal`, `recovery`.
///
/// # Safety
/// As `zl_fs_list`.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_stats_json(
    fs: *mut ZlFs,
    buf: *mut c_char,
    cap: u64,
    needed: *mut u64,
) -> i32 {
    guard(|| {
        let mut data = handle(fs)?.stats_json().into_bytes();
        data.push(0);
        fill(&data, buf, cap, needed)
    })
}

/// Consistency check: no extent beyond its zone's write pointer, no extents
/// overlapping, live bytes and free zones as the files say, the store's zones
/// matching the devices' write pointers. `ZL_OK` or `ZL_ERR_CORRUPT` with a
/// message naming the first problem.
///
/// # Safety
/// `fs` is a valid handle.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_check(fs: *mut ZlFs) -> i32 {
    guard(|| Ok(handle(fs)?.check()?))
}
