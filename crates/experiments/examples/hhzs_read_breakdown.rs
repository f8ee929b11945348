//! Where the reads of an HHZS experiment are served (docs/hhzs.md, "The read
//! side"): for each scheme, the load to the paper's record count at `scale`, then
//! one workload on a closed-and-reopened fork (as `reproduce hhzs` runs it), and
//! per workload: gets answered by the MemTables, data-block reads served by the
//! block cache, the SSD cache, the SSD and the HDD (and HDD reads per level),
//! point-read latency per device, migrations and the time the run took.
//!
//! `cargo run --release -p zonelab-experiments --example hhzs_read_breakdown --
//!  [scale] [run seed] [workload: a..f | rR-aA, e.g. r50-a0.9] [schemes, e.g. b3,hhzs,auto]
//!  [records loaded; default the paper's × scale] [operations; default the paper's × scale]
//!  [migration rate in MiB/s for the run; default the scheme's, `-` for it]
//!  [HDD profile overrides, `;`-separated, e.g. host_queue.scheduler=none]`
//!  (environment `ZONELAB_UPDATE_IS_RMW=1`: updates read the record first;
//!  `ZONELAB_HHZS_PRIORITY=paper|h2zone|moved-first|newest-down|default`: P+M
//!  and HHZS rank SSTs for migration by §3.4's order alone, H2Zone's, or the
//!  placebo orders of `PriorityOrder` instead of the default,
//!  issue 14 eighth session; `ZONELAB_LOAD_LINES=N`: the load's per-level SSD/HDD
//!  state printed N times over the load, stepping it with `continue_ops`, the
//!  same simulation as one load; `ZONELAB_SETTLE=1`: the fork runs its pending
//!  flushes and compactions to the end before the workload starts, an ablation
//!  that takes the load's compaction debt out of the run;
//!  `ZONELAB_NO_METADATA_ZONES=1`: every SSD zone holds data, no zones for the
//!  file system's or RocksDB's metadata, `HybridSetup::metadata_zones`)
//!  — an end point of `reproduce
//!  hhzs` is its record count and run seed (listed in its notes).

use zonelab_engine::RngStreams;
use zonelab_experiments::hhzs_eval::{open_scheme, open_scheme_with_policy, Scheme};
use zonelab_experiments::hhzs_setup::{HybridSetup, TakeOps, YcsbOps, PAPER_RECORDS};
use zonelab_systems::hhzs::{PriorityOrder, StoreView, WriteGuided};
use zonelab_systems::lsm::{KvOp, OpSource};
use zonelab_workloads::ycsb::{custom, workload, CoreWorkloadSpec};

fn parse_workload(w: &str) -> Result<(CoreWorkloadSpec, f64), String> {
    if w.len() == 1 {
        let c = w.chars().next().unwrap_or('a');
        let mut spec = workload(c).map_err(|e| e.to_string())?;
        spec.zipfian_constant = 0.9;
        return Ok((spec, 1e6));
    }
    let (r, a) = w
        .strip_prefix('r')
        .and_then(|x| x.split_once("-a"))
        .ok_or_else(|| format!("workload `{w}` is neither a letter nor rR-aA"))?;
    let r: f64 = r.parse().map_err(|_| format!("read percentage `{r}`"))?;
    let a: f64 = a.parse().map_err(|_| format!("alpha `{a}`"))?;
    Ok((custom(r / 100.0, a).map_err(|e| e.to_string())?, 5e6))
}

/// Per level, the live SSTs on the SSD and the HDD, with how many of them reached
/// their level by a trivial move: `L1 SSD 3 (tm 1) HDD 0 (tm 0)`.
fn level_state(view: &StoreView) -> String {
    let mut per_level = std::collections::BTreeMap::<u32, [u64; 4]>::new();
    for sst in view.ssts.iter().filter(|s| !s.obsolete) {
        let e = per_level.entry(sst.level).or_default();
        let d = if sst.device == 0 { 0 } else { 2 };
        e[d] += 1;
        e[d + 1] += sst.trivially_moved as u64;
    }
    per_level
        .iter()
        .map(|(l, c)| format!("L{l} SSD {} (tm {}) HDD {} (tm {})", c[0], c[1], c[2], c[3]))
        .collect::<Vec<_>>()
        .join(", ")
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scale: f64 = args.first().map_or(Ok(0.05), |s| {
        s.parse()
            .map_err(|_| format!("scale `{s}` is not a number"))
    })?;
    let seed: u64 = args.get(1).map_or(Ok(1), |s| {
        s.parse().map_err(|_| format!("seed `{s}` is not a number"))
    })?;
    let wl = args.get(2).cloned().unwrap_or_else(|| "c".into());
    let schemes: Vec<Scheme> = args
        .get(3)
        .map_or("b3,hhzs,auto,p+m", |s| s.as_str())
        .split(',')
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let mut setup = HybridSetup::paper(scale);
    setup.metadata_zones = std::env::var("ZONELAB_NO_METADATA_ZONES").is_err();
    if let Some(sets) = args.get(7) {
        for o in sets.split(';').filter(|o| !o.is_empty()) {
            setup
                .hdd_overrides
                .push(zonelab_devices::ProfileOverride::parse(o).map_err(|e| e.to_string())?);
        }
    }
    let records: u64 = match args.get(4) {
        Some(r) => r
            .parse()
            .map_err(|_| format!("record count `{r}` is not a number"))?,
        None => ((PAPER_RECORDS as f64 * scale).round() as u64).max(1000),
    };
    let (mut spec, paper_ops) = parse_workload(&wl)?;
    spec.record_count = records;
    spec.operation_count = match args.get(5) {
        Some(n) => n
            .parse()
            .map_err(|_| format!("operation count `{n}` is not a number"))?,
        None => ((paper_ops * scale).round() as u64).max(5_000),
    };
    spec.field_count = 1;
    spec.field_length_bytes = setup.options.value_bytes;
    println!(
        "scale {scale}, seed {seed}, workload {wl}: {records} records, {} ops",
        spec.operation_count
    );
    let update_is_rmw = std::env::var("ZONELAB_UPDATE_IS_RMW").is_ok_and(|v| v == "1");
    let order: Option<PriorityOrder> = match std::env::var("ZONELAB_HHZS_PRIORITY") {
        Ok(name) => Some(
            name.parse()
                .map_err(|e| format!("ZONELAB_HHZS_PRIORITY: {e}"))?,
        ),
        Err(_) => None,
    };
    let settle = std::env::var("ZONELAB_SETTLE").is_ok_and(|v| v == "1");
    let lines: u64 = match std::env::var("ZONELAB_LOAD_LINES") {
        Ok(n) => n
            .parse()
            .map_err(|_| format!("ZONELAB_LOAD_LINES `{n}` is not a number"))?,
        Err(_) => 1,
    };
    for scheme in schemes {
        let mut db = match order {
            Some(o) if matches!(scheme, Scheme::PM | Scheme::Hhzs) => {
                let mut policy = WriteGuided::hhzs(true, scheme == Scheme::Hhzs);
                policy.priority_order = o;
                open_scheme_with_policy(&setup, scheme, Box::new(policy))?
            }
            _ => open_scheme(&setup, scheme)?,
        };
        let load_spec = setup.load_spec(records);
        let mut load_ops = YcsbOps {
            inner: load_spec.load().map_err(|e| e.to_string())?,
        };
        let every = records.div_ceil(lines.max(1));
        let mut load = db
            .run_ops(
                &mut TakeOps {
                    inner: &mut load_ops,
                    left: every,
                },
                0,
            )
            .map_err(|e| e.to_string())?;
        for k in 1..=lines.max(1) {
            if k > 1 {
                load = db
                    .continue_ops(&mut TakeOps {
                        inner: &mut load_ops,
                        left: every,
                    })
                    .map_err(|e| e.to_string())?;
            }
            let st = db.storage();
            let m = st.migration_stats();
            println!(
                "{:>6} load {:>3}% t={:.0}s trivial moves {} migr down {:?} up {:?} | {} | policy: {}",
                scheme.name(),
                100 * k / lines.max(1),
                db.now_ns() as f64 / 1e9,
                db.counters().trivial_moves,
                m.to_hdd_by_level,
                m.to_ssd_by_level,
                level_state(&st.view(db.now_ns())),
                st.describe_policy(db.now_ns())
            );
        }
        let v = db.version();
        println!(
            "        load end: running compactions (from, to) {:?}, pending compaction {} MiB, level MiB {:?}",
            db.running_compactions(),
            db.pending_compaction_bytes() >> 20,
            (0..v.num_levels())
                .map(|l| v.level_bytes(l) >> 20)
                .collect::<Vec<_>>()
        );
        println!(
            "        load end SSD share % of WAL, L0..: {:?}",
            zonelab_experiments::hhzs_eval::ssd_share(db.storage())
                .iter()
                .map(|v| v.map(|x| (x * 10.0).round() / 10.0))
                .collect::<Vec<_>>()
        );
        let mut fork = db.fork_with(db.storage().try_clone().map_err(|e| e.to_string())?);
        fork.reopen().map_err(|e| e.to_string())?;
        if let Some(r) = args.get(6).filter(|r| r.as_str() != "-") {
            let mib: u64 = r
                .parse()
                .map_err(|_| format!("migration rate `{r}` is not a number"))?;
            fork.storage_mut().set_migration_rate(mib << 20);
        }
        if settle {
            let start = fork.now_ns();
            let end = fork.wait_for_compactions().map_err(|e| e.to_string())?;
            println!(
                "        settled: compactions after the reopen took {:.0} s before the run",
                (end - start) as f64 / 1e9
            );
        }
        fork.storage_mut().reset_read_stats();
        let t0 = fork.storage().traffic();
        let c0 = fork.storage().cache_stats().map(|c| c.0);
        let m0 = fork.storage().migration_stats();
        let pc0 = fork.storage().placement_counts().clone();
        let (bh0, bm0) = fork.cache_hits_misses();
        let run = spec
            .run(&RngStreams::new(seed))
            .map_err(|e| e.to_string())?;
        // ZONELAB_UPDATE_IS_RMW=1: an update reads the record before writing it, as
        // the YCSB RocksDB binding does by default (H2Zone `RocksDBClient.update`,
        // `updateIsRmw`; its demo script sets it to 0 for workload A).
        let mut ycsb = YcsbOps { inner: run };
        let mut ops = std::iter::from_fn(|| {
            ycsb.next_op().map(|op| match op {
                KvOp::Put { key } if update_is_rmw => KvOp::ReadModifyWrite { key },
                o => o,
            })
        });
        let s = fork.run_ops(&mut ops, 0).map_err(|e| e.to_string())?;
        let st = fork.storage();
        let t1 = st.traffic();
        let c1 = st.cache_stats().map(|c| c.0);
        let m1 = st.migration_stats();
        let (bh1, bm1) = fork.cache_hits_misses();
        let k = fork.counters();
        let ssd_cache = c1.map_or(0, |c| c.hits) - c0.map_or(0, |c| c.hits);
        let admitted = c1.map_or(0, |c| c.admitted) - c0.map_or(0, |c| c.admitted);
        let pr = |d: usize| t1[d].point_reads - t0[d].point_reads;
        let reads = (s.gets + s.read_modify_writes).max(1) as f64;
        println!(
            "{:>6}: load {:>5.0} ops/s | run {:>6.0} ops/s ({:.0} s, stopped {:.0} s, delayed {:.0} s)",
            scheme.name(),
            load.ops_per_s,
            s.ops_per_s,
            s.elapsed_s,
            s.stopped_s,
            s.delayed_s
        );
        println!(
            "        gets+rmws {} (MemTable {}), block reads {} = block cache {} + scan prefetch buffers {} + SSD cache {} + SSD {} + HDD {} (scan readahead reads {}); per read: HDD {:.2}, SSD {:.2}, SSD cache {:.2}; block-cache misses {}; SSD-cache admitted {}",
            s.gets + s.read_modify_writes,
            k.memtable_gets,
            bh1 - bh0 + bm1 - bm0,
            bh1 - bh0,
            k.prefetch_buffer_blocks,
            ssd_cache,
            pr(0),
            pr(1),
            k.readahead_reads,
            pr(1) as f64 / reads,
            pr(0) as f64 / reads,
            ssd_cache as f64 / reads,
            bm1 - bm0,
            admitted
        );
        let rs = st.read_stats();
        for (d, h) in rs.device_latency.iter().enumerate() {
            let sm = h.summary();
            println!(
                "        dev{d} point reads {}: mean {:.2} ms p50 {:.2} p90 {:.2} p99 {:.2} p99.9 {:.2} p99.99 {:.2} ms",
                sm.count,
                sm.mean_ns / 1e6,
                sm.p50_ns as f64 / 1e6,
                sm.p90_ns as f64 / 1e6,
                sm.p99_ns as f64 / 1e6,
                sm.p999_ns as f64 / 1e6,
                sm.p9999_ns as f64 / 1e6
            );
        }
        let by_level: Vec<String> = rs
            .by_level
            .iter()
            .map(|((d, l), n)| format!("dev{d} L{l} {n}"))
            .collect();
        println!("        point reads by level: {}", by_level.join(", "));
        let get = s.get_latency.unwrap_or_default();
        println!(
            "        get latency mean {:.2} ms p99 {:.2} p99.9 {:.2} p99.99 {:.2} ms; migrations up {} down {}; HDD read {} MiB write {} MiB; compaction read {} MiB",
            get.mean_ns / 1e6,
            get.p99_ns as f64 / 1e6,
            get.p999_ns as f64 / 1e6,
            get.p9999_ns as f64 / 1e6,
            m1.to_ssd - m0.to_ssd,
            m1.to_hdd - m0.to_hdd,
            (t1[1].read_bytes - t0[1].read_bytes) >> 20,
            (t1[1].written_bytes - t0[1].written_bytes) >> 20,
            s.compaction_read_bytes >> 20
        );
        println!(
            "        migrations: copied {} MiB, cancelled {}, swaps {} (up leg skipped {}), by level (load + run) up {:?} down {:?}; policy at the end: {}; SSD share % of WAL, L0.. at the end {:?}; SSD cache: {:?}",
            (m1.copied_bytes - m0.copied_bytes) >> 20,
            m1.cancelled - m0.cancelled,
            m1.swaps - m0.swaps,
            m1.swap_up_skipped - m0.swap_up_skipped,
            m1.to_ssd_by_level,
            m1.to_hdd_by_level,
            st.describe_policy(fork.now_ns()),
            zonelab_experiments::hhzs_eval::ssd_share(st)
                .iter()
                .map(|v| v.map(|x| x.round() as i64))
                .collect::<Vec<_>>(),
            st.cache_stats().map(|c| c.0)
        );
        let placed: Vec<String> = st
            .placement_counts()
            .iter()
            .map(|(l, c)| {
                let b = pc0.get(l).copied().unwrap_or_default();
                format!(
                    "L{l} SSD {} / HDD by rule {} / HDD, SSD without room {}",
                    c.ssd - b.ssd,
                    c.hdd_by_rule - b.hdd_by_rule,
                    c.hdd_ssd_full - b.hdd_ssd_full
                )
            })
            .collect();
        println!("        new SSTs in the run: {}", placed.join("; "));
        let hdd = st.device_stats(1, 1);
        let q: Vec<String> = hdd
            .counters
            .iter()
            .filter(|(k, _)| k.starts_with("host_queue"))
            .map(|(k, v)| format!("{} {v}", &k["host_queue_".len()..]))
            .collect();
        if !q.is_empty() {
            println!("        HDD host queue (load + run): {}", q.join(", "));
        }
    }
    Ok(())
}
