//! The §3 profiler against a fake disk with a simple write buffer (tests/common):
//! parameters recovered from latencies alone, robustness to jitter and rare slow
//! writes, and a clear error for every device without a staircase.

mod common;

use common::BufferDisk;
use zonelab_devices::Device;
use zonelab_engine::{KIB, MIB};
use zonelab_systems::mios::{
    profile, record_trace, HddProfile, MiosError, ProfileConfig, WriteState,
};

fn profile_of(
    dev: &mut BufferDisk,
    write_bytes: u64,
    total_bytes: u64,
) -> Result<HddProfile, MiosError> {
    profile(
        dev,
        &ProfileConfig::new(write_bytes).with_total(total_bytes),
    )
}

fn within(measured: u64, expected: u64, tol: f64) -> bool {
    (measured as f64 / expected as f64 - 1.0).abs() <= tol
}

#[test]
fn recovers_the_buffer_model_exactly() {
    let p = profile_of(&mut BufferDisk::wd_like(), 64 * KIB, 64 * MIB).unwrap();
    let q = p.params;
    assert_eq!(
        (q.l_f_ns, q.l_m_ns, q.l_s_ns),
        (180_000, 280_000, 12_000_000)
    );
    assert_eq!(
        (q.w_f_bytes, q.w_m_bytes, q.w_s_bytes),
        (16 * MIB, 8 * MIB, 64 * KIB)
    );
    // T_f = 256 fast writes, T_m = 128 mid writes, T_s = one slow write.
    assert_eq!(
        (q.t_f_ns, q.t_m_ns, q.t_s_ns),
        (256 * 180_000, 128 * 280_000, 12_000_000)
    );
    // 1024 writes: 256 F, then (S + 128 M) x5, then S + 122 M.
    assert_eq!((p.counts.f, p.counts.m, p.counts.s), (256, 762, 6));
    assert_eq!(
        (p.slow_stages, p.complete_mid_stages, p.stray_writes),
        (6, 5, 0)
    );
    assert_eq!(
        (p.writes, p.total_bytes, p.write_bytes),
        (1024, 64 * MIB, 64 * KIB)
    );
    assert_eq!(p.states[255], WriteState::F);
    assert_eq!(p.states[256], WriteState::S);
    assert_eq!(p.states[257], WriteState::M);
    assert_eq!(p.device, "fake-buffer-disk");
}

#[test]
fn the_run_syncs_first_and_writes_back_to_back() {
    let mut d = BufferDisk::wd_like();
    let t = record_trace(
        &mut d,
        &ProfileConfig {
            write_bytes: 64 * KIB,
            total_bytes: 64 * MIB + 1000,
            start_lba: 2048,
            start_ns: 7,
            turnaround_ns: 0,
        },
    )
    .unwrap();
    assert_eq!(t.sync_done_ns, 7 + 500_000);
    assert_eq!(t.samples.len(), 1024, "rounded down to whole writes");
    assert_eq!(t.samples[0].submit_ns, t.sync_done_ns);
    for w in t.samples.windows(2) {
        assert_eq!(
            w[1].submit_ns,
            w[0].done_ns(),
            "QD1: each write when the previous completes"
        );
    }
    assert_eq!(t.next_lba(), 2048 + 1024 * 128);
}

#[test]
fn a_host_turnaround_spaces_the_writes_and_lengthens_the_stages() {
    let mut d = BufferDisk::wd_like();
    let p = profile(
        &mut d,
        &ProfileConfig::new(64 * KIB).with_turnaround(54_000),
    )
    .unwrap();
    let t = &p.trace;
    assert_eq!(t.samples[1].submit_ns, t.samples[0].done_ns() + 54_000);
    // 256 fast writes of 180 µs with 255 gaps of 54 µs.
    assert_eq!(p.params.t_f_ns, 256 * 180_000 + 255 * 54_000);
    assert_eq!(p.params.l_f_ns, 180_000);
}

#[test]
fn jitter_does_not_change_the_classification() {
    let mut d = BufferDisk::wd_like().with(|d| d.jitter_permille = 50);
    let p = profile_of(&mut d, 64 * KIB, 64 * MIB).unwrap();
    assert_eq!(
        (p.counts.f, p.counts.m, p.counts.s, p.stray_writes),
        (256, 762, 6, 0)
    );
    let q = p.params;
    assert!(
        within(q.l_f_ns, 180_000, 0.05)
            && within(q.l_m_ns, 280_000, 0.05)
            && within(q.l_s_ns, 12_000_000, 0.05),
        "{q:?}"
    );
    assert_eq!((q.w_f_bytes, q.w_m_bytes), (16 * MIB, 8 * MIB));
    assert!(
        within(q.t_f_ns, 256 * 180_000, 0.01) && within(q.t_m_ns, 128 * 280_000, 0.01),
        "{q:?}"
    );
}

#[test]
fn small_writes_with_rare_slow_writes() {
    // 16 KiB: 4096 writes of which 6 are slow (0.15%).
    let mut d = BufferDisk::wd_like().with(|d| {
        d.l_f_ns = 66_000;
        d.l_m_ns = 135_000;
    });
    let p = profile_of(&mut d, 16 * KIB, 64 * MIB).unwrap();
    assert_eq!((p.counts.f, p.counts.s), (1024, 6));
    assert_eq!(
        (p.params.w_f_bytes, p.params.w_m_bytes),
        (16 * MIB, 8 * MIB)
    );
    assert_eq!((p.params.l_f_ns, p.params.l_m_ns), (66_000, 135_000));
}

/// Head-switch-like hiccups in the mid stages (1 ms, 4.6x a mid write) with slow
/// writes only 3.4x above them: the slow level is the top one, and the hiccups
/// count as mid writes.
#[test]
fn hiccups_between_mid_and_slow_are_mid_writes() {
    let mut d = BufferDisk::wd_like().with(|d| {
        d.hiccup_every = 30;
        d.hiccup_ns = 1_000_000;
        d.l_s_ns = 4_300_000;
    });
    let p = profile_of(&mut d, 64 * KIB, 64 * MIB).unwrap();
    let q = p.params;
    assert_eq!(
        (p.counts.f, p.counts.m, p.counts.s, p.stray_writes),
        (256, 762, 6, 0)
    );
    assert_eq!(
        (q.l_f_ns, q.l_m_ns, q.l_s_ns),
        (180_000, 280_000, 4_300_000)
    );
    assert_eq!((q.w_f_bytes, q.w_m_bytes), (16 * MIB, 8 * MIB));
    assert!(q.thresholds.classify(1_280_000) == WriteState::M, "{q:?}");
}

#[test]
fn longer_spikes_are_one_slow_stage() {
    let mut d = BufferDisk::wd_like().with(|d| d.slow_writes = 3);
    let p = profile_of(&mut d, 64 * KIB, 64 * MIB).unwrap();
    assert_eq!(
        (p.params.w_s_bytes, p.params.t_s_ns, p.params.l_s_ns),
        (3 * 64 * KIB, 36_000_000, 12_000_000)
    );
    assert_eq!(
        (p.params.w_f_bytes, p.params.w_m_bytes),
        (16 * MIB, 8 * MIB)
    );
}

#[test]
fn devices_without_a_staircase_get_a_clear_error() {
    // One level (SSD-like).
    let e = profile_of(&mut BufferDisk::flat(), 64 * KIB, 64 * MIB).unwrap_err();
    assert!(matches!(e, MiosError::NoStaircase { .. }), "{e}");
    assert!(e.to_string().contains("one latency level"), "{e}");
    // Slow writes, but fast and mid writes alike (two levels).
    let mut d = BufferDisk::wd_like().with(|d| d.l_m_ns = d.l_f_ns);
    let e = profile_of(&mut d, 64 * KIB, 64 * MIB).unwrap_err();
    assert!(
        e.to_string()
            .contains("buffered writes form one latency level"),
        "{e}"
    );
    // Less written than the buffer holds: all fast.
    let e = profile_of(&mut BufferDisk::wd_like(), 64 * KIB, 8 * MIB).unwrap_err();
    assert!(matches!(e, MiosError::NoStaircase { .. }), "{e}");
    // One spike only: too short to tell a slow level from a stall.
    let e = profile_of(&mut BufferDisk::wd_like(), 64 * KIB, 20 * MIB).unwrap_err();
    assert!(matches!(e, MiosError::TooShort { .. }), "{e}");
    assert!(
        e.to_string().contains("only 1 write(s) (up to 12.00 ms)"),
        "{e}"
    );
    // A spike of two writes: a slow level, but no complete mid stage.
    let mut d = BufferDisk::wd_like().with(|d| d.slow_writes = 2);
    let e = profile_of(&mut d, 64 * KIB, 20 * MIB).unwrap_err();
    assert!(matches!(e, MiosError::TooShort { .. }), "{e}");
    assert!(e.to_string().contains("one slow stage"), "{e}");
}

#[test]
fn bad_parameters_are_errors_naming_the_value() {
    let mut d = BufferDisk::wd_like();
    for (size, total, what) in [
        (0, MIB, "write size"),
        (1000, MIB, "write size"),
        (64 * KIB, 1000, "total"),
        (64 * KIB, 4 << 40, "total"),
    ] {
        let e = profile_of(&mut d, size, total).unwrap_err();
        match &e {
            MiosError::BadConfig { what: w, .. } => assert_eq!(*w, what, "{e}"),
            _ => panic!("{size} {total}: {e}"),
        }
    }
    // The device refusing a command is a typed error too.
    let cap = d.info().capacity_blocks;
    let e = record_trace(
        &mut d,
        &ProfileConfig {
            write_bytes: 512,
            total_bytes: 1024,
            start_lba: cap - 1,
            start_ns: 0,
            turnaround_ns: 0,
        },
    )
    .unwrap_err();
    assert!(
        matches!(e, MiosError::BadConfig { what: "total", .. }),
        "{e}"
    );
}

#[test]
fn profiles_are_deterministic() {
    let run = || {
        let mut d = BufferDisk::wd_like().with(|d| d.jitter_permille = 80);
        let p = profile_of(&mut d, 64 * KIB, 64 * MIB).unwrap();
        (serde_json::to_string(&p).unwrap(), p.trace, p.states)
    };
    assert_eq!(run(), run());
}
