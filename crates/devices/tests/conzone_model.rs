//! ConZone+ device model: geometry, write path (buffer → SLC → regular), read
//! path (L2P cache accounting, hybrid mapping), zone reset, SLC GC, payload
//! read-after-write through every path, profile errors and determinism.

use std::collections::BTreeMap;
use zonelab_devices::models::conzone::{ConZone, ConZoneBlock, ConZoneProfile};
use zonelab_devices::profile::{find_profile, parse_as, ProfileSource};
use zonelab_devices::{open_device, Command, Device, Payload, ZoneAction};

const PAGE: usize = 4096;

/// The TLC profile with small blocks (9 MiB per chip: 36 MiB zones) and a small
/// SLC area, plus text replacements.
fn small_text(model_tlc: bool, edits: &[(&str, &str)]) -> String {
    let name = if model_tlc {
        "conzone-tlc"
    } else {
        "conzone-qlc"
    };
    let mut t = find_profile(name).unwrap().text;
    let mut all: Vec<(&str, &str)> = vec![
        ("block_mib = 24 ", "block_mib = 9 "),
        ("block_mib = 32 ", "block_mib = 12 "),
        ("blocks_per_chip = 28", "blocks_per_chip = 3"),
        ("gc_free_superblocks = 2", "gc_free_superblocks = 1"),
        ("zone_count = 42", "zone_count = 4"),
        ("zone_count = 32", "zone_count = 4"),
        ("max_open_zones = 6", "max_open_zones = 4"),
        ("max_active_zones = 6", "max_active_zones = 4"),
    ];
    all.extend_from_slice(edits);
    for (a, b) in all {
        t = t.replace(a, b);
    }
    t
}

fn zoned(text: String) -> ConZone {
    let src = ProfileSource {
        source_name: "test".into(),
        text,
    };
    ConZone::from_profile(&src).unwrap()
}

fn pattern(lba: u64, version: u32) -> Vec<u8> {
    let mut v = vec![0u8; PAGE];
    for (i, b) in v.iter_mut().enumerate() {
        *b = (lba as usize * 31 + i + version as usize * 7) as u8;
    }
    v
}

fn write_pages(d: &mut dyn Device, now: u64, lba: u64, n: u64, ver: u32) -> u64 {
    let mut buf = Vec::new();
    for l in lba..lba + n {
        buf.extend(pattern(l, ver));
    }
    d.submit(
        now,
        &Command::Write {
            lba,
            blocks: n as u32,
        },
        Payload::Write(&buf),
    )
    .unwrap()
    .done_ns
}

fn read_back(d: &mut dyn Device, now: u64, lba: u64, n: u64) -> Vec<u8> {
    let mut out = vec![0u8; n as usize * PAGE];
    d.submit(
        now,
        &Command::Read {
            lba,
            blocks: n as u32,
        },
        Payload::Read(&mut out),
    )
    .unwrap();
    out
}

#[test]
fn builtin_profiles_open_with_the_paper_geometry() {
    let d = open_device("conzone-tlc").unwrap();
    let z = d.info().zoned.clone().unwrap();
    assert_eq!(z.zone_count, 42);
    assert_eq!(z.zone_capacity_blocks * 4096, 96 << 20);
    assert_eq!(z.zone_size_blocks * 4096, 128 << 20);
    let q = open_device("conzone-qlc").unwrap();
    assert_eq!(
        q.info().zoned.clone().unwrap().zone_capacity_blocks * 4096,
        128 << 20
    );
    let b = open_device("conzone-tlc-block").unwrap();
    assert!(b.info().zoned.is_none());
    assert_eq!(b.info().capacity_bytes(), 4032 << 20);
    let src = find_profile("conzone-tlc").unwrap();
    let p: ConZoneProfile = parse_as(&src).unwrap();
    let g = p.validate("conzone-tlc").unwrap();
    assert_eq!(g.unit_pages * 4, 96, "program unit 96 KiB (§6.1)");
}

#[test]
fn bad_profile_values_name_the_field() {
    for (edit, field) in [
        (("count = 2 ", "count = 0 "), "write_buffer.count"),
        (("block_mib = 9 ", "block_mib = 10 "), "flash.block_mib"),
        (("zone_chips = 4", "zone_chips = 3"), "zones.zone_chips"),
        (("cache_kib = 1024", "cache_kib = 0"), "l2p.cache_kib"),
        (
            ("read_slc_us = 20.0", "read_slc_us = nan"),
            "flash.read_slc_us",
        ),
    ] {
        let src = ProfileSource {
            source_name: "bad".into(),
            text: small_text(true, &[edit]),
        };
        let err = ConZone::from_profile(&src)
            .err()
            .expect("must fail")
            .to_string();
        assert!(err.contains(field), "{err} should name {field}");
    }
    let src = ProfileSource {
        source_name: "bad".into(),
        text: small_text(true, &[]),
    };
    let err = ConZoneBlock::from_profile(&src).err().unwrap().to_string();
    assert!(err.contains("block"), "{err}");
}

#[test]
fn premature_flush_goes_to_slc_and_merges_into_a_program_unit() {
    let mut d = zoned(small_text(true, &[]));
    // 12 pages + flush: less than the 24-page unit -> SLC.
    let t = write_pages(&mut d, 0, 0, 12, 0);
    let t = d
        .submit(t, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    assert_eq!(
        d.locate(0),
        Some(Some((true, d.locate(0).unwrap().unwrap().1)))
    );
    assert_eq!(d.counts.slc_flush_pages, 12);
    d.check_invariants().unwrap();
    // 12 more + flush: SLC data plus new data complete a unit -> regular.
    let t = write_pages(&mut d, t, 12, 12, 0);
    let t = d
        .submit(t, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    assert_eq!(d.locate(0), Some(Some((false, 0))));
    assert_eq!(d.counts.merged_slc_pages, 12);
    d.check_invariants().unwrap();
    assert_eq!(
        read_back(&mut d, t, 0, 24),
        (0..24).flat_map(|l| pattern(l, 0)).collect::<Vec<_>>()
    );
    let st = d.stats(t);
    assert_eq!(st.counters["slc_program_pages"], 12);
    assert_eq!(st.counters["regular_program_pages"], 24);
}

#[test]
fn acknowledged_but_unflushed_writes_are_reported_as_buffered() {
    let mut d = zoned(small_text(true, &[]));
    // 12 pages sit in a write buffer (early completion) until the host flush.
    let t = write_pages(&mut d, 0, 0, 12, 0);
    let st = d.stats(t);
    assert_eq!(st.buffered_write_bytes, 12 * PAGE as u64);
    assert_eq!(st.media_write_bytes, 0);
    // WAF counts only what reached the media: none yet.
    assert_eq!(st.write_amplification, 1.0);
    let t = d
        .submit(t, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    let st = d.stats(t);
    assert_eq!(st.buffered_write_bytes, 0);
    assert_eq!(st.media_write_bytes, 12 * PAGE as u64);
    assert_eq!(st.write_amplification, 1.0);
    // The block model reports its buffer the same way.
    let mut b = open_device("conzone-tlc-block").unwrap();
    let t = write_pages(b.as_mut(), 0, 0, 5, 0);
    assert_eq!(b.stats(t).buffered_write_bytes, 5 * PAGE as u64);
    let t = b
        .submit(t, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    assert_eq!(b.stats(t).buffered_write_bytes, 0);
}

#[test]
fn l2p_hits_and_misses_are_counted_per_page() {
    let text = small_text(true, &[("mapping = \"hybrid\"", "mapping = \"page\"")]);
    let mut d = zoned(text);
    let t = write_pages(&mut d, 0, 0, 48, 0);
    let t = d
        .submit(t, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    let r = |d: &mut ConZone, t, lba| {
        d.submit(t, &Command::Read { lba, blocks: 1 }, Payload::SizeOnly)
            .unwrap()
            .done_ns
    };
    // Pages written insert their entries at write time (reference
    // `set_map_gran(PAGE_MAP)`), so the first read hits.
    let t0 = r(&mut d, t, 5);
    assert_eq!((d.counts.l2p_misses, d.counts.l2p_hits), (0, 1));
    // A cold cache (power cycle) misses once, then hits.
    d.drop_l2p_cache();
    let t1 = r(&mut d, t0, 5);
    let t2 = r(&mut d, t1, 5);
    assert_eq!(d.counts.l2p_misses, 1);
    assert_eq!(d.counts.l2p_hits, 2);
    // A miss costs one mapping-page fetch (20 us SLC read) more than a hit.
    assert!(
        t1 - t0 > t2 - t1 + 15_000,
        "miss {} hit {}",
        t1 - t0,
        t2 - t1
    );
    // Hybrid mapping: a full zone is one zone entry, cached when created.
    let mut h = zoned(small_text(true, &[]));
    let cap = h.zone_capacity_pages();
    let mut t = 0;
    let mut lba = 0;
    while lba < cap {
        t = h
            .submit(t, &Command::Write { lba, blocks: 128 }, Payload::SizeOnly)
            .unwrap()
            .done_ns;
        lba += 128;
    }
    for i in 0..50u64 {
        t = h
            .submit(
                t,
                &Command::Read {
                    lba: (i * 977) % cap,
                    blocks: 1,
                },
                Payload::SizeOnly,
            )
            .unwrap()
            .done_ns;
    }
    assert_eq!(h.counts.l2p_misses, 0);
    assert_eq!(h.counts.l2p_hits, 50);
}

#[test]
fn multiple_fetches_cost_more_than_bitmap_for_page_mapped_data() {
    let run = |mh: &str| {
        let mut d = zoned(small_text(true, &[("miss_handling = \"multiple\"", mh)]));
        // 2 MiB of a zone: below one 4 MiB chunk, so page-mapped in regular blocks.
        let t = write_pages(&mut d, 0, 0, 480, 0);
        let mut t = d
            .submit(t, &Command::Flush, Payload::SizeOnly)
            .unwrap()
            .done_ns;
        let start = t;
        for i in 0..200u64 {
            t = d
                .submit(
                    t,
                    &Command::Read {
                        lba: (i * 7) % 480,
                        blocks: 1,
                    },
                    Payload::SizeOnly,
                )
                .unwrap()
                .done_ns;
        }
        (
            t - start,
            d.stats(t).counters["map_fetches"],
            d.counts.l2p_misses,
        )
    };
    let (bitmap_ns, bitmap_fetches, misses) = run("miss_handling = \"bitmap\"");
    let (multiple_ns, multiple_fetches, misses2) = run("miss_handling = \"multiple\"");
    assert_eq!(misses, misses2);
    assert_eq!(bitmap_fetches, misses);
    // Zone, sub-zone, chunk and page entries are fetched in turn (reference
    // `map_read`: four levels).
    assert_eq!(multiple_fetches, 4 * misses);
    assert!(multiple_ns > bitmap_ns);
}

#[test]
fn modulo_mapping_conflicts_flush_prematurely() {
    let run = |z2: u64| {
        let mut d = zoned(small_text(
            true,
            &[("mapping = \"associative\"", "mapping = \"modulo\"")],
        ));
        let zs = d.info().zoned.clone().unwrap().zone_size_blocks;
        let mut t = 0;
        for i in 0..40u64 {
            t = d
                .submit(
                    t,
                    &Command::Write {
                        lba: i * 12,
                        blocks: 12,
                    },
                    Payload::SizeOnly,
                )
                .unwrap()
                .done_ns;
            t = d
                .submit(
                    t,
                    &Command::Write {
                        lba: z2 * zs + i * 12,
                        blocks: 12,
                    },
                    Payload::SizeOnly,
                )
                .unwrap()
                .done_ns;
        }
        d.check_invariants().unwrap();
        (d.counts.buffer_conflicts, d.stats(t).write_amplification)
    };
    let (conflicts_same, waf_same) = run(2);
    let (conflicts_diff, waf_diff) = run(1);
    assert!(conflicts_same > 0);
    assert_eq!(conflicts_diff, 0);
    assert!(waf_same > waf_diff, "{waf_same} vs {waf_diff}");
}

#[test]
fn payload_survives_slc_gc_merges_and_zone_resets() {
    let mut d = zoned(small_text(true, &[]));
    let mut t = 0;
    let zs = d.info().zoned.clone().unwrap().zone_size_blocks;
    // Many 1-page writes each followed by a flush: SLC fills, GC runs.
    let mut next = [0u64; 2];
    for i in 0..7000u64 {
        let z = (i % 2) as usize;
        let lba = z as u64 * zs + next[z];
        t = write_pages(&mut d, t, lba, 1, 0);
        t = d
            .submit(t, &Command::Flush, Payload::SizeOnly)
            .unwrap()
            .done_ns;
        next[z] += 1;
    }
    d.check_invariants().unwrap();
    let st = d.stats(t);
    assert!(
        st.counters["slc_direct_erases"] + st.counters["slc_gc_erases"] > 0,
        "{:?}",
        st.counters
    );
    for z in 0..2u64 {
        let got = read_back(&mut d, t, z * zs, 3500);
        let want: Vec<u8> = (z * zs..z * zs + 3500)
            .flat_map(|l| pattern(l, 0))
            .collect();
        assert!(got == want, "zone {z} data differs");
    }
    // Reset zone 0 and write it again with new data.
    t = d
        .submit(
            t,
            &Command::Zone {
                action: ZoneAction::Reset,
                zone_lba: 0,
            },
            Payload::SizeOnly,
        )
        .unwrap()
        .done_ns;
    d.check_invariants().unwrap();
    assert_eq!(read_back(&mut d, t, 0, 4), vec![0u8; 4 * PAGE]);
    t = write_pages(&mut d, t, 0, 100, 1);
    d.check_invariants().unwrap();
    assert_eq!(
        read_back(&mut d, t, 0, 100),
        (0..100).flat_map(|l| pattern(l, 1)).collect::<Vec<_>>()
    );
    let got = read_back(&mut d, t, zs, 3500);
    assert!(
        got == (zs..zs + 3500)
            .flat_map(|l| pattern(l, 0))
            .collect::<Vec<_>>()
    );
}

#[test]
fn qlc_stages_everything_in_slc_and_migrates_it() {
    let mut d = zoned(small_text(false, &[]));
    let zs = d.info().zoned.clone().unwrap().zone_size_blocks;
    let cap = d.zone_capacity_pages();
    let mut t = 0;
    for z in 0..4u64 {
        let mut lba = 0;
        while lba < cap {
            t = write_pages(&mut d, t, z * zs + lba, 64, z as u32);
            lba += 64;
        }
    }
    d.check_invariants().unwrap();
    let st = d.stats(t);
    assert!(st.counters["slc_program_pages"] >= 4 * cap - 4 * 96);
    assert!(st.counters["migrated_pages"] > 0);
    for z in 0..4u64 {
        let got = read_back(&mut d, t, z * zs + cap - 64, 64);
        assert!(
            got == (z * zs + cap - 64..z * zs + cap)
                .flat_map(|l| pattern(l, z as u32))
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn user_reads_preempt_slc_migration_when_enabled() {
    // QLC: every write goes to SLC and is migrated (6.4 ms QLC programs) when SLC
    // runs low; reads issued meanwhile wait behind the migration unless they may
    // preempt it (§4.2).
    let run = |preempt: bool| {
        let text = small_text(false, &[]).replace(
            "preempt_migration = true",
            if preempt {
                "preempt_migration = true"
            } else {
                "preempt_migration = false"
            },
        );
        let mut d = zoned(text);
        let zs = d.info().zoned.clone().unwrap().zone_size_blocks;
        let cap = d.zone_capacity_pages();
        // A writer filling all zones and a reader of zone 0's first page, each at
        // QD1; the one ready first submits next, so time never goes backwards.
        let (mut tw, mut tr) = (0u64, 0u64);
        let (mut written, total) = (0u64, 4 * cap);
        let mut total_read_ns = 0u64;
        let mut reads = 0u64;
        while written < total {
            if tw <= tr {
                let (z, off) = (written / cap, written % cap);
                tw = d
                    .submit(
                        tw,
                        &Command::Write {
                            lba: z * zs + off,
                            blocks: 64,
                        },
                        Payload::SizeOnly,
                    )
                    .unwrap()
                    .done_ns;
                written += 64;
            } else {
                let done = d
                    .submit(tr, &Command::Read { lba: 0, blocks: 1 }, Payload::SizeOnly)
                    .unwrap()
                    .done_ns;
                total_read_ns += done - tr;
                reads += 1;
                tr = done;
            }
        }
        d.check_invariants().unwrap();
        assert!(d.stats(tw).counters["migrated_pages"] > 0);
        total_read_ns as f64 / reads as f64
    };
    let fifo = run(false);
    let preempt = run(true);
    assert!(
        preempt < fifo,
        "mean read latency with preemption {preempt} ns vs FIFO {fifo} ns"
    );
}

/// A small block-interface ConZone device (40 MiB, 7 % over-provisioning).
fn small_block_device() -> ConZoneBlock {
    let text = small_text(true, &[]).replace("model = \"conzone\"", "model = \"conzone-block\"")
        + "\n[block]\ncapacity_mib = 40\nop_percent = 7\ngc_free_superblocks = 1\n";
    let text = text.replacen("[zones]", "[unused_zones]", 1);
    let text: String = {
        // Drop the zones section (the block model takes none).
        let cut = text.find("[unused_zones]").unwrap();
        let rest = &text[cut..];
        let end = rest.find("[block]").unwrap();
        format!("{}{}", &text[..cut], &rest[end..])
    };
    let src = ProfileSource {
        source_name: "blk".into(),
        text,
    };
    ConZoneBlock::from_profile(&src).unwrap()
}

#[test]
fn block_device_keeps_data_across_overwrites_gc_and_trim() {
    let mut d = small_block_device();
    let n = d.info().capacity_blocks;
    let mut t = 0;
    let mut versions = BTreeMap::new();
    let mut x = 12345u64;
    for i in 0..30_000u64 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let lba = (x >> 33) % (n - 8);
        let len = 1 + (x >> 20) % 8;
        t = write_pages(&mut d, t, lba, len, i as u32);
        for l in lba..lba + len {
            versions.insert(l, i as u32);
        }
        if i % 1000 == 999 {
            t = d
                .submit(t, &Command::Flush, Payload::SizeOnly)
                .unwrap()
                .done_ns;
        }
    }
    d.check_invariants().unwrap();
    assert!(d.counts.gc_runs > 0, "GC must have run");
    t = d
        .submit(t, &Command::Trim { lba: 0, blocks: 8 }, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    for l in 0..8 {
        versions.remove(&l);
    }
    d.check_invariants().unwrap();
    for (&l, &v) in versions.iter().step_by(37) {
        assert!(read_back(&mut d, t, l, 1) == pattern(l, v), "lba {l}");
    }
    assert_eq!(read_back(&mut d, t, 3, 1), vec![0u8; PAGE]);
}

#[test]
fn regular_gc_copies_are_not_counted_as_slc_migrations() {
    // Aligned 256-page writes fill whole program units, which go straight to regular
    // blocks, so overwriting the device many times makes regular GC copy pages while
    // SLC sees few. A migration moves a page out of SLC, so there can be no more
    // migrated pages than SLC programs; GC copies are counted once.
    let mut d = small_block_device();
    let n = d.info().capacity_blocks;
    let (mut t, mut x) = (0, 99u64);
    for i in 0..4 * n / 256 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let lba = (x >> 33) % (n / 256) * 256;
        t = write_pages(&mut d, t, lba, 256, i as u32);
    }
    d.check_invariants().unwrap();
    let st = d.stats(t);
    let c = &st.counters;
    assert!(
        c["regular_gc_copied_pages"] > 0,
        "regular GC must have run: {c:?}"
    );
    assert!(
        c["migrated_pages"] <= c["slc_program_pages"],
        "more pages migrated out of SLC than ever programmed into it: {c:?}"
    );
    assert_eq!(
        st.gc_copied_bytes,
        (c["regular_gc_copied_pages"] + c["migrated_pages"]) * PAGE as u64
    );
}

#[test]
fn runs_are_deterministic() {
    let run = || {
        let mut d = open_device("conzone-tlc").unwrap();
        let mut t = 0;
        for i in 0..2000u64 {
            t = d
                .submit(
                    t,
                    &Command::Write {
                        lba: i * 12,
                        blocks: 12,
                    },
                    Payload::SizeOnly,
                )
                .unwrap()
                .done_ns;
            if i % 7 == 0 {
                t = d
                    .submit(
                        t,
                        &Command::Read {
                            lba: (i * 31) % (i * 12 + 1),
                            blocks: 1,
                        },
                        Payload::SizeOnly,
                    )
                    .unwrap()
                    .done_ns;
            }
        }
        format!("{t} {:?}", d.stats(t))
    };
    assert_eq!(run(), run());
}

#[test]
fn two_namespaces_keep_separate_logical_spaces_but_share_the_chips() {
    use zonelab_devices::models::conzone::namespaces::{META_NS, ZONED_NS};
    use zonelab_devices::models::conzone::ConZonePlus;
    let open = || ConZonePlus::from_profile(&find_profile("conzone-plus-tlc").unwrap()).unwrap();
    let mut d = open();
    assert_eq!(d.namespace(META_NS).info().capacity_bytes(), 256 << 20);
    assert!(d.namespace(META_NS).info().zoned.is_none());
    assert_eq!(
        d.namespace(ZONED_NS)
            .info()
            .zoned
            .as_ref()
            .unwrap()
            .zone_count,
        42
    );
    // The same LBA in each namespace holds different data.
    let t = write_pages(&mut d.namespace(META_NS), 0, 0, 4, 1);
    let t = write_pages(&mut d.namespace(ZONED_NS), t, 0, 4, 2);
    let t = d
        .submit_ns(META_NS, t, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    let t = d
        .submit_ns(ZONED_NS, t, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    assert!(
        read_back(&mut d.namespace(META_NS), t, 0, 4)
            == (0..4).flat_map(|l| pattern(l, 1)).collect::<Vec<_>>()
    );
    assert!(
        read_back(&mut d.namespace(ZONED_NS), t, 0, 4)
            == (0..4).flat_map(|l| pattern(l, 2)).collect::<Vec<_>>()
    );
    // Metadata is kept in SLC only; overwrites and SLC GC keep it readable.
    let mut t = t;
    let mut last = BTreeMap::new();
    for i in 0..10_000u64 {
        let lba = (i * 7) % 2048;
        t = write_pages(&mut d.namespace(META_NS), t, lba, 8, 10 + i as u32);
        for l in lba..lba + 8 {
            last.insert(l, 10 + i as u32);
        }
        t = d
            .submit_ns(META_NS, t, &Command::Flush, Payload::SizeOnly)
            .unwrap()
            .done_ns;
    }
    let meta = d.namespace(META_NS).stats(t);
    assert_eq!(
        meta.counters["regular_program_pages"], 0,
        "metadata stays in SLC"
    );
    // 312 MiB written into a 288 MiB SLC pool: superblocks were reclaimed.
    assert!(meta.counters["slc_erases"] > 0, "{:?}", meta.counters);
    for (&l, &v) in last.iter().step_by(97) {
        assert!(
            read_back(&mut d.namespace(META_NS), t, l, 1) == pattern(l, v),
            "meta LBA {l}"
        );
    }
    assert!(
        read_back(&mut d.namespace(ZONED_NS), t, 0, 4)
            == (0..4).flat_map(|l| pattern(l, 2)).collect::<Vec<_>>()
    );
    // Shared chips: zoned reads are slower while the metadata namespace writes.
    let read_zoned = |d: &mut ConZonePlus, t0: u64, busy_meta: bool| {
        let mut t = t0;
        let mut sum = 0;
        for i in 0..200u64 {
            if busy_meta {
                let b = vec![7u8; 8 * PAGE];
                d.submit_ns(
                    META_NS,
                    t,
                    &Command::Write {
                        lba: (i * 64) % 2048,
                        blocks: 8,
                    },
                    Payload::Write(&b),
                )
                .unwrap();
                d.submit_ns(META_NS, t, &Command::Flush, Payload::SizeOnly)
                    .unwrap();
            }
            let done = d
                .submit_ns(
                    ZONED_NS,
                    t,
                    &Command::Read {
                        lba: i % 4,
                        blocks: 1,
                    },
                    Payload::SizeOnly,
                )
                .unwrap()
                .done_ns;
            sum += done - t;
            t = done;
        }
        (sum, t)
    };
    let (quiet, t) = read_zoned(&mut d, t + 10_000_000, false);
    let (busy, _) = read_zoned(&mut d, t + 10_000_000, true);
    assert!(busy > quiet, "contention: busy {busy} vs quiet {quiet}");
    // Bad metadata sizes name the field.
    let text = find_profile("conzone-plus-tlc")
        .unwrap()
        .text
        .replace("logical_mib = 256", "logical_mib = 4096");
    let err = ConZonePlus::from_profile(&ProfileSource {
        source_name: "bad".into(),
        text,
    })
    .err()
    .unwrap()
    .to_string();
    assert!(err.contains("metadata.logical_mib"), "{err}");
}

#[test]
fn pinned_aggregated_entries_survive_cache_pressure() {
    // A 1 KiB cache (256 entries): a full zone's entry, then 2,000 page-mapped
    // misses from a partly written zone; only a pinned zone entry is still cached.
    let run = |pin: bool| {
        let pin_line = if pin {
            "pin_aggregated = true"
        } else {
            "pin_aggregated = false"
        };
        let mut d = zoned(small_text(
            true,
            &[
                ("cache_kib = 1024", "cache_kib = 1"),
                ("pin_aggregated = false", pin_line),
            ],
        ));
        let zs = d.info().zoned.clone().unwrap().zone_size_blocks;
        let cap = d.zone_capacity_pages();
        let mut t = 0;
        let mut lba = 0;
        while lba < cap {
            t = d
                .submit(t, &Command::Write { lba, blocks: 256 }, Payload::SizeOnly)
                .unwrap()
                .done_ns;
            lba += 256;
        }
        // 3 MiB of zone 1: page-mapped (below one 4 MiB chunk).
        t = d
            .submit(
                t,
                &Command::Write {
                    lba: zs,
                    blocks: 768,
                },
                Payload::SizeOnly,
            )
            .unwrap()
            .done_ns;
        for i in 0..2000u64 {
            t = d
                .submit(
                    t,
                    &Command::Read {
                        lba: zs + (i * 13) % 768,
                        blocks: 1,
                    },
                    Payload::SizeOnly,
                )
                .unwrap()
                .done_ns;
        }
        let before = d.counts.l2p_misses;
        d.submit(t, &Command::Read { lba: 5, blocks: 1 }, Payload::SizeOnly)
            .unwrap();
        d.counts.l2p_misses - before
    };
    assert_eq!(run(true), 0, "pinned zone entry must hit");
    assert_eq!(run(false), 1, "unpinned zone entry is evicted");
}

#[test]
fn sub_block_zones_live_on_one_chip_and_capacity_need_not_be_a_power_of_two() {
    // conzone-tlc: 96 MiB capacity inside a 128 MiB zone (§4.4).
    let mut d = open_device("conzone-tlc").unwrap();
    let z = d.info().zoned.clone().unwrap();
    // Fill the zone up to one block before its capacity, then cross it.
    let cap = z.zone_capacity_blocks;
    let mut t = 0;
    let mut lba = 0;
    while lba < cap - 1 {
        let n = (cap - 1 - lba).min(256);
        let w = Command::Write {
            lba,
            blocks: n as u32,
        };
        t = d.submit(t, &w, Payload::SizeOnly).unwrap().done_ns;
        lba += n;
    }
    let cross = Command::Write { lba, blocks: 2 };
    let e = d
        .submit(t, &cross, Payload::SizeOnly)
        .expect_err("must not cross the capacity");
    assert!(e.to_string().contains("crosses the zone boundary"), "{e}");
    assert_eq!(z.zone_size_blocks, cap.next_power_of_two());
    // Sub-block mode (§4.3): a zone is one chip's block; zones 0..3 use chips 0..3.
    let sub = || {
        zoned(small_text(
            true,
            &[
                ("zone_chips = 4", "zone_chips = 1"),
                ("chunk_mib = 4", "chunk_mib = 1"),
                // A buffer per zone, so the comparison has no buffer conflicts.
                ("count = 2 ", "count = 4 "),
            ],
        ))
    };
    // The same 1,536 pages (16 full buffers) written to one zone, or round-robin
    // to four zones.
    let write_all = |s: &mut ConZone, zones: u64, bs: u64| {
        let zs = s.info().zoned.clone().unwrap().zone_size_blocks;
        assert_eq!(
            s.zone_capacity_pages() * 4096,
            9 << 20,
            "zone = one 9 MiB block"
        );
        let per_zone = 1536 / zones;
        let mut t = 0;
        let mut off = 0;
        while off < per_zone {
            for z in 0..zones {
                let w = Command::Write {
                    lba: z * zs + off,
                    blocks: bs as u32,
                };
                t = s.submit(t, &w, Payload::SizeOnly).unwrap().done_ns;
            }
            off += bs;
        }
        let done = s
            .submit(t, &Command::Flush, Payload::SizeOnly)
            .unwrap()
            .done_ns;
        s.check_invariants().unwrap();
        done
    };
    let one_zone = write_all(&mut sub(), 1, 96);
    let four_zones = write_all(&mut sub(), 4, 96);
    // One chip programs 64 TLC units in a row; four chips share them.
    assert!(four_zones < one_zone, "{four_zones} vs {one_zone}");
}
