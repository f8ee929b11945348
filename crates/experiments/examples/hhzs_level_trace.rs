//! Diagnostic: the level sizes, L0 file count, pending compaction bytes, write-stall
//! state and running compactions over one HHZS paper load under a scheme
//! (docs/hhzs.md, "Level growth"), one line per `records / lines` records, then the
//! share of each class's bytes written to the SSD.
//! `cargo run --release -p zonelab-experiments --example hhzs_level_trace -- [scale] [scheme] [lines] [ablation]`
//! with ablation `no-pending-limits` (soft and hard pending-compaction limits off) or
//! `no-l0-limits` (L0 slowdown and stop triggers at 1,000 files) or
//! `delete-at-install` (compaction inputs deleted when the compaction installs, not
//! when no running job pins them any more, `LsmOptions::defer_obsolete_deletion`) or
//! `exclude-obsolete` (P, P+M, HHZS: SSTs consumed by a finished compaction but not
//! yet deleted count in no level and their SSD zones come off C_ssd,
//! `WriteGuided::exclude_obsolete`) or `store-allocation` (B1–B4, B3+M: the
//! store's own zone allocation — a WAL stream of zones of its own — instead of
//! ZenFS's zone sharing, `HybridSetup::zenfs = None`) or `finish-threshold-0`
//! (ZenFS sharing without the authors' `--finish_threshold=7`: zones an L0 SST
//! nearly filled stay open for WAL files too) or `no-metadata-zones` (every SSD
//! zone holds WAL files and SSTs: no zones for ZenFS's metadata or RocksDB's
//! metadata files, `HybridSetup::metadata_zones`) or
//! `arena-64mib` (MemTables switch by RocksDB's arena accounting with blocks of
//! `write_buffer_size` / 8, RocksDB's default before 6.21: ~496 MiB per MemTable,
//! L0 flushes that leave 8 % of an SSD zone, `LsmOptions::arena_block_bytes`) or
//! `ssd-zones=N` (N SSD zones, metadata zones included, instead of the paper's 20).
//! Each line is followed (on stderr) by the SSD's free zones, its zones held per
//! level by live and by obsolete SSTs, and the policy's tiering state; the end
//! shows where each level's new SSTs went and why.
//! `ZONELAB_SPINDLE_PHASE_NS=N` sets the HDD's spindle phase, which draws another load.
//! `sL0`–`sL3` are the bytes per level on storage (live SSTs, pinned obsolete SSTs
//! and the outputs running jobs are writing), what the paper's ZenFS sized levels by.

use zonelab_experiments::hhzs_eval::{open_scheme, open_scheme_with_policy, Scheme};
use zonelab_experiments::hhzs_setup::{
    positional_arg as arg, HybridSetup, TakeOps, YcsbOps, PAPER_RECORDS,
};
use zonelab_systems::hhzs::WriteGuided;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scale: f64 = arg(&args, 0, "scale", 0.05)?;
    let scheme: Scheme = match args.get(1).map(String::as_str) {
        None | Some("-") => Scheme::Basic(4),
        Some(s) => s.parse()?,
    };
    let lines: u64 = arg(&args, 2, "lines", 60)?;
    if !(scale > 0.0 && scale <= 1.0) || lines == 0 {
        return Err("scale must be in (0, 1] and lines ≥ 1".into());
    }
    let mut setup = HybridSetup::paper(scale);
    let mut exclude_obsolete = false;
    match args.get(3).map(String::as_str) {
        None => {}
        Some("exclude-obsolete") => exclude_obsolete = true,
        Some("no-pending-limits") => {
            setup.options.soft_pending_compaction_bytes = 0;
            setup.options.hard_pending_compaction_bytes = 0;
        }
        Some("no-l0-limits") => {
            setup.options.l0_slowdown_trigger_files = 1000;
            setup.options.l0_stop_trigger_files = 1000;
        }
        Some("delete-at-install") => setup.options.defer_obsolete_deletion = false,
        Some("store-allocation") => setup.zenfs = None,
        Some("no-metadata-zones") => setup.metadata_zones = false,
        Some("arena-64mib") => {
            setup.options.arena_block_bytes = setup.options.write_buffer_bytes / 8
        }
        Some(z) if z.starts_with("ssd-zones=") => {
            setup.ssd_zones = z["ssd-zones=".len()..]
                .parse()
                .ok()
                .filter(|&n: &u32| n >= 1)
                .ok_or_else(|| format!("`{z}`: give a whole number of SSD zones ≥ 1"))?;
        }
        Some("finish-threshold-0") => {
            if let Some(z) = setup.zenfs.as_mut() {
                z.finish_threshold_pct = 0;
            }
        }
        Some(other) => return Err(format!(
            "unknown ablation `{other}` (no-pending-limits, no-l0-limits, delete-at-install, exclude-obsolete, store-allocation, finish-threshold-0, no-metadata-zones, arena-64mib, ssd-zones=N)"
        )),
    }
    let records = (PAPER_RECORDS as f64 * scale) as u64;
    let mut db = if exclude_obsolete {
        let mut policy = WriteGuided::hhzs(scheme != Scheme::P, scheme == Scheme::Hhzs);
        policy.exclude_obsolete = true;
        open_scheme_with_policy(&setup, scheme, Box::new(policy))?
    } else {
        open_scheme(&setup, scheme)?
    };
    // `ZONELAB_SPINDLE_PHASE_NS`: the HDD's spindle phase, to draw other loads
    // (the draw `reproduce hhzs` makes per load, "One load is one draw").
    if let Ok(phase) = std::env::var("ZONELAB_SPINDLE_PHASE_NS") {
        let phase: u64 = phase
            .parse()
            .map_err(|_| format!("ZONELAB_SPINDLE_PHASE_NS `{phase}` is not nanoseconds"))?;
        db.storage_mut().set_spindle_phases_ns(phase);
    }
    let spec = setup.load_spec(records);
    let mut load = YcsbOps {
        inner: spec.load().map_err(|e| e.to_string())?,
    };
    let gib = |b: u64| b as f64 / scale / (1u64 << 30) as f64;
    println!("records  time_s  L0files  L0_GiB  L1_GiB  L2_GiB  L3_GiB  sL0  sL1  sL2  sL3  pending_GiB  oldest_job_s  state  cause  rate_MiBs  running  delayed_s stopped_s intraL0");
    let every = records / lines;
    let (mut delayed, mut stopped, mut intra) = (0.0, 0.0, 0);
    let (mut flushes, mut flush_bytes, mut wal_bytes) = (0u64, 0u64, 0u64);
    for k in 1..=lines {
        let s = db
            .run_ops(
                &mut TakeOps {
                    inner: &mut load,
                    left: every,
                },
                0,
            )
            .map_err(|e| format!("load: {e}"))?;
        delayed += s.delayed_s;
        stopped += s.stopped_s;
        intra += s.intra_l0_compactions;
        flushes += s.flushes;
        flush_bytes += s.flush_bytes;
        wal_bytes += s.wal_bytes;
        {
            // SSD zones by level, split into live and obsolete-but-pinned SSTs.
            let store = db.storage();
            let view = store.view(db.now_ns());
            let obsolete = db.obsolete_files();
            let mut live = [0u32; 5];
            let mut pinned = [0u32; 5];
            for s in view.ssts.iter().filter(|s| s.device == 0) {
                let l = (s.level as usize).min(4);
                if obsolete.contains(&s.file) {
                    pinned[l] += s.zones;
                } else {
                    live[l] += s.zones;
                }
            }
            eprintln!(
                "  ssd free {} live {live:?} pinned {pinned:?} {}",
                view.devices[0].free_zones,
                store.describe_policy(db.now_ns())
            );
        }
        let v = db.version();
        let wc = db.write_controller();
        let on_storage = db.stored_level_bytes();
        let stored = |l: usize| gib(on_storage[l]);
        println!(
            "{:>8} {:>7.0} {:>8} {:>7.1} {:>7.1} {:>7.1} {:>7.1} {:>5.1} {:>5.1} {:>5.1} {:>5.1} {:>12.1} {:>8.0}  {:?} {:?} {:>9.2} {:?} {:.0} {:.0} {}",
            k * every,
            db.now_ns() as f64 / 1e9,
            v.levels[0].len(),
            gib(v.level_bytes(0)),
            gib(v.level_bytes(1)),
            gib(v.level_bytes(2)),
            gib(v.level_bytes(3)),
            stored(0),
            stored(1),
            stored(2),
            stored(3),
            gib(db.pending_compaction_bytes()),
            db.oldest_compaction_age_ns() as f64 / 1e9 / scale,
            wc.state,
            wc.cause,
            wc.rate_bytes_per_s as f64 / 1048576.0,
            db.running_compactions(),
            delayed,
            stopped,
            intra
        );
    }
    {
        // How full an L0 flush leaves its SSD zone, and the WAL per MemTable,
        // over the whole load (a flush of two MemTables; the last may hold one).
        let mib = |b: f64| b / scale / (1u64 << 20) as f64;
        let flush_mean = flush_bytes as f64 / flushes.max(1) as f64;
        // The SSD zone's capacity at this scale, as ZenFS's finish rule sees it.
        let zone = db.storage().zenfs_zone_limit_bytes(0) as f64
            * if db.storage().zenfs_sharing().is_some() {
                1.0
            } else {
                scale
            };
        println!(
            "flushes {flushes}, mean L0 flush file {:.1} MiB ({:.1} % of an SSD zone left), WAL {:.1} MiB per flushed MemTable",
            mib(flush_mean),
            100.0 * (zone - flush_mean) / zone,
            mib(wal_bytes as f64 / (2 * flushes).max(1) as f64)
        );
    }
    let store = db.storage();
    let mut shares = Vec::new();
    for (class, per_dev) in store.written_by_class() {
        let all: u64 = per_dev.iter().sum();
        shares.push(format!(
            "{class:?} {:.0}% of {:.1} GiB",
            100.0 * per_dev[0] as f64 / all.max(1) as f64,
            all as f64 / scale / (1u64 << 30) as f64
        ));
    }
    println!("written to the SSD: {}", shares.join(", "));
    for (level, c) in store.placement_counts() {
        println!(
            "L{level} SSTs: {} to the SSD, {} to the HDD by the rule with SSD room, {} to the HDD with the SSD full",
            c.ssd, c.hdd_by_rule, c.hdd_ssd_full
        );
    }
    println!(
        "relocated SSTs {}, WAL outside the pool {} B",
        store.relocations().ssts,
        store.wal_outside_pool_bytes()
    );
    if store.zenfs_sharing().is_some() {
        let z = store.zenfs_sharing_stats();
        let t = store.traffic();
        println!(
            "ZenFS sharing: {} WAL joins of L0 zones, {:.1} GiB of WAL in L0 zones, {} zones rested, {} victims finished, {} shared-zone resets held {:.0} zone-s after their first file was deleted; SSD finishes {} resets {}",
            z.wal_joins,
            z.wal_bytes_in_l0_zones as f64 / scale / (1u64 << 30) as f64,
            z.rested,
            z.victims_finished,
            z.shared_zone_resets,
            z.shared_zone_hold_ns as f64 / 1e9,
            t[0].zone_finishes,
            t[0].zone_resets
        );
    }
    Ok(())
}
