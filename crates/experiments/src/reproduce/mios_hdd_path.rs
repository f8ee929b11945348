//! Where a MIOS run's write latency comes from (issue #21, item 3: the HDD path of
//! BCW/MIOS): how long redirected writes waited for the HDD behind other user
//! writes, which write state (F, M, S, §3.2) their service time showed, and each
//! part's share of the run's summed write latency (SSD writes, HDD writes in F, M
//! and S). One note line per run, for `reproduce mios`.

use zonelab_systems::mios::node::NodeResult;

/// Summed latency (ns) of the writes the SSD served and of the HDD's user writes
/// by observed state F, M, S.
pub(super) fn latency_sums_ns(r: &NodeResult) -> [f64; 4] {
    let total = r.write_latency.mean_ns * r.write_latency.count as f64;
    let hdd: Vec<f64> = r
        .hdd_user_write_latency_by_observed_state
        .iter()
        .map(|s| s.mean_ns * s.count as f64)
        .collect();
    let ssd = (total - hdd.iter().sum::<f64>()).max(0.0);
    [ssd, hdd[0], hdd[1], hdd[2]]
}

/// One line: the HDD wait, the observed states and the latency shares.
pub(super) fn hdd_path_note(label: &str, r: &NodeResult) -> String {
    let sums = latency_sums_ns(r);
    let total: f64 = sums.iter().sum::<f64>().max(1e-9);
    let st = &r.hdd_user_write_latency_by_observed_state;
    let w = &r.hdd_user_write_wait;
    let c = &r.hdd_user_write_confusion;
    let stage_total = r.bcw_stage_time_ns.iter().sum::<u64>().max(1) as f64;
    let stage = |i: usize| r.bcw_stage_time_ns[i] as f64 * 100.0 / stage_total;
    format!(
        "{label}: HDD user writes waited for the HDD mean / p99 / max {:.0} / {:.0} / {:.0} us; by observed state count / mean us: F {} / {:.0}, M {} / {:.0}, S {} / {:.0} (predicted F but observed S: {}); share of summed write latency: SSD {:.1}%, HDD F {:.1}%, M {:.1}%, S {:.1}%; BCW time in the Fast stage {:.1}%, Mid stages {:.1}%, Slow phases {:.1}%, syncs {:.1}%; writes arriving in a Fast stage {:.1}%, in a Mid stage after an F-latency write {:.1}%, redirected {:.1}%; p99 / p99.9 of the writes the SSD served {:.0} / {:.0} us ({}), the HDD served {:.0} / {:.0} us ({}).",
        w.mean_ns / 1e3,
        w.p99_ns as f64 / 1e3,
        w.max_ns as f64 / 1e3,
        st[0].count,
        st[0].mean_ns / 1e3,
        st[1].count,
        st[1].mean_ns / 1e3,
        st[2].count,
        st[2].mean_ns / 1e3,
        c[0][2],
        sums[0] * 100.0 / total,
        sums[1] * 100.0 / total,
        sums[2] * 100.0 / total,
        sums[3] * 100.0 / total,
        stage(0),
        stage(1),
        stage(2),
        stage(3),
        r.writes_arriving_in_fast_stage as f64 * 100.0 / r.writes.max(1) as f64,
        r.writes_arriving_fast_in_mid_stage as f64 * 100.0 / r.writes.max(1) as f64,
        r.hdd_user_write_requests as f64 * 100.0 / r.writes.max(1) as f64,
        r.ssd_served_write_latency.p99_ns as f64 / 1e3,
        r.ssd_served_write_latency.p999_ns as f64 / 1e3,
        r.ssd_served_write_latency.count,
        r.hdd_served_write_latency.p99_ns as f64 / 1e3,
        r.hdd_served_write_latency.p999_ns as f64 / 1e3,
        r.hdd_served_write_latency.count,
    )
}
