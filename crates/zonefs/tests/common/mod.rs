//! Shared set-up of the zone file system tests: small scaled-down zones.

#![allow(dead_code)]

use std::path::Path;
use zonelab_zonefs::{FsConfig, ZoneFs};

/// A config with 4 MiB zones (fast tests), `policy`, in `dir` (None: memory).
pub fn small_config(dir: Option<&Path>, policy: &str) -> FsConfig {
    FsConfig {
        dir: dir.map(|d| d.to_path_buf()),
        policy: policy.into(),
        zone_capacity_mib_ssd: Some(4),
        zone_capacity_mib_hdd: Some(4),
        ssd_zone_budget: 6,
        ..FsConfig::default()
    }
}

pub fn open(dir: Option<&Path>, policy: &str) -> ZoneFs {
    ZoneFs::open_config(&small_config(dir, policy)).expect("open")
}

/// Deterministic test bytes: `len` bytes seeded by `seed`.
pub fn pattern(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

pub fn read_all(fs: &ZoneFs, name: &str) -> Vec<u8> {
    let size = fs.size(name).expect("size") as usize;
    let mut out = vec![0u8; size];
    let n = fs.read(name, 0, &mut out).expect("read");
    assert_eq!(n as usize, size);
    out
}
