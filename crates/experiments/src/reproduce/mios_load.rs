//! An experiment of `reproduce mios` that explains a miss rather than reproducing
//! a figure (docs/mios.md, "Why Fig. 7 misses on the 960 EVO"): node B's requests
//! on the aged 960 EVO with their arrival times divided by k — the same requests,
//! k times Table 1's rates — Baseline and MIOS_D, L read off each Baseline run as
//! for Fig. 7. At k = 1 the modelled 960 EVO is never slower than the HDD's mid
//! state (node B's peak, 165 MB/s, is below its 300 MB/s rate once the SLC cache is
//! full); the sweep shows from which load on its queue builds, L exists and MIOS_D
//! pays off. No claims.

use super::mios_extra::{
    aged_ssd, err, pangu_requests, show_threshold, Extra, Steps, HDD_10TB, LOG_BYTES, NO_THRESHOLD,
    SSD_960, THRESHOLD_MIN_WRITES,
};
use super::ProgressSink;
use super::ReproduceError;
use crate::reproduce_result::{round_sig, Figure, Series};
use zonelab_devices::open_device;
use zonelab_systems::mios::node::{run_node, NodeConfig, NodeResult, Policy, UserRequest};
use zonelab_systems::mios::profiler::ProfiledParams;
use zonelab_systems::mios::ssd_threshold::threshold_from_run;
use zonelab_workloads::pangu::PANGU_TABLE_1;

/// Load factors beyond Table 1's rates (k = 1 is the Fig. 7 run).
pub(super) const LOAD_FACTORS: [u64; 3] = [2, 3, 4];
/// Steps [`load_sweep`] reports: Baseline and MIOS_D per factor.
pub(super) const LOAD_STEPS: u64 = 2 * LOAD_FACTORS.len() as u64;

/// `base_b` is node B's Fig. 7 runs (Baseline, MIOS_D, MIOS_E) and `l_b` its L.
pub(super) fn load_sweep(
    scale: f64,
    seed: u64,
    params: ProfiledParams,
    base_b: &[NodeResult; 3],
    l_b: u32,
    progress: &mut dyn ProgressSink,
    steps: Steps,
) -> Result<Extra, ReproduceError> {
    let Steps {
        done: mut step,
        total,
    } = steps;
    let node = &PANGU_TABLE_1[1];
    let mut rows: Vec<(u64, u32, NodeResult, NodeResult)> =
        vec![(1, l_b, base_b[0].clone(), base_b[1].clone())];
    for &k in LOAD_FACTORS.iter() {
        let mut l = NO_THRESHOLD;
        let mut runs = Vec::new();
        for policy in [Policy::SsdOnly, Policy::MiosD] {
            progress.step(
                step,
                total,
                &format!("load x{k} node B {} on {SSD_960}", policy.name()),
            );
            step += 1;
            let (mut ssd, start) = aged_ssd(SSD_960)?;
            let mut hdd = open_device(HDD_10TB).map_err(err)?;
            let reqs: Vec<UserRequest> =
                pangu_requests(node, scale, seed, ssd.info().capacity_bytes(), 0)
                    .into_iter()
                    .map(|q| UserRequest {
                        arrival_ns: start + q.arrival_ns / k,
                        ..q
                    })
                    .collect();
            let cfg = NodeConfig::paper(policy, l, params, LOG_BYTES);
            let r = run_node(ssd.as_mut(), hdd.as_mut(), &reqs, &cfg).map_err(err)?;
            if policy == Policy::SsdOnly {
                l = threshold_from_run(&r, params.l_m_ns, THRESHOLD_MIN_WRITES)
                    .unwrap_or(NO_THRESHOLD);
            }
            runs.push(r);
        }
        let d = runs.pop().ok_or_else(|| err("MIOS_D run"))?;
        let b = runs.pop().ok_or_else(|| err("Baseline run"))?;
        rows.push((k, l, b, d));
    }
    let series = |name: &str, f: &dyn Fn(&(u64, u32, NodeResult, NodeResult)) -> f64| Series {
        name: name.to_string(),
        points: rows
            .iter()
            .map(|row| (row.0 as f64, round_sig(f(row))))
            .collect(),
    };
    let figures = vec![Figure::line(
        "load_b_960evo",
        "Node B on the 960 EVO at k times Table 1's rates: write latency (us), Baseline vs MIOS_D",
        "load factor k",
        "us",
        vec![
            series("Baseline avg", &|r| r.2.write_latency.mean_ns / 1e3),
            series("MIOS_D avg", &|r| r.3.write_latency.mean_ns / 1e3),
            series("Baseline p99", &|r| r.2.write_latency.p99_ns as f64 / 1e3),
            series("MIOS_D p99", &|r| r.3.write_latency.p99_ns as f64 / 1e3),
        ],
    )];
    let notes = rows
        .iter()
        .map(|(k, l, b, d)| {
            format!(
                "Load x{k} (node B on {SSD_960}): L {}; Baseline avg / p99 {:.1} / {:.1} us, longest SSD queue {}; MIOS_D avg / p99 {:.1} / {:.1} us, {} of {} writes redirected.",
                show_threshold(*l),
                b.write_latency.mean_ns / 1e3,
                b.write_latency.p99_ns as f64 / 1e3,
                b.max_ssd_queue_length,
                d.write_latency.mean_ns / 1e3,
                d.write_latency.p99_ns as f64 / 1e3,
                d.hdd_user_write_requests,
                d.writes
            )
        })
        .collect();
    Ok(Extra {
        claims: Vec::new(),
        figures,
        notes,
    })
}
