//! ZNSwap needs >= 24 B of per-LBA metadata for its reverse map (ZNSage §3.2,
//! Table 1): it refuses every other LBA format with a one-line error; ZNSage runs
//! on all of them.

mod swap_support;

use swap_support::*;
use zonelab_systems::swap::setup::zns_device;
use zonelab_systems::swap::znsage::{znsage, ZnsageOptions};
use zonelab_systems::swap::znswap::znswap;
use zonelab_systems::swap::{SwapBackend, SwapError};

#[test]
fn znswap_refuses_devices_without_24_bytes_of_metadata() {
    for (profile, lbaf, ms) in [
        ("sk-hynix-zns", 0, 0),
        ("sk-hynix-zns", 1, 8),
        ("zn540", 2, 0),
        ("zn540", 3, 8),
    ] {
        let dev = zns_device(profile, 20, Some(3), Some(lbaf)).unwrap();
        let err = match znswap(dev, zone_cfg(false)) {
            Err(e) => e,
            Ok(_) => panic!("znswap started on {profile} lbaf {lbaf}"),
        };
        assert_eq!(
            err,
            SwapError::MetadataTooSmall {
                device: profile.to_string(),
                metadata_bytes: ms,
                needed_bytes: 24
            }
        );
        let msg = err.to_string();
        assert!(!msg.contains('\n'), "one line: {msg}");
        assert!(
            msg.contains(profile) && msg.contains(&format!("{ms} B")) && msg.contains("24 B"),
            "{msg}"
        );
    }
}

#[test]
fn znswap_starts_on_the_64_byte_format_and_znsage_on_every_format() {
    let dev = zns_device("zn540", 20, Some(3), Some(4)).unwrap();
    assert_eq!(dev.metadata_bytes_per_block(), 64);
    let z = znswap(dev, zone_cfg(false)).unwrap();
    assert_eq!(z.name(), "znswap");
    assert_eq!(
        z.stats().host_rmap_bytes,
        0,
        "ZNSwap keeps the reverse map on the device"
    );
    for (profile, lbaf) in [
        ("sk-hynix-zns", 0),
        ("sk-hynix-zns", 1),
        ("zn540", 2),
        ("zn540", 4),
    ] {
        let dev = zns_device(profile, 20, Some(3), Some(lbaf)).unwrap();
        let z = znsage(dev, zone_cfg(false), &ZnsageOptions::default()).unwrap();
        // 20 zones x 768 slots x 24 B in host memory.
        assert_eq!(
            z.stats().host_rmap_bytes,
            20 * 768 * 24,
            "{profile} lbaf {lbaf}"
        );
    }
}

#[test]
fn znsage_reverse_map_is_24_mib_per_4_gib_of_swap() {
    // 64 zones of 64 MiB = 4 GiB of swap zones (ZNSage §4.2: 24 MB per 4 GB).
    let dev = zns_device("sk-hynix-zns", 64, Some(64), None).unwrap();
    let z = znsage(dev, zone_cfg(false), &ZnsageOptions::default()).unwrap();
    assert_eq!(z.stats().host_rmap_bytes, 24 << 20);
}
