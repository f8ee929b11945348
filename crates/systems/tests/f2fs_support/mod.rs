//! Small ConZone+ devices for the F2FS-like model's tests: TLC, 2 x 2 chips,
//! 3 MiB blocks per chip (12 MiB zones in 16 MiB of LBA space), a 16 MiB metadata
//! namespace; zoned (24 zones) or block (96 MiB).

#![allow(dead_code)]

use zonelab_devices::models::conzone::ConZonePlus;
use zonelab_devices::profile::{find_profile, ProfileSource};
use zonelab_systems::f2fs::ConZonePlusStorage;

fn edit(mut t: String, edits: &[(&str, &str)]) -> String {
    for (a, b) in edits {
        assert!(t.contains(a), "profile lacks {a}");
        t = t.replace(a, b);
    }
    t
}

pub fn zoned_text(zones: u32) -> String {
    let t = find_profile("conzone-plus-tlc").unwrap().text;
    edit(
        t,
        &[
            ("block_mib = 24 ", "block_mib = 3 "),
            ("zone_count = 42", &format!("zone_count = {zones}")),
            ("logical_mib = 256", "logical_mib = 16"),
            ("blocks_per_chip = 28", "blocks_per_chip = 12"),
        ],
    )
}

pub fn block_text(capacity_mib: u32) -> String {
    let t = find_profile("conzone-plus-tlc-block").unwrap().text;
    edit(
        t,
        &[
            ("block_mib = 24 ", "block_mib = 3 "),
            (
                "capacity_mib = 4032",
                &format!("capacity_mib = {capacity_mib}"),
            ),
            ("logical_mib = 40", "logical_mib = 16"),
            ("blocks_per_chip = 28", "blocks_per_chip = 12"),
            ("slc_blocks_per_chip = 4", "slc_blocks_per_chip = 9"),
        ],
    )
}

pub fn storage(text: String) -> ConZonePlusStorage {
    let src = ProfileSource {
        source_name: "test".into(),
        text,
    };
    ConZonePlusStorage {
        dev: ConZonePlus::from_profile(&src).unwrap(),
    }
}
