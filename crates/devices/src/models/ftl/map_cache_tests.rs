//! Tests of the demand-paged mapping cache on the `ftl-ssd` model
//! (`[mapping_cache]`, `ftl/map_cache.rs`): miss cost on reads, translation
//! traffic in WAF, locality, invariants with GC, determinism, profile errors.

use super::tests::{build_text, fill_sequentially, run, text, SMALL};
use super::FtlSsd;
use crate::command::Command;
use crate::device::Device;
use crate::profile::ProfileError;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{Ns, RngStreams};

/// SMALL's 8192 units in 1-KiB translation pages of 256 entries: 32 pages of
/// map, of which `cache_kib` are cached.
fn device(cache_kib: Option<u64>) -> FtlSsd {
    let section = match cache_kib {
        Some(k) => format!("\n[mapping_cache]\ncache_kib = {k}\ntranslation_page_kib = 1\n"),
        None => String::new(),
    };
    build_text(format!("{}{section}", text(&SMALL))).expect("valid profile")
}

/// QD1 random 4 KiB reads over the whole drive; returns the mean latency.
fn random_reads(dev: &mut FtlSsd, now: &mut Ns, count: u64) -> Ns {
    let cap = dev.info().capacity_blocks;
    let mut rng = RngStreams::new(4).stream("mapcache.reads");
    let mut sum = 0;
    for _ in 0..count {
        *now += 1_000_000; // idle between reads: no queueing
        let lba = uniform_below(&mut rng, cap);
        sum += run(dev, now, Command::Read { lba, blocks: 1 });
    }
    sum / count
}

#[test]
fn a_miss_reads_the_translation_page_before_the_data() {
    let mut all = device(None);
    let mut small = device(Some(4));
    let (mut t1, mut t2) = (0, 0);
    fill_sequentially(&mut all, &mut t1);
    fill_sequentially(&mut small, &mut t2);
    let dram = random_reads(&mut all, &mut t1, 2000);
    let cached = random_reads(&mut small, &mut t2, 2000);
    let c = &small.stats(t2).counters;
    // 4 of 32 pages cached: about 7 in 8 random reads miss.
    let misses = c["map_cache_misses"];
    assert!(
        c["map_cache_hits"] > 0 && misses > c["map_cache_hits"],
        "{c:?}"
    );
    // A miss adds one flash read (tR 50 us + transfer) in front of the data read.
    let extra = cached - dram;
    assert!(
        (35_000..60_000).contains(&extra),
        "mean {cached} ns with the cache vs {dram} ns all in DRAM"
    );
    assert!(c["translation_read_bytes"] >= misses * 1024);
    assert!(small.stats(t2).media_read_bytes > all.stats(t1).media_read_bytes);
}

#[test]
fn sequential_access_hits_and_a_map_sized_cache_only_misses_cold() {
    let mut dev = device(Some(4));
    let mut now = 0;
    fill_sequentially(&mut dev, &mut now);
    let c = dev.stats(now).counters;
    // 64-unit writes: one translation page in four requests misses.
    assert_eq!(c["map_cache_misses"], 32, "{c:?}");
    let mut whole = device(Some(32));
    let mut t = 0;
    fill_sequentially(&mut whole, &mut t);
    random_reads(&mut whole, &mut t, 500);
    let c = whole.stats(t).counters;
    assert_eq!(c["map_cache_misses"], 32);
    assert_eq!(c["translation_write_bytes"], 0);
}

#[test]
fn dirty_write_backs_raise_waf() {
    let waf = |cache: Option<u64>| {
        let mut dev = device(cache);
        let mut now = 0;
        fill_sequentially(&mut dev, &mut now);
        let cap = dev.info().capacity_blocks;
        let mut rng = RngStreams::new(8).stream("mapcache.waf");
        for _ in 0..20_000 {
            let lba = uniform_below(&mut rng, cap);
            run(&mut dev, &mut now, Command::Write { lba, blocks: 1 });
        }
        run(&mut dev, &mut now, Command::Flush);
        dev.check_invariants().unwrap();
        let st = dev.stats(now);
        (st.write_amplification, st.counters)
    };
    let (dram, _) = waf(None);
    let (cached, c) = waf(Some(4));
    assert!(c["map_cache_dirty_evictions"] > 10_000, "{c:?}");
    assert!(c["translation_write_bytes"] > 0);
    // Each dirty eviction writes a 1 KiB page per 4 KiB host write or so:
    // about 0.2 more WAF.
    assert!(
        cached > dram + 0.1 && cached < dram + 0.4,
        "WAF {cached} with the cache vs {dram}"
    );
}

#[test]
fn runs_are_deterministic_with_gc() {
    let once = || {
        let mut dev = device(Some(8));
        let mut now = 0;
        fill_sequentially(&mut dev, &mut now);
        let cap = dev.info().capacity_blocks;
        let mut rng = RngStreams::new(2).stream("mapcache.det");
        let mut sum = 0;
        for _ in 0..10_000 {
            let lba = uniform_below(&mut rng, cap);
            let blocks = (1 + uniform_below(&mut rng, 8)).min(cap - lba) as u32;
            let cmd = match uniform_below(&mut rng, 10) {
                0..=5 => Command::Write { lba, blocks },
                6..=8 => Command::Read { lba, blocks },
                _ => Command::Trim { lba, blocks },
            };
            sum += run(&mut dev, &mut now, cmd);
        }
        dev.check_invariants().unwrap();
        let st = dev.stats(now);
        assert!(st.gc_runs > 0);
        (sum, format!("{:?}", st.counters))
    };
    assert_eq!(once(), once());
}

#[test]
fn profile_errors_name_the_field() {
    let bad =
        |section: &str, field: &str| match build_text(format!("{}{section}", text(&SMALL))).err() {
            Some(ProfileError::OutOfRange { field: f, .. }) => assert_eq!(f, field, "{section}"),
            other => panic!("{section}: expected an error naming {field}, got {other:?}"),
        };
    bad(
        "\n[mapping_cache]\ncache_kib = 0\ntranslation_page_kib = 4\n",
        "mapping_cache.cache_kib",
    );
    bad(
        "\n[mapping_cache]\ncache_kib = 64\ntranslation_page_kib = 32\n",
        "mapping_cache.translation_page_kib",
    );
    bad(
        "\n[mapping_cache]\ncache_kib = 64\ntranslation_page_kib = 4\nentry_bytes = 3\n",
        "mapping_cache.entry_bytes",
    );
}
