//! MU-RMW (the EF-SMR disk's `mu-rmw` STL, MU-RMW §III): data round-trips through
//! cleanings and RMWs, flash blocks never mix bands, obsolete blocks are reclaimed
//! without RMW, the band with the longest block list is the RMW victim, the
//! mapping memory is the §III-E structures' size, and runs are deterministic.

use std::collections::BTreeMap;
use zonelab_devices::models::build;
use zonelab_devices::models::ef_smr::EfSmr;
use zonelab_devices::profile::ProfileSource;
use zonelab_devices::{Command, Device, Payload};

const SECTOR: usize = 4096;
const MS: u64 = 1_000_000;

/// ef-smr.toml with some `key = value` lines replaced (and the mu-rmw policy; PORE's
/// OPEN-region size, unused by MU-RMW, shrunk so that few bands still validate).
fn profile(overrides: &[(&str, &str)]) -> ProfileSource {
    let mut text = include_str!("../../../profiles/ef-smr.toml").to_string();
    for (key, value) in overrides
        .iter()
        .chain([("policy", "\"mu-rmw\""), ("pore_period_sectors", "1")].iter())
    {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{key} =")))
            .expect("key exists")
            .to_string();
        text = text.replace(&line, &format!("{key} = {value}"));
    }
    ProfileSource {
        source_name: "test-ef-smr.toml".into(),
        text,
    }
}

fn device(overrides: &[(&str, &str)]) -> EfSmr {
    let src = profile(overrides);
    // Also buildable through the generic entry point.
    assert_eq!(build(&src).unwrap().info().model, "ef-smr");
    let d = EfSmr::from_profile(&src).unwrap();
    assert_eq!(d.stl_name(), "mu-rmw");
    d
}

/// 8 bands of 1 MiB (P = 256 sectors, N = 4 sub-tables), 16 blocks × 32 pages.
fn small() -> EfSmr {
    device(&[("band_count", "8"), ("band_mib", "1"), ("blocks", "16")])
}

/// splitmix64: a small deterministic generator.
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

fn content(sector: u64, version: u64) -> Vec<u8> {
    let mut v = vec![(sector as u8) ^ (version as u8).rotate_left(3); SECTOR];
    v[..8].copy_from_slice(&sector.to_le_bytes());
    v[8..16].copy_from_slice(&version.to_le_bytes());
    v
}

fn write(d: &mut EfSmr, now: u64, lba: u64, data: Option<&[u8]>) -> u64 {
    let blocks = data.map_or(1, |b| (b.len() / SECTOR) as u32);
    let p = data.map_or(Payload::SizeOnly, Payload::Write);
    d.submit(now, &Command::Write { lba, blocks }, p)
        .unwrap()
        .done_ns
}

fn read(d: &mut EfSmr, now: u64, lba: u64, blocks: u32) -> (u64, Vec<u8>) {
    let mut out = vec![0xAAu8; blocks as usize * SECTOR];
    let done = d
        .submit(now, &Command::Read { lba, blocks }, Payload::Read(&mut out))
        .unwrap()
        .done_ns;
    (done, out)
}

/// Every programmed page's OOB sector tag belongs to one band per block.
fn assert_blocks_hold_one_band(d: &EfSmr) {
    let hw = d.hardware();
    let (ppb, p) = (hw.flash.params.pages_per_block, hw.disk.band_sectors);
    for block in 0..hw.flash.params.blocks {
        let programmed = hw.flash.programmed_pages(block);
        let bands: Vec<u32> = (0..programmed)
            .map(|pg| hw.flash.sector_tag(block * ppb + pg) / p)
            .collect();
        assert!(
            bands.windows(2).all(|w| w[0] == w[1]),
            "block {block} mixes bands {bands:?}"
        );
    }
}

#[test]
fn random_payload_writes_and_reads_return_the_latest_bytes() {
    let mut d = small();
    let cap = d.info().capacity_blocks;
    assert_eq!(cap, 8 * 256);
    let mut reference: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
    let mut rng = Rng(7);
    let (mut now, mut version, mut cleanings, mut checked, mut hot) =
        (0u64, 0u64, 0u64, 0u32, 0u64);
    for _ in 0..12_000 {
        if rng.below(4) == 0 {
            let lba = rng.below(cap);
            let (done, out) = read(&mut d, now, lba, 1);
            now = done;
            let zeros = vec![0u8; SECTOR];
            assert!(
                out == *reference.get(&lba).unwrap_or(&zeros),
                "sector {lba} read stale bytes"
            );
        } else {
            // Half the writes cycle through a hot 96-sector range of band 0 (a log:
            // its blocks become obsolete), half go anywhere in bands 1–7 (RMWs);
            // 1–3 sectors each.
            let n = 1 + rng.below(3);
            let lba = if rng.below(2) == 0 {
                let lba = hot;
                hot = (hot + n) % 96;
                lba
            } else {
                256 + rng.below(cap - 256 - n)
            };
            let mut buf = Vec::with_capacity(n as usize * SECTOR);
            for s in lba..lba + n {
                version += 1;
                let c = content(s, version);
                buf.extend_from_slice(&c);
                reference.insert(s, c);
            }
            now = write(&mut d, now, lba, Some(&buf));
        }
        if d.hardware().cleanings != cleanings {
            cleanings = d.hardware().cleanings;
            d.check_invariants().unwrap();
            checked += 1;
        }
    }
    let hw = d.hardware();
    assert!(hw.disk.rmws > 10, "RMWs: {}", hw.disk.rmws);
    assert!(
        hw.cleanings > hw.disk.rmws + 10,
        "obsolete-block cleanings: {} of {}",
        hw.cleanings - hw.disk.rmws,
        hw.cleanings
    );
    assert!(checked as u64 == hw.cleanings);
    d.check_invariants().unwrap();
    assert_blocks_hold_one_band(&d);
    // Everything, in multi-sector reads.
    for lba in (0..cap).step_by(16) {
        let (done, out) = read(&mut d, now, lba, 16);
        now = done;
        for (i, chunk) in out.chunks(SECTOR).enumerate() {
            let s = lba + i as u64;
            match reference.get(&s) {
                Some(c) => assert!(chunk == &c[..], "sector {s} stale"),
                None => assert!(
                    chunk.iter().all(|&b| b == 0),
                    "unwritten sector {s} not zeros"
                ),
            }
        }
    }
}

#[test]
fn each_flash_block_holds_one_bands_data() {
    let mut d = device(&[("band_count", "32"), ("band_mib", "1"), ("blocks", "24")]);
    let cap = d.info().capacity_blocks;
    let mut rng = Rng(11);
    let (mut now, mut cleanings) = (0u64, 0u64);
    for i in 0..10_000 {
        now = write(&mut d, now, rng.below(cap), None);
        if d.hardware().cleanings != cleanings || i % 500 == 0 {
            cleanings = d.hardware().cleanings;
            assert_blocks_hold_one_band(&d);
            d.check_invariants().unwrap();
        }
    }
    assert!(d.hardware().disk.rmws > 50);
}

#[test]
fn obsolete_blocks_are_reclaimed_without_rmw() {
    let mut d = small();
    // Band 0's first 64 sectors, over and over: every block but the newest two is
    // obsolete by the time the cache is full.
    let mut now = 0;
    for i in 0..6_000u64 {
        now = write(&mut d, now, i % 64, None);
    }
    let hw = d.hardware();
    assert!(hw.cleanings > 150, "cleanings: {}", hw.cleanings);
    assert_eq!(hw.disk.rmws, 0, "no RMW while obsolete blocks exist");
    assert_eq!(
        hw.flash.erases, hw.cleanings,
        "one erase per obsolete-block cleaning"
    );
    // The chip is idle when the write triggers the cleaning: exactly one erase.
    assert_eq!(hw.cleaning_ns_max, 3 * MS / 2);
    assert_eq!(hw.disk.bytes_written, 0);
    d.check_invariants().unwrap();
}

#[test]
fn the_longest_block_list_is_cleaned_by_one_rmw() {
    let mut d = small();
    let ppb = 32u64;
    // Distinct sectors (nothing obsolete): band 0 gets 5 blocks, 1 and 2 four, 3 three.
    let mut now = 0;
    let mut reference = BTreeMap::new();
    for (band, blocks) in [(0u64, 5u64), (1, 4), (2, 4), (3, 3)] {
        for s in band * 256..band * 256 + blocks * ppb {
            let c = content(s, 1);
            now = write(&mut d, now, s, Some(&c));
            reference.insert(s, c);
        }
    }
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.flash.erases), (0, 0));
    let u_n_4 = 8 * 4 * 4;
    assert_eq!(d.mapping_memory_bytes(), u_n_4 + 16 * 8);
    d.check_invariants().unwrap();

    // Band 3 needs a fourth block: no free block, none obsolete → RMW of band 0.
    let c = content(3 * 256 + 3 * ppb, 1);
    let start = now;
    now = write(&mut d, now, 3 * 256 + 3 * ppb, Some(&c));
    reference.insert(3 * 256 + 3 * ppb, c);
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws, hw.flash.erases), (1, 1, 5));
    assert_eq!(
        hw.disk.bytes_written,
        256 * SECTOR as u64,
        "one band rewritten"
    );
    // The write waited for the cleaning: 160 valid-page reads + 5 erases on the chip
    // alone take 42.5 ms; the RMW reads and writes the band.
    assert!(hw.cleaning_ns_max > 160 * MS / 5 + 5 * 3 * MS / 2);
    assert!(now - start > hw.cleaning_ns_max);
    assert_eq!(d.mapping_memory_bytes(), u_n_4 + (16 - 5 + 1) * 8);
    d.check_invariants().unwrap();
    assert_blocks_hold_one_band(&d);

    // Band 0 is now read from the disk (no flash page read), with the same bytes.
    let page_reads = d.hardware().flash.page_reads;
    for (&s, c) in &reference {
        let (_, out) = read(&mut d, now, s, 1);
        assert!(out == *c, "sector {s}");
    }
    assert_eq!(
        d.hardware().flash.page_reads - page_reads,
        reference.len() as u64 - 5 * ppb
    );
}

#[test]
fn reclamation_triggered_by_the_victim_band_itself() {
    // One band of 512 sectors fills all 16 blocks; rewriting one of its sectors
    // makes the band its own victim.
    let mut d = device(&[("band_count", "4"), ("band_mib", "2"), ("blocks", "16")]);
    let mut now = 0;
    for s in 0..512u64 {
        now = write(&mut d, now, s, Some(&content(s, 1)));
    }
    assert_eq!(d.hardware().cleanings, 0);
    now = write(&mut d, now, 7, Some(&content(7, 2)));
    let hw = d.hardware();
    assert_eq!((hw.cleanings, hw.disk.rmws, hw.flash.erases), (1, 1, 16));
    d.check_invariants().unwrap();
    // The new version is the only page in flash; the rest came back from the band.
    assert_eq!(d.mapping_memory_bytes(), 4 * 8 * 4 + 8);
    for s in 0..512u64 {
        let (done, out) = read(&mut d, now, s, 1);
        now = done;
        assert!(out == content(s, if s == 7 { 2 } else { 1 }), "sector {s}");
    }
}

#[test]
fn latencies_follow_the_cam_read_and_write_paths() {
    let mut d = small();
    let cmd = 100_000; // controller command overhead, 0.1 ms
                       // First write to a sub-table: no OOB read, one program (1.3 ms).
    assert_eq!(write(&mut d, 0, 5, None), cmd + 13 * MS / 10);
    // Same sub-table: OOB read (0.2 ms) then program.
    assert_eq!(
        write(&mut d, 100 * MS, 6, None),
        100 * MS + cmd + 15 * MS / 10
    );
    // Cached read: OOB read + page read.
    assert_eq!(read(&mut d, 200 * MS, 6, 1).0, 200 * MS + cmd + 4 * MS / 10);
    // Same sub-table, sector not cached: OOB read, then the disk.
    let (done, out) = read(&mut d, 300 * MS, 7, 1);
    assert!(done > 300 * MS + cmd + 2 * MS / 10);
    assert!(out.iter().all(|&b| b == 0));
    assert_eq!(d.hardware().flash.oob_reads, 3);
    assert_eq!(d.hardware().flash.page_reads, 1);
}

#[test]
fn a_request_reads_each_sub_table_once() {
    // P = 256, Q = 64: sectors 60..68 span sub-tables 0 and 1 of band 0.
    let mut d = small();
    let cmd = 100_000;
    // A 3-sector write into an empty sub-table: no OOB read; the three programs
    // queue on the one flash unit.
    let data = vec![1u8; 3 * 4096];
    assert_eq!(write(&mut d, 0, 8, Some(&data)), cmd + 39 * MS / 10);
    assert_eq!(d.hardware().flash.oob_reads, 0);
    // Rewriting them: one OOB read of sub-table 0 for the whole request, not one
    // per sector (the request's own earlier pages are not re-read either).
    let t = 100 * MS;
    assert_eq!(write(&mut d, t, 8, Some(&data)), t + cmd + 41 * MS / 10);
    assert_eq!(d.hardware().flash.oob_reads, 1);
    // An 8-sector request over two sub-tables: one OOB read each that has a page
    // (sub-table 0); sub-table 1 has none yet.
    let data8 = vec![2u8; 8 * 4096];
    write(&mut d, 200 * MS, 60, Some(&data8));
    assert_eq!(d.hardware().flash.oob_reads, 2);
    // Reading 60..68 back: one OOB read per sub-table, 8 page reads.
    let (_, out) = read(&mut d, 300 * MS, 60, 8);
    assert!(out == data8);
    assert_eq!(d.hardware().flash.oob_reads, 4);
    assert_eq!(d.hardware().flash.page_reads, 8);
    d.check_invariants().unwrap();
}

#[test]
fn a_requests_pages_program_in_parallel_on_parallel_units() {
    // Two chips × two planes: four units, pages striped over them.
    let mut d = device(&[
        ("band_count", "8"),
        ("band_mib", "1"),
        ("blocks", "16"),
        ("chips", "2"),
        ("planes_per_chip", "2"),
    ]);
    let cmd = 100_000;
    // Four sectors of a fresh band land on pages 0..4 of its block: one unit each.
    assert_eq!(
        write(&mut d, 0, 300, Some(&vec![3u8; 4 * 4096])),
        cmd + 13 * MS / 10
    );
    // Eight: two rounds.
    assert_eq!(
        write(&mut d, 100 * MS, 600, Some(&vec![4u8; 8 * 4096])),
        100 * MS + cmd + 26 * MS / 10
    );
    assert_eq!(d.stats(1).counters["flash_parallel_units"], 4);
    d.check_invariants().unwrap();
}

#[test]
fn mapping_memory_is_the_smd_plus_the_bml() {
    // The paper's setting: U = 256, N = 160, S = 640.
    let mut d = device(&[]);
    assert_eq!(d.mapping_memory_bytes(), 256 * 160 * 4);
    assert_eq!(d.mapping_memory_bytes(), 163_840);
    let allocated = |d: &EfSmr| {
        let f = &d.hardware().flash;
        (0..f.params.blocks)
            .filter(|&b| f.programmed_pages(b) > 0)
            .count() as u64
    };
    // Fill bands 0 and 1 sequentially: exactly the 640 blocks, no cleaning.
    let mut now = 0;
    for s in 0..20_480u64 {
        now = write(&mut d, now, s, None);
        if s % 2_000 == 0 {
            assert_eq!(d.mapping_memory_bytes(), 163_840 + 8 * allocated(&d));
        }
    }
    assert_eq!(d.hardware().cleanings, 0);
    assert_eq!(allocated(&d), 640);
    assert_eq!(
        d.mapping_memory_bytes(),
        168_960,
        "SMD 163,840 B + BML 640 × 8 B"
    );
    d.check_invariants().unwrap();
    // One more block: bands 0 and 1 tie at 320 blocks; band 0 (lowest LBN) goes.
    write(&mut d, now, 20_480, None);
    assert_eq!(d.hardware().disk.rmws, 1);
    assert_eq!(d.mapping_memory_bytes(), 163_840 + 8 * 321);
    assert_eq!(allocated(&d), 321);
    d.check_invariants().unwrap();
    assert_eq!(
        d.stats(now).counters["mapping_memory_bytes"],
        163_840 + 8 * 321
    );
}

#[test]
fn runs_are_deterministic() {
    let run = || {
        let mut d = device(&[("band_count", "8"), ("band_mib", "1"), ("blocks", "32")]);
        let cap = d.info().capacity_blocks;
        let mut rng = Rng(42);
        let mut now = 0;
        let (mut times, mut hot) = (Vec::new(), 0);
        for _ in 0..20_000 {
            let lba = if rng.below(3) == 0 {
                hot += 1;
                hot % 64
            } else {
                256 + rng.below(cap - 256)
            };
            now = if rng.below(4) == 0 {
                d.submit(now, &Command::Read { lba, blocks: 1 }, Payload::SizeOnly)
                    .unwrap()
                    .done_ns
            } else {
                write(&mut d, now, lba, None)
            };
            times.push(now);
        }
        let hw = d.hardware();
        (
            times,
            hw.cleanings,
            hw.cleaning_ns_total,
            hw.cleaning_ns_max,
            hw.disk.rmws,
            hw.flash.erases,
        )
    };
    let (a, b) = (run(), run());
    assert!(
        a.4 > 20 && a.1 > a.4 + 20,
        "both kinds of cleaning ran: {} cleanings, {} RMWs",
        a.1,
        a.4
    );
    assert_eq!(a, b);
}
