//! The EF-SMR disk's baseline STLs, Skylight and PORE (MU-RMW §II): data round-trip
//! through cleanings, what a cleaning writes back (one RMW per associated band for
//! Skylight; for PORE stale blocks first, then OPEN bands chosen by PORE's weight,
//! oldest LRU tail first, until a block frees), the mapping's RAM size, determinism.
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

/// A small device: 16 × 1 MiB bands, 16 blocks × 8 pages of flash; PORE's period
/// is `period` sectors.
fn small(policy: &str, pc_zones: u32, period: u32) -> EfSmr {
    build(profile_with(&[
        ("band_mib", "1".into()),
        ("band_count", BANDS.to_string()),
        ("blocks", "16".into()),
        ("pages_per_block", "8".into()),
        ("policy", format!("\"{policy}\"")),
        ("skylight_pc_zones", pc_zones.to_string()),
        ("pore_period_sectors", period.to_string()),
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
    let mut d = small("pore", 2, 16);
    round_trip(&mut d, 2, 3000);
    let hw = d.hardware();
    assert!(hw.cleanings >= 10, "{} cleanings", hw.cleanings);
    assert!(hw.disk.rmws > 0, "no write-back");
    assert!(hw.rmw_cleanings <= hw.cleanings);
    // Nothing is copied inside the flash: every program is a host sector.
    let host_sectors = d.stats(1).host_write_bytes / SB as u64;
    assert_eq!(hw.flash.page_programs, host_sectors);
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

/// Writes one sector per entry of `bands` (the band's next sector), in order.
fn fill(
    d: &mut EfSmr,
    mut now: u64,
    bands: &[u64],
    next_off: &mut [u64],
    version: &mut u64,
    reference: &mut BTreeMap<u64, u64>,
) -> u64 {
    for &band in bands {
        let sector = band * BAND_SECTORS + next_off[band as usize];
        next_off[band as usize] += 1;
        now = write(d, now, sector, 1, version, reference);
    }
    now
}

#[test]
fn pore_erases_stale_blocks_without_write_back() {
    // 16 blocks × 8 pages: 128 writes fill the cache. Rewriting 8 sectors over
    // and over leaves every full block but the last without a valid page.
    let mut d = small("pore", 2, 16);
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    for i in 0..129u64 {
        now = write(
            &mut d,
            now,
            5 * BAND_SECTORS + i % 8,
            1,
            &mut version,
            &mut reference,
        );
    }
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws), (1, 0));
    assert_eq!(hw.flash.erases, 1, "one stale block per cleaning");
    // The next 7 writes fill the erased block; each further block is one more
    // stale block erased, still without write-back.
    for i in 0..(7 + 8 * 3) {
        now = write(
            &mut d,
            now,
            5 * BAND_SECTORS + i % 8,
            1,
            &mut version,
            &mut reference,
        );
    }
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws, hw.flash.erases), (4, 0, 4));
    d.check_invariants().unwrap();
    now = check_read(&mut d, now, 5 * BAND_SECTORS, 8, &reference);
    assert!(!served_by_disk(&mut d, now, 5 * BAND_SECTORS));
}

#[test]
fn pore_opens_the_bands_of_highest_weight_cached_squared_over_heat() {
    // 128 pages: band 3 ×64 (pages 0..64), band 9 ×8 (64..72), then bands 7 and 5
    // alternating ×28 each (72..128, blocks 9–15). Band 3 is read twice through
    // (128 hits). Weights cached² / (heat + 1): 5 and 7 784, 9 64, 3 4096 / 129 ≈ 32
    // — band 3 holds the most data but is the hottest, so it ranks last.
    let mut d = small("pore", 2, 20);
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    let mut next_off = vec![0u64; BANDS as usize];
    let mut order = vec![3u64; 64];
    order.extend([9u64; 8]);
    order.extend((0..56).map(|i| if i % 2 == 0 { 7u64 } else { 5 }));
    now = fill(
        &mut d,
        now,
        &order,
        &mut next_off,
        &mut version,
        &mut reference,
    );
    for _ in 0..2 {
        now = check_read(&mut d, now, 3 * BAND_SECTORS, 64, &reference);
    }
    assert_eq!(d.hardware().cleanings, 0);
    now = write(
        &mut d,
        now,
        13 * BAND_SECTORS,
        1,
        &mut version,
        &mut reference,
    );
    // Period 20: the OPEN region is band 5 alone (ties to the lower band; its 28
    // sectors fill the period). Writing it back frees no block (7 shares them), the
    // period is over, and the next OPEN region is band 7; then blocks 9–15 are
    // stale and the first of them is erased.
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws, hw.flash.erases), (1, 2, 1));
    d.check_invariants().unwrap();
    for band in [5u64, 7] {
        assert!(
            served_by_disk(&mut d, now, band * BAND_SECTORS),
            "band {band}"
        );
    }
    for band in [3u64, 9] {
        assert!(
            !served_by_disk(&mut d, now, band * BAND_SECTORS),
            "band {band}"
        );
    }
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
fn pore_evicts_open_bands_oldest_lru_tail_first() {
    // A period longer than the cache: every cached band is OPEN. Band 2 (block 0)
    // was written first, then band 1 (block 1), then band 0 (blocks 2–15, the
    // highest weight). Eviction order among OPEN bands is the oldest LRU tail:
    // band 2 goes first, which already frees block 0.
    let mut d = small("pore", 2, 1000);
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    let mut next_off = vec![0u64; BANDS as usize];
    let mut order = vec![2u64; 8];
    order.extend([1u64; 8]);
    order.extend([0u64; 112]);
    now = fill(
        &mut d,
        now,
        &order,
        &mut next_off,
        &mut version,
        &mut reference,
    );
    now = write(
        &mut d,
        now,
        13 * BAND_SECTORS,
        1,
        &mut version,
        &mut reference,
    );
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws, hw.flash.erases), (1, 1, 1));
    assert!(served_by_disk(&mut d, now, 2 * BAND_SECTORS));
    assert!(!served_by_disk(&mut d, now, BAND_SECTORS));
    assert!(!served_by_disk(&mut d, now, 0));
    d.check_invariants().unwrap();
    // A hit moves a sector to its band's LRU head: reading band 1 now makes band 0
    // the oldest tail, so the next eviction takes band 0 (blocks 2–15 go stale).
    now = check_read(&mut d, now, BAND_SECTORS, 8, &reference);
    for i in 0..7u64 {
        now = write(
            &mut d,
            now,
            13 * BAND_SECTORS + 1 + i,
            1,
            &mut version,
            &mut reference,
        );
    }
    now = write(
        &mut d,
        now,
        14 * BAND_SECTORS,
        1,
        &mut version,
        &mut reference,
    );
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws), (2, 2));
    assert!(served_by_disk(&mut d, now, 0));
    assert!(!served_by_disk(&mut d, now, BAND_SECTORS));
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
fn pore_writes_back_as_many_open_bands_as_a_free_block_needs() {
    // Bands 0..8 get 16 sectors each, interleaved: every block holds one sector of
    // each band. All eight are OPEN (a 1,000-sector period) and a block frees only
    // when all eight are written back, in one cleaning ("PC-level", MU-RMW §IV-B4).
    let mut d = small("pore", 2, 1000);
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    let mut next_off = vec![0u64; BANDS as usize];
    let order: Vec<u64> = (0..128).map(|i| i % 8).collect();
    now = fill(
        &mut d,
        now,
        &order,
        &mut next_off,
        &mut version,
        &mut reference,
    );
    let t0 = now;
    now = write(
        &mut d,
        now,
        12 * BAND_SECTORS,
        1,
        &mut version,
        &mut reference,
    );
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws, hw.flash.erases), (1, 8, 1));
    assert!(
        now - t0 >= hw.cleaning_ns_total,
        "the write waits for the cleaning"
    );
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
        let mut d = small(policy, 2, 16);
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
            let mut d = small(policy, 4, 24);
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
    // MU-RMW §III-E: P × U × 4 B = 10,240 × 256 × 4 ≈ 10 MB for both baselines;
    // PORE adds its LRU (links and stamp, 16 B per cache page: 20,480 pages).
    let table = 10_240u64 * 256 * 4;
    for (policy, extra) in [("skylight", 0), ("pore", 16 * 20_480)] {
        let d = build(profile_with(&[("policy", format!("\"{policy}\""))]));
        let m = d.mapping_memory_bytes();
        assert!(
            m >= table + extra && m < table + extra + 16 * 1024,
            "{policy}: {m} bytes"
        );
        d.check_invariants().unwrap();
    }
}

#[test]
fn a_cleaning_pauses_requests_that_arrive_while_it_runs() {
    // MU-RMW §IV-B4: cleaning blocks user requests. Zone 0 of Skylight fills with
    // 64 writes of band 0; the 65th cleans it (one RMW); a read of band 1 issued
    // 1 µs after that write arrived starts only when the cleaning ends.
    let mut d = small("skylight", 2, 16);
    let mut now = 0;
    for i in 0..64u64 {
        now = d
            .submit(
                now,
                &Command::Write { lba: i, blocks: 1 },
                Payload::SizeOnly,
            )
            .unwrap()
            .done_ns;
    }
    let t = now + 1_000_000;
    let w = d
        .submit(t, &Command::Write { lba: 70, blocks: 1 }, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    assert_eq!(d.hardware().cleanings, 1);
    let paused_until = d.hardware().pause_until_ns;
    assert!(
        paused_until > t + 5_000_000,
        "a band RMW takes milliseconds"
    );
    let r = d
        .submit(
            t + 1_000,
            &Command::Read {
                lba: BAND_SECTORS * 3,
                blocks: 1,
            },
            Payload::SizeOnly,
        )
        .unwrap()
        .done_ns;
    assert!(
        r > paused_until,
        "read done at {r}, cleaning ended at {paused_until}"
    );
    assert!(w > paused_until);
}

#[test]
fn pore_open_region_ablation_writes_back_the_whole_region_at_each_cleaning() {
    // The stale-block case of `pore_erases_stale_blocks_without_write_back`, with
    // `pore_eviction = "open-region"`: the cleaning writes band 5 back although a
    // stale block was there to erase.
    let mut d = build(profile_with(&[
        ("band_mib", "1".into()),
        ("band_count", BANDS.to_string()),
        ("blocks", "16".into()),
        ("pages_per_block", "8".into()),
        ("policy", "\"pore\"".into()),
        ("pore_period_sectors", "16".into()),
        (
            "pore_period_sectors",
            "16\npore_eviction = \"open-region\"".into(),
        ),
    ]));
    let (mut reference, mut version, mut now) = (BTreeMap::new(), 0, 0);
    for i in 0..129u64 {
        now = write(
            &mut d,
            now,
            5 * BAND_SECTORS + i % 8,
            1,
            &mut version,
            &mut reference,
        );
    }
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws, hw.rmw_cleanings), (1, 1, 1));
    d.check_invariants().unwrap();
    check_read(&mut d, now, 5 * BAND_SECTORS, 8, &reference);
}
