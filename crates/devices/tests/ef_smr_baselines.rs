//! The EF-SMR disk's baseline STLs, Skylight and PORE (MU-RMW §II): data round-trip
//! through cleanings, what a cleaning writes back (one RMW per associated band for
//! Skylight, only OPEN bands for PORE), the mapping's RAM size, determinism.
//!
//! Devices are `profiles/ef-smr.toml` shrunk for speed: 1 MiB bands (256 sectors),
//! 16 bands, 16 flash blocks of 8 pages (128 pages = 512 KiB of cache).

use std::collections::BTreeMap;
use zonelab_devices::models::ef_smr::EfSmr;
use zonelab_devices::profile::ProfileSource;
use zonelab_devices::{Command, Device, Payload};

const PROFILE: &str = include_str!("../../../profiles/ef-smr.toml");
const SB: usize = 4096;
const BAND_SECTORS: u64 = 256;
const BANDS: u64 = 16;

/// The profile with some `key = value` lines replaced.
fn profile_with(changes: &[(&str, String)]) -> String {
    let mut text = PROFILE.to_string();
    for (key, value) in changes {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{key} =")))
            .unwrap_or_else(|| panic!("no {key} line"))
            .to_string();
        text = text.replace(&line, &format!("{key} = {value}"));
    }
    text
}

fn build(text: String) -> EfSmr {
    EfSmr::from_profile(&ProfileSource {
        source_name: "test.toml".into(),
        text,
    })
    .unwrap()
}

/// A small device: 16 × 1 MiB bands, 16 blocks × 8 pages of flash.
fn small(policy: &str, pc_zones: u32, open_bands: u32) -> EfSmr {
    build(profile_with(&[
        ("band_mib", "1".into()),
        ("band_count", BANDS.to_string()),
        ("blocks", "16".into()),
        ("pages_per_block", "8".into()),
        ("policy", format!("\"{policy}\"")),
        ("skylight_pc_zones", pc_zones.to_string()),
        ("pore_open_bands", open_bands.to_string()),
    ]))
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Bytes of version `v` of `sector`.
fn pattern(sector: u64, v: u64, out: &mut [u8]) {
    out.fill((sector as u8) ^ (v as u8).wrapping_mul(31));
    out[..8].copy_from_slice(&sector.to_le_bytes());
    out[8..16].copy_from_slice(&v.to_le_bytes());
}

/// Writes `blocks` sectors from `lba` with fresh versions, recorded in `reference`.
fn write(
    d: &mut EfSmr,
    now: u64,
    lba: u64,
    blocks: u32,
    version: &mut u64,
    reference: &mut BTreeMap<u64, u64>,
) -> u64 {
    let mut buf = vec![0u8; blocks as usize * SB];
    for i in 0..blocks as u64 {
        *version += 1;
        pattern(
            lba + i,
            *version,
            &mut buf[i as usize * SB..(i as usize + 1) * SB],
        );
        reference.insert(lba + i, *version);
    }
    d.submit(now, &Command::Write { lba, blocks }, Payload::Write(&buf))
        .unwrap()
        .done_ns
}

/// Reads `blocks` sectors from `lba` and checks them against `reference` (zeros
/// for sectors never written).
fn check_read(
    d: &mut EfSmr,
    now: u64,
    lba: u64,
    blocks: u32,
    reference: &BTreeMap<u64, u64>,
) -> u64 {
    let mut buf = vec![0xAAu8; blocks as usize * SB];
    let done = d
        .submit(now, &Command::Read { lba, blocks }, Payload::Read(&mut buf))
        .unwrap()
        .done_ns;
    let mut expect = vec![0u8; SB];
    for i in 0..blocks as u64 {
        match reference.get(&(lba + i)) {
            Some(&v) => pattern(lba + i, v, &mut expect),
            None => expect.fill(0),
        }
        assert!(
            buf[i as usize * SB..(i as usize + 1) * SB] == expect[..],
            "sector {} reads wrong bytes (expected version {:?})",
            lba + i,
            reference.get(&(lba + i))
        );
    }
    done
}

/// Whether reading `sector` now is served by the disk (not the flash cache).
fn served_by_disk(d: &mut EfSmr, now: u64, sector: u64) -> bool {
    let before = d.hardware().disk.bytes_read;
    d.submit(
        now,
        &Command::Read {
            lba: sector,
            blocks: 1,
        },
        Payload::SizeOnly,
    )
    .unwrap();
    d.hardware().disk.bytes_read > before
}

/// Random writes (1–4 sectors, half of them into a 96-sector hot spot) far beyond
/// the cache, reads checked as it goes, invariants checked periodically. Returns
/// (writes done, per-write (Δrmws, Δcleanings) for writes that cleaned).
fn round_trip(d: &mut EfSmr, seed: u64, writes: u32) -> Vec<(u64, u64)> {
    let cap = d.info().capacity_blocks;
    let mut rng = Rng(seed);
    let mut reference = BTreeMap::new();
    let mut version = 0;
    let mut now = 0;
    let mut cleanings = Vec::new();
    for i in 0..writes {
        let blocks = 1 + rng.below(4) as u32;
        let lba = if rng.below(2) == 0 {
            1000 + rng.below(96)
        } else {
            rng.below(cap - blocks as u64)
        };
        let (r0, c0) = (d.hardware().disk.rmws, d.hardware().cleanings);
        now = write(d, now, lba, blocks, &mut version, &mut reference);
        let (r1, c1) = (d.hardware().disk.rmws, d.hardware().cleanings);
        if c1 > c0 {
            cleanings.push((r1 - r0, c1 - c0));
        } else {
            assert_eq!(r1, r0, "RMW without a cleaning");
        }
        if i % 5 == 0 {
            let lba = rng.below(cap - 8);
            now = check_read(d, now, lba, 8, &reference);
        }
        if i % 50 == 0 {
            d.check_invariants()
                .unwrap_or_else(|e| panic!("after write {i}: {e}"));
        }
    }
    d.check_invariants().unwrap();
    for lba in (0..cap).step_by(64) {
        now = check_read(d, now, lba, 64, &reference);
    }
    assert!(
        reference.len() < cap as usize,
        "some sectors stay unwritten (zeros checked)"
    );
    cleanings
}

#[test]
fn skylight_round_trips_through_many_cleanings() {
    let mut d = small("skylight", 2, 1);
    let cleanings = round_trip(&mut d, 1, 3000);
    let hw = d.hardware();
    // ~7,500 sectors written into a 128-page cache.
    assert!(hw.cleanings >= 50, "{} cleanings", hw.cleanings);
    assert!(
        hw.disk.rmws > hw.cleanings,
        "{} RMWs for {} cleanings",
        hw.disk.rmws,
        hw.cleanings
    );
    // A cleaning writes back each of the zone's associated bands at most once.
    for &(rmws, n) in &cleanings {
        assert!(
            rmws <= n * (BANDS / 2),
            "{rmws} RMWs in {n} cleanings of zones with {} bands each",
            BANDS / 2
        );
    }
    assert_eq!(
        hw.flash.erases,
        hw.cleanings * 8,
        "each cleaning erases the zone's 8 blocks"
    );
}

#[test]
fn pore_round_trips_through_many_cleanings() {
    let mut d = small("pore", 2, 3);
    let cleanings = round_trip(&mut d, 2, 3000);
    let hw = d.hardware();
    assert!(hw.cleanings >= 10, "{} cleanings", hw.cleanings);
    assert!(
        hw.disk.rmws > hw.cleanings,
        "{} RMWs for {} cleanings",
        hw.disk.rmws,
        hw.cleanings
    );
    for &(rmws, n) in &cleanings {
        assert!(
            rmws <= n * 3,
            "{rmws} RMWs in {n} cleanings with 3 OPEN bands"
        );
    }
    // FORBIDDEN data were relocated inside the flash (programs beyond host writes).
    let host_sectors = d.stats(1).host_write_bytes / SB as u64;
    assert!(
        hw.flash.page_programs > host_sectors,
        "{} programs for {host_sectors} host sectors",
        hw.flash.page_programs
    );
}

#[test]
fn skylight_cleaning_writes_back_every_associated_band_once() {
    // Two PC zones of 8 blocks × 8 pages = 64 pages; zone 0 serves the even bands.
    let mut d = small("skylight", 2, 1);
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    let s = |band: u64, off: u64| band * BAND_SECTORS + off;
    // 64 zone-0 pages: band 0 ×30, band 2 ×10 written twice, band 4 ×14; zone 1: band 1 ×10.
    let mut zone0 = Vec::new();
    for off in 0..30 {
        zone0.push(s(0, off));
    }
    for _ in 0..2 {
        for off in 0..10 {
            zone0.push(s(2, 50 + off));
        }
    }
    for off in 0..14 {
        zone0.push(s(4, 100 + off));
    }
    assert_eq!(zone0.len(), 64);
    for (i, &sector) in zone0.iter().enumerate() {
        now = write(&mut d, now, sector, 1, &mut version, &mut reference);
        if i % 6 == 0 {
            now = write(&mut d, now, s(1, i as u64), 1, &mut version, &mut reference);
        }
    }
    assert_eq!(
        (d.hardware().cleanings, d.hardware().disk.rmws),
        (0, 0),
        "zone 0 is exactly full"
    );
    d.check_invariants().unwrap();
    // The next zone-0 write cleans zone 0: one RMW per band with data there.
    now = write(&mut d, now, s(6, 7), 1, &mut version, &mut reference);
    assert_eq!(d.hardware().cleanings, 1);
    assert_eq!(d.hardware().disk.rmws, 3, "bands 0, 2 and 4, once each");
    d.check_invariants().unwrap();
    for &sector in &zone0 {
        assert!(
            served_by_disk(&mut d, now, sector),
            "sector {sector} of a zone-0 band should have been written back"
        );
    }
    for i in (0..64u64).step_by(6) {
        assert!(
            !served_by_disk(&mut d, now, s(1, i)),
            "zone 1's band 1 stays cached"
        );
    }
    assert!(
        !served_by_disk(&mut d, now, s(6, 7)),
        "the triggering write is cached after the cleaning"
    );
    for band in 0..8 {
        now = check_read(
            &mut d,
            now,
            band * BAND_SECTORS,
            BAND_SECTORS as u32,
            &reference,
        );
    }
    assert_eq!(d.hardware().flash.erases, 8);
}

#[test]
fn pore_cleaning_evicts_only_the_open_bands() {
    // 16 blocks × 8 pages; one block of reserve: 15 blocks (120 pages) fill
    // before the first cleaning. Two OPEN bands.
    let mut d = small("pore", 2, 2);
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    let plan: [(u64, u64); 6] = [(3, 30), (7, 25), (5, 20), (0, 15), (9, 15), (12, 15)];
    let mut left: Vec<u64> = plan.iter().map(|p| p.1).collect();
    let mut written: Vec<(u64, u64)> = Vec::new();
    // Round-robin, so every block mixes several bands (MU-RMW Fig. 2b).
    while left.iter().any(|&n| n > 0) {
        for (i, &(band, total)) in plan.iter().enumerate() {
            if left[i] > 0 {
                let sector = band * BAND_SECTORS + (total - left[i]);
                now = write(&mut d, now, sector, 1, &mut version, &mut reference);
                written.push((band, sector));
                left[i] -= 1;
            }
        }
    }
    assert_eq!(written.len(), 120);
    assert_eq!(d.hardware().cleanings, 0);
    let programs_before = d.hardware().flash.page_programs;
    now = write(
        &mut d,
        now,
        BAND_SECTORS + 1,
        1,
        &mut version,
        &mut reference,
    );
    assert_eq!(d.hardware().cleanings, 1);
    // The OPEN set is the two bands with the most cached data: 3 and 7.
    assert_eq!(d.hardware().disk.rmws, 2, "one RMW per OPEN band");
    d.check_invariants().unwrap();
    for &(band, sector) in &written {
        let evicted = served_by_disk(&mut d, now, sector);
        assert_eq!(
            evicted,
            band == 3 || band == 7,
            "band {band} sector {sector}: evicted = {evicted}"
        );
    }
    // The 65 FORBIDDEN pages moved to fresh blocks; mixed blocks were erased.
    let relocated = d.hardware().flash.page_programs - programs_before - 1;
    assert_eq!(relocated, 65);
    assert_eq!(d.hardware().flash.erases, 15);
    for band in 0..BANDS {
        now = check_read(
            &mut d,
            now,
            band * BAND_SECTORS,
            BAND_SECTORS as u32,
            &reference,
        );
    }
}

#[test]
fn pore_cleans_again_while_no_block_is_free() {
    // 32 bands, one OPEN band, 120 pages spread 4 per band over bands 0..30: the
    // first cleaning evicts only 4 pages (half a block), so the write that
    // triggered it runs further cleanings, each with the next OPEN band, until a
    // block beyond the reserve is free.
    let mut d = build(profile_with(&[
        ("band_mib", "1".into()),
        ("band_count", "32".into()),
        ("blocks", "16".into()),
        ("pages_per_block", "8".into()),
        ("policy", "\"pore\"".into()),
        ("pore_open_bands", "1".into()),
    ]));
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    for round in 0..4 {
        for band in 0..30 {
            now = write(
                &mut d,
                now,
                band * BAND_SECTORS + round,
                1,
                &mut version,
                &mut reference,
            );
        }
    }
    assert_eq!(d.hardware().cleanings, 0);
    let t0 = now;
    now = write(
        &mut d,
        now,
        31 * BAND_SECTORS,
        1,
        &mut version,
        &mut reference,
    );
    let hw = d.hardware();
    let cleanings = hw.cleanings;
    assert!(cleanings >= 2, "{cleanings} cleanings");
    assert_eq!(hw.disk.rmws, cleanings, "one OPEN band per cleaning");
    assert!(
        now - t0 >= hw.cleaning_ns_total,
        "the write waits for all its cleanings"
    );
    d.check_invariants().unwrap();
    // Ties go to the lower band: bands 0, 1, … were evicted, one per cleaning.
    for band in 0..30 {
        for round in 0..4 {
            let evicted = served_by_disk(&mut d, now, band * BAND_SECTORS + round);
            assert_eq!(
                evicted,
                band < cleanings,
                "band {band} after {cleanings} cleanings"
            );
        }
    }
    for band in 0..32 {
        now = check_read(
            &mut d,
            now,
            band * BAND_SECTORS,
            BAND_SECTORS as u32,
            &reference,
        );
    }
}

#[test]
fn pore_compaction_relocates_into_blocks_it_freed() {
    // Block 2 holds only OPEN data, blocks 0 and 1 one OPEN page each: the
    // cleaning erases block 2 first, then relocates 14 FORBIDDEN pages from
    // blocks 0 and 1 into the reserve block and on into block 2 — which must not
    // then be mistaken for a block to compact.
    let mut d = small("pore", 2, 1);
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    let others: Vec<u64> = (0..BANDS).filter(|&b| b != 3).collect();
    let mut next_off = vec![0u64; BANDS as usize];
    let mut other = 0;
    for i in 0..120u64 {
        let band = match i {
            0 | 8 | 16..=23 => 3,
            _ => {
                other += 1;
                others[(other - 1) % others.len()]
            }
        };
        let sector = band * BAND_SECTORS + next_off[band as usize];
        next_off[band as usize] += 1;
        now = write(&mut d, now, sector, 1, &mut version, &mut reference);
    }
    assert_eq!(d.hardware().cleanings, 0);
    let programs_before = d.hardware().flash.page_programs;
    now = write(
        &mut d,
        now,
        7 * BAND_SECTORS + 200,
        1,
        &mut version,
        &mut reference,
    );
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws), (1, 1));
    assert_eq!(
        hw.flash.page_programs - programs_before,
        14 + 1,
        "14 relocations and the host write"
    );
    assert_eq!(hw.flash.erases, 3);
    d.check_invariants().unwrap();
    for band in 0..BANDS {
        now = check_read(
            &mut d,
            now,
            band * BAND_SECTORS,
            BAND_SECTORS as u32,
            &reference,
        );
    }
}

#[test]
fn cleanings_are_timed_and_the_triggering_write_waits() {
    for policy in ["skylight", "pore"] {
        let mut d = small(policy, 2, 2);
        let mut now = 0;
        let mut worst = 0;
        for i in 0..600u64 {
            let lba = (i * 997) % (BANDS * BAND_SECTORS);
            let done = d
                .submit(now, &Command::Write { lba, blocks: 1 }, Payload::SizeOnly)
                .unwrap()
                .done_ns;
            worst = worst.max(done - now);
            now = done;
        }
        let hw = d.hardware();
        assert!(
            hw.cleanings > 0 && hw.disk.rmws > 0,
            "{policy}: no cleaning"
        );
        // A write that cleans waits at least one band RMW (two 1 MiB passes).
        assert!(
            hw.cleaning_ns_max >= 5_000_000,
            "{policy}: longest cleaning {} ns",
            hw.cleaning_ns_max
        );
        assert!(
            worst >= hw.cleaning_ns_max,
            "{policy}: worst write {worst} ns < longest cleaning {} ns",
            hw.cleaning_ns_max
        );
        d.check_invariants().unwrap();
    }
}

#[test]
fn deterministic() {
    for policy in ["skylight", "pore"] {
        let run = || {
            let mut d = small(policy, 4, 3);
            let mut rng = Rng(7);
            let mut now = 0;
            let mut times = Vec::new();
            for _ in 0..1500 {
                let lba = rng.below(BANDS * BAND_SECTORS - 4);
                let cmd = if rng.below(4) == 0 {
                    Command::Read { lba, blocks: 4 }
                } else {
                    Command::Write {
                        lba,
                        blocks: 1 + rng.below(4) as u32,
                    }
                };
                now = d.submit(now, &cmd, Payload::SizeOnly).unwrap().done_ns;
                times.push(now);
            }
            d.check_invariants().unwrap();
            (times, d.stats(now))
        };
        let (a, b) = (run(), run());
        assert!(a.1.gc_runs > 0, "{policy}: no cleaning");
        assert_eq!(a, b, "{policy} is not deterministic");
    }
}

#[test]
fn mapping_memory_is_the_sector_table_of_the_paper_setup() {
    // MU-RMW §III-E: P × U × 4 B = 10,240 × 256 × 4 ≈ 10 MB for both baselines.
    let table = 10_240u64 * 256 * 4;
    for policy in ["skylight", "pore"] {
        let d = build(profile_with(&[("policy", format!("\"{policy}\""))]));
        let m = d.mapping_memory_bytes();
        assert!(m >= table && m < table + 16 * 1024, "{policy}: {m} bytes");
        d.check_invariants().unwrap();
    }
}
