//! MIOS's SSD queue (`mios::ssd_dispatch`, §4.3.1: one synchronous direct-IO request
//! on the drive at a time): head-of-line blocking, l(t) counting the requests that
//! wait, the threshold L it gives, and the iostat-style SSD utilisation.

use zonelab_devices::open_device;
use zonelab_engine::{GIB, KIB, MIB};
use zonelab_systems::mios::node::{run_node, NodeConfig, NodeResult, Policy, UserOp, UserRequest};
use zonelab_systems::mios::ssd_threshold::{latency_by_queue_length, threshold_from_run};
use zonelab_systems::mios::{profile, ProfileConfig, ProfiledParams};

fn params() -> ProfiledParams {
    let mut hdd = open_device("wd100efax").unwrap();
    profile(hdd.as_mut(), &ProfileConfig::new(64 * KIB))
        .unwrap()
        .params
}

fn write(arrival_ns: u64, offset_bytes: u64, size_bytes: u64) -> UserRequest {
    UserRequest {
        arrival_ns,
        op: UserOp::Write,
        offset_bytes,
        size_bytes,
    }
}

fn baseline(reqs: &[UserRequest], depth: Option<u32>) -> NodeResult {
    let mut ssd = open_device("ssd-960evo").unwrap();
    let mut hdd = open_device("wd100efax").unwrap();
    let mut cfg = NodeConfig::paper(Policy::SsdOnly, u32::MAX, params(), 64 * GIB);
    cfg.ssd_dispatch_depth = depth;
    run_node(ssd.as_mut(), hdd.as_mut(), reqs, &cfg).unwrap()
}

#[test]
fn the_paper_config_keeps_one_request_on_the_ssd() {
    let cfg = NodeConfig::paper(Policy::MiosD, 3, params(), 64 * GIB);
    assert_eq!(cfg.ssd_dispatch_depth, Some(1));
}

#[test]
fn a_small_write_behind_a_large_one_waits_for_it_only_in_a_fifo() {
    // A 1 MiB write, then a 4 KiB write 1 us later (§2.3: "queue blocking" by
    // large writes).
    let reqs = [
        write(1_000_000, 0, MIB),
        write(1_001_000, 64 * MIB, 4 * KIB),
    ];
    let alone = baseline(&reqs[..1], Some(1)).write_latency.max_ns;
    let fifo = baseline(&reqs, Some(1));
    let parallel = baseline(&reqs, None);
    // Both saw the large write outstanding when they arrived.
    assert_eq!(fifo.max_ssd_queue_length, 1);
    assert_eq!(parallel.max_ssd_queue_length, 1);
    // In the FIFO the small write completes after the large one (its latency is
    // at least the large write's remaining time). Passed on at once it still waits
    // for the large write's transfer on the host link, but not for the drive to
    // finish with it: it completes first.
    assert!(
        fifo.write_latency.min_ns + 1_000 >= alone,
        "fifo small write {} ns, large write alone {alone} ns",
        fifo.write_latency.min_ns
    );
    assert!(
        parallel.write_latency.min_ns < alone,
        "parallel small write {} ns, large write alone {alone} ns",
        parallel.write_latency.min_ns
    );
}

/// Bursts of mixed writes (7 of 8 small, 1 of 8 of 256 KiB), a little faster than
/// the drive serves them one at a time.
fn bursts() -> Vec<UserRequest> {
    let mut v = Vec::new();
    let mut t = 1_000_000;
    for n in 0..6_000u64 {
        let size = if n % 8 == 7 { 256 * KIB } else { 8 * KIB };
        v.push(write(t, (n * MIB) % (32 * GIB), size));
        t += if n % 200 == 199 { 50_000_000 } else { 20_000 };
    }
    v
}

#[test]
fn write_latency_grows_with_the_queue_length_only_in_a_fifo() {
    // §4.3: L is the shortest queue whose writes are slower than an HDD M write.
    // With one request on the drive the latency grows with every request ahead;
    // passed on at once, the drive's dies serve them side by side.
    let l_m_ns = params().l_m_ns;
    let fifo = baseline(&bursts(), Some(1));
    let parallel = baseline(&bursts(), None);
    let by_len = latency_by_queue_length(&fifo, 50);
    assert!(by_len.len() >= 5, "{by_len:?}");
    // Each request ahead adds about one service time.
    assert!(by_len.windows(2).all(|w| w[1].1 > w[0].1), "{by_len:?}");
    assert!(
        threshold_from_run(&fifo, l_m_ns, 50).is_some(),
        "{by_len:?}"
    );
    assert!(fifo.max_ssd_queue_length > parallel.max_ssd_queue_length);
    let p = latency_by_queue_length(&parallel, 50);
    assert!(p.iter().all(|(_, ns)| *ns < l_m_ns as f64), "{p:?}");
    assert_eq!(threshold_from_run(&parallel, l_m_ns, 50), None, "{p:?}");
}

#[test]
fn ssd_utilisation_is_the_share_of_the_run_with_a_request_on_the_drive() {
    // Sparse 4 KiB writes, 1 ms apart: the drive is busy exactly for their latencies.
    let reqs: Vec<_> = (0..200u64)
        .map(|i| write(1_000_000 + i * 1_000_000, i * 64 * KIB, 4 * KIB))
        .collect();
    for depth in [Some(1), None] {
        let r = baseline(&reqs, depth);
        // (The histogram's mean is good to its 3 significant figures.)
        let busy = r.write_latency.mean_ns * r.writes as f64;
        assert!(
            (r.ssd_busy_ns as f64 - busy).abs() <= 0.01 * busy,
            "busy {} ns vs latencies {busy} ns",
            r.ssd_busy_ns
        );
        // The run spans the workload (199 ms + the last write), not the clock's 0.
        assert!(r.duration_ns >= 199_000_000 && r.duration_ns < 200_000_000);
        let util = r.ssd_busy_ns as f64 / r.duration_ns as f64;
        assert!(util > 0.0 && util < 0.05, "{util}");
    }
}

#[test]
fn dispatch_depth_runs_are_deterministic() {
    let a = baseline(&bursts(), Some(1));
    let b = baseline(&bursts(), Some(1));
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}
