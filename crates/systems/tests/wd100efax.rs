//! The profiler on the real `wd100efax` device model: the parameters it derives
//! against the paper's WD 10 TB numbers for 64 KB writes (§3.2, Fig. 1), and
//! determinism on a real model.

use zonelab_devices::{open_device, open_device_with, ProfileOverride};
use zonelab_engine::{KIB, MIB};
use zonelab_systems::mios::{
    accuracy_experiment, paper, profile, record_trace, AccuracyConfig, AccuracyReport,
    ProfileConfig, WriteState,
};

fn deviation(name: &str, measured: u64, paper: u64) -> f64 {
    let dev = measured as f64 / paper as f64 - 1.0;
    eprintln!(
        "{name}: measured {measured}, paper {paper} ({:+.1}%)",
        dev * 100.0
    );
    dev
}

/// 64 KiB writes back to back after a sync (the paper's profiling, §3.1), against
/// §3.2's WD 10 TB numbers.
///
/// Within ±15% of the paper: L_f, L_m, T_m, W_f, W_m. Two misses, reported here and
/// asserted as what the mechanism gives:
/// - L_s: the model's slow write waits one revolution plus its own drain, 8.6–10.6 ms
///   at 7,200 rpm (paper 12 ms): the device model's documented miss
///   (crates/devices/tests/hdd_write_cache.rs).
/// - T_f: back to back, the Fast stage lasts W_f / s × L_f = 256 × 180 µs = 46 ms.
///   The paper's 60 ms contradicts its own W_f = T_f · s / L_f (60 ms at 180 µs per
///   64 KB is 21 MB, not 16 MB); the next test shows that a host turnaround of 54 µs
///   between writes reconciles them.
#[test]
fn wd100efax_64k_profile_matches_the_paper_within_15_percent() {
    let mut d = open_device("wd100efax").unwrap();
    let p = profile(
        d.as_mut(),
        &ProfileConfig::new(64 * KIB).with_total(64 * MIB),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let q = p.params;
    eprintln!(
        "wd100efax 64 KiB profile: {}",
        serde_json::to_string(&p).unwrap()
    );
    let holds = [
        ("L_f ns", q.l_f_ns, paper::WD10TB_64K_L_F_NS),
        ("L_m ns", q.l_m_ns, paper::WD10TB_64K_L_M_NS),
        ("T_m ns", q.t_m_ns, paper::WD10TB_64K_T_M_NS),
        ("W_f bytes", q.w_f_bytes, paper::WD10TB_64K_W_F_BYTES),
        ("W_m bytes", q.w_m_bytes, paper::WD10TB_64K_W_M_BYTES),
    ];
    let misses: Vec<String> = holds
        .iter()
        .filter(|(name, m, p)| deviation(name, *m, *p).abs() > 0.15)
        .map(|(name, m, p)| format!("{name} {m} vs paper {p}"))
        .collect();
    assert!(
        misses.is_empty(),
        "outside ±15% of the paper: {}",
        misses.join("; ")
    );
    // The reported misses.
    deviation("L_s ns (known miss)", q.l_s_ns, paper::WD10TB_64K_L_S_NS);
    deviation("T_f ns (known miss)", q.t_f_ns, paper::WD10TB_64K_T_F_NS);
    assert!(
        (8_333_333..=8_333_333 + 2_500_000).contains(&q.l_s_ns),
        "L_s {}: one revolution plus a drain",
        q.l_s_ns
    );
    let back_to_back = q.w_f_bytes / q.write_bytes * q.l_f_ns;
    assert!(
        (q.t_f_ns as f64 / back_to_back as f64 - 1.0).abs() <= 0.01,
        "T_f {} vs W_f/s x L_f {back_to_back}",
        q.t_f_ns
    );
    // A clean staircase: every fast write before the first slow one, one slow
    // write per spike.
    assert_eq!((p.stray_writes, p.params.w_s_bytes), (0, 64 * KIB));
}

/// With a 54 µs host turnaround (60 ms / 256 − 180 µs), the Fast stage lasts the
/// paper's 60 ms while L_f and W_f stay.
#[test]
fn wd100efax_with_a_host_turnaround_has_the_papers_t_f() {
    let mut d = open_device("wd100efax").unwrap();
    let cfg = ProfileConfig::new(64 * KIB)
        .with_total(64 * MIB)
        .with_turnaround(54_000);
    let q = profile(d.as_mut(), &cfg)
        .unwrap_or_else(|e| panic!("{e}"))
        .params;
    for (name, m, p) in [
        ("T_f ns", q.t_f_ns, paper::WD10TB_64K_T_F_NS),
        ("L_f ns", q.l_f_ns, paper::WD10TB_64K_L_F_NS),
        ("W_f bytes", q.w_f_bytes, paper::WD10TB_64K_W_F_BYTES),
    ] {
        assert!(
            deviation(name, m, p).abs() <= 0.15,
            "{name} {m} vs paper {p}"
        );
    }
}

#[test]
fn wd100efax_profiles_are_deterministic() {
    let run = || {
        let mut d = open_device("wd100efax").unwrap();
        let cfg = ProfileConfig::new(64 * KIB).with_total(32 * MIB);
        let trace = record_trace(d.as_mut(), &cfg).unwrap();
        let analysis =
            zonelab_systems::mios::analyse(&trace).map(|p| serde_json::to_string(&p).unwrap());
        (trace, analysis)
    };
    assert_eq!(run(), run());
}

fn accuracy(scale: f64) -> AccuracyReport {
    let mut d = open_device("wd100efax").unwrap();
    let cfg = AccuracyConfig::scaled(scale).unwrap();
    let r = accuracy_experiment(d.as_mut(), &cfg, &mut |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "wd100efax predictor accuracy, {} writes of {} B, {} syncs (scale {scale}): profile {:?}",
        r.writes, r.write_bytes, r.syncs, r.params
    );
    for (st, paper) in [
        (WriteState::F, paper::ACCURACY_F),
        (WriteState::M, paper::ACCURACY_M),
        (WriteState::S, paper::ACCURACY_S),
    ] {
        let a = r.state(st);
        eprintln!(
            "  {st}: {}/{} = {:?} (paper {paper})",
            a.correct, a.actual, a.accuracy
        );
    }
    eprintln!("  confusion[predicted][actual] = {:?}", r.confusion);
    r
}

/// §4.1's test at 1/100 of the paper's 100 GB (1 GiB: one sync period).
#[test]
fn wd100efax_predictor_tracks_fast_and_mid_writes() {
    let r = accuracy(0.01);
    assert!(
        r.f.accuracy.unwrap_or(0.0) >= 0.95 && r.m.accuracy.unwrap_or(0.0) >= 0.95,
        "{r:?}"
    );
    assert!(r.s.actual > 0);
}

/// The paper's full 100 GB: `cargo test --release -p zonelab-systems --test
/// wd100efax -- --ignored --nocapture paper_scale`.
#[test]
#[ignore = "paper scale (100 GiB of writes); run by hand"]
fn wd100efax_predictor_accuracy_paper_scale() {
    accuracy(1.0);
}

/// §4.1's test at 1/50 of the paper's 100 GB (two sync periods) on a drive
/// whose usable write room is drawn with spread `jitter_kib` (seed `seed`).
fn accuracy_with_room_spread(jitter_kib: u32, seed: u64) -> AccuracyReport {
    let set: Vec<ProfileOverride> = [
        format!("cache.room_jitter_kib={jitter_kib}"),
        format!("cache.jitter_seed={seed}"),
    ]
    .iter()
    .map(|s| ProfileOverride::parse(s).unwrap())
    .collect();
    let mut d = open_device_with("wd100efax", &set).unwrap();
    let cfg = AccuracyConfig::scaled(0.02).unwrap();
    let r = accuracy_experiment(d.as_mut(), &cfg, &mut |_, _| {}).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "room spread {jitter_kib} KiB, seed {seed}: W_f {} W_m {}, confusion[predicted][actual] {:?}",
        r.params.w_f_bytes, r.params.w_m_bytes, r.confusion
    );
    r
}

/// The drive's usable room varies (`cache.room_jitter_kib`, the module docs of
/// `hdd_write_cache.rs`): §4.1's test then finds Slow writes where the predictor
/// said M — the errors a drive whose stages are fixed in bytes never gives (with
/// no spread every F and M prediction is right) — and the run is the same twice.
#[test]
fn a_varying_room_makes_the_predictor_meet_slow_writes_it_predicted_mid() {
    let fixed = accuracy_with_room_spread(0, 1);
    assert_eq!(
        fixed.confusion[0][1] + fixed.confusion[0][2],
        0,
        "F never wrong"
    );
    assert_eq!(
        fixed.confusion[1][0] + fixed.confusion[1][2],
        0,
        "M never wrong"
    );
    let varied = accuracy_with_room_spread(1024, 2);
    let m_met_s = varied.confusion[1][2];
    assert!(m_met_s > 0, "{:?}", varied.confusion);
    // Each such error is a Mid stage whose S came early: at most a few per stage.
    let mid_stages = varied.s.actual;
    assert!(
        m_met_s <= 4 * mid_stages,
        "{m_met_s} in {mid_stages} stages"
    );
    assert!(varied.m.precision.unwrap() < 1.0);
    assert_eq!(varied, accuracy_with_room_spread(1024, 2));
}
