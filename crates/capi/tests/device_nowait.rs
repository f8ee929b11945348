//! The device calls added for the fio engine (issue 19): scaled zones, trim,
//! submission without waiting with its deadline clock, and the JSON report.

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

fn open_scaled(profile: &str, zone_mib: u64) -> *mut ZlDevice {
    let mut dev = ptr::null_mut();
    let rc = unsafe { zl_open_scaled(c(profile).as_ptr(), ptr::null(), 1.0, zone_mib, &mut dev) };
    assert_eq!(rc, ZL_OK, "{}", message());
    dev
}

fn info(dev: *const ZlDevice) -> ZlDeviceInfo {
    let mut i = ZlDeviceInfo::default();
    assert_eq!(unsafe { zl_info(dev, &mut i) }, ZL_OK);
    i
}

fn stats(dev: *const ZlDevice) -> serde_json::Value {
    let mut needed = 0u64;
    unsafe {
        assert_eq!(
            zl_stats_json(dev, c("test").as_ptr(), ptr::null_mut(), 0, &mut needed),
            ZL_OK
        );
        // The report holds the wall clock (wall_s), so its length can change between
        // the size query and the call: leave room and read up to the first NUL.
        needed += 64;
        let mut buf = vec![0u8; needed as usize];
        assert_eq!(
            zl_stats_json(
                dev,
                c("test").as_ptr(),
                buf.as_mut_ptr() as *mut _,
                needed,
                &mut needed
            ),
            ZL_OK
        );
        let text = CStr::from_bytes_until_nul(&buf).unwrap().to_str().unwrap();
        serde_json::from_str(text).unwrap()
    }
}

#[test]
fn scaled_zones_shrink_a_zns_profile_and_refuse_block_models() {
    let dev = open_scaled("zn540", 4);
    let i = info(dev);
    assert_eq!(i.zone_capacity_blocks, 4 << 20 >> 12);
    assert_eq!(i.zone_size_blocks, 4 << 20 >> 12);
    assert_eq!(i.zone_count, 3688, "the zone count stays the profile's");
    unsafe { zl_close(dev) };
    // 0 keeps the profile's zones (1,077 MiB capacity, 2 GiB size).
    let dev = open_scaled("zn540", 0);
    assert_eq!(info(dev).zone_capacity_blocks, 1077 << 20 >> 12);
    unsafe { zl_close(dev) };
    let mut dev = ptr::null_mut();
    let rc = unsafe {
        zl_open_scaled(
            c("ssd-conventional").as_ptr(),
            ptr::null(),
            1.0,
            4,
            &mut dev,
        )
    };
    assert_eq!(rc, ZL_ERR_PROFILE);
    assert!(dev.is_null());
    assert!(message().contains("not `ftl-ssd`"), "{}", message());
    let rc = unsafe { zl_open_scaled(c("zn540").as_ptr(), ptr::null(), 1.0, 70000, &mut dev) };
    assert_eq!(rc, ZL_ERR_PROFILE);
    assert!(
        message().contains("70000 MiB is out of range"),
        "{}",
        message()
    );
}

#[test]
fn nowait_submissions_complete_at_their_deadline_with_real_bytes() {
    let dev = open_scaled("zn540", 4);
    let bs = info(dev).block_bytes as usize;
    let data: Vec<u8> = (0..8 * bs).map(|i| (i * 7 % 251) as u8).collect();
    unsafe {
        let mut now = 0u64;
        assert_eq!(zl_clock_ns(dev, &mut now), ZL_OK);
        let mut w = ZlCompletion::default();
        let rc = zl_submit_nowait(
            dev,
            ZL_OP_WRITE,
            0,
            8,
            data.as_ptr() as *mut _,
            data.len(),
            &mut w,
        );
        assert_eq!(rc, ZL_OK, "{}", message());
        assert!(w.done_ns > w.submit_ns, "{w:?}");
        assert!(w.deadline_ns >= now, "{w:?} now {now}");
        // Two appends in flight at once land one after the other.
        let mut a1 = ZlCompletion::default();
        let mut a2 = ZlCompletion::default();
        let buf = data[..bs].to_vec();
        for a in [&mut a1, &mut a2] {
            let rc = zl_submit_nowait(dev, ZL_OP_APPEND, 0, 1, buf.as_ptr() as *mut _, bs, a);
            assert_eq!(rc, ZL_OK, "{}", message());
        }
        assert_eq!((a1.lba, a2.lba), (8, 9));
        assert_eq!(zl_wait_until(dev, a2.deadline_ns), ZL_OK);
        assert_eq!(zl_clock_ns(dev, &mut now), ZL_OK);
        assert!(
            now >= a2.deadline_ns,
            "waited until {now} < {}",
            a2.deadline_ns
        );
        let mut back = vec![0u8; 8 * bs];
        let mut r = ZlCompletion::default();
        let rc = zl_submit_nowait(
            dev,
            ZL_OP_READ,
            0,
            8,
            back.as_mut_ptr() as *mut _,
            back.len(),
            &mut r,
        );
        assert_eq!(rc, ZL_OK, "{}", message());
        assert_eq!(back, data);
        // A write off the write pointer is refused at once, with a zeroed completion.
        let mut bad = ZlCompletion {
            lba: 99,
            ..Default::default()
        };
        let rc = zl_submit_nowait(dev, ZL_OP_WRITE, 0, 1, buf.as_ptr() as *mut _, bs, &mut bad);
        assert_eq!(rc, ZL_ERR_NOT_AT_WRITE_POINTER);
        assert_eq!(bad, ZlCompletion::default());
        let rc = zl_submit_nowait(dev, 9, 0, 1, ptr::null_mut(), 0, &mut bad);
        assert_eq!(rc, ZL_ERR_INVALID_ARGUMENT);
        assert!(message().contains("unknown op 9"), "{}", message());
        // Zoned devices refuse trim; zone resets are counted in the report.
        assert_eq!(zl_trim(dev, 0, 1), ZL_ERR_UNSUPPORTED);
        assert_eq!(zl_zone_reset(dev, 0), ZL_OK);
        let s = stats(dev);
        assert_eq!(s["kind"], "test");
        assert_eq!(s["device"]["name"], "zn540");
        assert_eq!(s["write"]["ops"], 3);
        assert_eq!(s["write"]["bytes"], 10 * bs as u64);
        assert_eq!(s["read"]["ops"], 1);
        assert_eq!(s["host_zone_resets"], 1);
        assert!(
            s["device_stats"]["zone_resets"].as_u64().unwrap() >= 1,
            "{s}"
        );
        assert_eq!(s["errors"]["count"], 2, "{s}");
        assert_eq!(s["errors"]["by_command"]["write"], 1, "{s}");
        assert_eq!(s["errors"]["by_command"]["trim"], 1, "{s}");
        assert!(
            s["errors"]["first"]
                .as_str()
                .unwrap()
                .contains("write pointer"),
            "{s}"
        );
        assert!(s["read"]["latency"]["p50_ns"].as_u64().unwrap() > 0, "{s}");
        assert_eq!(s["backing_file"], serde_json::Value::Null);
        zl_close(dev);
    }
}

#[test]
fn trim_works_on_a_block_device_and_the_buffer_protocol_reports_the_size() {
    let dev = open_scaled("ssd-conventional", 0);
    unsafe {
        let bs = info(dev).block_bytes as usize;
        let data = vec![0xabu8; 4 * bs];
        assert_eq!(
            zl_write(dev, 100, 4, data.as_ptr() as *const _, data.len()),
            ZL_OK
        );
        assert_eq!(zl_trim(dev, 100, 4), ZL_OK, "{}", message());
        let mut f = ZlCompletion::default();
        assert_eq!(
            zl_submit_nowait(dev, ZL_OP_FLUSH, 0, 0, ptr::null_mut(), 0, &mut f),
            ZL_OK
        );
        let s = stats(dev);
        assert_eq!(s["trim"]["ops"], 1);
        assert_eq!(s["trim"]["bytes"], 4 * bs as u64);
        assert_eq!(s["flushes"], 1);
        assert_eq!(s["errors"]["count"], 0);
        // Too small a buffer: nothing written, ZL_OK, the size needed reported.
        let mut needed = 0u64;
        let mut small = [0x55u8; 4];
        assert_eq!(
            zl_stats_json(
                dev,
                ptr::null(),
                small.as_mut_ptr() as *mut _,
                4,
                &mut needed
            ),
            ZL_OK
        );
        assert!(needed > 100);
        assert_eq!(small, [0x55; 4]);
        assert_eq!(
            zl_stats_json(dev, ptr::null(), ptr::null_mut(), 0, ptr::null_mut()),
            ZL_ERR_INVALID_ARGUMENT
        );
        zl_close(dev);
    }
}
