//! `zonelab reproduce hhzs-motivation`: the motivating analysis of HHZS
//! (`papers/hhzs.txt` §2.3, Fig. 2) — the basic placement schemes B1–B4 on a ZNS
//! SSD limited to 20 zones plus an HM-SMR HDD, under a YCSB load of 200 GiB of
//! 1 KiB objects (unthrottled and at 6,000 ops/s), then 1 M Zipf reads.
//!
//! Each scheme loads a fresh database; the α = 0.9 and α = 1.2 read phases then run
//! one after the other on it, each after closing and reopening the database as a
//! separate `ycsb run` process does (the paper reloads before each workload;
//! reloading would double the run time for a cache that is 8 MiB and compactions
//! that are still draining either way).

use super::{ProgressSink, ReproduceError, RunOptions, Target};
use crate::hhzs_setup::{HybridSetup, YcsbOps, PAPER_RECORDS};
use crate::parallel::{default_threads, map_in_order};
use crate::reproduce_result::{Claim, Figure, FigureKind, ReproduceResult, Series};
use zonelab_engine::time::{GIB, NS_PER_S};
use zonelab_engine::RngStreams;
use zonelab_systems::hhzs::{BasicPlacement, FileClass, ZoneFileStore};
use zonelab_systems::lsm::{LevelSamples, LsmDb, LsmSummary};
use zonelab_workloads::ycsb::custom;

pub struct HhzsMotivationTarget;

/// Levels shown in the figures: WAL, L0..L4 (the paper's Fig. 2).
const SHOWN_LEVELS: u32 = 5;
/// YCSB `-target` of the throttled load (§2.3, O3).
const THROTTLE_OPS_PER_S: u64 = 6_000;
/// Reads after the load (§2.3, O4).
const PAPER_READS: u64 = 1_000_000;
const ALPHAS: [f64; 2] = [0.9, 1.2];

/// What one read phase measured.
struct ReadRun {
    summary: LsmSummary,
    /// Share of the reads that fetched a block from the HDD, in %.
    hdd_share: f64,
    /// Share of device block reads that went to the HDD, in %.
    block_share: f64,
}

/// What one load (and its read phases) measured.
struct LoadRun {
    load: LsmSummary,
    samples: LevelSamples,
    /// SSD share of the bytes written per class (WAL, L0..L4), in %.
    ssd_write_share_pct: Vec<f64>,
    /// Per α.
    reads: Vec<ReadRun>,
    /// Reads per L3 SST after the α = 0.9 phase: (on SSD, on HDD), sorted descending.
    l3_reads: (Vec<u64>, Vec<u64>),
}

fn class_index(c: FileClass) -> Option<usize> {
    match c {
        FileClass::Wal => Some(0),
        FileClass::Level(l) if l < SHOWN_LEVELS => Some(l as usize + 1),
        FileClass::Level(_) => None,
    }
}

fn ssd_write_share(store: &ZoneFileStore) -> Vec<f64> {
    let mut ssd = vec![0u64; SHOWN_LEVELS as usize + 1];
    let mut all = vec![0u64; SHOWN_LEVELS as usize + 1];
    for (&class, per_dev) in store.written_by_class() {
        if let Some(i) = class_index(class) {
            ssd[i] += per_dev[0];
            all[i] += per_dev.iter().sum::<u64>();
        }
    }
    ssd.iter()
        .zip(&all)
        .map(|(&s, &a)| {
            if a == 0 {
                0.0
            } else {
                100.0 * s as f64 / a as f64
            }
        })
        .collect()
}

fn point_reads(store: &ZoneFileStore) -> Vec<u64> {
    store.traffic().iter().map(|t| t.point_reads).collect()
}

fn l3_read_counts(db: &LsmDb<ZoneFileStore>) -> (Vec<u64>, Vec<u64>) {
    let store = db.storage();
    let (mut ssd, mut hdd) = (Vec::new(), Vec::new());
    for &f in &db.version().levels[3] {
        let n = store.file_reads().get(&f).copied().unwrap_or(0);
        match store.device_of(f) {
            Some(0) => ssd.push(n),
            _ => hdd.push(n),
        }
    }
    ssd.sort_unstable_by(|a, b| b.cmp(a));
    hdd.sort_unstable_by(|a, b| b.cmp(a));
    (ssd, hdd)
}

fn run_load(
    setup: &HybridSetup,
    h: u32,
    records: u64,
    target_ops_per_s: u64,
    reads: u64,
    seed: u64,
    sample_interval_ns: u64,
) -> Result<LoadRun, ReproduceError> {
    let run_err = |e: String| ReproduceError::Run(format!("hhzs-motivation B{h}: {e}"));
    let mut db = setup
        .open(Box::new(BasicPlacement { h }))
        .map_err(run_err)?;
    db.sample_levels_every(sample_interval_ns);
    let spec = setup.load_spec(records);
    let load_ops = spec.load().map_err(|e| run_err(e.to_string()))?;
    let load = db
        .run_ops(&mut YcsbOps { inner: load_ops }, target_ops_per_s)
        .map_err(|e| run_err(e.to_string()))?;
    let samples = db.level_samples().cloned().unwrap_or_default();
    let ssd_write_share_pct = ssd_write_share(db.storage());
    let mut read_runs = Vec::new();
    let mut l3_reads = (Vec::new(), Vec::new());
    for (i, &alpha) in ALPHAS.iter().enumerate() {
        if reads == 0 {
            break;
        }
        let mut spec = custom(1.0, alpha).map_err(|e| run_err(e.to_string()))?;
        spec.record_count = records;
        spec.operation_count = reads;
        spec.field_count = 1;
        spec.field_length_bytes = setup.options.value_bytes;
        let rngs = RngStreams::new(seed ^ (i as u64 + 1));
        let ops = spec.run(&rngs).map_err(|e| run_err(e.to_string()))?;
        // `ycsb run` is a process of its own (H2Zone's scripts): the database is
        // closed after the load (or the previous read phase) and opened again.
        db.reopen().map_err(|e| run_err(e.to_string()))?;
        let before = point_reads(db.storage());
        let summary = db
            .run_ops(&mut YcsbOps { inner: ops }, 0)
            .map_err(|e| run_err(e.to_string()))?;
        let after = point_reads(db.storage());
        let delta: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
        let device_reads: u64 = delta.iter().sum();
        let block_share = if device_reads == 0 {
            0.0
        } else {
            100.0 * delta[1..].iter().sum::<u64>() as f64 / device_reads as f64
        };
        // Read traffic to the HDD = reads that had to fetch a block from the HDD
        // (see docs/hhzs.md on this reading of Fig. 2(h)).
        let by_tier = &summary.gets_by_slowest_tier;
        let gets: u64 = by_tier.iter().sum();
        let hdd_share = if gets == 0 {
            0.0
        } else {
            100.0 * by_tier.iter().skip(1).sum::<u64>() as f64 / gets as f64
        };
        if i == 0 {
            l3_reads = l3_read_counts(&db);
        }
        read_runs.push(ReadRun {
            summary,
            hdd_share,
            block_share,
        });
    }
    Ok(LoadRun {
        load,
        samples,
        ssd_write_share_pct,
        reads: read_runs,
        l3_reads,
    })
}

/// (min, q1, median, q3, max) of `v` (nearest-rank quantiles).
fn five_numbers(v: &[f64]) -> [f64; 5] {
    if v.is_empty() {
        return [0.0; 5];
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let q = |p: f64| s[((p * (s.len() - 1) as f64).round() as usize).min(s.len() - 1)];
    [s[0], q(0.25), q(0.5), q(0.75), s[s.len() - 1]]
}

/// Which files a level's size counts.
#[derive(Clone, Copy)]
enum LevelCount {
    /// Every file of the level on storage (the paper's ZenFS).
    FileSystem,
    /// The Version's SSTs and pinned obsolete ones, not the outputs being written.
    FinishedFiles,
    /// RocksDB's current Version alone.
    Version,
}

/// Level sizes in paper-scale GiB: (WAL, L0..L4) × five numbers.
fn level_boxes(samples: &LevelSamples, scale: f64) -> Vec<[f64; 5]> {
    let gib = |b: u64| b as f64 / scale / GIB as f64;
    let mut out = vec![five_numbers(
        &samples
            .wal_bytes
            .iter()
            .map(|&b| gib(b))
            .collect::<Vec<_>>(),
    )];
    for l in 0..SHOWN_LEVELS as usize {
        let v: Vec<f64> = if l < samples.level_bytes.len() {
            (0..samples.time_s.len())
                .map(|i| gib(samples.stored_level_bytes(l, i)))
                .collect()
        } else {
            Vec::new()
        };
        out.push(five_numbers(&v));
    }
    out
}

fn categories() -> Vec<String> {
    let mut c = vec!["WAL".to_string()];
    c.extend((0..SHOWN_LEVELS).map(|l| format!("L{l}")));
    c
}

fn box_figure(id: &str, title: &str, boxes: &[[f64; 5]]) -> Figure {
    let names = ["min", "q1", "median", "q3", "max"];
    Figure {
        id: id.into(),
        title: title.into(),
        kind: FigureKind::Bar,
        x_label: "level".into(),
        y_label: "size (GiB, paper scale)".into(),
        categories: categories(),
        series: names
            .iter()
            .enumerate()
            .map(|(k, n)| Series {
                name: n.to_string(),
                points: boxes
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (i as f64, b[k]))
                    .collect(),
            })
            .collect(),
    }
}

fn share_figure(id: &str, title: &str, runs: &[LoadRun]) -> Figure {
    Figure {
        id: id.into(),
        title: title.into(),
        kind: FigureKind::Bar,
        x_label: "level".into(),
        y_label: "writes to the SSD (%)".into(),
        categories: categories(),
        series: runs
            .iter()
            .enumerate()
            .map(|(h, r)| Series {
                name: format!("B{}", h + 1),
                points: r
                    .ssd_write_share_pct
                    .iter()
                    .enumerate()
                    .map(|(i, &p)| (i as f64, p))
                    .collect(),
            })
            .collect(),
    }
}

fn scheme_figure(id: &str, title: &str, y: &str, series: Vec<Series>) -> Figure {
    Figure {
        id: id.into(),
        title: title.into(),
        kind: FigureKind::Bar,
        x_label: "scheme".into(),
        y_label: y.into(),
        categories: (1..=4).map(|h| format!("B{h}")).collect(),
        series,
    }
}

impl Target for HhzsMotivationTarget {
    fn name(&self) -> &'static str {
        "hhzs-motivation"
    }

    fn description(&self) -> &'static str {
        "HHZS §2.3 / Fig. 2: basic placement B1-B4 on ZN540 (20 zones) + ST14000NM0007 under a YCSB load of 200 GiB and Zipf reads (O1-O4)"
    }

    fn scale_range(&self) -> (f64, f64) {
        (0.0005, 1.0)
    }

    fn run(
        &self,
        opts: &RunOptions,
        progress: &mut dyn ProgressSink,
    ) -> Result<ReproduceResult, ReproduceError> {
        let scale = opts.scale;
        let setup = HybridSetup::paper(scale);
        let records = ((PAPER_RECORDS as f64 * scale).round() as u64).max(1000);
        let reads = ((PAPER_READS as f64 * scale).round() as u64).max(20_000);
        // Fig. 2 samples every minute; the load shrinks with the scale, so do the
        // sampling intervals (at least 100 ms).
        let interval = ((60.0 * scale * NS_PER_S as f64) as u64).max(NS_PER_S / 10);
        // The eight loads (B1-B4 unthrottled with their read phases, then throttled)
        // are independent: they run side by side on the machine's cores, results
        // in this order.
        let jobs: Vec<(u32, u64, u64)> = (1..=4)
            .map(|h| (h, 0, reads))
            .chain((1..=4).map(|h| (h, THROTTLE_OPS_PER_S, 0)))
            .collect();
        let steps = jobs.len() as u64;
        let mut done = 0;
        progress.step(0, steps, "B1-B4: loads");
        let mut runs = map_in_order(
            &jobs,
            default_threads(),
            |&(h, ops_per_s, reads)| {
                run_load(&setup, h, records, ops_per_s, reads, opts.seed, interval)
            },
            |i| {
                done += 1;
                let (h, ops_per_s, _) = jobs[i];
                let label = if ops_per_s == 0 {
                    format!("B{h}: load + Zipf reads")
                } else {
                    format!("B{h}: load at {ops_per_s} ops/s")
                };
                progress.step(done, steps, &label);
            },
        )?;
        let throttled = runs.split_off(4);
        let unthrottled = runs;

        let o = &setup.options;
        let targets = [
            o.level_base_bytes,
            o.level_base_bytes,
            o.level_target_bytes(2),
        ];
        // The paper sampled level sizes in its ZenFS, which sizes a level by every
        // file it holds with that level's hint (H2Zone `ZenFS::
        // ComputeCurrentAllocation` walks `files_` and logs the sums): RocksDB's
        // live SSTs, the obsolete ones running jobs still pin, and the outputs
        // running jobs are writing (`LevelSamples::stored_level_bytes`).
        let max_over_target_of = |s: &LevelSamples, level: usize, counted: LevelCount| {
            let max = (0..s.time_s.len())
                .map(|i| match counted {
                    LevelCount::FileSystem => s.stored_level_bytes(level, i),
                    LevelCount::FinishedFiles => s.pinned_level_bytes(level, i),
                    LevelCount::Version => s.level_bytes[level][i],
                })
                .max()
                .unwrap_or(0);
            max as f64 / targets[level] as f64
        };
        let max_over_target =
            |s: &LevelSamples, level: usize| max_over_target_of(s, level, LevelCount::FileSystem);
        let median_over_target = |s: &LevelSamples, level: usize| {
            let sizes: Vec<f64> = (0..s.time_s.len())
                .map(|i| s.stored_level_bytes(level, i) as f64)
                .collect();
            five_numbers(&sizes)[2] / targets[level] as f64
        };
        // Fig. 2(b)'s share of a class's writes that went to the HDD (the paper's
        // O2 numbers), from the SSD share this target measures; class 0 is the WAL,
        // class l + 1 is level l.
        let hdd_write_share = |r: &LoadRun, class: usize| 100.0 - r.ssd_write_share_pct[class];
        let (b3, b4) = (&unthrottled[2], &unthrottled[3]);
        let b4t = &throttled[3];
        let tput = |r: &LoadRun| r.load.ops_per_s;
        let b3_over_b4 = tput(b3) / tput(b4).max(1e-9);
        let hdd_share = |alpha_idx: usize| {
            unthrottled
                .iter()
                .map(|r| r.reads[alpha_idx].hdd_share)
                .sum::<f64>()
                / unthrottled.len() as f64
        };
        // Mean reads of the (up to) five most-read SSTs of a list sorted descending.
        let l3_top5 = |v: &Vec<u64>| {
            let top = &v[..v.len().min(5)];
            top.iter().sum::<u64>() as f64 / top.len().max(1) as f64
        };
        let (l3_on_ssd, l3_on_hdd) = &b4.l3_reads;
        // Every number §2.3 states for O1-O4. Level sizes keep O1's ±50 %, write
        // shares ±25 % of the paper's value, the L3 SST counts ±50 %.
        let claims = vec![
            Claim::within("o1.l0_max_over_target", "O1 (Fig. 2a): max L0 size / L0 target under B4, unthrottled load", 40.3, max_over_target(&b4.samples, 0), "x", 0.5),
            Claim::within("o1.l1_max_over_target", "O1 (Fig. 2a): max L1 size / L1 target under B4", 29.7, max_over_target(&b4.samples, 1), "x", 0.5),
            Claim::within("o1.l2_max_over_target", "O1 (Fig. 2a): max L2 size / L2 target under B4", 4.9, max_over_target(&b4.samples, 2), "x", 0.5),
            Claim::within("o1.l0_median_over_target", "O1 (Fig. 2a): median L0 size / L0 target under B4, unthrottled load", 4.0, median_over_target(&b4.samples, 0), "x", 0.5),
            Claim::within("o1.l1_median_over_target", "O1 (Fig. 2a): median L1 size / L1 target under B4", 5.2, median_over_target(&b4.samples, 1), "x", 0.5),
            Claim::within("o1.l2_median_over_target", "O1 (Fig. 2a): median L2 size / L2 target under B4", 1.4, median_over_target(&b4.samples, 2), "x", 0.5),
            Claim::within("o2.b3_over_b4_load", "O2 (Fig. 2c): load throughput B3 / B4 (paper: B4 is 11.3% below B3)", 1.0 / (1.0 - 0.113), b3_over_b4, "x", 0.05),
            Claim::within("o2.b4_l0_hdd_write_share", "O2 (Fig. 2b): share of B4's L0 writes that went to the HDD", 84.4, hdd_write_share(b4, 1), "%", 0.25),
            Claim::within("o2.b4_l1_hdd_write_share", "O2 (Fig. 2b): share of B4's L1 writes that went to the HDD", 89.1, hdd_write_share(b4, 2), "%", 0.25),
            Claim::within("o2.b3_wal_hdd_write_share", "O2 (Fig. 2b): share of B3's WAL writes that went to the HDD", 68.2, hdd_write_share(b3, 0), "%", 0.25),
            Claim::within("o2.b3_l0_hdd_write_share", "O2 (Fig. 2b): share of B3's L0 writes that went to the HDD", 68.2, hdd_write_share(b3, 1), "%", 0.25),
            Claim::within("o2.b3_l1_hdd_write_share", "O2 (Fig. 2b): share of B3's L1 writes that went to the HDD", 49.4, hdd_write_share(b3, 2), "%", 0.25),
            Claim::within("o2.b3_l2_hdd_write_share", "O2 (Fig. 2b): share of B3's L2 writes that went to the HDD", 67.2, hdd_write_share(b3, 3), "%", 0.25),
            Claim::within("o3.l0_max_over_target", "O3 (Fig. 2d): max L0 size / target under B4 at 6,000 ops/s", 10.0, max_over_target(&b4t.samples, 0), "x", 0.5),
            Claim::within("o3.l1_max_over_target", "O3 (Fig. 2d): max L1 size / target under B4 at 6,000 ops/s", 10.7, max_over_target(&b4t.samples, 1), "x", 0.5),
            Claim::within("o3.l2_max_over_target", "O3 (Fig. 2d): max L2 size / target under B4 at 6,000 ops/s", 2.4, max_over_target(&b4t.samples, 2), "x", 0.5),
            Claim::within("o4.b4_l3_ssts_on_ssd", "O4 (Fig. 2g): L3 SSTs on the SSD after the B4 load (paper: 5)", 5.0, l3_on_ssd.len() as f64, "SSTs", 0.5),
            Claim::within("o4.b4_l3_ssts_on_hdd", "O4 (Fig. 2g): L3 SSTs on the HDD after the B4 load (paper: 98)", 98.0, l3_on_hdd.len() as f64, "SSTs", 0.5),
            Claim::at_least("o4.b4_l3_top5_hdd_over_ssd_reads", "O4 (Fig. 2g): mean reads of the five most-read L3 SSTs on the HDD / of the (up to five) most-read L3 SSTs on the SSD, alpha 0.9 (paper: much more on the HDD)", 1.0, l3_top5(l3_on_hdd) / l3_top5(l3_on_ssd).max(1.0), "x"),
            Claim::in_range("o4.hdd_read_share_a090", "O4 (Fig. 2h): share of reads served by the HDD, alpha = 0.9, mean of B1-B4 (paper range 79.7-98.2%)", 79.7, 98.2, hdd_share(0), "%"),
            Claim::in_range("o4.hdd_read_share_a120", "O4 (Fig. 2h): share of reads served by the HDD, alpha = 1.2, mean of B1-B4 (paper range 35.8-49.5%)", 35.8, 49.5, hdd_share(1), "%"),
        ];

        let mut figures = vec![
            box_figure(
                "fig2a_level_sizes_b4",
                "Fig. 2(a): WAL and level sizes sampled during the load, B4",
                &level_boxes(&b4.samples, scale),
            ),
            share_figure(
                "fig2b_ssd_write_share",
                "Fig. 2(b): share of each level's writes that reached the SSD",
                &unthrottled,
            ),
            scheme_figure(
                "fig2c_load_throughput",
                "Fig. 2(c): load throughput",
                "KOPS",
                vec![Series {
                    name: "load".into(),
                    points: unthrottled
                        .iter()
                        .enumerate()
                        .map(|(i, r)| (i as f64, tput(r) / 1000.0))
                        .collect(),
                }],
            ),
            box_figure(
                "fig2d_level_sizes_b4_throttled",
                "Fig. 2(d): level sizes, B4, load at 6,000 ops/s",
                &level_boxes(&b4t.samples, scale),
            ),
            share_figure(
                "fig2e_ssd_write_share_throttled",
                "Fig. 2(e): writes reaching the SSD, load at 6,000 ops/s",
                &throttled,
            ),
            scheme_figure(
                "fig2f_load_throughput_throttled",
                "Fig. 2(f): load throughput at 6,000 ops/s",
                "KOPS",
                vec![Series {
                    name: "load".into(),
                    points: throttled
                        .iter()
                        .enumerate()
                        .map(|(i, r)| (i as f64, tput(r) / 1000.0))
                        .collect(),
                }],
            ),
        ];
        let (ssd, hdd) = &b4.l3_reads;
        let top = |v: &Vec<u64>| -> Vec<(f64, f64)> {
            v.iter()
                .take(5)
                .enumerate()
                .map(|(i, &n)| (i as f64, n as f64))
                .collect()
        };
        figures.push(Figure {
            id: "fig2g_l3_sst_reads_b4".into(),
            title: format!("Fig. 2(g): reads of L3 SSTs under B4, alpha 0.9 ({} L3 SSTs on the SSD, {} on the HDD)", ssd.len(), hdd.len()),
            kind: FigureKind::Bar,
            x_label: "SST rank".into(),
            y_label: "reads".into(),
            categories: (1..=5).map(|i| format!("#{i}")).collect(),
            series: vec![
                Series { name: "SSD (top 5)".into(), points: top(ssd) },
                Series { name: "HDD (top 5)".into(), points: top(hdd) },
            ],
        });
        let per_alpha = |f: &dyn Fn(&ReadRun) -> f64| -> Vec<Series> {
            ALPHAS
                .iter()
                .enumerate()
                .map(|(a, alpha)| Series {
                    name: format!("alpha {alpha}"),
                    points: unthrottled
                        .iter()
                        .enumerate()
                        .map(|(i, r)| (i as f64, r.reads.get(a).map_or(0.0, f)))
                        .collect(),
                })
                .collect()
        };
        figures.push(scheme_figure(
            "fig2h_hdd_read_share",
            "Fig. 2(h): share of reads served by the HDD",
            "HDD reads (%)",
            per_alpha(&|r| r.hdd_share),
        ));
        figures.push(scheme_figure(
            "fig2i_read_throughput",
            "Fig. 2(i): read throughput",
            "KOPS",
            per_alpha(&|r| r.summary.ops_per_s / 1000.0),
        ));

        let mut notes = vec![format!(
            "{records} records of {} B ({:.1} GiB at scale {scale}), 20 SSD zones, {reads} reads per alpha; level sizes are reported at paper scale (divided by the scale).",
            setup.options.key_bytes + setup.options.value_bytes,
            records as f64 * 1024.0 / GIB as f64,
        )];
        let peaks = |counted: LevelCount| {
            format!(
                "L0/L1/L2 {:.1}x / {:.1}x / {:.1}x under B4 ({:.1}x L0 at 6,000 ops/s)",
                max_over_target_of(&b4.samples, 0, counted),
                max_over_target_of(&b4.samples, 1, counted),
                max_over_target_of(&b4.samples, 2, counted),
                max_over_target_of(&b4t.samples, 0, counted),
            )
        };
        notes.push(format!(
            "O1/O3 level sizes are what the file system holds per level, as the paper's ZenFS counted them: live SSTs, obsolete SSTs running jobs still pin, and the outputs running flushes and compactions are writing. Without the outputs being written the peaks are {}; RocksDB's current Version alone peaks at {}.",
            peaks(LevelCount::FinishedFiles),
            peaks(LevelCount::Version),
        ));
        for (h, r) in unthrottled.iter().enumerate() {
            notes.push(format!(
                "B{}: load {:.0} ops/s over {:.0} s (stopped {:.0} s, delayed {:.0} s; {} flushes, {} compactions, {} intra-L0, {} trivial moves); reads {}",
                h + 1, r.load.ops_per_s, r.load.elapsed_s, r.load.stopped_s, r.load.delayed_s,
                r.load.flushes, r.load.compactions, r.load.intra_l0_compactions, r.load.trivial_moves,
                r.reads.iter().zip(ALPHAS).map(|(rr, a)| format!("alpha {a}: {:.0} ops/s, {:.1}% of reads touched the HDD, {:.1}% of device block reads on the HDD", rr.summary.ops_per_s, rr.hdd_share, rr.block_share)).collect::<Vec<_>>().join("; "),
            ));
        }
        Ok(ReproduceResult {
            target: self.name().into(),
            scale,
            seed: opts.seed,
            version: env!("CARGO_PKG_VERSION").into(),
            claims,
            figures,
            notes,
        })
    }
}
