//! The hybrid node (BCW + MIOS scheduler): routing, accounting, BCW invariants,
//! determinism. Small synthetic workloads on the real device models.

use zonelab_devices::open_device;
use zonelab_engine::{GIB, KIB};
use zonelab_systems::mios::node::{
    run_node, HddTierLoad, NodeConfig, NodeResult, Policy, UserOp, UserRequest,
};
use zonelab_systems::mios::{profile, ProfileConfig, ProfiledParams};

fn params() -> ProfiledParams {
    let mut hdd = open_device("wd100efax").unwrap();
    profile(hdd.as_mut(), &ProfileConfig::new(64 * KIB))
        .unwrap()
        .params
}

/// Bursty small writes (8 KiB every 4 us in bursts of 2,000, faster than the SSD
/// absorbs them, so its queue builds) with a few reads.
fn workload() -> Vec<UserRequest> {
    let mut v = Vec::new();
    let mut t = 1_000_000;
    for burst in 0..6u64 {
        for i in 0..2_000u64 {
            let n = burst * 2_000 + i;
            v.push(UserRequest {
                arrival_ns: t,
                op: if n % 50 != 49 {
                    UserOp::Write
                } else {
                    UserOp::Read
                },
                offset_bytes: (n * 8 * KIB) % (4 * GIB),
                size_bytes: 8 * KIB,
            });
            t += 4_000;
        }
        t += 200_000_000;
    }
    v
}

fn run(policy: Policy, threshold: u32) -> NodeResult {
    let mut ssd = open_device("ssd-960evo").unwrap();
    let mut hdd = open_device("wd100efax").unwrap();
    let cfg = NodeConfig::paper(policy, threshold, params(), 64 * GIB);
    run_node(ssd.as_mut(), hdd.as_mut(), &workload(), &cfg).unwrap()
}

#[test]
fn baseline_sends_everything_to_the_ssd() {
    let r = run(Policy::SsdOnly, 1);
    let w = workload().iter().filter(|q| q.op == UserOp::Write).count() as u64;
    assert_eq!(r.writes, w);
    assert_eq!(r.ssd_write_requests, w);
    assert_eq!(
        r.hdd_user_write_requests + r.hdd_padding_bytes + r.hdd_syncs,
        0
    );
}

#[test]
fn mios_redirects_when_the_ssd_queue_is_long_and_accounts_every_byte() {
    // Threshold 0: every write finds the SSD queue "long" once anything is queued.
    let r = run(Policy::MiosD, 0);
    let total: u64 = workload()
        .iter()
        .filter(|q| q.op == UserOp::Write)
        .map(|q| q.size_bytes)
        .sum();
    assert_eq!(
        r.ssd_write_bytes + r.hdd_user_write_bytes,
        total,
        "every user byte is on the SSD or the HDD log"
    );
    assert!(r.hdd_user_write_requests > 0, "some writes redirected");
    assert!(r.hdd_syncs >= 1, "BCW starts with a sync");
    assert!(r.hdd_gross_utilisation >= r.hdd_net_utilisation);
}

#[test]
fn bcw_keeps_user_writes_out_of_slow_states() {
    let r = run(Policy::MiosE, 2);
    assert!(
        r.hdd_user_write_requests > 1_000,
        "{}",
        r.hdd_user_write_requests
    );
    // Predicted S is never given to a user write; observed S may still happen when
    // the buffer fills earlier than predicted, but rarely.
    let share = r.hdd_user_writes_observed_s as f64 / r.hdd_user_write_requests as f64;
    assert!(
        share < 0.02,
        "{} of {} user writes hit S",
        r.hdd_user_writes_observed_s,
        r.hdd_user_write_requests
    );
    assert!(r.hdd_padding_bytes > 0, "BCW pads through S stages");
    let predicted_s_total: u64 = r.bcw_confusion[2].iter().sum();
    assert!(predicted_s_total > 0, "padding writes are predicted S");
}

#[test]
fn runs_are_deterministic() {
    let a = serde_json::to_string(&run(Policy::MiosE, 2)).unwrap();
    let b = serde_json::to_string(&run(Policy::MiosE, 2)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn redirected_bytes_per_size_group_add_up() {
    let r = run(Policy::MiosE, 2);
    assert_eq!(
        r.hdd_user_write_bytes_by_size.iter().sum::<u64>(),
        r.hdd_user_write_bytes
    );
    // The workload writes only 8 KiB requests: group 4-16 KiB.
    assert_eq!(r.hdd_user_write_bytes_by_size[1], r.hdd_user_write_bytes);
}

#[test]
fn f_only_uses_only_fast_writes_syncs_instead_of_padding() {
    let r = run(Policy::MiosFOnly, 0);
    let total: u64 = workload()
        .iter()
        .filter(|q| q.op == UserOp::Write)
        .map(|q| q.size_bytes)
        .sum();
    assert_eq!(r.ssd_write_bytes + r.hdd_user_write_bytes, total);
    assert!(r.hdd_user_write_requests > 0, "some writes redirected");
    assert_eq!(r.hdd_padding_bytes, 0, "no PF/PS padding");
    // Every HDD write BCW issued was a user write predicted F.
    let predicted_not_f: u64 = r.bcw_confusion[1..].iter().flatten().sum();
    assert_eq!(predicted_not_f, 0, "{:?}", r.bcw_confusion);
    // More than the starting sync: ADW reached W_f and the buffer was emptied.
    assert!(r.hdd_syncs > 1, "{} syncs", r.hdd_syncs);
    let d = run(Policy::MiosD, 0);
    assert!(d.hdd_padding_bytes > 0, "MIOS_D pads, F-only does not");
}

/// F-only (Fig. 12) on the test workload, with `extra_ns` added to every sync and
/// writes waiting behind syncs or not (`NodeConfig::writes_wait_behind_sync`).
fn run_f_only(extra_ns: u64, wait_behind_sync: bool) -> NodeResult {
    let mut ssd = open_device("ssd-960evo").unwrap();
    let mut hdd = open_device("wd100efax").unwrap();
    let mut cfg = NodeConfig::paper(Policy::MiosFOnly, 0, params(), 64 * GIB);
    cfg.sync_extra_ns = extra_ns;
    cfg.writes_wait_behind_sync = wait_behind_sync;
    run_node(ssd.as_mut(), hdd.as_mut(), &workload(), &cfg).unwrap()
}

/// A sync keeps the HDD from taking writes for as long as it lasts (§4.2: "a
/// sync() can take several hundred milliseconds, during which the HDD cannot
/// accept any writes"): its duration is measured, the writes arriving meanwhile go
/// to the SSD, and a host-side sync cost (`sync_extra_ns`, an ablation) lengthens
/// every sync by that much and leaves F-only fewer writes to redirect.
#[test]
fn syncs_are_timed_and_no_write_waits_behind_one() {
    let run_with = |extra_ns: u64| run_f_only(extra_ns, false);
    let r = run_with(0);
    assert_eq!(r.hdd_sync_duration.count, r.hdd_syncs);
    assert!(r.hdd_syncs > 1 && r.hdd_sync_duration.max_ns > 0, "{r:?}");
    // Nothing on the HDD waits for a sync: user writes wait only behind other
    // user writes (the F-only HDD never pads).
    assert!(r.writes_arriving_during_sync > 0);
    assert_eq!(
        r.hdd_user_writes_in_mid_stages, 0,
        "F-only has no Mid stage"
    );
    let slow = run_with(300_000_000);
    assert!(
        // (the histogram keeps about three significant digits)
        slow.hdd_sync_duration.min_ns >= 299_000_000,
        "{:?}",
        slow.hdd_sync_duration
    );
    assert!(slow.writes_arriving_during_sync > r.writes_arriving_during_sync);
    assert!(slow.hdd_user_write_requests < r.hdd_user_write_requests);
    // A write that waited behind a sync would have waited at least 300 ms.
    assert!(
        slow.hdd_user_write_wait.max_ns < 300_000_000,
        "{:?}",
        slow.hdd_user_write_wait
    );
}

/// The ablation `writes_wait_behind_sync` (Algorithm 2/3 read literally): writes
/// that arrive during a sync go to the HDD queue and wait for it to finish.
#[test]
fn with_the_literal_reading_writes_wait_behind_a_sync() {
    let run_with = |wait: bool| run_f_only(300_000_000, wait);
    let off = run_with(false);
    let on = run_with(true);
    assert!(on.writes_arriving_during_sync > 0, "{on:?}");
    // Some write waited through most of a 300 ms sync; none does by default.
    assert!(
        on.hdd_user_write_wait.max_ns > 200_000_000,
        "{:?}",
        on.hdd_user_write_wait
    );
    assert!(off.hdd_user_write_wait.max_ns < 300_000_000);
    // They are redirected instead of going to the SSD.
    assert!(on.hdd_user_write_requests > off.hdd_user_write_requests);
}

/// 64 KiB writes spaced `gap_ns` apart from t = 1 ms: one at a time, the HDD idle
/// when each arrives.
fn sparse_writes(n: u64, gap_ns: u64) -> Vec<UserRequest> {
    (0..n)
        .map(|i| UserRequest {
            arrival_ns: 1_000_000 + i * gap_ns,
            op: UserOp::Write,
            offset_bytes: i * 64 * KIB,
            size_bytes: 64 * KIB,
        })
        .collect()
}

fn run_on_fresh(policy: Policy, reqs: &[UserRequest]) -> (NodeResult, ProfiledParams) {
    run_on_fresh_with_threshold(policy, u32::MAX, reqs)
}

fn run_on_fresh_with_threshold(
    policy: Policy,
    threshold: u32,
    reqs: &[UserRequest],
) -> (NodeResult, ProfiledParams) {
    let p = params();
    let mut ssd = open_device("ssd-960evo").unwrap();
    let mut hdd = open_device("wd100efax").unwrap();
    let cfg = NodeConfig::paper(policy, threshold, p, 64 * GIB);
    (run_node(ssd.as_mut(), hdd.as_mut(), reqs, &cfg).unwrap(), p)
}

#[test]
fn a_redirected_write_arriving_in_f_state_completes_in_about_l_f() {
    // 40 writes of 64 KiB (2.5 MiB, well inside W_f = 16 MiB), 2 ms apart: after
    // BCW's first sync each arrives predicted F at an idle HDD, and MIOS_E sends it
    // there. Nothing (padding, sync, read) is in front of it, so it must take the
    // F latency the profile measured (§3.2: 180 us on the WD 10 TB), not more.
    let reqs = sparse_writes(40, 2_000_000);
    let (r, p) = run_on_fresh(Policy::MiosE, &reqs);
    let f = &r.hdd_user_write_latency_by_state[0];
    assert!(
        f.count >= 35,
        "{} of 40 writes went to the HDD in F",
        f.count
    );
    let lf = p.l_f_ns as f64;
    assert!(
        f.min_ns as f64 > 0.9 * lf && (f.max_ns as f64) < 1.1 * lf,
        "F-state writes took {}..{} ns, L_f = {lf} ns",
        f.min_ns,
        f.max_ns
    );
    assert_eq!(r.writes_sent_back, 0);
}

#[test]
fn writes_never_wait_behind_a_read_of_redirected_data() {
    // Redirected writes; then, while the HDD serves one more (W1) and another (W2)
    // waits behind it, a read of data in the HDD log arrives. MIOS suspends BCW
    // for the read (§4.3): W2 must go to the SSD instead of waiting for the read (a
    // seek, milliseconds) and the PS recalibration after it (more). Writes arriving
    // during the read and the recalibration go to the SSD at once. L = 0 and a
    // write X on the SSD just before W2 make W2 a line-2 redirection (l(t) > L),
    // the only kind that may queue behind another redirected write.
    let mut reqs = sparse_writes(20, 2_000_000);
    let t_read = reqs.last().unwrap().arrival_ns + 2_000_000;
    let w = |t: u64, i: u64| UserRequest {
        arrival_ns: t,
        op: UserOp::Write,
        offset_bytes: i * 64 * KIB,
        size_bytes: 64 * KIB,
    };
    reqs.push(w(t_read - 50_000, 50)); // W1: being written when the read arrives
    reqs.push(w(t_read - 35_000, 49)); // X: the HDD is busy, so to the SSD
    reqs.push(w(t_read - 30_000, 51)); // W2: l(t) = 1 > L, queued behind W1
    reqs.push(UserRequest {
        arrival_ns: t_read,
        op: UserOp::Read,
        offset_bytes: 5 * 64 * KIB,
        size_bytes: 64 * KIB,
    });
    for i in 0..20u64 {
        reqs.push(w(t_read + 10_000 + i * 100_000, 100 + i));
    }
    let (r, p) = run_on_fresh_with_threshold(Policy::MiosE, 0, &reqs);
    assert_eq!(r.hdd_reads, 1, "the read is served by the HDD");
    assert!(r.writes_sent_back >= 1, "W2 went back to the SSD");
    assert!(r.hdd_padding_bytes > 0, "BCW recalibrated with PS padding");
    // No write waited behind the read or the recalibration: the worst one (W2) took
    // its wait behind W1 plus an SSD write, well under a millisecond.
    assert!(
        (r.write_latency.max_ns as f64) < 2.0 * p.l_f_ns as f64,
        "worst write {} ns (L_f {} ns)",
        r.write_latency.max_ns,
        p.l_f_ns
    );
    assert!(r.ssd_write_requests >= 10, "{}", r.ssd_write_requests);
}

#[test]
fn a_trim_deletes_redirected_data_so_a_later_read_goes_to_the_ssd() {
    // MIOS_E redirects sparse writes (F state). A trim of the first ten (their
    // chunk deleted) reaches the SSD and drops them from the HDD log: a read of a
    // trimmed block is then served by the SSD (unmapped), while a read of a block
    // still in the log goes to the HDD.
    let mut reqs = sparse_writes(20, 2_000_000);
    let t = reqs.last().unwrap().arrival_ns + 5_000_000;
    reqs.push(UserRequest {
        arrival_ns: t,
        op: UserOp::Trim,
        offset_bytes: 0,
        size_bytes: 10 * 64 * KIB,
    });
    let read = |at: u64, i: u64| UserRequest {
        arrival_ns: at,
        op: UserOp::Read,
        offset_bytes: i * 64 * KIB,
        size_bytes: 64 * KIB,
    };
    reqs.push(read(t + 1_000_000, 3)); // trimmed: SSD
    reqs.push(read(t + 50_000_000, 15)); // still in the HDD log
    let (r, _) = run_on_fresh(Policy::MiosE, &reqs);
    // All but those arriving during BCW's first sync go to the HDD.
    assert!(
        r.hdd_user_write_requests >= 17,
        "{}",
        r.hdd_user_write_requests
    );
    assert_eq!(r.trims, 1);
    assert_eq!(r.reads, 2);
    assert_eq!(
        r.hdd_reads, 1,
        "only the untrimmed block is read from the HDD"
    );
    assert_eq!(r.writes, 20, "a trim is not a write");
}

/// A burst of 64 KiB writes every 20 us (the HDD needs L_f = 180 us for one) on
/// an SSD whose queue never counts as long (L = u32::MAX): every redirection is
/// Algorithm 3's line 4 (MIOS_E, predicted F).
fn burst_of_64k_writes() -> Vec<UserRequest> {
    let mut reqs = sparse_writes(1, 0);
    let burst_start_ns = 20_000_000;
    for i in 0..400u64 {
        reqs.push(UserRequest {
            arrival_ns: burst_start_ns + i * 20_000,
            op: UserOp::Write,
            offset_bytes: (100 + i) * 64 * KIB,
            size_bytes: 64 * KIB,
        });
    }
    reqs
}

#[test]
fn under_a_burst_mios_e_line_4_queues_only_writes_still_predicted_f() {
    // Line 4 as written: a write goes to the HDD queue while it is predicted F
    // after the writes ahead of it, so the burst fills the rest of the Fast stage
    // (W_f = 16 MiB: 256 writes) and then stays on the SSD. The queued writes
    // wait (BCW writes serially, §4.2) but none meets M or S. Fails on the third
    // pass's steering (only to an idle HDD: 20-60 of 401 on the HDD, no wait).
    let reqs = burst_of_64k_writes();
    let (r, p) = run_on_fresh(Policy::MiosE, &reqs);
    let on_hdd = r.hdd_user_write_requests;
    assert!(
        (200..=256).contains(&on_hdd),
        "{on_hdd} of 401 writes on the HDD"
    );
    assert_eq!(r.ssd_write_requests + on_hdd, 401);
    let all = &r.hdd_user_write_latency_by_state;
    assert_eq!(all[0].count, on_hdd, "every HDD write was predicted F");
    assert!(
        r.hdd_user_write_wait.max_ns > 10 * p.l_f_ns,
        "redirected writes queued: {:?}",
        r.hdd_user_write_wait
    );
    let c = &r.hdd_user_write_confusion;
    assert_eq!(c[0][2], 0, "a write predicted F met S: {c:?}");
}

#[test]
fn under_a_burst_the_idle_hdd_ablation_never_queues_a_line_4_write() {
    // The ablation `line4_only_to_idle_hdd` (issue #21's third pass): no
    // redirected write waits for the HDD behind another one: each starts on
    // arrival and takes about L_f; writes arriving while the HDD is busy stay on
    // the SSD.
    let reqs = burst_of_64k_writes();
    let p = params();
    let mut ssd = open_device("ssd-960evo").unwrap();
    let mut hdd = open_device("wd100efax").unwrap();
    let mut cfg = NodeConfig::paper(Policy::MiosE, u32::MAX, p, 64 * GIB);
    cfg.line4_only_to_idle_hdd = true;
    let r = run_node(ssd.as_mut(), hdd.as_mut(), &reqs, &cfg).unwrap();
    let on_hdd = r.hdd_user_write_requests;
    // (The histogram records a zero wait as 1 ns, its floor.)
    assert!(
        r.hdd_user_write_wait.max_ns <= 1,
        "a redirected write waited for the HDD: {:?}",
        r.hdd_user_write_wait
    );
    // About one write per L_f of the 8 ms burst goes to the HDD, the rest to the SSD.
    assert!(
        on_hdd >= 20 && on_hdd <= 60,
        "{on_hdd} of 401 writes on the HDD"
    );
    assert_eq!(r.ssd_write_requests + on_hdd, 401);
    let all = &r.hdd_user_write_latency_by_state;
    assert_eq!(all[0].count, on_hdd, "every HDD write was predicted F");
    let lf = p.l_f_ns as f64;
    assert!(
        (all[0].max_ns as f64) < 1.1 * lf,
        "worst redirected write {} ns, L_f {lf} ns",
        all[0].max_ns
    );
}

#[test]
fn a_large_write_is_classified_by_its_size_and_latency() {
    // On the real WD 10 TB model: a 1 MiB write into an empty buffer is accepted
    // at once (F, though it takes 2.5 ms, more than the 64 KiB profile's S
    // boundary); once 16 MiB fill the buffer, the next 1 MiB write meets the flush
    // spike (S). A size-blind classifier calls the first one M or S.
    use zonelab_devices::{Command, Payload};
    let p = params();
    let mut hdd = open_device("wd100efax").unwrap();
    let mib_blocks = (1 << 20) / hdd.info().block_bytes;
    let mut now = hdd
        .submit(0, &Command::Flush, Payload::SizeOnly)
        .unwrap()
        .done_ns;
    let mut states = Vec::new();
    for i in 0..18u64 {
        let c = hdd
            .submit(
                now,
                &Command::Write {
                    lba: i * mib_blocks as u64,
                    blocks: mib_blocks,
                },
                Payload::SizeOnly,
            )
            .unwrap();
        states.push(p.classify_write(c.done_ns - now, 1 << 20));
        now = c.done_ns;
    }
    use zonelab_systems::mios::WriteState::{F, S};
    assert_eq!(states[0], F, "{states:?}");
    assert!(p.thresholds.classify(2_400_000) != F, "size-blind: not F");
    let first_s = states.iter().position(|&s| s == S);
    assert!(
        matches!(first_s, Some(14..=17)),
        "the buffer (16 MiB) fills after ~16 writes: {states:?}"
    );
    assert!(states[..14].iter().all(|&s| s == F), "{states:?}");
}

#[test]
fn served_latencies_split_the_writes_by_device() {
    // Every write is served by exactly one device (sent-back writes by the SSD);
    // the node's worst write is the worse of the two devices' worst.
    let r = run(Policy::MiosE, 1);
    let (s, h) = (&r.ssd_served_write_latency, &r.hdd_served_write_latency);
    assert!(s.count > 0 && h.count > 0, "{} / {}", s.count, h.count);
    assert_eq!(s.count + h.count, r.writes);
    assert_eq!(h.count, r.hdd_user_write_requests);
    assert_eq!(r.write_latency.max_ns, s.max_ns.max(h.max_ns));
}

#[test]
fn line_4_redirects_only_writes_arriving_predicted_f() {
    // With L never exceeded, MIOS_E redirects only on line 4 (predicted F), so
    // at most the writes that arrive while BCW is in a Fast stage or in a Mid
    // stage right after an F-latency write go to the HDD; the Baseline has no BCW
    // and counts none.
    let r = run(Policy::MiosE, u32::MAX);
    assert!(r.hdd_user_write_requests > 0);
    assert!(
        r.hdd_user_write_requests
            <= r.writes_arriving_in_fast_stage + r.writes_arriving_fast_in_mid_stage,
        "{} redirected, {} arrived in a Fast stage, {} in a Mid stage's F state",
        r.hdd_user_write_requests,
        r.writes_arriving_in_fast_stage,
        r.writes_arriving_fast_in_mid_stage
    );
    let b = run(Policy::SsdOnly, 1);
    assert_eq!(
        b.writes_arriving_in_fast_stage + b.writes_arriving_fast_in_mid_stage,
        0
    );
}

/// 64 KiB writes every `gap_ns` for `n` writes: a steady stream slower than
/// the platter, so BCW's PF-padded Mid stages show the model drive's F state
/// once a flush batch is on the platter (S M…M F…F S).
fn steady_64k_writes(n: u64, gap_ns: u64) -> Vec<UserRequest> {
    sparse_writes(n, gap_ns)
}

#[test]
fn mios_e_redirects_writes_arriving_in_the_f_state_of_a_mid_stage_at_about_l_f() {
    // Issue #21, fifth pass. §4.2: PF "is used to fill the F and M states"; the
    // predictor predicts from the last write's state (Algorithm 1), so after an
    // F-latency PF in a Mid stage MIOS_E's line 4 takes the user writes that fit
    // the stage's W_m, at F latency (waiting at most for the PF in flight: "a
    // small PF can minimize the waiting time of user requests"), and none meets
    // S. The fourth pass's predictor (the ablation) keeps every Mid-stage write
    // on the SSD, so it redirects little more than the Fast stages' W_f. Fails on
    // the old code (its share is the ablation's).
    let reqs = steady_64k_writes(2_000, 1_000_000);
    let p = params();
    let run_with = |fast_after_mid: bool| {
        let mut ssd = open_device("ssd-960evo").unwrap();
        let mut hdd = open_device("wd100efax").unwrap();
        let mut cfg = NodeConfig::paper(Policy::MiosE, u32::MAX, p, 64 * GIB);
        cfg.predict_fast_after_mid = fast_after_mid;
        run_node(ssd.as_mut(), hdd.as_mut(), &reqs, &cfg).unwrap()
    };
    let (now, old) = (run_with(true), run_with(false));
    assert!(now.writes_arriving_fast_in_mid_stage > 0);
    assert_eq!(old.writes_arriving_fast_in_mid_stage, 0);
    assert!(
        now.hdd_user_write_requests > old.hdd_user_write_requests * 3 / 2,
        "redirected {} (ablation {}) of 2000",
        now.hdd_user_write_requests,
        old.hdd_user_write_requests
    );
    assert!(now.hdd_padding_bytes > 0, "the Mid stages are still padded");
    let c = &now.hdd_user_write_confusion;
    assert_eq!(c[0][2] + c[1][2], 0, "a redirected write met S: {c:?}");
    // About L_f: the Fast stage's writes at L_f, the Mid stage's after at most
    // the PF in flight (4 KiB: 37.5 us at F, 55 us at M; measured mean 231 us).
    let f = &now.hdd_user_write_latency_by_state[0];
    assert!(
        f.mean_ns < 1.4 * p.l_f_ns as f64,
        "writes predicted F: mean {} ns, L_f {} ns",
        f.mean_ns,
        p.l_f_ns
    );
}

#[test]
fn every_congested_mios_d_write_is_redirected_or_kept_on_the_ssd_for_a_counted_reason() {
    // 6,000 writes of 64 KiB every 30 us (375 MiB, 2.2 GB/s, above the fresh
    // 960 EVO's 1.5 GB/s SLC rate, 0.18 s) with L = 1: the SSD queue builds, BCW
    // runs through its Fast stage (16 MiB) into Mid/Slow pairs. Every
    // write arriving with l(t) > L is either steered to the HDD (served there or
    // sent back) or counted in `congested_writes_kept_on_ssd` with its reason;
    // the Slow phases (flagHDD off) keep some on the SSD (Table 4's per-HDD
    // differences, docs/mios.md sixth session).
    let threshold = 1;
    let mut reqs = sparse_writes(1, 0);
    for i in 0..6_000u64 {
        reqs.push(UserRequest {
            arrival_ns: 20_000_000 + i * 30_000,
            op: UserOp::Write,
            offset_bytes: (100 + i) * 64 * KIB,
            size_bytes: 64 * KIB,
        });
    }
    let (r, _) = run_on_fresh_with_threshold(Policy::MiosD, threshold, &reqs);
    let congested: u64 = r
        .ssd_queue_length_counts
        .iter()
        .skip(threshold as usize + 1)
        .sum();
    let kept: u64 = r.congested_writes_kept_on_ssd.iter().sum();
    assert!(congested > 1_000, "the SSD queue stays long: {congested}");
    assert_eq!(
        r.hdd_user_write_requests + r.writes_sent_back + kept,
        congested,
        "{:?}",
        r.congested_writes_kept_on_ssd
    );
    assert!(
        r.hdd_user_write_requests > 256,
        "past the Fast stage: {} on the HDD, {} sent back, kept {:?}, syncs {}",
        r.hdd_user_write_requests,
        r.writes_sent_back,
        r.congested_writes_kept_on_ssd,
        r.hdd_syncs
    );
    assert!(
        r.congested_writes_kept_on_ssd[1] > 0,
        "Slow phases keep writes on the SSD: {:?}",
        r.congested_writes_kept_on_ssd
    );
    let (baseline, _) = run_on_fresh_with_threshold(Policy::SsdOnly, threshold, &reqs);
    assert_eq!(baseline.congested_writes_kept_on_ssd, [0; 4]);
}

/// The HDD tier's own writes (`NodeConfig::hdd_tier_load`, an ablation; §2.3 and
/// Table 5's Baseline column: the HDD is 4–10 % busy with its own traffic): they
/// are written, counted, fill the drive's buffer behind BCW's back (ADW does not
/// see them), so the syncs find more to write and user writes predicted F or M
/// meet S; deterministic.
#[test]
fn the_hdd_tiers_own_writes_fill_the_buffer_behind_bcws_back() {
    let run_policy = |policy: Policy, tier: Option<HddTierLoad>| {
        let mut ssd = open_device("ssd-960evo").unwrap();
        let mut hdd = open_device("wd100efax").unwrap();
        let mut cfg = NodeConfig::paper(policy, 2, params(), 64 * GIB);
        cfg.hdd_tier_load = tier;
        run_node(ssd.as_mut(), hdd.as_mut(), &workload(), &cfg).unwrap()
    };
    let run_tier = |tier| run_policy(Policy::MiosE, tier);
    let plain = run_tier(None);
    assert_eq!(plain.hdd_tier_writes, 0);
    let load = HddTierLoad {
        interval_ns: 20_000_000,
        request_bytes: 1024 * KIB,
    };
    let tier = run_tier(Some(load));
    // One every 20 ms from the first request (1 ms) to the last arrival.
    let last = workload().last().unwrap().arrival_ns;
    let expected = (last - 1_000_000) / 20_000_000 + 1;
    assert_eq!(tier.hdd_tier_writes, expected);
    assert_eq!(tier.hdd_tier_bytes, expected * 1024 * KIB);
    // The HDD spends the tier's time on them.
    assert!(tier.hdd_gross_utilisation > plain.hdd_gross_utilisation);
    // User writes meet S that BCW did not predict (none without the tier's writes).
    assert_eq!(plain.hdd_user_writes_observed_s, 0);
    assert!(tier.hdd_user_writes_observed_s > 0, "{tier:?}");
    // Every user byte is still on one device.
    assert_eq!(
        tier.ssd_write_bytes + tier.hdd_user_write_bytes,
        plain.ssd_write_bytes + plain.hdd_user_write_bytes
    );
    // F-only's syncs (no padding) find the tier's data in the buffer too.
    let f_plain = run_policy(Policy::MiosFOnly, None);
    let f_tier = run_policy(Policy::MiosFOnly, Some(load));
    assert!(
        f_tier.hdd_sync_bytes > f_plain.hdd_sync_bytes,
        "{} vs {}",
        f_tier.hdd_sync_bytes,
        f_plain.hdd_sync_bytes
    );
    let again = run_tier(Some(load));
    assert_eq!(
        serde_json::to_string(&tier).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}
