//! `zl_write_placed`: a write carrying an NVMe FDP placement identifier reaches
//! the FDP device's handle, reads back, and is refused with a clear status where
//! the device has no Flexible Data Placement.

use std::ffi::{CStr, CString};
use std::ptr;
use zonelab::*;

fn message() -> String {
    // SAFETY: the thread-local message stays valid until the next zl_* call.
    unsafe { CStr::from_ptr(zl_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn open(profile: &str) -> *mut ZlDevice {
    let mut dev = ptr::null_mut();
    let name = CString::new(profile).unwrap();
    let rc = unsafe { zl_open(name.as_ptr(), ptr::null(), 1.0, &mut dev) };
    assert_eq!(rc, ZL_OK, "{}", message());
    dev
}

#[test]
fn placed_writes_land_and_read_back_on_an_fdp_device() {
    let dev = open("zn540-fdp");
    let data = vec![0xA5u8; 4096];
    let rc = unsafe { zl_write_placed(dev, 7, 1, 3, data.as_ptr().cast(), data.len()) };
    assert_eq!(rc, ZL_OK, "{}", message());
    let mut back = vec![0u8; 4096];
    let rc = unsafe { zl_read(dev, 7, 1, back.as_mut_ptr().cast(), back.len()) };
    assert_eq!(rc, ZL_OK, "{}", message());
    assert_eq!(back, data);
    unsafe { zl_close(dev) };
}

#[test]
fn placed_writes_are_refused_without_fdp() {
    let dev = open("zn540");
    let data = vec![0u8; 4096];
    let rc = unsafe { zl_write_placed(dev, 0, 1, 0, data.as_ptr().cast(), data.len()) };
    assert_eq!(rc, ZL_ERR_UNSUPPORTED);
    assert!(
        message().contains("data placement directive"),
        "{}",
        message()
    );
    unsafe { zl_close(dev) };
}
