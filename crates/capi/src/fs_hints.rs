//! The zone file store's `extern "C"` hint functions (HHZS §3.1, §3.5): flush,
//! compaction begin/end, trivial move, evicted block (SSD cache admission) and
//! cache lookup. Unknown file names are ignored (`ZL_OK`).

use crate::fs::{arg_str, handle, ZlFs};
use crate::fs_io::{bytes, bytes_mut};
use crate::status::{guard, Failure};
use std::ffi::c_char;

/// `n` C strings at `names`.
unsafe fn names<'a>(
    names: *const *const c_char,
    n: u64,
    what: &str,
) -> Result<Vec<&'a str>, Failure> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if names.is_null() {
        return Err(Failure::invalid(format!(
            "{what} is NULL but its count is {n}"
        )));
    }
    (0..n as usize)
        .map(|i| arg_str(*names.add(i), what))
        .collect()
}

/// A flush (job `job`) writes the SST `sst_name` to L0.
///
/// # Safety
/// `fs` is a valid handle; `sst_name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_hint_flush(fs: *mut ZlFs, job: u64, sst_name: *const c_char) -> i32 {
    guard(|| Ok(handle(fs)?.hint_flush(job, arg_str(sst_name, "sst_name")?)?))
}

/// A compaction (job `job`) selected `n_inputs` SSTs and writes to `output_level`.
///
/// # Safety
/// `fs` is a valid handle; `inputs` holds `n_inputs` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_hint_compaction_begin(
    fs: *mut ZlFs,
    job: u64,
    inputs: *const *const c_char,
    n_inputs: u64,
    output_level: i32,
) -> i32 {
    guard(|| {
        let inputs = names(inputs, n_inputs, "inputs")?;
        Ok(handle(fs)?.hint_compaction_begin(job, &inputs, output_level)?)
    })
}

/// A compaction (job `job`) finished and installed `n_outputs` SSTs.
///
/// # Safety
/// `fs` is a valid handle; `outputs` holds `n_outputs` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_hint_compaction_end(
    fs: *mut ZlFs,
    job: u64,
    outputs: *const *const c_char,
    n_outputs: u64,
    output_level: i32,
) -> i32 {
    guard(|| {
        let outputs = names(outputs, n_outputs, "outputs")?;
        Ok(handle(fs)?.hint_compaction_end(job, &outputs, output_level)?)
    })
}

/// `sst_name` moved to `to_level` without being rewritten.
///
/// # Safety
/// `fs` is a valid handle; `sst_name` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_hint_trivial_move(
    fs: *mut ZlFs,
    sst_name: *const c_char,
    to_level: i32,
) -> i32 {
    guard(|| Ok(handle(fs)?.hint_trivial_move(arg_str(sst_name, "sst_name")?, to_level)?))
}

/// Cache hint: a block of `sst_name` at `offset` was evicted from RocksDB's
/// block cache; `data`/`len` are its bytes (any length). HHZS admits it to the
/// SSD cache only if the SST is on the HDD and the block is not cached.
///
/// # Safety
/// `fs` is a valid handle; `sst_name` a NUL-terminated string; `data` has `len`
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_hint_block_evicted(
    fs: *mut ZlFs,
    sst_name: *const c_char,
    offset: u64,
    data: *const u8,
    len: u64,
) -> i32 {
    guard(|| {
        let data = bytes(data, len, "data")?;
        Ok(handle(fs)?.hint_block_evicted(arg_str(sst_name, "sst_name")?, offset, data)?)
    })
}

/// Looks the block of `sst_name` at `offset` up in the SSD cache: on a hit
/// `*hit` = 1 and `*len` = its length, its bytes copied to `buf` if `*len <=
/// cap`; else `*hit` = 0 and `*len` = 0.
///
/// # Safety
/// `fs` is a valid handle; `sst_name` a NUL-terminated string; `buf` has `cap`
/// writable bytes (NULL if `cap` is 0); `len` and `hit` are valid pointers.
#[no_mangle]
pub unsafe extern "C" fn zl_fs_cache_lookup(
    fs: *mut ZlFs,
    sst_name: *const c_char,
    offset: u64,
    buf: *mut u8,
    cap: u64,
    len: *mut u64,
    hit: *mut i32,
) -> i32 {
    guard(|| {
        let (len, hit) = match (len.as_mut(), hit.as_mut()) {
            (Some(l), Some(h)) => (l, h),
            _ => return Err(Failure::invalid("len or hit pointer is NULL")),
        };
        *len = 0;
        *hit = 0;
        let out = bytes_mut(buf, cap, "buf")?;
        if let Some(block) = handle(fs)?.cache_lookup(arg_str(sst_name, "sst_name")?, offset)? {
            *hit = 1;
            *len = block.len() as u64;
            if block.len() <= out.len() {
                out[..block.len()].copy_from_slice(&block);
            }
        }
        Ok(())
    })
}
