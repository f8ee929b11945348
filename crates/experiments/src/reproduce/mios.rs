//! Target `mios`: BCW/MIOS §4–§5 — the HDD write-state predictor's accuracy (§4.1)
//! and the hybrid node under the four Pangu-like workloads (Fig. 7–9, Table 3):
//! SSD-only Baseline vs MIOS_D and MIOS_E on a 960 EVO-like SSD with the WD 10 TB
//! HDD (its DRAM write cache modelled), each on fresh, preconditioned devices.
//! Table 5 (HDD utilisation) from the same runs; Fig. 10 (L vs L+1), Fig. 13 /
//! Table 4 (other HDDs), Fig. 14 (660p SSD) and Fig. 15 (fio interval sweep) are in
//! `mios_extra.rs`; Fig. 11 (MIOS_D vs MIOS_E per size group), Fig. 12 (F-only with
//! sync) and the node of several SSD/HDD pairs (§4.3) in `mios_more.rs`.

use super::mios_extra::three_policies_per_node;
use super::mios_extra::{
    aged_ssd as aged, err, extra, forget_aged_ssds, show_threshold, EXTRA_STEPS, HDD_10TB as HDD,
    SSD_960 as SSD, THRESHOLD_MIN_WRITES,
};
use super::mios_load::{load_sweep, LOAD_STEPS};
use super::mios_more::{more, MORE_STEPS};
use super::{ProgressSink, ReproduceError, RunOptions, Target, TargetDraws};
use crate::reproduce_result::{round_sig, Claim, Figure, FigureKind, ReproduceResult, Series};
use crate::seed_draws::run_draws;
use zonelab_devices::{open_device, Device};
use zonelab_engine::{KIB, MIB};
use zonelab_systems::mios::node::NodeResult;
use zonelab_systems::mios::ssd_threshold::{latency_by_queue_length, measure_threshold};
use zonelab_systems::mios::{accuracy_experiment, profile, AccuracyConfig, ProfileConfig};
use zonelab_workloads::pangu::PANGU_TABLE_1;

/// The target; `draws` is how many seeds each claim's median is taken over
/// (`seed_draws`; default 3, 1 is the plain single-seed run).
pub struct MiosTarget {
    pub draws: usize,
}

impl Default for MiosTarget {
    fn default() -> Self {
        Self { draws: 3 }
    }
}

/// MIOS Table 1: average SSD IO utilisation of the production nodes A-D (%).
const TABLE1_SSD_UTIL_PCT: [f64; 4] = [11.9, 28.5, 24.6, 25.0];

/// A fresh 960 EVO-like SSD filled once sequentially; see [`aged`].
fn aged_ssd() -> Result<(Box<dyn Device>, u64), ReproduceError> {
    aged(SSD)
}

impl Target for MiosTarget {
    fn name(&self) -> &'static str {
        "mios"
    }

    fn description(&self) -> &'static str {
        "BCW/MIOS: predictor accuracy (§4.1), Pangu-like nodes A-D with Baseline / MIOS_D / MIOS_E (Fig. 7-15, Tables 3-5), several SSD/HDD pairs per node (§4.3)"
    }

    fn draws(&self) -> Option<TargetDraws> {
        Some(TargetDraws {
            what: "seeds of the generated workloads",
            default_count: self.draws,
        })
    }

    fn run(
        &self,
        opts: &RunOptions,
        progress: &mut dyn ProgressSink,
    ) -> Result<ReproduceResult, ReproduceError> {
        let result = run_draws(
            opts.seed,
            opts.draws.unwrap_or(self.draws),
            |seed, progress| {
                let opts = RunOptions {
                    seed,
                    ..opts.clone()
                };
                run_one_draw(&opts, progress)
            },
            progress,
        );
        forget_aged_ssds();
        result
    }
}

/// Every experiment of the target under one seed.
fn run_one_draw(
    opts: &RunOptions,
    progress: &mut dyn ProgressSink,
) -> Result<ReproduceResult, ReproduceError> {
    let total = 2 + 3 * PANGU_TABLE_1.len() as u64 + EXTRA_STEPS + MORE_STEPS + LOAD_STEPS;
    progress.step(0, total, "profile HDD");
    let mut hdd = open_device(HDD).map_err(err)?;
    let prof = profile(hdd.as_mut(), &ProfileConfig::new(64 * KIB)).map_err(err)?;
    let params = prof.params;
    progress.step(1, total, "predictor accuracy");
    let mut hdd = open_device(HDD).map_err(err)?;
    let acc = accuracy_experiment(
        hdd.as_mut(),
        &AccuracyConfig::scaled(opts.scale).map_err(err)?,
        &mut |_, _| {},
    )
    .map_err(err)?;
    let mut claims = vec![
            Claim::within(
                "predictor.accuracy_f",
                "§4.1: share of F predictions that were F (100 GB of 128 KiB writes, sync every 1 GB)",
                99.5,
                acc.f.precision.unwrap_or(f64::NAN) * 100.0,
                "%",
                0.05,
            ),
            Claim::within(
                "predictor.accuracy_m",
                "§4.1: share of M predictions that were M",
                98.1,
                acc.m.precision.unwrap_or(f64::NAN) * 100.0,
                "%",
                0.05,
            ),
            Claim::within(
                "predictor.accuracy_s",
                "§4.1: share of S predictions that were S (low: the policy \"tends to favor the S write-state\")",
                60.3,
                acc.s.precision.unwrap_or(f64::NAN) * 100.0,
                "%",
                0.25,
            ),
        ];
    let mut results: Vec<[NodeResult; 3]> = Vec::new();
    let mut thresholds = Vec::new();
    let mut step = 2;
    // The closed-loop probe of the aged SSD (saturating at every depth), shown
    // for comparison; L itself comes from each node's Baseline run (§5.1).
    let (mut probe, _) = aged_ssd()?;
    let q = measure_threshold(probe.as_mut(), 4 * KIB, params.l_m_ns, 32, 2_000, opts.seed)
        .map_err(err)?;
    drop(probe);
    // The four nodes side by side on the machine's cores (results in order).
    for (runs, l) in three_policies_per_node(
        SSD,
        params,
        opts.scale,
        opts.seed,
        progress,
        super::mios_extra::Steps { done: step, total },
    )? {
        thresholds.push(l);
        results.push(runs);
    }
    step += 3 * PANGU_TABLE_1.len() as u64;
    let more_runs = more(
        opts.scale,
        opts.seed,
        params,
        &thresholds,
        &results,
        progress,
        super::mios_extra::Steps { done: step, total },
    )?;
    step += MORE_STEPS;
    let more = extra(
        opts.scale,
        opts.seed,
        params,
        &thresholds,
        &results,
        progress,
        super::mios_extra::Steps { done: step, total },
    )?;
    step += EXTRA_STEPS;
    let load = load_sweep(
        opts.scale,
        opts.seed,
        params,
        &results[1],
        thresholds[1],
        progress,
        super::mios_extra::Steps { done: step, total },
    )?;
    progress.step(total, total, "done");
    let red = |base: u64, new: u64| {
        if base > 0 {
            (1.0 - new as f64 / base as f64) * 100.0
        } else {
            f64::NAN
        }
    };
    let redf = |base: f64, new: f64| {
        if base > 0.0 {
            (1.0 - new / base) * 100.0
        } else {
            f64::NAN
        }
    };
    let (a, b) = (&results[0], &results[1]);
    claims.push(Claim::within(
        "fig7.b.avg_reduction",
        "Fig. 7: node B average write latency, MIOS_D vs Baseline",
        65.0,
        redf(b[0].write_latency.mean_ns, b[1].write_latency.mean_ns),
        "%",
        0.25,
    ));
    claims.push(Claim::within(
        "fig7.b.p99_reduction",
        "Fig. 7: node B p99 write latency, MIOS_D vs Baseline",
        85.0,
        red(b[0].write_latency.p99_ns, b[1].write_latency.p99_ns),
        "%",
        0.25,
    ));
    claims.push(Claim::in_range(
        "fig7.a.avg_reduction",
        "Fig. 7: node A average write latency, MIOS_D vs Baseline (paper: about 2%)",
        0.0,
        10.0,
        redf(a[0].write_latency.mean_ns, a[1].write_latency.mean_ns),
        "%",
    ));
    claims.push(Claim::in_range(
        "fig7.a.p99_reduction",
        "Fig. 7: node A p99 write latency, MIOS_D vs Baseline (paper: about 3.5%)",
        0.0,
        10.0,
        red(a[0].write_latency.p99_ns, a[1].write_latency.p99_ns),
        "%",
    ));
    claims.push(Claim::within(
        "table3.a.mios_e_ssd_write_reduction",
        "Table 3: node A SSD data written, MIOS_E vs Baseline (paper: up to 93.3%)",
        93.3,
        red(a[0].ssd_write_bytes, a[2].ssd_write_bytes),
        "%",
        0.1,
    ));

    let names: Vec<String> = PANGU_TABLE_1.iter().map(|n| n.name.to_string()).collect();
    let bars = |id: &str, title: &str, y: &str, f: &dyn Fn(&NodeResult) -> f64| Figure {
        id: id.to_string(),
        title: title.to_string(),
        kind: FigureKind::Bar,
        x_label: "node".to_string(),
        y_label: y.to_string(),
        categories: names.clone(),
        series: ["Baseline", "MIOS_D", "MIOS_E"]
            .iter()
            .enumerate()
            .map(|(pi, n)| Series {
                name: n.to_string(),
                points: results
                    .iter()
                    .enumerate()
                    .map(|(ni, r)| (ni as f64, round_sig(f(&r[pi]))))
                    .collect(),
            })
            .collect(),
    };
    let mut figures = vec![
        bars(
            "fig7_avg",
            "Fig. 7: average write latency (us)",
            "us",
            &|r| r.write_latency.mean_ns / 1e3,
        ),
        bars("fig7_p99", "Fig. 7: p99 write latency (us)", "us", &|r| {
            r.write_latency.p99_ns as f64 / 1e3
        }),
        bars(
            "fig7_p999",
            "Fig. 7: p99.9 write latency (us)",
            "us",
            &|r| r.write_latency.p999_ns as f64 / 1e3,
        ),
        bars(
            "table3_ssd_writes",
            "Table 3: SSD data written (GB)",
            "GB",
            &|r| r.ssd_write_bytes as f64 / 1e9,
        ),
        bars(
            "table3_hdd_writes",
            "Table 3: HDD data written incl. padding (GB)",
            "GB",
            &|r| (r.hdd_user_write_bytes + r.hdd_padding_bytes) as f64 / 1e9,
        ),
        bars(
            "table5_hdd_utilisation",
            "Table 5: HDD gross utilisation (%)",
            "%",
            &|r| r.hdd_gross_utilisation * 100.0,
        ),
    ];
    // Fig. 8: CDF of the SSD queue length, Baseline vs MIOS_D, per node.
    let mut cdf_series = Vec::new();
    for (ni, r) in results.iter().enumerate() {
        for (pi, pname) in [(0, "Baseline"), (1, "MIOS_D")] {
            let counts = &r[pi].ssd_queue_length_counts;
            let total: u64 = counts.iter().sum();
            // Up to the longest queue seen (the last bucket holds all longer ones).
            let longest = counts.iter().rposition(|&c| c > 0).unwrap_or(0);
            let mut acc = 0u64;
            let points = counts.iter().enumerate().take(longest + 1).map(|(l, c)| {
                acc += c;
                (l as f64, round_sig(acc as f64 / total.max(1) as f64))
            });
            cdf_series.push(Series {
                name: format!("{} {}", names[ni], pname),
                points: points.collect(),
            });
        }
    }
    figures.push(Figure {
        id: "fig8_ssd_queue_cdf".into(),
        title: "Fig. 8: CDF of SSD queue length".into(),
        kind: FigureKind::Line,
        x_label: "queue length".into(),
        y_label: "CDF".into(),
        categories: vec![],
        series: cdf_series,
    });
    // Fig. 9: node B mean write latency per size group.
    let groups: Vec<String> = ["<4K", "4-16K", "16-64K", "64-256K", "256K-1M", ">=1M"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    figures.push(Figure {
        id: "fig9_b_latency_by_size".into(),
        title: "Fig. 9: node B mean write latency per request size (us)".into(),
        kind: FigureKind::Bar,
        x_label: "size group".into(),
        y_label: "us".into(),
        categories: groups,
        series: [(0, "Baseline"), (1, "MIOS_D")]
            .iter()
            .map(|(pi, n)| Series {
                name: n.to_string(),
                points: b[*pi]
                    .write_latency_by_size_ns
                    .iter()
                    .enumerate()
                    .map(|(g, v)| (g as f64, round_sig(v / 1e3)))
                    .collect(),
            })
            .collect(),
    });
    let mut notes = vec![
            format!("HDD profile ({HDD}, 64 KiB writes): L_f {:.0} us, L_m {:.0} us, L_s {:.1} ms, W_f {:.1} MiB, W_m {:.1} MiB.", params.l_f_ns as f64 / 1e3, params.l_m_ns as f64 / 1e3, params.l_s_ns as f64 / 1e6, params.w_f_bytes as f64 / MIB as f64, params.w_m_bytes as f64 / MIB as f64),
            format!("Threshold L per node (§4.3/§5.1: the smallest SSD queue length at which arriving writes' mean latency exceeds L_m in the node's Baseline run on an aged {SSD}; paper 1, 3, 2, 2): {}.", thresholds.iter().map(|&l| show_threshold(l)).collect::<Vec<_>>().join(", ")),
            format!("Closed-loop probe of the aged {SSD} (4 KiB random writes at each depth, the drive saturated at every depth): L = {}, mean latency at depth 1 {:.0} us.", q.threshold, q.mean_latency_ns.first().map_or(0.0, |p| p.1 / 1e3)),
            "Workloads are Pangu-like traces generated from MIOS Table 1 (docs/mios.md); the real Pangu traces are private.".to_string(),
            format!("Predictor (§4.1 test): confusion[predicted][actual] (F, M, S) {:?}; share of predictions right (the claims) F / M / S {:.2} / {:.2} / {:.2}%, share of each state's writes predicted in it {:.2} / {:.2} / {:.2}%.", acc.confusion, acc.f.precision.unwrap_or(f64::NAN) * 100.0, acc.m.precision.unwrap_or(f64::NAN) * 100.0, acc.s.precision.unwrap_or(f64::NAN) * 100.0, acc.f.accuracy.unwrap_or(f64::NAN) * 100.0, acc.m.accuracy.unwrap_or(f64::NAN) * 100.0, acc.s.accuracy.unwrap_or(f64::NAN) * 100.0),
        ];
    for (ni, r) in results.iter().enumerate() {
        notes.push(format!(
                "{}: redirected {} of {} writes (MIOS_D), {} (MIOS_E); sent back to the SSD {} / {}; HDD padding {:.2} GB / {:.2} GB; BCW syncs {} / {}; HDD reads {} / {}; HDD GC runs {} / {}.",
                names[ni], r[1].hdd_user_write_requests, r[1].writes, r[2].hdd_user_write_requests, r[1].writes_sent_back, r[2].writes_sent_back, r[1].hdd_padding_bytes as f64 / 1e9, r[2].hdd_padding_bytes as f64 / 1e9, r[1].hdd_syncs, r[2].hdd_syncs, r[1].hdd_reads, r[2].hdd_reads, r[1].hdd_gc_runs, r[2].hdd_gc_runs
            ));
        notes.push(format!(
            "{} Baseline: mean SSD write latency by queue length at arrival (us): {}.",
            names[ni],
            latency_by_queue_length(&r[0], THRESHOLD_MIN_WRITES)
                .iter()
                .take(12)
                .map(|(l, ns)| format!("{l}: {:.0}", ns / 1e3))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let b = &r[0];
        let arrivals: u64 = b.ssd_queue_length_counts.iter().sum();
        let mean_q = b.ssd_queue_length_sum as f64 / arrivals.max(1) as f64;
        let busy = 1.0
            - b.ssd_queue_length_counts.first().copied().unwrap_or(0) as f64
                / arrivals.max(1) as f64;
        notes.push(format!(
                "{} Baseline SSD queue (Fig. 8): mean {:.2}, longest {} (paper, node B: 23), {:.1}% of arrivals find it busy; SSD IO utilisation (iostat %util: share of the run with a request on the drive) {:.1}% (Table 1's production SSD utilisation: {}%).",
                names[ni],
                mean_q,
                b.max_ssd_queue_length,
                busy * 100.0,
                100.0 * b.ssd_busy_ns as f64 / b.duration_ns.max(1) as f64,
                TABLE1_SSD_UTIL_PCT[ni]
            ));
        for (pi, pname) in [(1, "MIOS_D"), (2, "MIOS_E")] {
            let st = &r[pi].hdd_user_write_latency_by_state;
            notes.push(format!(
                    "{} {pname}: redirected writes by predicted state, count / mean / p99 us: F {} / {:.0} / {:.0}, M {} / {:.0} / {:.0}.",
                    names[ni],
                    st[0].count, st[0].mean_ns / 1e3, st[0].p99_ns as f64 / 1e3,
                    st[1].count, st[1].mean_ns / 1e3, st[1].p99_ns as f64 / 1e3
                ));
            notes.push(super::mios_hdd_path::hdd_path_note(
                &format!("{} {pname} HDD path", names[ni]),
                &r[pi],
            ));
        }
    }
    claims.extend(more.claims);
    figures.extend(more.figures);
    notes.extend(more.notes);
    claims.extend(more_runs.claims);
    figures.extend(more_runs.figures);
    notes.extend(more_runs.notes);
    figures.extend(load.figures);
    notes.extend(load.notes);
    Ok(ReproduceResult {
        target: "mios".into(),
        scale: opts.scale,
        seed: opts.seed,
        version: env!("CARGO_PKG_VERSION").into(),
        claims,
        figures,
        notes,
    })
}
