//! Append and read throughput of the zone file store through the C ABI, in real
//! time (time_dilation 1), with the bytes in memory or in backing files.
//!
//! `cargo run --release -p zonelab-capi --example fs_throughput [MiB]`
//! (docs/PERFORMANCE.md records the results). For each storage mode and device
//! (policy B1 puts L0 on the SSD, L1+ on the HDD), it appends one SST of `MiB`
//! MiB in 1 MiB calls, closes it and reads it back in 1 MiB calls; then writes a
//! WAL in 4 KiB appends with a sync every 64 appends.

use std::ffi::{CStr, CString};
use std::ptr;
use std::time::Instant;
use zonelab::*;

const CHUNK_BYTES: usize = 1 << 20;
const WAL_APPEND_BYTES: usize = 4096;
const WAL_SYNC_EVERY: usize = 64;

fn check(rc: i32, what: &str) {
    if rc != ZL_OK {
        // SAFETY: the message pointer is valid until the next zl_* call.
        let msg = unsafe { CStr::from_ptr(zl_last_error_message()) };
        panic!("{what}: {rc} {}", msg.to_string_lossy());
    }
}

fn mib_s(bytes: usize, secs: f64) -> f64 {
    bytes as f64 / (1 << 20) as f64 / secs
}

fn main() {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(64);
    let tmp = std::env::temp_dir().join(format!("zonelab-fs-throughput-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let data: Vec<u8> = (0..CHUNK_BYTES).map(|i| (i * 7 + i / 4096) as u8).collect();
    let mut back = vec![0u8; CHUNK_BYTES];
    println!("mode    device  append_MiB_s  read_MiB_s  wal_4k_sync64_MiB_s");
    for mode in ["memory", "file"] {
        let config = tmp.join(format!("{mode}.toml"));
        let dir = match mode {
            "file" => format!("dir = \"{}\"\n", tmp.join("store").display()),
            _ => String::new(),
        };
        std::fs::write(&config, format!("{dir}policy = \"b1\"\n")).unwrap();
        let config = CString::new(config.to_str().unwrap()).unwrap();
        let mut fs = ptr::null_mut();
        unsafe {
            check(zl_fs_open(config.as_ptr(), &mut fs), "open");
            for (device, level) in [("ssd", 0), ("hdd", 1)] {
                let name = CString::new(format!("{mode}-{device}.sst")).unwrap();
                check(
                    zl_fs_create(fs, name.as_ptr(), ZL_FILE_SST, level),
                    "create",
                );
                let t = Instant::now();
                for _ in 0..mib {
                    check(
                        zl_fs_append(fs, name.as_ptr(), data.as_ptr(), CHUNK_BYTES as u64),
                        "append",
                    );
                }
                check(zl_fs_close_file(fs, name.as_ptr()), "close_file");
                let append = mib_s(mib * CHUNK_BYTES, t.elapsed().as_secs_f64());
                let t = Instant::now();
                for i in 0..mib {
                    let mut got = 0;
                    check(
                        zl_fs_read(
                            fs,
                            name.as_ptr(),
                            (i * CHUNK_BYTES) as u64,
                            back.as_mut_ptr(),
                            CHUNK_BYTES as u64,
                            &mut got,
                        ),
                        "read",
                    );
                    assert!(got as usize == CHUNK_BYTES && back == data);
                }
                let read = mib_s(mib * CHUNK_BYTES, t.elapsed().as_secs_f64());
                let wal = if device == "ssd" {
                    let w = CString::new(format!("{mode}.log")).unwrap();
                    check(zl_fs_create(fs, w.as_ptr(), ZL_FILE_WAL, -1), "create wal");
                    let n = mib * CHUNK_BYTES / WAL_APPEND_BYTES / 4;
                    let t = Instant::now();
                    for k in 0..n {
                        check(
                            zl_fs_append(fs, w.as_ptr(), data.as_ptr(), WAL_APPEND_BYTES as u64),
                            "wal append",
                        );
                        if k % WAL_SYNC_EVERY == WAL_SYNC_EVERY - 1 {
                            check(zl_fs_sync(fs, w.as_ptr()), "sync");
                        }
                    }
                    format!(
                        "{:.1}",
                        mib_s(n * WAL_APPEND_BYTES, t.elapsed().as_secs_f64())
                    )
                } else {
                    "-".into()
                };
                println!("{mode:<7} {device:<7} {append:>12.1} {read:>11.1} {wal:>20}");
            }
            check(zl_fs_close(fs), "close");
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
