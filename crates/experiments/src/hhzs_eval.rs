//! The HHZS evaluation runner (`papers/hhzs.txt` §4): the schemes of §4.1 and
//! Exp#2, a load per (scheme, SSD size) drawn several times as a [`LoadPlan`] says
//! (independent loads or branches with spindle phases of their own, or end points
//! of one load: [`crate::hhzs_load_draws`]), workloads run on forks of each end
//! point (the paper reloads before each workload; forking the loaded simulated
//! state gives the same starting point without the reload), and a runner that spreads independent
//! loads over the machine's cores. Results are gathered by index, so they do not
//! depend on thread timing.

use crate::hhzs_load_draws::{EndPoint, LoadPlan};
use crate::hhzs_setup::{HybridSetup, TakeOps, YcsbOps};
use crate::parallel::map_in_order;
use serde::Serialize;
use std::collections::BTreeMap;
use zonelab_engine::time::MIB;
use zonelab_engine::RngStreams;
pub use zonelab_systems::hhzs::Scheme;
use zonelab_systems::hhzs::{FileClass, RelocationStats, ZoneFileStore};
use zonelab_systems::lsm::{LsmDb, LsmSummary};
use zonelab_workloads::ycsb::CoreWorkloadSpec;

/// HHZS's migration rate (§4.1).
pub const MIGRATION_BYTES_PER_S: u64 = 4 * MIB;
/// WAL + cache zones on the SSD: 2.1 GiB = 2 zones (§4.1).
pub const WAL_CACHE_ZONES: u32 = 2;

/// (WAL/cache zones, caching, migration rate) of `scheme` in the paper's set-up
/// (§4.1: a 2-zone pool, 4 MiB/s migration).
fn store_config(scheme: Scheme) -> (u32, bool, u64) {
    let st = scheme.store();
    (
        if st.wal_cache_pool {
            WAL_CACHE_ZONES
        } else {
            0
        },
        st.caching,
        if st.migration {
            MIGRATION_BYTES_PER_S
        } else {
            0
        },
    )
}

/// An empty database on `setup` under `scheme` with the store it implies (§4.1).
pub fn open_scheme(setup: &HybridSetup, scheme: Scheme) -> Result<LsmDb<ZoneFileStore>, String> {
    let (reserve, caching, rate) = store_config(scheme);
    setup.open_configured(scheme.policy(), reserve, caching, rate)
}

/// `scheme`'s store set-up with another `policy` (ablations of its policy).
pub fn open_scheme_with_policy(
    setup: &HybridSetup,
    scheme: Scheme,
    policy: Box<dyn zonelab_systems::hhzs::PlacementPolicy>,
) -> Result<LsmDb<ZoneFileStore>, String> {
    let (reserve, caching, rate) = store_config(scheme);
    setup.open_configured(policy, reserve, caching, rate)
}

/// A workload run from the loaded state.
#[derive(Debug, Clone)]
pub struct WorkloadJob {
    /// Stable id, e.g. `ycsb-a` or `mix-r50-a0.9`.
    pub id: String,
    pub spec: CoreWorkloadSpec,
    /// Overrides the migration rate for this run (Exp#6).
    pub migration_bytes_per_s: Option<u64>,
}

/// What a workload run measured.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WorkloadResult {
    pub summary: LsmSummary,
    /// Share of each level's live bytes on the SSD at the end, in % (WAL, L0..L5);
    /// `None` for a level that holds no data (no share to speak of, not 0 %).
    pub ssd_share_pct: Vec<Option<f64>>,
    pub cache_hits: u64,
    /// Evicted blocks not admitted to the SSD cache for want of a cache zone
    /// (`CacheStats::rejected_no_zone`).
    pub cache_rejected_no_zone: u64,
    pub migrations: u64,
    /// SSTs at the end (HHZS keeps a 32 B priority mapping per SST, §3.6).
    pub ssts: u64,
    /// Cached blocks at the end and their metadata bytes (48 B each, §3.6).
    pub cache_entries: u64,
    pub cache_metadata_bytes: u64,
}

/// A load and the workloads run from it.
#[derive(Debug, Clone)]
pub struct LoadJob {
    pub scheme: Scheme,
    pub ssd_zones: u32,
    pub workloads: Vec<WorkloadJob>,
}

/// Results of one load job.
#[derive(Debug, Clone)]
pub struct LoadResult {
    pub scheme: Scheme,
    pub ssd_zones: u32,
    pub load: LsmSummary,
    pub workloads: BTreeMap<String, WorkloadResult>,
    /// SSTs copied whole to another device during the load (their device ran out
    /// of zones).
    pub relocations: RelocationStats,
    /// WAL bytes the load wrote outside the WAL/cache pool.
    pub wal_outside_pool_bytes: u64,
}

/// Percent of each file class's bytes (WAL, L0, L1, …) that sits on the SSD.
pub fn ssd_share(store: &ZoneFileStore) -> Vec<Option<f64>> {
    let occ = store.occupancy();
    let mut out = Vec::new();
    let classes = std::iter::once(FileClass::Wal).chain((0..6).map(FileClass::Level));
    for c in classes {
        let v = occ.get(&c);
        let total: u64 = v.map_or(0, |v| v.iter().sum());
        out.push((total > 0).then(|| 100.0 * v.map_or(0, |v| v[0]) as f64 / total as f64));
    }
    out
}

/// Loads one scheme and runs its workloads on the calling thread: one load to
/// `records` with `seed`'s spindle phase and run seed.
pub fn run_load_job(
    base: &HybridSetup,
    job: &LoadJob,
    records: u64,
    seed: u64,
) -> Result<LoadResult, String> {
    Ok(run_load_job_at(base, job, &LoadPlan::single(records, seed))?.remove(0))
}

/// Draws one scheme's load as `plan` says and runs its workloads from every end
/// point on forks of the loaded state; one result per end point, in the order of
/// `plan.ends`. Without a branch point the load is one simulation stopped at each
/// end point in order of records; with one, each end point is a branch forked
/// from the load at that point that goes on with its own spindle phase.
pub fn run_load_job_at(
    base: &HybridSetup,
    job: &LoadJob,
    plan: &LoadPlan,
) -> Result<Vec<LoadResult>, String> {
    let all: Vec<usize> = (0..plan.ends.len()).collect();
    Ok(run_load_job_ends(base, job, plan, &all)?
        .into_iter()
        .map(|(_, r)| r)
        .collect())
}

/// The seed of a draw's per-job CPU factors (`CpuCosts::job_jitter_ppm`), from
/// the draw's spindle phase: a draw is one machine's run, its disk and its CPUs.
fn cpu_jitter_seed(spindle_phase_ns: u64) -> u64 {
    zonelab_engine::rng::splitmix64(spindle_phase_ns ^ 0xc0de_c0de_0000_0001)
}

/// Whether the end points of `plan` are loads of their own, so that each can run
/// as a task of its own ([`run_load_job_ends`]) with the same result.
fn ends_are_independent(plan: &LoadPlan) -> bool {
    plan.branch_at_records == Some(0)
}

/// [`run_load_job_at`] for the end points `wanted` (indices into `plan.ends`)
/// only; results as (index, result), in the order of `wanted`. The end points of
/// one load (no branch point) must be asked for together, since each continues
/// the load to the one before; a subset of branches re-runs their shared prefix.
fn run_load_job_ends(
    base: &HybridSetup,
    job: &LoadJob,
    plan: &LoadPlan,
    wanted: &[usize],
) -> Result<Vec<(usize, LoadResult)>, String> {
    let ctx = |e: String| {
        format!(
            "{} with {} SSD zones: {e}",
            job.scheme.name(),
            job.ssd_zones
        )
    };
    let mut setup = base.clone();
    setup.ssd_zones = job.ssd_zones;
    let mut db = open_scheme(&setup, job.scheme).map_err(ctx)?;
    db.storage_mut()
        .set_spindle_phases_ns(plan.load_spindle_phase_ns);
    db.set_job_cpu_jitter_seed(cpu_jitter_seed(plan.load_spindle_phase_ns));
    let most = plan.ends.iter().map(|e| e.records).max().unwrap_or(0);
    let load_spec = setup.load_spec(most);
    let mut load_ops = YcsbOps {
        inner: load_spec.load().map_err(|e| ctx(e.to_string()))?,
    };
    let mut results: Vec<Option<LoadResult>> = vec![None; plan.ends.len()];
    if let Some(branch_at) = plan.branch_at_records {
        // Branch point 0: independent loads, each from the empty store.
        if branch_at > 0 {
            db.run_ops(
                &mut TakeOps {
                    inner: &mut load_ops,
                    left: branch_at,
                },
                0,
            )
            .map_err(|e| ctx(e.to_string()))?;
        }
        for &i in wanted {
            let end = &plan.ends[i];
            let store = db.storage().try_clone().map_err(|e| ctx(e.to_string()))?;
            let mut branch: LsmDb<ZoneFileStore> = db.fork_with(store);
            branch
                .storage_mut()
                .set_spindle_phases_ns(end.spindle_phase_ns);
            branch.set_job_cpu_jitter_seed(cpu_jitter_seed(end.spindle_phase_ns));
            let mut ops = load_ops.clone();
            let mut rest = TakeOps {
                inner: &mut ops,
                left: end.records.saturating_sub(branch_at),
            };
            let summary = if branch_at > 0 {
                branch.continue_ops(&mut rest)
            } else {
                branch.run_ops(&mut rest, 0)
            }
            .map_err(|e| ctx(e.to_string()))?;
            results[i] = Some(finish_end_point(&branch, job, summary, *end).map_err(ctx)?);
        }
    } else {
        if wanted.len() != plan.ends.len() {
            return Err(ctx("the end points of one load must run together".into()));
        }
        let mut order: Vec<usize> = (0..plan.ends.len()).collect();
        order.sort_by_key(|&i| (plan.ends[i].records, i));
        let mut loaded = 0u64;
        for i in order {
            let end = plan.ends[i];
            let mut more = TakeOps {
                inner: &mut load_ops,
                left: end.records - loaded,
            };
            let summary = if loaded == 0 {
                db.run_ops(&mut more, 0)
            } else {
                db.continue_ops(&mut more)
            }
            .map_err(|e| ctx(e.to_string()))?;
            loaded = end.records;
            results[i] = Some(finish_end_point(&db, job, summary, end).map_err(ctx)?);
        }
    }
    Ok(wanted
        .iter()
        .map(|&i| (i, results[i].take().expect("every end point wanted")))
        .collect())
}

/// Runs the workloads from a load stopped at `end` and gathers its result.
fn finish_end_point(
    db: &LsmDb<ZoneFileStore>,
    job: &LoadJob,
    load: LsmSummary,
    end: EndPoint,
) -> Result<LoadResult, String> {
    let workloads = run_workloads(db, &job.workloads, end)?;
    Ok(LoadResult {
        scheme: job.scheme,
        ssd_zones: job.ssd_zones,
        load,
        workloads,
        relocations: db.storage().relocations(),
        wal_outside_pool_bytes: db.storage().wal_outside_pool_bytes(),
    })
}

/// Runs each workload on a fork of `db` (loaded to `end.records`).
fn run_workloads(
    db: &LsmDb<ZoneFileStore>,
    jobs: &[WorkloadJob],
    end: EndPoint,
) -> Result<BTreeMap<String, WorkloadResult>, String> {
    let mut workloads = BTreeMap::new();
    for w in jobs {
        if workloads.contains_key(&w.id) {
            continue;
        }
        let store = db.storage().try_clone().map_err(|e| e.to_string())?;
        let mut fork: LsmDb<ZoneFileStore> = db.fork_with(store);
        // `ycsb run` is a process of its own after `ycsb load` (H2Zone's scripts):
        // RocksDB and HHZS are closed and opened again before the workload.
        fork.reopen()
            .map_err(|e| format!("{}: reopen: {e}", w.id))?;
        if let Some(rate) = w.migration_bytes_per_s {
            fork.storage_mut().set_migration_rate(rate);
        }
        let mut spec = w.spec.clone();
        spec.record_count = end.records;
        let rngs = RngStreams::new(end.run_seed);
        let ops = spec.run(&rngs).map_err(|e| e.to_string())?;
        let summary = fork
            .run_ops(&mut YcsbOps { inner: ops }, 0)
            .map_err(|e| format!("{}: {e}", w.id))?;
        let s = fork.storage();
        workloads.insert(
            w.id.clone(),
            WorkloadResult {
                summary,
                ssd_share_pct: ssd_share(s),
                cache_hits: s.cache_stats().map_or(0, |c| c.0.hits),
                cache_rejected_no_zone: s.cache_stats().map_or(0, |c| c.0.rejected_no_zone),
                migrations: s.migration_stats().to_ssd + s.migration_stats().to_hdd,
                ssts: fork.version().all().count() as u64,
                cache_entries: s.cache_stats().map_or(0, |c| c.1 as u64),
                cache_metadata_bytes: s.cache_stats().map_or(0, |c| c.2),
            },
        );
    }
    Ok(workloads)
}

/// Runs every load job (largest first) to every end point on up to `threads`
/// threads; calls `progress(done, total)` from the calling thread as tasks finish.
/// `out[job][end]` follows the order of `jobs` and `ends`. A task is a job, or,
/// when the plan's end points are loads of their own, one end point of a job: the
/// same results, with the work spread more evenly over the threads at the end.
pub fn run_load_jobs(
    setup: &HybridSetup,
    jobs: &[LoadJob],
    plan: &LoadPlan,
    threads: usize,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Vec<LoadResult>>, String> {
    let job_ops = |i: usize| -> u64 {
        jobs[i]
            .workloads
            .iter()
            .map(|w| w.spec.operation_count)
            .sum()
    };
    let mut tasks: Vec<(usize, Vec<usize>)> = Vec::new();
    for i in 0..jobs.len() {
        if ends_are_independent(plan) {
            tasks.extend((0..plan.ends.len()).map(|k| (i, vec![k])));
        } else {
            tasks.push((i, (0..plan.ends.len()).collect()));
        }
    }
    // Largest first (a stable sort keeps job and end order among equals).
    tasks.sort_by_key(|(i, _)| std::cmp::Reverse(job_ops(*i)));
    // Each task's own result is kept (a failed task fails only its job), so the
    // shared pool never stops early.
    progress(0, tasks.len());
    let mut done = 0;
    let finished = map_in_order(
        &tasks,
        threads,
        |(i, ends)| {
            Ok::<_, std::convert::Infallible>(run_load_job_ends(setup, &jobs[*i], plan, ends))
        },
        |_| {
            done += 1;
            progress(done, tasks.len());
        },
    )
    .unwrap_or_else(|never| match never {});
    // Back to out[job][end]; a job fails with the error of its first failed task.
    let mut out: Vec<Vec<Option<LoadResult>>> = vec![vec![None; plan.ends.len()]; jobs.len()];
    let mut errors: Vec<Option<String>> = vec![None; jobs.len()];
    for ((i, _), r) in tasks.iter().zip(finished) {
        match r {
            Ok(ends) => {
                for (k, result) in ends {
                    out[*i][k] = Some(result);
                }
            }
            Err(e) => {
                errors[*i].get_or_insert(e);
            }
        }
    }
    out.into_iter()
        .zip(errors)
        .map(|(ends, error)| match error {
            Some(e) => Err(e),
            None => ends
                .into_iter()
                .map(|r| r.ok_or_else(|| "a load end point did not run".to_string()))
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hhzs_setup::PAPER_RECORDS;
    use zonelab_workloads::ycsb::workload;

    /// A job of `scheme` on 20 SSD zones running `operations` of YCSB `preset`.
    fn small_job(setup: &HybridSetup, scheme: Scheme, preset: char, operations: u64) -> LoadJob {
        let mut spec = workload(preset).expect("preset");
        spec.operation_count = operations;
        spec.field_count = 1;
        spec.field_length_bytes = setup.options.value_bytes;
        LoadJob {
            scheme,
            ssd_zones: 20,
            workloads: vec![WorkloadJob {
                id: format!("ycsb-{preset}"),
                spec,
                migration_bytes_per_s: None,
            }],
        }
    }

    /// A small HHZS load (its lower levels on the HDD) and 2,000 YCSB A operations,
    /// drawn as `plan` says.
    fn run(plan: &LoadPlan) -> LoadResult {
        let setup = HybridSetup::paper(0.002);
        let job = small_job(&setup, Scheme::Hhzs, 'a', 2_000);
        run_load_job_at(&setup, &job, plan).expect("load").remove(0)
    }

    #[test]
    fn the_basic_schemes_lose_two_more_ssd_zones_to_metadata_than_hhzs() {
        let setup = HybridSetup::paper(0.002);
        // (SSD zones without the pool, empty SSD zones, HDD zones in use).
        let zones = |scheme| {
            let db = open_scheme(&setup, scheme).expect("open");
            let ssd = db.storage().view(0).devices[0];
            (
                ssd.sst_zones,
                ssd.empty_zones,
                db.storage().traffic()[1].zones_in_use,
            )
        };
        // 20 − 3 ZenFS metadata zones; 2 more held by the MANIFEST and the small files.
        assert_eq!(zones(Scheme::Basic(3)), (17, 15, 0));
        assert_eq!(zones(Scheme::B3M), (17, 15, 0));
        // AUTO and HHZS also keep the 2-zone WAL/cache pool; HHZS's metadata
        // files are on the HDD.
        assert_eq!(zones(Scheme::Auto), (15, 13, 0));
        assert_eq!(zones(Scheme::Hhzs), (15, 15, 2));
        assert_eq!(zones(Scheme::P), (15, 15, 2));
        let mut ablation = setup.clone();
        ablation.metadata_zones = false;
        let db = open_scheme(&ablation, Scheme::Basic(3)).expect("open");
        assert_eq!(db.storage().view(0).devices[0].empty_zones, 20);
    }

    #[test]
    fn a_branch_keeping_the_spindle_phase_is_the_load_itself_and_another_phase_another_run() {
        let records = (PAPER_RECORDS as f64 * 0.002) as u64;
        let plan = |branch_at_records, phase| LoadPlan {
            load_spindle_phase_ns: 1_234_567,
            branch_at_records,
            ends: vec![EndPoint {
                records,
                run_seed: 3,
                spindle_phase_ns: phase,
            }],
        };
        let one = run(&plan(None, 1_234_567));
        let branch = run(&plan(Some(records * 9 / 10), 1_234_567));
        assert_eq!(one.load, branch.load);
        assert_eq!(one.workloads, branch.workloads);
        // The load left data on the HDD, whose spindle the phase turns.
        let shares = &one.workloads["ycsb-a"].ssd_share_pct;
        assert!(
            shares.iter().flatten().any(|&pct| pct < 100.0),
            "{shares:?}"
        );
        // Branch point 0: a load of its own from the empty store.
        let fresh = run(&plan(Some(0), 1_234_567));
        assert_eq!(one.load, fresh.load);
        let other = run(&plan(Some(records * 9 / 10), 4_567_890));
        assert_ne!(one.load, other.load, "another spindle phase is another run");
    }

    #[test]
    fn independent_loads_run_as_separate_tasks_give_each_job_run_in_order() {
        let scale = 0.001;
        let setup = HybridSetup::paper(scale);
        let jobs = vec![
            small_job(&setup, Scheme::Basic(3), 'c', 500),
            small_job(&setup, Scheme::Hhzs, 'c', 500),
        ];
        let records = (PAPER_RECORDS as f64 * scale) as u64;
        let plan = LoadPlan::new(crate::hhzs_load_draws::LoadDraws::default(), records, 5);
        assert!(ends_are_independent(&plan) && plan.ends.len() > 1);
        let mut calls = Vec::new();
        let spread =
            run_load_jobs(&setup, &jobs, &plan, 2, &mut |d, t| calls.push((d, t))).expect("tasks");
        let tasks = jobs.len() * plan.ends.len();
        assert_eq!(calls.last(), Some(&(tasks, tasks)), "progress counts tasks");
        for (j, results) in jobs.iter().zip(&spread) {
            let in_order = run_load_job_at(&setup, j, &plan).expect("job");
            assert_eq!(results.len(), in_order.len());
            for (a, b) in results.iter().zip(&in_order) {
                assert_eq!(a.load, b.load);
                assert_eq!(a.workloads, b.workloads);
            }
        }
        // The loads differ between end points (each draws its own spindle phase).
        assert_ne!(spread[1][0].load, spread[1][1].load);
    }
}
