//! Error paths of the zone file store's C ABI: each returns its status code and
//! a one-line message naming the cause, never aborts.

use std::ffi::{CStr, CString};
use std::ptr;
use zonelab::*;

fn message() -> String {
    // SAFETY: the thread-local message stays valid until the next zl_* call.
    unsafe { CStr::from_ptr(zl_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn open_with(config: &str) -> (i32, *mut ZlFs, tempfile::TempDir) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("fs.toml");
    std::fs::write(&path, config).unwrap();
    let mut fs = ptr::null_mut();
    let rc = unsafe { zl_fs_open(c(path.to_str().unwrap()).as_ptr(), &mut fs) };
    (rc, fs, tmp)
}

const SMALL: &str = "zone_capacity_mib_ssd = 4\nzone_capacity_mib_hdd = 4\nssd_zone_budget = 6\n";

#[test]
fn bad_config_key_and_unknown_profile_are_reported() {
    let (rc, fs, _t) = open_with("ssd_zone_budjet = 3\n");
    assert_eq!(rc, ZL_ERR_CONFIG);
    assert!(fs.is_null());
    assert!(message().contains("ssd_zone_budjet"), "{}", message());
    let (rc, _, _t) = open_with("time_dilation = 0.5\n");
    assert_eq!(rc, ZL_ERR_CONFIG);
    assert!(message().contains("time_dilation"), "{}", message());
    let (rc, _, _t) = open_with("policy = \"b0\"\n");
    assert_eq!(rc, ZL_ERR_CONFIG);
    assert!(message().contains("policy"), "{}", message());
    let (rc, _, _t) = open_with("ssd_profile = \"no-such-ssd\"\n");
    assert_eq!(rc, ZL_ERR_PROFILE);
    assert!(message().contains("no-such-ssd"), "{}", message());
    let mut fs = ptr::null_mut();
    let rc = unsafe { zl_fs_open(c("/nonexistent/fs.toml").as_ptr(), &mut fs) };
    assert_eq!(rc, ZL_ERR_CONFIG);
    assert!(message().contains("/nonexistent/fs.toml"), "{}", message());
}

#[test]
fn missing_and_deleted_files_and_bad_arguments_are_errors() {
    let (rc, fs, _t) = open_with(SMALL);
    assert_eq!(rc, ZL_OK, "{}", message());
    unsafe {
        let name = c("000007.sst");
        let rc = zl_fs_append(fs, name.as_ptr(), b"abc".as_ptr(), 3);
        assert_eq!(rc, ZL_ERR_NOT_FOUND);
        assert!(message().contains("000007.sst"), "{}", message());
        assert_eq!(zl_fs_create(fs, name.as_ptr(), ZL_FILE_SST, 2), ZL_OK);
        assert_eq!(
            zl_fs_create(fs, name.as_ptr(), ZL_FILE_SST, 2),
            ZL_ERR_EXISTS
        );
        assert_eq!(
            zl_fs_create(fs, c("x").as_ptr(), 9, 0),
            ZL_ERR_INVALID_ARGUMENT
        );
        assert!(message().contains("kind 9"), "{}", message());
        assert_eq!(
            zl_fs_create(fs, c("y").as_ptr(), ZL_FILE_SST, -7),
            ZL_ERR_INVALID_ARGUMENT
        );
        assert_eq!(zl_fs_append(fs, name.as_ptr(), b"abc".as_ptr(), 3), ZL_OK);
        assert_eq!(
            zl_fs_append(fs, name.as_ptr(), ptr::null(), 3),
            ZL_ERR_INVALID_ARGUMENT
        );
        assert_eq!(zl_fs_delete(fs, name.as_ptr()), ZL_OK);
        let mut buf = [0u8; 8];
        let mut got = 99;
        let rc = zl_fs_read(fs, name.as_ptr(), 0, buf.as_mut_ptr(), 8, &mut got);
        assert_eq!(rc, ZL_ERR_NOT_FOUND);
        assert_eq!(got, 0);
        let mut size = 0;
        assert_eq!(zl_fs_size(fs, name.as_ptr(), &mut size), ZL_ERR_NOT_FOUND);
        // Hints naming unknown files are ignored.
        assert_eq!(zl_fs_hint_flush(fs, 1, name.as_ptr()), ZL_OK);
        let inputs = [name.as_ptr()];
        assert_eq!(
            zl_fs_hint_compaction_begin(fs, 2, inputs.as_ptr(), 1, 1),
            ZL_OK
        );
        assert_eq!(
            zl_fs_create(ptr::null_mut(), name.as_ptr(), 1, -1),
            ZL_ERR_INVALID_ARGUMENT
        );
        assert_eq!(zl_fs_check(fs), ZL_OK, "{}", message());
        assert_eq!(zl_fs_close(fs), ZL_OK);
        assert_eq!(zl_fs_close(ptr::null_mut()), ZL_OK);
    }
}

#[test]
fn list_and_stats_use_the_buffer_protocol() {
    let (rc, fs, _t) = open_with(SMALL);
    assert_eq!(rc, ZL_OK, "{}", message());
    unsafe {
        for n in ["b.log", "a.sst"] {
            let kind = if n.ends_with(".log") {
                ZL_FILE_WAL
            } else {
                ZL_FILE_SST
            };
            assert_eq!(zl_fs_create(fs, c(n).as_ptr(), kind, -1), ZL_OK);
        }
        let mut needed = 0;
        assert_eq!(zl_fs_list(fs, ptr::null_mut(), 0, &mut needed), ZL_OK);
        assert_eq!(needed, 12);
        let mut buf = vec![0 as std::ffi::c_char; needed as usize];
        assert_eq!(zl_fs_list(fs, buf.as_mut_ptr(), needed, &mut needed), ZL_OK);
        let bytes: Vec<u8> = buf.iter().map(|&b| b as u8).collect();
        assert_eq!(bytes, b"a.sst\0b.log\0");
        assert_eq!(zl_fs_stats_json(fs, ptr::null_mut(), 0, &mut needed), ZL_OK);
        let mut buf = vec![0 as std::ffi::c_char; needed as usize];
        assert_eq!(
            zl_fs_stats_json(fs, buf.as_mut_ptr(), needed, &mut needed),
            ZL_OK
        );
        let json = CStr::from_ptr(buf.as_ptr()).to_str().unwrap();
        for key in [
            "\"hints\"",
            "\"cache_lookups\"",
            "\"files\"",
            "\"devices\"",
            "\"policy\"",
        ] {
            assert!(json.contains(key), "{key} missing: {json}");
        }
        assert_eq!(zl_fs_close(fs), ZL_OK);
    }
}
