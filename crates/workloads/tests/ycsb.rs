//! YCSB CoreWorkload: generators pinned to YCSB's constants and formulas
//! (brianfrankcooper/YCSB `core/src/main/java/site/ycsb/`), workload mixes,
//! keys, throttling, determinism.

use zonelab_engine::RngStreams;
use zonelab_workloads::ycsb::generators::{
    AcknowledgedCounter, DiscreteGenerator, HotspotGenerator, UniformLongGenerator,
};
use zonelab_workloads::ycsb::zipfian::{
    zeta_fast, zeta_range, zeta_static, ScrambledZipfianGenerator, SkewedLatestGenerator,
    ZipfianGenerator, ITEM_COUNT, USED_ZIPFIAN_CONSTANT, ZETAN, ZETAN_SCRAMBLED_0_9,
    ZETAN_SCRAMBLED_1_2, ZETA_EXACT_TERMS, ZIPFIAN_CONSTANT,
};
use zonelab_workloads::ycsb::*;

fn rng(name: &str) -> zonelab_engine::RngStream {
    RngStreams::new(2024).stream(name)
}

// ---------------------------------------------------------------- keys

#[test]
fn fnvhash64_matches_ycsb_utils() {
    // Computed with YCSB's Utils.fnvhash64 algorithm (FNV-1a over the 8 bytes of
    // the long, low byte first, arithmetic >> 8, Math.abs at the end).
    let cases: [(i64, i64); 9] = [
        (0, 6284781860667377211),
        (1, 8517097267634966620),
        (2, 1820151046732198393),
        (42, 55488592825689361),
        (1000, 5952875239596136740),
        (999_999, 2744965632448235251),
        (-1, 8289690350564177859),
        (i64::MAX, 8289549613075766851),
        (10_000_000_000, 1201321332300452516),
    ];
    for (v, h) in cases {
        assert_eq!(fnvhash64(v), h, "fnvhash64({v})");
    }
    assert_eq!(
        zonelab_workloads::ycsb::keys::FNV_OFFSET_BASIS_64,
        0xCBF29CE484222325
    );
    assert_eq!(zonelab_workloads::ycsb::keys::FNV_PRIME_64, 1099511628211);
}

#[test]
fn key_names_follow_build_key_name() {
    // "user6284781860667377211" is YCSB's well-known first key.
    assert_eq!(
        build_key_name(0, 1, InsertOrder::Hashed),
        "user6284781860667377211"
    );
    assert_eq!(
        build_key_name(1, 1, InsertOrder::Hashed),
        "user8517097267634966620"
    );
    assert_eq!(build_key_name(5, 1, InsertOrder::Ordered), "user5");
    assert_eq!(build_key_name(5, 4, InsertOrder::Ordered), "user0005");
    assert_eq!(
        build_key_name(42, 20, InsertOrder::Hashed),
        "user00055488592825689361"
    );
    for k in [0u64, 1, 42, 999_999, 1 << 40] {
        for order in [InsertOrder::Hashed, InsertOrder::Ordered] {
            let k24 = key_24(k, order);
            assert_eq!(k24.len(), KEY_BYTES);
            assert_eq!(&k24[..], build_key_name(k, 20, order).as_bytes());
        }
    }
    assert_eq!(KEY_BYTES, 24);
}

// ---------------------------------------------------------------- zeta

#[test]
fn zetan_constant_is_pinned_and_reproduced() {
    assert_eq!(ITEM_COUNT, 10_000_000_000);
    assert_eq!(ZIPFIAN_CONSTANT, 0.99);
    assert_eq!(USED_ZIPFIAN_CONSTANT, 0.99);
    assert_eq!(ZETAN.to_bits(), 26.46902820178302f64.to_bits());
    // YCSB's zetastatic loop over 10^10 terms gives exactly ZETAN (checked once
    // with the release build of that loop, bits 0x403a78123b738f4c); the
    // closed-form tail reproduces it to ~1.2e-12 relative (the rest is the
    // rounding of YCSB's 10^10-term f64 sum).
    assert_eq!(ZETAN.to_bits(), 0x403a_7812_3b73_8f4c);
    let fast = zeta_fast(ITEM_COUNT, 0.99);
    assert!(
        ((fast - ZETAN) / ZETAN).abs() < 1e-11,
        "zeta_fast(1e10, 0.99) = {fast}, ZETAN = {ZETAN}"
    );
    // The pinned zetas of ZoneLab's α = 0.9 and 1.2 (YCSB's loop over 10^10 + 1
    // terms); the f64 loop drifts from the true sum by up to ~4e-11 relative (θ = 1.2:
    // tiny terms added to a total of 5.5).
    for (theta, pinned) in [(0.9, ZETAN_SCRAMBLED_0_9), (1.2, ZETAN_SCRAMBLED_1_2)] {
        let fast = zeta_fast(ITEM_COUNT + 1, theta);
        assert!(
            ((fast - pinned) / pinned).abs() < 1e-10,
            "θ={theta}: fast {fast} pinned {pinned}"
        );
    }
}

#[test]
fn zeta_sums_follow_ycsb_loop() {
    for theta in [0.5, 0.9, 0.99, 1.2] {
        assert_eq!(zeta_static(1, theta), 1.0);
        assert_eq!(zeta_static(2, theta), 1.0 + 1.0 / 2f64.powf(theta));
        let mut expect = 0.0;
        for i in 0..1000u64 {
            expect += 1.0 / ((i + 1) as f64).powf(theta);
        }
        assert_eq!(zeta_static(1000, theta), expect);
        // Incremental extension (YCSB's nextLong when items grow) is the same sum.
        assert_eq!(
            zeta_range(400, 1000, theta, zeta_static(400, theta)),
            expect
        );
        // Below the threshold zeta_fast is the loop; above it, within 1e-12.
        assert_eq!(zeta_fast(1000, theta), expect);
        let n = ZETA_EXACT_TERMS * 3 + 7;
        let exact = zeta_static(n, theta);
        assert!(((zeta_fast(n, theta) - exact) / exact).abs() < 1e-12);
    }
}

// ---------------------------------------------------------------- zipfian

fn histogram(gen: &mut ZipfianGenerator, n: usize, samples: usize, name: &str) -> Vec<u64> {
    let mut r = rng(name);
    let mut h = vec![0u64; n];
    for _ in 0..samples {
        let v = gen.next(&mut r) as usize;
        assert!(v < n, "value {v} out of 0..{n}");
        h[v] += 1;
    }
    h
}

#[test]
fn zipfian_frequencies_follow_the_formula() {
    let n = 1000u64;
    let samples = 1_000_000usize;
    for theta in [0.99, 0.9, 1.2, 0.5] {
        let mut g = ZipfianGenerator::new(0, n - 1, theta);
        let zetan = zeta_static(n, theta);
        assert_eq!(g.zetan(), zetan);
        let h = histogram(&mut g, n as usize, samples, &format!("zipf{theta}"));
        // Ranks 0 and 1 are exact in YCSB's formula: 1/zetan and 2^-θ/zetan.
        for rank in 0..2u64 {
            let p = 1.0 / (((rank + 1) as f64).powf(theta) * zetan);
            let got = h[rank as usize] as f64 / samples as f64;
            let sigma = (p * (1.0 - p) / samples as f64).sqrt();
            assert!(
                (got - p).abs() < 5.0 * sigma,
                "θ={theta} rank {rank}: got {got}, want {p}"
            );
        }
        // Beyond, Gray's inverse `(long)(n·(eta·u − eta + 1)^alpha)` gives the CDF
        // F(k) = max((1 + 0.5^θ)/zetan, 1 − (1 − ((k+1)/n)^(1−θ))/eta) for k ≥ 1
        // (for θ < 1 and θ > 1 alike); the run must follow it...
        let eta =
            (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta_static(2, theta) / zetan);
        let cdf = |k: u64| -> f64 {
            let c = ((k + 1) as f64 / n as f64).powf(1.0 - theta);
            ((1.0 + 0.5f64.powf(theta)) / zetan)
                .max(1.0 - (1.0 - c) / eta)
                .min(1.0)
        };
        let mut below = 0u64;
        for k in 0..n - 1 {
            below += h[k as usize];
            if [1, 2, 9, 99, 500].contains(&k) {
                let got = below as f64 / samples as f64;
                let p = cdf(k);
                let sigma = (p * (1.0 - p) / samples as f64).sqrt();
                assert!(
                    (got - p).abs() < 5.0 * sigma,
                    "θ={theta} F({k}): got {got}, formula {p}"
                );
                // ...which is within 5 % of the ideal zipf CDF (YCSB's approximation error).
                let ideal: f64 = (1..=k + 1)
                    .map(|i| 1.0 / ((i as f64).powf(theta) * zetan))
                    .sum();
                assert!(
                    (p - ideal).abs() / ideal < 0.05,
                    "θ={theta} F({k}) {p} vs ideal {ideal}"
                );
            }
        }
        // Monotone-ish: the most popular value is rank 0.
        assert_eq!(h.iter().enumerate().max_by_key(|(_, c)| **c).unwrap().0, 0);
    }
}

#[test]
fn zipfian_with_offset_stays_in_min_max() {
    let mut g = ZipfianGenerator::new(100, 199, 0.99);
    let mut r = rng("offset");
    for _ in 0..100_000 {
        let v = g.next(&mut r);
        assert!((100..=199).contains(&v));
    }
}

#[test]
fn scrambled_zipfian_spreads_hot_keys() {
    let n = 10_000u64;
    let mut g = ScrambledZipfianGenerator::new(0, n - 1);
    assert_eq!(g.zipfian().items(), ITEM_COUNT + 1);
    assert_eq!(g.zipfian().zetan(), ZETAN);
    let mut r = rng("scrambled");
    let samples = 1_000_000;
    let mut h = vec![0u64; n as usize];
    for _ in 0..samples {
        h[g.next(&mut r) as usize] += 1;
    }
    // The hottest key is where rank 0 lands: fnvhash64(0) % n = 7211, hit with
    // probability ≈ 1/ZETAN (plus the few colliding ranks).
    let hottest = ScrambledZipfianGenerator::scatter(0, n);
    assert_eq!(hottest, 6284781860667377211 % n);
    assert_eq!(
        h.iter().enumerate().max_by_key(|(_, c)| **c).unwrap().0 as u64,
        hottest
    );
    let p0 = h[hottest as usize] as f64 / samples as f64;
    assert!(
        (p0 - 1.0 / ZETAN).abs() < 0.002,
        "p(hottest) = {p0}, 1/ZETAN = {}",
        1.0 / ZETAN
    );
    // The 10 hottest keys are spread over the key space, not clustered at 0.
    let mut idx: Vec<usize> = (0..n as usize).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(h[i]));
    let top: Vec<usize> = idx[..10].to_vec();
    let deciles: std::collections::BTreeSet<usize> =
        top.iter().map(|&k| k * 10 / n as usize).collect();
    assert!(deciles.len() >= 5, "hot keys clustered: {top:?}");
    for (rank, &k) in top.iter().take(3).enumerate() {
        assert_eq!(k as u64, ScrambledZipfianGenerator::scatter(rank as u64, n));
    }
}

#[test]
fn scrambled_zipfian_with_other_constants() {
    for theta in [0.9, 1.2] {
        let mut g = ScrambledZipfianGenerator::with_constant(0, 9_999, theta);
        let zetan = g.zipfian().zetan();
        let mut r = rng("scr-theta");
        let samples = 400_000;
        let hot = ScrambledZipfianGenerator::scatter(0, 10_000);
        let mut hits = 0;
        for _ in 0..samples {
            let v = g.next(&mut r);
            assert!(v < 10_000);
            hits += (v == hot) as u64;
        }
        let p = hits as f64 / samples as f64;
        assert!(
            (p - 1.0 / zetan).abs() < 0.01,
            "θ={theta}: p(hot) {p} vs 1/zetan {}",
            1.0 / zetan
        );
    }
}

#[test]
fn skewed_latest_favours_recent_and_follows_the_counter() {
    let mut counter = AcknowledgedCounter::new(1000);
    assert_eq!(counter.last_value(), 999);
    let mut g = SkewedLatestGenerator::new(counter.last_value());
    assert_eq!(g.zipfian().items(), 999);
    let mut r = rng("latest");
    let samples = 200_000;
    let mut at_last = 0;
    for _ in 0..samples {
        let k = g.next(&mut r, counter.last_value());
        assert!(k <= 999);
        at_last += (k == 999) as u64;
    }
    // P(last) = P(zipfian rank 0) = 1/zeta(999, 0.99).
    let p = 1.0 / zeta_static(999, 0.99);
    let got = at_last as f64 / samples as f64;
    assert!((got - p).abs() < 0.005, "p(latest) {got} vs {p}");
    // After 500 inserts, the newest key is the hottest; zetan grew incrementally.
    for _ in 0..500 {
        counter.next_value();
    }
    assert_eq!(counter.last_value(), 1499);
    let mut recent = 0;
    for _ in 0..samples {
        let k = g.next(&mut r, counter.last_value());
        assert!(k <= 1499);
        recent += (k >= 1000) as u64;
    }
    assert_eq!(g.zipfian().zetan(), zeta_static(1499, 0.99));
    assert!(
        recent as f64 / samples as f64 > 0.8,
        "recent share {}",
        recent as f64 / samples as f64
    );
}

// ---------------------------------------------------------------- simple generators

#[test]
fn uniform_discrete_hotspot_generators() {
    let g = UniformLongGenerator::new(5, 14);
    let mut r = rng("uni");
    let mut h = [0u64; 10];
    for _ in 0..100_000 {
        let v = g.next(&mut r);
        assert!((5..=14).contains(&v));
        h[(v - 5) as usize] += 1;
    }
    assert!(h.iter().all(|&c| (9_000..11_000).contains(&c)), "{h:?}");

    let d = DiscreteGenerator::new(&[(0.0, 'x'), (3.0, 'a'), (1.0, 'b')]).unwrap();
    let mut a = 0;
    for _ in 0..100_000 {
        match d.next(&mut r) {
            'a' => a += 1,
            'b' => {}
            other => panic!("zero-weight value {other} drawn"),
        }
    }
    assert!((a as f64 / 100_000.0 - 0.75).abs() < 0.01);
    assert!(DiscreteGenerator::<u8>::new(&[(0.0, 1)]).is_none());

    let hs = HotspotGenerator::new(0, 999, 0.2, 0.8);
    assert_eq!(hs.intervals(), (200, 800));
    let mut hot = 0;
    for _ in 0..100_000 {
        let v = hs.next(&mut r);
        assert!(v < 1000);
        hot += (v < 200) as u64;
    }
    assert!((hot as f64 / 100_000.0 - 0.8).abs() < 0.01);
}

// ---------------------------------------------------------------- workloads

fn mix(spec: &CoreWorkloadSpec, seed: u64) -> [f64; 5] {
    let mut c = [0u64; 5];
    let ops: Vec<YcsbOp> = spec.run(&RngStreams::new(seed)).unwrap().collect();
    assert_eq!(ops.len() as u64, spec.operation_count);
    for op in &ops {
        let i = match op {
            YcsbOp::Read { .. } => 0,
            YcsbOp::Update { .. } => 1,
            YcsbOp::Insert { .. } => 2,
            YcsbOp::Scan { .. } => 3,
            YcsbOp::ReadModifyWrite { .. } => 4,
        };
        c[i] += 1;
    }
    c.map(|x| x as f64 / ops.len() as f64)
}

#[test]
fn presets_match_ycsb_workload_files() {
    let expect = [
        ('a', [0.5, 0.5, 0.0, 0.0, 0.0], RequestDistribution::Zipfian),
        (
            'b',
            [0.95, 0.05, 0.0, 0.0, 0.0],
            RequestDistribution::Zipfian,
        ),
        ('c', [1.0, 0.0, 0.0, 0.0, 0.0], RequestDistribution::Zipfian),
        (
            'd',
            [0.95, 0.0, 0.05, 0.0, 0.0],
            RequestDistribution::Latest,
        ),
        (
            'e',
            [0.0, 0.0, 0.05, 0.95, 0.0],
            RequestDistribution::Zipfian,
        ),
        ('f', [0.5, 0.0, 0.0, 0.0, 0.5], RequestDistribution::Zipfian),
    ];
    for (letter, props, dist) in expect {
        let mut spec = workload(letter).unwrap();
        assert_eq!(
            [
                spec.read_proportion,
                spec.update_proportion,
                spec.insert_proportion,
                spec.scan_proportion,
                spec.read_modify_write_proportion
            ],
            props,
            "workload {letter}"
        );
        assert_eq!(spec.request_distribution, dist);
        assert_eq!((spec.record_count, spec.operation_count), (1000, 1000));
        assert_eq!(spec.max_scan_length, if letter == 'e' { 100 } else { 1000 });
        spec.operation_count = 100_000;
        let got = mix(&spec, 11);
        for i in 0..5 {
            assert!(
                (got[i] - props[i]).abs() < 0.006,
                "workload {letter}: mix {got:?} vs {props:?}"
            );
        }
    }
    assert!(workload('g').is_err());
}

#[test]
fn record_and_key_sizes() {
    let spec = workload_a();
    assert_eq!(spec.record_value_bytes(), 1000);
    assert_eq!(spec.update_value_bytes(), 100);
    let all = CoreWorkloadSpec {
        write_all_fields: true,
        ..workload_a()
    };
    assert_eq!(all.update_value_bytes(), 1000);
    let load: Vec<YcsbOp> = spec.load().unwrap().collect();
    assert_eq!(load.len(), 1000);
    for (i, op) in load.iter().enumerate() {
        assert_eq!(
            *op,
            YcsbOp::Insert {
                key: i as u64,
                value_bytes: 1000
            }
        );
    }
    for op in spec.run(&RngStreams::new(1)).unwrap() {
        match op {
            YcsbOp::Update { value_bytes, .. } => assert_eq!(value_bytes, 100),
            YcsbOp::Read { .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}

#[test]
fn scan_lengths_are_uniform_in_1_to_max() {
    let mut spec = workload_e();
    spec.operation_count = 100_000;
    let mut seen = [0u64; 101];
    let mut scans = 0;
    for op in spec.run(&RngStreams::new(5)).unwrap() {
        if let YcsbOp::Scan { len, .. } = op {
            assert!((1..=100).contains(&len), "scan length {len}");
            seen[len as usize] += 1;
            scans += 1;
        }
    }
    assert!(
        seen[1..].iter().all(|&c| c > 0),
        "every length 1..=100 occurs"
    );
    let mean = seen
        .iter()
        .enumerate()
        .map(|(l, c)| l as f64 * *c as f64)
        .sum::<f64>()
        / scans as f64;
    assert!((mean - 50.5).abs() < 0.5, "mean scan length {mean}");
}

#[test]
fn inserts_advance_the_counter_and_keys_stay_inserted() {
    for mut spec in [workload_d(), workload_e()] {
        spec.operation_count = 20_000;
        let mut run = spec.run(&RngStreams::new(9)).unwrap();
        let mut next_insert = spec.record_count;
        let mut latest_hits = 0u64;
        let mut reads = 0u64;
        while let Some(op) = run.next() {
            match op {
                YcsbOp::Insert { key, value_bytes } => {
                    assert_eq!(key, next_insert);
                    assert_eq!(value_bytes, 1000);
                    next_insert += 1;
                }
                other => {
                    assert!(
                        other.key() < next_insert,
                        "{other:?} chose a key not yet inserted"
                    );
                    reads += 1;
                    latest_hits += (other.key() + 10 >= next_insert) as u64;
                }
            }
            assert_eq!(run.last_inserted_key(), next_insert - 1);
        }
        if spec.request_distribution == RequestDistribution::Latest {
            // D: the 10 newest keys take a large share of reads (zipfian over recency).
            let share = latest_hits as f64 / reads as f64;
            assert!(
                share > 0.25,
                "share of reads on the 10 newest keys: {share}"
            );
        } else {
            // E: zipfian bound = recordcount + (int)(opcount · 0.05 · 2).
            assert_eq!(spec.expected_new_keys(), 2000);
        }
    }
}

#[test]
fn custom_mix_and_alpha() {
    let mut spec = custom(0.7, 1.2).unwrap();
    assert_eq!(spec.zipfian_constant, 1.2);
    spec.operation_count = 50_000;
    let got = mix(&spec, 3);
    assert!(
        (got[0] - 0.7).abs() < 0.01 && (got[1] - 0.3).abs() < 0.01,
        "{got:?}"
    );
    // Higher α concentrates more accesses on the hottest key.
    let hottest_share = |alpha: f64| {
        let mut s = custom(1.0, alpha).unwrap();
        s.operation_count = 50_000;
        let hot = ScrambledZipfianGenerator::scatter(0, s.record_count + 1);
        let n = s
            .run(&RngStreams::new(4))
            .unwrap()
            .filter(|op| op.key() == hot)
            .count();
        n as f64 / 50_000.0
    };
    let (a09, a099, a12) = (hottest_share(0.9), hottest_share(0.99), hottest_share(1.2));
    assert!(a09 < a099 && a099 < a12, "{a09} {a099} {a12}");
    assert!(custom(1.5, 0.9).is_err());
    let e = custom(0.5, 1.0).unwrap_err();
    assert_eq!(e.property, "zipfianconstant");
    assert!(e.to_string().contains("zipfianconstant = 1"), "{e}");
}

#[test]
fn validation_names_the_property() {
    let cases: Vec<(CoreWorkloadSpec, &str)> = vec![
        (
            CoreWorkloadSpec {
                record_count: 0,
                ..workload_a()
            },
            "recordcount",
        ),
        (
            CoreWorkloadSpec {
                update_proportion: -0.1,
                ..workload_a()
            },
            "updateproportion",
        ),
        (
            CoreWorkloadSpec {
                read_proportion: 0.0,
                update_proportion: 0.0,
                ..workload_a()
            },
            "readproportion",
        ),
        (
            CoreWorkloadSpec {
                max_scan_length: 0,
                ..workload_e()
            },
            "maxscanlength",
        ),
        (
            CoreWorkloadSpec {
                field_count: 0,
                ..workload_a()
            },
            "fieldcount",
        ),
        (
            CoreWorkloadSpec {
                zipfian_constant: f64::NAN,
                ..workload_a()
            },
            "zipfianconstant",
        ),
        (
            CoreWorkloadSpec {
                request_distribution: RequestDistribution::Hotspot {
                    data_fraction: 1.5,
                    opn_fraction: 0.8,
                },
                ..workload_a()
            },
            "hotspotdatafraction",
        ),
    ];
    for (spec, property) in cases {
        assert_eq!(spec.validate().unwrap_err().property, property);
        assert!(spec.run(&RngStreams::new(1)).is_err());
    }
}

#[test]
fn runs_are_deterministic_per_seed() {
    for letter in ['a', 'b', 'c', 'd', 'e', 'f'] {
        let spec = workload(letter).unwrap();
        let a: Vec<YcsbOp> = spec.run(&RngStreams::new(77)).unwrap().collect();
        let b: Vec<YcsbOp> = spec.run(&RngStreams::new(77)).unwrap().collect();
        let c: Vec<YcsbOp> = spec.run(&RngStreams::new(78)).unwrap().collect();
        assert_eq!(a, b, "workload {letter}");
        assert_ne!(a, c, "workload {letter}");
    }
}

#[test]
fn target_throttle_spacing() {
    let spec = CoreWorkloadSpec {
        target_ops_per_s: 1000,
        ..workload_a()
    };
    assert_eq!(spec.inter_arrival_ns(), Some(1_000_000));
    assert_eq!(workload_a().inter_arrival_ns(), None);
    let t = spec.throttle().unwrap();
    assert_eq!(t.deadline_ns(500, 0), 500);
    assert_eq!(t.deadline_ns(500, 3), 3_000_500);
    // Closed loop: a late completion delays the next start, an early one does not.
    assert_eq!(t.next_start_ns(0, 2, 1_500_000), 2_000_000);
    assert_eq!(t.next_start_ns(0, 2, 2_500_000), 2_500_000);
    for target in [1u64, 3, 7, 1000, 12_345, 1_000_000] {
        let tick = Throttle::new(target, 1).unwrap().tick_ns();
        // YCSB: (long)(1e6 / (target / 1000.0)) = floor(1e9 / target) (to the ns).
        assert!(
            (tick as i64 - (1_000_000_000 / target) as i64).abs() <= 1,
            "target {target}: {tick}"
        );
    }
    assert_eq!(Throttle::new(1000, 4).unwrap().tick_ns(), 4_000_000);
    assert_eq!(Throttle::new(0, 1), None);
}
