//! Property test: after every operation of a random sequence (writes of random
//! sizes to random zones, host flushes, zone finishes and resets, reads), the
//! ConZone mapping is consistent (`check_invariants`: regular prefix + SLC run +
//! buffer = write pointer, SLC owners match, valid counts match) and every read
//! returns what a reference model (a map of LBA → last written version) holds,
//! through the write buffer, SLC, merges, migration, SLC GC and resets, with
//! TLC (SLC bypass) and QLC (all through SLC), page- and zone-managed SLC.

use proptest::prelude::*;
use std::collections::BTreeMap;
use zonelab_devices::models::conzone::ConZone;
use zonelab_devices::profile::{find_profile, ProfileSource};
use zonelab_devices::{Command, Device, Payload, ZoneAction};

const PAGE: usize = 4096;

#[derive(Debug, Clone)]
enum Op {
    Write { zone: u32, pages: u64 },
    Flush,
    Finish { zone: u32 },
    Reset { zone: u32 },
    Read { zone: u32, frac: u16, pages: u64 },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u32..4, 1u64..160).prop_map(|(zone, pages)| Op::Write { zone, pages }),
        2 => Just(Op::Flush),
        1 => (0u32..4).prop_map(|zone| Op::Finish { zone }),
        1 => (0u32..4).prop_map(|zone| Op::Reset { zone }),
        3 => (0u32..4, any::<u16>(), 1u64..40).prop_map(|(zone, frac, pages)| Op::Read { zone, frac, pages }),
    ]
}

fn device(qlc: bool, modulo: bool, page_map: bool, zoned_slc: bool) -> ConZone {
    let mut t = find_profile(if qlc { "conzone-qlc" } else { "conzone-tlc" })
        .unwrap()
        .text;
    for (a, b) in [
        ("block_mib = 24 ", "block_mib = 3 "),
        ("block_mib = 32 ", "block_mib = 4 "),
        ("blocks_per_chip = 28", "blocks_per_chip = 3"),
        ("gc_free_superblocks = 2", "gc_free_superblocks = 1"),
        ("zone_count = 42", "zone_count = 4"),
        ("zone_count = 32", "zone_count = 4"),
        ("chunk_mib = 4", "chunk_mib = 1"),
        ("max_open_zones = 6", "max_open_zones = 4"),
        ("max_active_zones = 6", "max_active_zones = 4"),
        ("cache_kib = 1024", "cache_kib = 1"),
    ] {
        t = t.replace(a, b);
    }
    if modulo {
        t = t.replace("mapping = \"associative\"", "mapping = \"modulo\"");
    }
    if zoned_slc {
        t = t
            .replace("management = \"page\"", "management = \"zone\"")
            .replace("blocks_per_chip = 3", "blocks_per_chip = 6");
    }
    if page_map {
        t = t.replace("mapping = \"hybrid\"", "mapping = \"page\"");
    }
    ConZone::from_profile(&ProfileSource {
        source_name: "prop".into(),
        text: t,
    })
    .unwrap()
}

fn pattern(lba: u64, version: u32) -> Vec<u8> {
    (0..PAGE)
        .map(|i| (lba as usize * 13 + i * 7 + version as usize * 101) as u8)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn mapping_and_data_match_a_reference(
        ops in proptest::collection::vec(op(), 1..80),
        qlc in any::<bool>(),
        modulo in any::<bool>(),
        page_map in any::<bool>(),
        zoned_slc in any::<bool>(),
    ) {
        let mut d = device(qlc, modulo, page_map, zoned_slc);
        let info = d.info().zoned.clone().unwrap();
        let (zs, cap) = (info.zone_size_blocks, info.zone_capacity_blocks);
        let mut wp = [0u64; 4];
        let mut full = [false; 4];
        let mut reference: BTreeMap<u64, u32> = BTreeMap::new();
        let mut t = 0u64;
        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Write { zone, pages } => {
                    if full[zone as usize] {
                        continue;
                    }
                    let pages = pages.min(cap - wp[zone as usize]);
                    let lba = zone as u64 * zs + wp[zone as usize];
                    let bytes: Vec<u8> = (lba..lba + pages).flat_map(|l| pattern(l, i as u32)).collect();
                    t = d.submit(t, &Command::Write { lba, blocks: pages as u32 }, Payload::Write(&bytes)).unwrap().done_ns;
                    for l in lba..lba + pages {
                        reference.insert(l, i as u32);
                    }
                    wp[zone as usize] += pages;
                    full[zone as usize] = wp[zone as usize] == cap;
                }
                Op::Flush => {
                    t = d.submit(t, &Command::Flush, Payload::SizeOnly).unwrap().done_ns;
                }
                Op::Finish { zone } => {
                    if d.submit(t, &Command::Zone { action: ZoneAction::Finish, zone_lba: zone as u64 * zs }, Payload::SizeOnly).is_ok() {
                        full[zone as usize] = true;
                    }
                }
                Op::Reset { zone } => {
                    t = d.submit(t, &Command::Zone { action: ZoneAction::Reset, zone_lba: zone as u64 * zs }, Payload::SizeOnly).unwrap().done_ns;
                    let first = zone as u64 * zs;
                    let stale: Vec<u64> = reference.range(first..first + zs).map(|(k, _)| *k).collect();
                    for k in stale {
                        reference.remove(&k);
                    }
                    wp[zone as usize] = 0;
                    full[zone as usize] = false;
                }
                Op::Read { zone, frac, pages } => {
                    let off = (frac as u64 * cap) >> 16;
                    let pages = pages.min(cap - off);
                    let lba = zone as u64 * zs + off;
                    let mut out = vec![0u8; pages as usize * PAGE];
                    t = d.submit(t, &Command::Read { lba, blocks: pages as u32 }, Payload::Read(&mut out)).unwrap().done_ns;
                    for (k, chunk) in out.chunks(PAGE).enumerate() {
                        let l = lba + k as u64;
                        let want = reference.get(&l).map_or(vec![0u8; PAGE], |&v| pattern(l, v));
                        prop_assert!(chunk == &want[..], "op {i}: LBA {l} differs");
                    }
                }
            }
            if let Err(e) = d.check_invariants() {
                prop_assert!(false, "op {i} {op:?}: {e}");
            }
        }
    }
}
