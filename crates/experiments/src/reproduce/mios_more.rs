//! More of `reproduce mios` (§4.3, §5.2): Fig. 11 (MIOS_D vs MIOS_E: latency and
//! redirected data per request-size group, from the Fig. 7 runs), Fig. 12 (the
//! "F write state only" strategy — sync when ADW reaches W_f instead of BCW's
//! mid/slow stages — normalised to MIOS_D) and a node of several independent
//! SSD/HDD pairs (§4.3; the paper gives no figure for it). Runs are on fresh,
//! preconditioned devices like the Fig. 7 runs; nothing is tuned to the paper.

use super::mios_extra::{
    aged_ssd, err, pangu_requests, run_pangu, Extra, Steps, HDD_10TB, LOG_BYTES, SSD_960,
};
use super::{ProgressSink, ReproduceError};
use crate::reproduce_result::{round_sig, Claim, Figure, Series};
use zonelab_devices::open_device;
use zonelab_engine::MIB;
use zonelab_systems::mios::multi_pair::{run_pairs, MultiPairResult, PairDevices};
use zonelab_systems::mios::node::{NodeConfig, NodeResult, Policy};
use zonelab_systems::mios::profiler::ProfiledParams;
use zonelab_workloads::pangu::{chunk_file_bytes, PANGU_TABLE_1};

/// Pair counts of the multi-pair node (1 is the Fig. 7 run).
pub(super) const PAIR_COUNTS: [usize; 3] = [1, 2, 4];
/// Policies of the multi-pair runs.
const PAIR_POLICIES: [Policy; 2] = [Policy::SsdOnly, Policy::MiosD];

/// Steps [`more`] reports: one F-only run per node, one multi-pair run per pair
/// count above 1 and policy.
pub(super) const MORE_STEPS: u64 =
    PANGU_TABLE_1.len() as u64 + (PAIR_COUNTS.len() as u64 - 1) * PAIR_POLICIES.len() as u64;

/// Fig. 11 paper values: MIOS_E's p99.9 increase over MIOS_D per node (§5.2).
const FIG11_P999_INCREASE_PCT: [f64; 4] = [70.0, 55.0, 31.0, 8.0];
/// Fig. 11: MIOS_E's average latency increase over MIOS_D on node A ("up to 40%").
const FIG11_A_AVG_INCREASE_PCT: f64 = 40.0;
/// Fig. 12 paper values (F-only / MIOS_D): p99.9 on B, p99 on B, C, D (§5.2).
const FIG12_B_P999_RATIO: f64 = 12.8;
const FIG12_P99_RATIO: [(usize, f64); 3] = [(1, 3.0), (2, 1.65), (3, 1.56)];
/// Relative tolerance of the Fig. 11/12 claims (as for the Fig. 7 claims).
const TOLERANCE: f64 = 0.25;

/// The nodes' letters in claim ids (`fig11.a....`), in `PANGU_TABLE_1` order.
const NODE_LETTERS: [&str; 4] = ["a", "b", "c", "d"];

const GROUPS: [&str; 6] = ["<4K", "4-16K", "16-64K", "64-256K", "256K-1M", ">=1M"];

fn us(ns: f64) -> f64 {
    round_sig(ns / 1e3)
}

fn increase(old: f64, new: f64) -> f64 {
    if old > 0.0 {
        (new / old - 1.0) * 100.0
    } else {
        f64::NAN
    }
}

fn ratio(old: f64, new: f64) -> f64 {
    if old > 0.0 {
        new / old
    } else {
        f64::NAN
    }
}

fn series(name: String, values: impl Iterator<Item = f64>) -> Series {
    Series {
        name,
        points: values
            .enumerate()
            .map(|(i, v)| (i as f64, round_sig(v)))
            .collect(),
    }
}

/// Fig. 11, 12 and the multi-pair node. `base[node]` are the Fig. 7 runs
/// (Baseline, MIOS_D, MIOS_E), `l[node]` the thresholds they used.
pub(super) fn more(
    scale: f64,
    seed: u64,
    params: ProfiledParams,
    l: &[u32],
    base: &[[NodeResult; 3]],
    progress: &mut dyn ProgressSink,
    steps: Steps,
) -> Result<Extra, ReproduceError> {
    let Steps {
        done: mut step,
        total,
    } = steps;
    let names: Vec<String> = PANGU_TABLE_1.iter().map(|n| n.name.to_string()).collect();
    let mut claims = Vec::new();
    let mut figures = Vec::new();
    let mut notes = Vec::new();

    // ---- Fig. 11: MIOS_D (base[n][1]) vs MIOS_E (base[n][2]).
    let mut lat = Vec::new();
    for (pi, pname) in [(1, "MIOS_D"), (2, "MIOS_E")] {
        lat.push(series(
            format!("{pname} avg"),
            base.iter().map(|r| us(r[pi].write_latency.mean_ns)),
        ));
        lat.push(series(
            format!("{pname} p99"),
            base.iter().map(|r| us(r[pi].write_latency.p99_ns as f64)),
        ));
        lat.push(series(
            format!("{pname} p99.9"),
            base.iter().map(|r| us(r[pi].write_latency.p999_ns as f64)),
        ));
    }
    figures.push(Figure::bar(
        "fig11a_latency",
        "Fig. 11(a): write latency, MIOS_D vs MIOS_E (us)",
        "node",
        "us",
        names.clone(),
        lat,
    ));
    let groups: Vec<String> = GROUPS.iter().map(|g| g.to_string()).collect();
    let mut by_size = Vec::new();
    let mut redirected = Vec::new();
    for (ni, r) in base.iter().enumerate() {
        for (pi, pname) in [(1, "MIOS_D"), (2, "MIOS_E")] {
            by_size.push(series(
                format!("{} {pname}", names[ni]),
                r[pi].write_latency_by_size_ns.iter().map(|v| v / 1e3),
            ));
            redirected.push(series(
                format!("{} {pname}", names[ni]),
                r[pi]
                    .hdd_user_write_bytes_by_size
                    .iter()
                    .map(|&b| b as f64 / 1e9),
            ));
        }
    }
    figures.push(Figure::bar(
        "fig11b_latency_by_size",
        "Fig. 11(b): mean write latency per request-size group, MIOS_D vs MIOS_E (us)",
        "size group",
        "us",
        groups.clone(),
        by_size,
    ));
    figures.push(Figure::bar(
        "fig11b_redirected_by_size",
        "Fig. 11(b): data redirected to the HDD per request-size group (GB)",
        "size group",
        "GB",
        groups,
        redirected,
    ));
    claims.push(Claim::within(
        "fig11.a.avg_increase",
        "Fig. 11(a): node A average write latency, MIOS_E vs MIOS_D (paper: up to 40% higher)",
        FIG11_A_AVG_INCREASE_PCT,
        increase(
            base[0][1].write_latency.mean_ns,
            base[0][2].write_latency.mean_ns,
        ),
        "%",
        TOLERANCE,
    ));
    for (ni, paper) in FIG11_P999_INCREASE_PCT.iter().enumerate() {
        let name = NODE_LETTERS[ni];
        claims.push(Claim::within(
            &format!("fig11.{name}.p999_increase"),
            &format!(
                "Fig. 11(a): node {} p99.9 write latency, MIOS_E vs MIOS_D",
                names[ni]
            ),
            *paper,
            increase(
                base[ni][1].write_latency.p999_ns as f64,
                base[ni][2].write_latency.p999_ns as f64,
            ),
            "%",
            TOLERANCE,
        ));
    }

    // ---- Fig. 12: F write state only (sync when ADW reaches W_f), per node.
    let mut f_only = Vec::new();
    for (ni, node) in PANGU_TABLE_1.iter().enumerate() {
        progress.step(step, total, &format!("fig12 {} F-only", node.name));
        step += 1;
        let cfg = NodeConfig::paper(Policy::MiosFOnly, l[ni], params, LOG_BYTES);
        f_only.push(run_pangu(node, SSD_960, HDD_10TB, &cfg, scale, seed)?);
    }
    let norm = |f: &dyn Fn(&NodeResult) -> f64| {
        f_only
            .iter()
            .zip(base)
            .map(|(fo, b)| ratio(f(&b[1]), f(fo)))
            .collect::<Vec<_>>()
    };
    let avg_r = norm(&|r| r.write_latency.mean_ns);
    let p99_r = norm(&|r| r.write_latency.p99_ns as f64);
    let p999_r = norm(&|r| r.write_latency.p999_ns as f64);
    figures.push(Figure::bar(
        "fig12a_latency_normalised",
        "Fig. 12(a): F-only with sync, write latency normalised to MIOS_D",
        "node",
        "x MIOS_D",
        names.clone(),
        vec![
            series("avg".into(), avg_r.iter().copied()),
            series("p99".into(), p99_r.iter().copied()),
            series("p99.9".into(), p999_r.iter().copied()),
        ],
    ));
    let ssd_red = |b: &NodeResult, r: &NodeResult| {
        if b.ssd_write_bytes > 0 {
            (1.0 - r.ssd_write_bytes as f64 / b.ssd_write_bytes as f64) * 100.0
        } else {
            f64::NAN
        }
    };
    figures.push(Figure::bar(
        "fig12b_ssd_write_reduction",
        "Fig. 12(b): SSD data written, reduction vs Baseline (%)",
        "node",
        "%",
        names.clone(),
        vec![
            series("MIOS_D".into(), base.iter().map(|b| ssd_red(&b[0], &b[1]))),
            series(
                "F-only".into(),
                base.iter().zip(&f_only).map(|(b, fo)| ssd_red(&b[0], fo)),
            ),
        ],
    ));
    claims.push(Claim::within(
        "fig12.b.p999_ratio",
        "Fig. 12(a): node B p99.9 write latency, F-only with sync / MIOS_D",
        FIG12_B_P999_RATIO,
        p999_r[1],
        "x",
        TOLERANCE,
    ));
    for (ni, paper) in FIG12_P99_RATIO {
        let name = NODE_LETTERS[ni];
        claims.push(Claim::within(
            &format!("fig12.{name}.p99_ratio"),
            &format!(
                "Fig. 12(a): node {} p99 write latency, F-only with sync / MIOS_D",
                names[ni]
            ),
            paper,
            p99_r[ni],
            "x",
            TOLERANCE,
        ));
    }
    for (ni, fo) in f_only.iter().enumerate() {
        notes.push(format!(
            "Fig. 12 {}: F-only redirected {} writes ({:.3} GB), {} syncs (mean {:.1} ms, max {:.1} ms; they found {:.2} MiB buffered on average, at most {:.2} MiB; {} writes arrived during one), no padding; MIOS_D redirected {} ({:.3} GB; {} of them in Mid stages, which F-only cannot use), {} syncs (mean {:.1} ms, {:.2} MiB buffered on average), {:.2} GB padding.",
            names[ni],
            fo.hdd_user_write_requests,
            fo.hdd_user_write_bytes as f64 / 1e9,
            fo.hdd_syncs,
            fo.hdd_sync_duration.mean_ns / 1e6,
            fo.hdd_sync_duration.max_ns as f64 / 1e6,
            fo.hdd_sync_bytes as f64 / fo.hdd_syncs.max(1) as f64 / MIB as f64,
            fo.hdd_sync_bytes_max as f64 / MIB as f64,
            fo.writes_arriving_during_sync,
            base[ni][1].hdd_user_write_requests,
            base[ni][1].hdd_user_write_bytes as f64 / 1e9,
            base[ni][1].hdd_user_writes_in_mid_stages,
            base[ni][1].hdd_syncs,
            base[ni][1].hdd_sync_duration.mean_ns / 1e6,
            base[ni][1].hdd_sync_bytes as f64 / base[ni][1].hdd_syncs.max(1) as f64 / MIB as f64,
            base[ni][1].hdd_padding_bytes as f64 / 1e9,
        ));
    }

    // ---- Several SSD/HDD pairs per node (§4.3): node B's trace placed by file on
    // k pairs of (aged 960 EVO, WD 10 TB), one MIOS scheduler per pair.
    let node_b = &PANGU_TABLE_1[1];
    let mut multi: Vec<[PairPoint; 2]> = Vec::new();
    for &k in &PAIR_COUNTS {
        if k == 1 {
            multi.push([
                PairPoint::of_node(&base[1][0]),
                PairPoint::of_node(&base[1][1]),
            ]);
            continue;
        }
        let mut row = Vec::new();
        for policy in PAIR_POLICIES {
            progress.step(step, total, &format!("pairs B x{k} {}", policy.name()));
            step += 1;
            let mut pairs = Vec::with_capacity(k);
            let mut start = 0;
            for _ in 0..k {
                let (ssd, s) = aged_ssd(SSD_960)?;
                start = s;
                pairs.push(PairDevices {
                    ssd,
                    hdd: open_device(HDD_10TB).map_err(err)?,
                });
            }
            let capacity = pairs[0].ssd.info().capacity_bytes();
            let reqs = pangu_requests(node_b, scale, seed, capacity, start);
            let cfg = NodeConfig::paper(policy, l[1], params, LOG_BYTES);
            let r = run_pairs(&mut pairs, &reqs, chunk_file_bytes(capacity), &cfg).map_err(err)?;
            if policy == Policy::MiosD {
                let per: Vec<String> = r
                    .pairs
                    .iter()
                    .map(|p| {
                        format!(
                            "{}/{} writes redirected, {} syncs",
                            p.hdd_user_write_requests, p.writes, p.hdd_syncs
                        )
                    })
                    .collect();
                notes.push(format!(
                    "Node B on {k} pairs, MIOS_D per pair: {}.",
                    per.join("; ")
                ));
            }
            row.push(PairPoint::of_pairs(&r));
        }
        let [b, d]: [PairPoint; 2] = row.try_into().map_err(|_| err("two policies"))?;
        multi.push([b, d]);
    }
    let cats: Vec<String> = PAIR_COUNTS.iter().map(|k| format!("{k} pair(s)")).collect();
    let mut pair_series = Vec::new();
    for (pi, pname) in [(0, "Baseline"), (1, "MIOS_D")] {
        pair_series.push(series(
            format!("{pname} avg"),
            multi.iter().map(|m| m[pi].mean_ns / 1e3),
        ));
        pair_series.push(series(
            format!("{pname} p99"),
            multi.iter().map(|m| m[pi].p99_ns / 1e3),
        ));
        pair_series.push(series(
            format!("{pname} p99.9"),
            multi.iter().map(|m| m[pi].p999_ns / 1e3),
        ));
    }
    figures.push(Figure::bar(
        "pairs_b_latency",
        "§4.3: node B on 1, 2, 4 independent SSD/HDD pairs (one scheduler each), write latency (us)",
        "pairs",
        "us",
        cats.clone(),
        pair_series,
    ));
    figures.push(Figure::bar(
        "pairs_b_redirected",
        "§4.3: node B on 1, 2, 4 pairs, MIOS_D data redirected to the HDDs (GB)",
        "pairs",
        "GB",
        cats,
        vec![series(
            "MIOS_D redirected".into(),
            multi.iter().map(|m| m[1].redirected_bytes as f64 / 1e9),
        )],
    ));
    Ok(Extra {
        claims,
        figures,
        notes,
    })
}

/// What the multi-pair figure shows of one run (a multi-pair node, or the Fig. 7
/// single-pair run).
struct PairPoint {
    mean_ns: f64,
    p99_ns: f64,
    p999_ns: f64,
    redirected_bytes: u64,
}

impl PairPoint {
    fn of_node(r: &NodeResult) -> Self {
        Self {
            mean_ns: r.write_latency.mean_ns,
            p99_ns: r.write_latency.p99_ns as f64,
            p999_ns: r.write_latency.p999_ns as f64,
            redirected_bytes: r.hdd_user_write_bytes,
        }
    }

    fn of_pairs(r: &MultiPairResult) -> Self {
        Self {
            mean_ns: r.write_latency.mean_ns,
            p99_ns: r.write_latency.p99_ns as f64,
            p999_ns: r.write_latency.p999_ns as f64,
            redirected_bytes: r.hdd_user_write_bytes,
        }
    }
}
