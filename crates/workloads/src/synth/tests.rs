use super::*;
use zonelab_engine::{RngStreams, GIB, MIB};

fn gen_with(
    name: &str,
    scale: f64,
    capacity: u64,
    sizes: RequestSizes,
    seed: u64,
) -> (Vec<TraceRecord>, SynthTrace) {
    let p = *find_profile(name).unwrap();
    let rng = RngStreams::new(seed).stream("synth");
    let options = LookalikeOptions {
        sizes,
        ..Default::default()
    };
    let mut t = SynthTrace::with_options(p, scale, capacity, options, rng).unwrap();
    let recs: Vec<_> = t.by_ref().collect();
    (recs, t)
}

fn gen(name: &str, scale: f64, seed: u64) -> (Vec<TraceRecord>, SynthSummary) {
    let (recs, t) = gen_with(name, scale, 10 * GIB, RequestSizes::Paper, seed);
    (recs, t.summary)
}

#[test]
fn table_i_is_request_counts_of_4_kib() {
    // rsrch_0: 1,433,655 requests × 90.68 % writes = 1.30 M writes = 4.96 GiB.
    let p = find_profile("rsrch_0").unwrap();
    assert_eq!(p.write_requests(1.0), 1_300_234);
    assert!((1_300_234.0 / 1_433_655.0 - p.write_ratio).abs() < 0.001);
    // usr_0: 2,237,889 × 59.58 % = 1.33 M writes = 5.09 GiB.
    let u = find_profile("usr_0").unwrap();
    assert!((u.write_requests(1.0) as f64 / 2_237_889.0 - u.write_ratio).abs() < 0.001);
    // Every trace: the byte ratio of Table I is its request write ratio.
    for p in MSR_TABLE_I {
        let bytes_ratio = p.written_gb / (p.written_gb + p.read_gb);
        assert!((bytes_ratio - p.write_ratio).abs() < 0.001, "{}", p.name);
    }
}

#[test]
fn reproduces_table_i_counts_and_ratios_exactly() {
    for p in MSR_TABLE_I {
        let (recs, s) = gen(p.name, 0.01, 1);
        assert_eq!(recs.len() as u64, s.requests);
        assert_eq!(s.writes, p.write_requests(0.01), "{}", p.name);
        assert_eq!(s.requests - s.writes, p.read_requests(0.01), "{}", p.name);
        assert!(
            (s.write_ratio() - p.write_ratio).abs() < 0.001,
            "{}",
            p.name
        );
        // Exactly the new writes Table I implies; every other write an update.
        assert_eq!(s.writes - s.updates, p.new_writes(0.01), "{}", p.name);
        assert_eq!(s.footprint_pages, p.new_writes(0.01), "{}", p.name);
        assert_eq!(s.written_bytes, s.writes * 4096);
    }
}

#[test]
fn footprint_and_bands_written_per_trace_at_scale_1() {
    // 10 GiB of 40 MiB bands (the paper's disk). The footprint is Table I's
    // (1 − update ratio) × writes sectors; scattered at random, F sectors touch
    // 256 · (1 − (255/256)^F) bands in expectation.
    let expect_footprint = [
        ("rsrch_0", 1_040),
        ("src1_2", 1_850),
        ("src2_0", 1_934),
        ("src2_2", 1_288),
        ("stg_0", 1_378),
        ("stg_1", 638),
        ("ts_0", 2_078),
        ("usr_0", 1_601),
        ("wdev_0", 2_195),
        ("web_0", 2_562),
    ];
    for (name, footprint) in expect_footprint {
        let p = find_profile(name).unwrap();
        let rng = RngStreams::new(3).stream("synth");
        let mut t = SynthTrace::new(*p, 1.0, 10 * GIB, rng).unwrap();
        let n = t.by_ref().count() as u64;
        assert_eq!(n, p.write_requests(1.0) + p.read_requests(1.0));
        let f = t.summary.footprint_pages;
        assert!(f.abs_diff(footprint) <= 1, "{name}: footprint {f} pages");
        let bands = t.bands_written(40 * MIB);
        let expected = 256.0 * (1.0 - (255.0f64 / 256.0).powf(f as f64));
        assert!(
            (bands as f64 - expected).abs() <= 6.0,
            "{name}: {bands} bands written, {expected:.0} expected"
        );
        assert!(bands >= 220, "{name}: {bands} bands");
    }
}

#[test]
fn updates_follow_a_zipfian_popularity() {
    let (recs, s) = gen("web_0", 0.1, 4);
    let mut counts = std::collections::BTreeMap::<u64, u64>::new();
    for r in recs.iter().filter(|r| r.op == TraceOp::Write) {
        *counts.entry(r.offset_bytes).or_default() += 1;
    }
    let mut c: Vec<u64> = counts.values().copied().collect();
    c.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(c.len() as u64, s.footprint_pages);
    let total: u64 = c.iter().sum();
    // Zipf(0.99) over 256 items: the top rank has 1/6.1 of the updates once it
    // exists (items appear through the trace, so less in all), the median rank
    // ~1/128 of that.
    let top = c[0] as f64 / total as f64;
    let median = c[c.len() / 2] as f64 / total as f64;
    assert!(top > 0.03 && top < 0.3, "top item {top}");
    assert!(median < top / 20.0, "median {median}, top {top}");
}

/// The share of all writes that the most written sector takes, for web_0 at
/// scale 0.1 (256 footprint sectors) with update popularity `theta`.
fn top_write_share(theta: f64) -> f64 {
    let p = *find_profile("web_0").unwrap();
    let rng = RngStreams::new(4).stream("synth");
    let options = LookalikeOptions {
        popularity_theta: theta,
        ..Default::default()
    };
    let t = SynthTrace::with_options(p, 0.1, 10 * GIB, options, rng).unwrap();
    let mut counts = std::collections::BTreeMap::<u64, u64>::new();
    for r in t.filter(|r| r.op == TraceOp::Write) {
        *counts.entry(r.offset_bytes).or_default() += 1;
    }
    let total: u64 = counts.values().sum();
    *counts.values().max().unwrap() as f64 / total as f64
}

#[test]
fn uniform_popularity_spreads_updates_evenly() {
    // Uniform over the sectors written so far: the first sector, alone for a while,
    // gets about H(256) / 256 ≈ 2.4 % of the writes; Zipf(0.99) concentrates more.
    let uniform = top_write_share(0.0);
    assert!(uniform < 0.035, "top sector {uniform}");
    let zipf = top_write_share(0.99);
    assert!(
        zipf > 2.0 * uniform,
        "zipf top {zipf}, uniform top {uniform}"
    );
}

#[test]
fn mixed_sizes_give_multi_page_requests() {
    let (recs, t) = gen_with("src1_2", 0.1, 10 * GIB, RequestSizes::Mix, 5);
    // New items take sizes from the mix (mean 17.8 KiB); updates rewrite an item.
    let mut seen = std::collections::BTreeSet::new();
    let firsts: Vec<u64> = recs
        .iter()
        .filter(|r| r.op == TraceOp::Write && seen.insert(r.offset_bytes))
        .map(|r| r.size_bytes)
        .collect();
    assert_eq!(firsts.len() as u64, t.summary.writes - t.summary.updates);
    let mean = firsts.iter().sum::<u64>() as f64 / firsts.len() as f64 / 1024.0;
    assert!((mean - 17.8).abs() < 3.0, "mean new-item size {mean} KiB");
    assert_eq!(
        t.summary.footprint_pages,
        firsts.iter().sum::<u64>() / 4096,
        "items never overlap"
    );
}

#[test]
fn records_fit_are_aligned_and_time_ordered() {
    for sizes in [RequestSizes::Paper, RequestSizes::Mix] {
        let (recs, _) = gen_with("usr_0", 0.005, GIB, sizes, 2);
        let mut last = 0;
        for r in &recs {
            assert!(r.offset_bytes % 4096 == 0 && r.size_bytes % 4096 == 0);
            assert!(r.offset_bytes + r.size_bytes <= GIB);
            assert!(r.time_ns >= last);
            last = r.time_ns;
        }
    }
}

#[test]
fn deterministic_per_seed() {
    assert_eq!(gen("web_0", 0.002, 5).0, gen("web_0", 0.002, 5).0);
    assert_ne!(gen("web_0", 0.002, 5).0, gen("web_0", 0.002, 6).0);
}

#[test]
fn a_disk_too_small_for_the_footprint_is_an_error() {
    let p = *find_profile("web_0").unwrap();
    let rng = RngStreams::new(1).stream("synth");
    let mix = LookalikeOptions {
        sizes: RequestSizes::Mix,
        ..Default::default()
    };
    let e = SynthTrace::with_options(p, 10.0, 64 * MIB, mix, rng.clone())
        .err()
        .unwrap();
    assert!(e.contains("too small") && e.contains("web_0"), "{e}");
    let bad = LookalikeOptions {
        popularity_theta: 1.5,
        ..Default::default()
    };
    let e = SynthTrace::with_options(p, 0.01, GIB, bad, rng)
        .err()
        .unwrap();
    assert!(e.contains("theta 1.5"), "{e}");
}

#[test]
fn unknown_names_are_not_found() {
    assert!(find_profile("nosuch_9").is_none());
}
