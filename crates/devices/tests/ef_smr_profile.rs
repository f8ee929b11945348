//! Bad `ef-smr` profiles fail with one message naming the field, the value and
//! what is allowed; a bad STL name is a parse error naming the choices.

use zonelab_devices::models::build;
use zonelab_devices::profile::ProfileSource;

const BASE: &str = include_str!("../../../profiles/ef-smr.toml");

fn error_with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "fixture line {from:?} missing");
    let text = BASE.replacen(from, to, 1);
    match build(&ProfileSource {
        source_name: "bad.toml".into(),
        text,
    }) {
        Ok(_) => panic!("{to:?} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn out_of_range_values_name_field_value_and_allowed_range() {
    let cases = [
        (
            "sector_bytes = 4096         # MU-RMW",
            "sector_bytes = 512         # MU-RMW",
            "bands.sector_bytes",
            "= 512",
            "4096",
        ),
        (
            "band_mib = 40",
            "band_mib = 0",
            "bands.band_mib",
            "= 0",
            "1..=4096",
        ),
        (
            "disk_capacity_gb = 8000",
            "disk_capacity_gb = 1",
            "bands.disk_capacity_gb",
            "= 1",
            "at least the bands'",
        ),
        (
            "oob_bytes = 256",
            "oob_bytes = 250",
            "flash_cache.oob_bytes",
            "= 250",
            "multiple of 4",
        ),
        (
            "oob_bytes = 256",
            "oob_bytes = 12",
            "flash_cache.oob_bytes",
            "= 12",
            "divide the 10240 sectors",
        ),
        (
            "read_ms = 0.2",
            "read_ms = nan",
            "flash_cache.read_ms",
            "= NaN",
            "finite",
        ),
        (
            "skylight_pc_zones = 2",
            "skylight_pc_zones = 3",
            "stl.skylight_pc_zones",
            "= 3",
            "divisor of the 640 flash blocks",
        ),
        (
            "pore_period_sectors = 10240",
            "pore_period_sectors = 0",
            "stl.pore_period_sectors",
            "= 0",
            "1..=2621440",
        ),
        (
            "chips = 1 ",
            "chips = 0 ",
            "flash_cache.chips",
            "= 0",
            "1..=64",
        ),
        (
            "chips = 1 ",
            "chips = 3 ",
            "flash_cache.pages_per_block",
            "= 32",
            "multiple of the 3 parallel units",
        ),
    ];
    for (from, to, field, value, allowed) in cases {
        let e = error_with(from, to);
        assert!(
            e.contains(field) && e.contains(value) && e.contains(allowed),
            "{to}: {e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn unknown_stl_policy_names_the_choices() {
    let e = error_with("policy = \"mu-rmw\"", "policy = \"lru\"");
    assert!(
        e.contains("lru") && e.contains("mu-rmw") && e.contains("skylight") && e.contains("pore"),
        "{e}"
    );
}
