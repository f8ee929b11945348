//! LSM-tree model invariants on a small database over an ideal device.

use zonelab_engine::rng::splitmix64;
use zonelab_engine::time::{KIB, MIB};
use zonelab_systems::lsm::{Hint, IdealStorage, KvOp, LsmDb, LsmOptions};

fn small_options() -> LsmOptions {
    let mut o = LsmOptions::hhzs_paper().scaled(1.0 / 512.0); // 1 MiB MemTables
    o.block_cache_bytes = 256 * KIB;
    o
}

fn key(i: u64) -> u64 {
    splitmix64(i) >> 1
}

fn load(n: u64) -> LsmDb<IdealStorage> {
    load_with(small_options(), n)
}

fn load_with(o: LsmOptions, n: u64) -> LsmDb<IdealStorage> {
    let storage = IdealStorage::new(20_000, 1000 * MIB);
    let mut db = LsmDb::new(o, storage).unwrap();
    let mut ops = (0..n).map(|i| KvOp::Put { key: key(i) });
    let s = db.run_ops(&mut ops, 0).unwrap();
    assert_eq!(s.puts, n);
    db
}

#[test]
fn loaded_keys_are_all_readable_and_levels_are_consistent() {
    let n = 60_000;
    let mut db = load(n);
    db.wait_for_compactions().unwrap();
    db.version().check(db.layout()).unwrap();
    for i in 0..n {
        assert!(db.contains(key(i)), "key {i} lost");
    }
    assert!(!db.contains(key(n + 1)));
    // Several levels exist: compactions ran.
    let v = db.version();
    assert!(v.levels[1].len() + v.levels[2].len() > 0);
    // Reads through the client find every key they look for.
    let mut gets = (0..2000).map(|i| KvOp::Get {
        key: key(i * 29 % n),
    });
    let s = db.run_ops(&mut gets, 0).unwrap();
    assert_eq!(s.gets, 2000);
    assert_eq!(s.gets_found, 2000);
    assert!(s.data_block_reads > 0);
}

#[test]
fn overwrites_keep_one_version_per_key() {
    let storage = IdealStorage::new(20_000, 1000 * MIB);
    let mut db = LsmDb::new(small_options(), storage).unwrap();
    let n = 5_000;
    for _round in 0..6 {
        let mut ops = (0..n).map(|i| KvOp::Put { key: key(i) });
        db.run_ops(&mut ops, 0).unwrap();
    }
    db.wait_for_compactions().unwrap();
    let v = db.version();
    v.check(db.layout()).unwrap();
    // Below L0, every key lives in exactly one file per level; across the whole tree
    // no more copies than one per sorted run remain.
    let total: usize = v.all().map(|s| s.keys.len()).sum();
    let runs = v.levels[0].len()
        + (1..v.num_levels())
            .filter(|&l| !v.levels[l].is_empty())
            .count();
    assert!(total <= n as usize * runs.max(1));
    for l in 1..v.num_levels() {
        let in_level: usize = v.levels[l].iter().map(|&f| v.sst(f).keys.len()).sum();
        assert!(in_level <= n as usize);
    }
}

#[test]
fn bytes_on_storage_equal_wal_flush_and_compaction_output() {
    let storage = IdealStorage::new(20_000, 1000 * MIB);
    let mut db = LsmDb::new(small_options(), storage).unwrap();
    let mut ops = (0..40_000).map(|i| KvOp::Put { key: key(i) });
    let s = db.run_ops(&mut ops, 0).unwrap();
    let before = db.counters().clone();
    db.wait_for_compactions().unwrap();
    let after = db.counters();
    // run_ops' summary and the counters agree; background work after the phase is
    // counted in the same counters.
    assert_eq!(s.wal_bytes, before.wal_bytes);
    let written = after.wal_bytes + after.flush_bytes + after.compaction_write_bytes;
    assert_eq!(db.storage().appended_bytes, written);
    let per_level: u64 = after.level_write_bytes.iter().sum();
    assert_eq!(per_level, after.flush_bytes + after.compaction_write_bytes);
}

#[test]
fn hints_describe_every_flush_and_compaction() {
    let mut db = load(40_000);
    db.wait_for_compactions().unwrap();
    let hints = &db.storage().hints;
    let flushes = hints
        .iter()
        .filter(|h| matches!(h, Hint::FlushStarted { .. }))
        .count();
    assert_eq!(flushes as u64, db.counters().flushes);
    // Every compaction that starts generates SSTs whose count its finish reports.
    for h in hints {
        if let Hint::CompactionStarted {
            job,
            planned_outputs,
            ..
        } = h
        {
            let generated = hints
                .iter()
                .filter(|g| matches!(g, Hint::SstGenerated { job: j, .. } if j == job))
                .count();
            let finished = hints.iter().find_map(|g| match g {
                Hint::CompactionFinished {
                    job: j, outputs, ..
                } if j == job => Some(outputs.len()),
                _ => None,
            });
            assert_eq!(generated, *planned_outputs as usize);
            assert_eq!(finished, Some(generated));
        }
    }
}

#[test]
fn a_slow_device_stalls_writes() {
    // 20 MB/s cannot absorb an unthrottled load: writes are delayed or stopped.
    let storage = IdealStorage::new(100_000, 20 * MIB);
    let mut db = LsmDb::new(small_options(), storage).unwrap();
    let mut ops = (0..60_000).map(|i| KvOp::Put { key: key(i) });
    let s = db.run_ops(&mut ops, 0).unwrap();
    assert!(s.stopped_s + s.delayed_s > 0.0, "{s:?}");
    // Throttled far below the device's speed, it does not stall.
    let storage = IdealStorage::new(100_000, 20 * MIB);
    let mut db = LsmDb::new(small_options(), storage).unwrap();
    let mut ops = (0..3_000).map(|i| KvOp::Put { key: key(i) });
    let s = db.run_ops(&mut ops, 1000).unwrap();
    assert_eq!(s.stopped_s, 0.0);
    // The last op may wait for a 1 MiB WAL write (50 ms at 20 MiB/s).
    assert!((s.ops_per_s - 1000.0).abs() < 20.0, "{}", s.ops_per_s);
}

/// 50 scans of 100 records from the first 50 loaded keys.
fn fifty_scans() -> impl Iterator<Item = KvOp> {
    (0..50).map(|i| KvOp::Scan {
        key: key(i),
        len: 100,
    })
}

#[test]
fn scans_read_blocks_in_key_order() {
    let mut db = load(20_000);
    db.wait_for_compactions().unwrap();
    let s = db.run_ops(&mut fifty_scans(), 0).unwrap();
    assert_eq!(s.scans, 50);
    // 100 entries of 4 per block: at least 25 blocks per scan, some cached.
    assert!(s.data_block_reads >= 50, "{}", s.data_block_reads);
}

/// RocksDB's implicit auto-readahead: a scan's sequential blocks in a file come in
/// a few growing reads, so the same scans need fewer and larger device reads than
/// with the readahead off, and the counters say where the blocks came from.
#[test]
fn scans_read_ahead_and_gets_do_not() {
    let scans = |max_readahead: u64| {
        let mut o = small_options();
        o.max_auto_readahead_bytes = max_readahead;
        let mut db = load_with(o, 20_000);
        db.wait_for_compactions().unwrap();
        let s = db.run_ops(&mut fifty_scans(), 0).unwrap();
        assert_eq!(s.scans, 50);
        // Counters are per phase (`run_ops` starts them afresh).
        let k = db.counters().clone();
        let mut gets = (0..200).map(|i| KvOp::Get { key: key(i * 3) });
        db.run_ops(&mut gets, 0).unwrap();
        let after_gets = db.counters().clone();
        (
            k.data_block_reads,
            k.data_block_read_bytes,
            k.readahead_reads,
            k.prefetch_buffer_blocks,
            after_gets.readahead_reads,
        )
    };
    let (reads_off, bytes_off, ra_off, buf_off, _) = scans(0);
    let (reads_on, bytes_on, ra_on, buf_on, ra_gets) = scans(256 * KIB);
    assert_eq!((ra_off, buf_off), (0, 0));
    assert!(ra_on > 0 && buf_on > 0, "{ra_on} {buf_on}");
    assert!(reads_on < reads_off, "{reads_on} vs {reads_off}");
    assert!(
        bytes_on / reads_on > bytes_off / reads_off,
        "{bytes_on}/{reads_on} vs {bytes_off}/{reads_off}"
    );
    assert_eq!(ra_gets, 0, "a get reads no ahead");
}

#[test]
fn runs_are_deterministic() {
    let run = || {
        let mut db = load(30_000);
        db.wait_for_compactions().unwrap();
        let mut ops = (0..500).map(|i| KvOp::Get { key: key(i * 7) });
        let s = db.run_ops(&mut ops, 0).unwrap();
        serde_json::to_string(&s).unwrap() + &format!("{:?}", db.storage().hints)
    };
    assert_eq!(run(), run());
}

/// The per-job CPU factors (`CpuCosts::job_jitter_ppm`) make two seeds two runs
/// and leave one seed one run; without jitter the seed changes nothing.
#[test]
fn cpu_jitter_seeds_draw_runs_and_keep_them_deterministic() {
    let run = |ppm: u64, seed: u64| {
        let mut o = small_options();
        o.cpu.job_jitter_ppm = ppm;
        // Merging as slow as the device, so that CPU time sets when jobs end.
        o.cpu.compaction_ps_per_byte = 5_000;
        let mut db = LsmDb::new(o, IdealStorage::new(20_000, 1000 * MIB)).unwrap();
        db.set_job_cpu_jitter_seed(seed);
        let mut ops = (0..40_000).map(|i| KvOp::Put { key: key(i) });
        let s = db.run_ops(&mut ops, 0).unwrap();
        serde_json::to_string(&s).unwrap()
    };
    assert_eq!(run(0, 1), run(0, 2), "no jitter: the seed is unused");
    assert_eq!(run(20_000, 1), run(20_000, 1), "deterministic");
    assert_ne!(run(20_000, 1), run(20_000, 2), "two seeds, two runs");
    assert_ne!(run(20_000, 1), run(0, 1));
}

#[test]
fn bad_options_are_rejected() {
    let mut o = small_options();
    o.l0_stop_trigger_files = 1;
    let e = LsmDb::new(o, IdealStorage::new(0, MIB)).err().unwrap();
    assert!(e.to_string().contains("l0_stop_trigger_files"), "{e}");
}

#[test]
fn intra_l0_compactions_write_one_file_while_l0_to_l1_cannot_run() {
    // Slow merging (20 ns/B) keeps L0 -> L1 running while flushes pile up in L0:
    // RocksDB compacts the newest L0 files into one L0 file (outputs to L0 are not
    // cut at the target size, CompactionJob::ProcessKeyValueCompaction).
    let mut o = small_options();
    o.cpu.compaction_ps_per_byte = 20_000;
    let mut storage = IdealStorage::new(20_000, 1000 * MIB);
    storage.record_hints = true;
    let mut db = LsmDb::new(o.clone(), storage).unwrap();
    let mut ops = (0..120_000).map(|i| KvOp::Put { key: key(i) });
    let s = db.run_ops(&mut ops, 0).unwrap();
    assert!(s.intra_l0_compactions > 0, "{s:?}");
    let hints = &db.storage().hints;
    let mut intra = 0;
    for (i, h) in hints.iter().enumerate() {
        if let Hint::CompactionStarted {
            job,
            inputs,
            output_level: 0,
            planned_outputs,
        } = h
        {
            intra += 1;
            assert_eq!(*planned_outputs, 1, "intra-L0 of {} files", inputs.len());
            assert!(inputs.len() >= 4);
            // It started while L0 -> L1 could not: an L0 -> L1 or another intra-L0
            // compaction ran (RocksDB's level0_compactions_in_progress), or an
            // L1 -> L2 one held L1 files.
            let blocked = hints[..i].iter().any(|g| {
                matches!(g, Hint::CompactionStarted { output_level: 0..=2, job: j, .. }
                    if !hints[..i].iter().any(|f| matches!(f, Hint::CompactionFinished { job: k, .. } if k == j)))
            });
            assert!(blocked, "intra-L0 job {job} while L0 -> L1 could run");
        }
    }
    assert!(intra > 0);
    db.wait_for_compactions().unwrap();
    db.version().check(db.layout()).unwrap();
}

#[test]
fn a_live_wal_above_max_total_wal_size_forces_a_flush() {
    // max_total_wal_size of 1.5 MemTables: the WAL of the active MemTable plus one
    // immutable one exceeds it, so the active one is switched and flushed early
    // (DBImpl::SwitchWAL); with RocksDB's default (4 × MemTable memory) never.
    let mut o = small_options();
    let storage = IdealStorage::new(20_000, 1000 * MIB);
    let mut db = LsmDb::new(o.clone(), storage).unwrap();
    let mut ops = (0..40_000).map(|i| KvOp::Put { key: key(i) });
    assert_eq!(db.run_ops(&mut ops, 0).unwrap().wal_full_flushes, 0);
    o.max_total_wal_bytes = o.write_buffer_bytes * 3 / 2;
    let storage = IdealStorage::new(20_000, 1000 * MIB);
    let mut db = LsmDb::new(o.clone(), storage).unwrap();
    db.sample_levels_every(1_000_000);
    let mut ops = (0..40_000).map(|i| KvOp::Put { key: key(i) });
    let s = db.run_ops(&mut ops, 0).unwrap();
    assert!(s.wal_full_flushes > 0, "{s:?}");
    // More, smaller flushes than MemTables filled.
    assert!(s.flushes > s.wal_bytes / (2 * o.write_buffer_bytes));
    let peak = db
        .level_samples()
        .unwrap()
        .wal_bytes
        .iter()
        .copied()
        .max()
        .unwrap();
    assert!(
        peak <= o.max_total_wal_bytes + o.write_buffer_bytes,
        "{peak}"
    );
}

#[test]
fn a_load_continued_from_an_end_point_is_the_same_simulation() {
    let run = |stops: &[u64]| {
        let storage = IdealStorage::new(20_000, 200 * MIB);
        let mut db = LsmDb::new(small_options(), storage).unwrap();
        let mut all = (0..50_000).map(|i| KvOp::Put { key: key(i) });
        let mut done = 0;
        let mut s = None;
        for &stop in stops {
            let mut part = (&mut all).take((stop - done) as usize);
            s = Some(match s {
                None => db.run_ops(&mut part, 0).unwrap(),
                Some(_) => db.continue_ops(&mut part).unwrap(),
            });
            done = stop;
        }
        let levels: Vec<u64> = (0..7).map(|l| db.version().level_bytes(l)).collect();
        (s.unwrap(), levels, db.now_ns())
    };
    assert_eq!(run(&[50_000]), run(&[17_000, 31_000, 50_000]));
}

#[test]
fn a_reopened_database_keeps_every_key_and_writes_its_memtables_to_l0() {
    // `ycsb run` after `ycsb load` is a new process (db/reopen.rs): running
    // compactions are dropped with their outputs, the WAL's MemTables become L0
    // tables, and nothing written is lost.
    let run = || {
        let n = 60_500;
        let mut db = load(n);
        let l0_before = db.version().levels[0].len();
        let before_ns = db.now_ns();
        let open_ns = db.reopen().unwrap();
        assert!(open_ns >= before_ns);
        db.version().check(db.layout()).unwrap();
        // The active MemTable held the last puts (60,500 is no multiple of a
        // MemTable's entries), so recovery wrote at least one L0 table.
        assert!(db.version().levels[0].len() > l0_before);
        for i in 0..n {
            assert!(db.contains(key(i)), "key {i} lost by the reopen");
        }
        let mut gets = (0..500).map(|i| KvOp::Get {
            key: key(i * 31 % n),
        });
        let s = db.run_ops(&mut gets, 0).unwrap();
        assert_eq!(s.gets_found, 500);
        db.wait_for_compactions().unwrap();
        db.version().check(db.layout()).unwrap();
        let levels: Vec<u64> = (0..7).map(|l| db.version().level_bytes(l)).collect();
        (open_ns, levels, db.now_ns())
    };
    assert_eq!(run(), run(), "reopen is deterministic");
}

/// Per compaction job: hint index of its start and of its end, and its inputs.
fn compaction_spans(hints: &[Hint]) -> Vec<(usize, usize, Vec<u64>)> {
    let mut out = Vec::new();
    for (i, h) in hints.iter().enumerate() {
        if let Hint::CompactionStarted { job, inputs, .. } = h {
            let end = hints[i..]
                .iter()
                .position(|g| matches!(g, Hint::CompactionFinished { job: k, .. } if k == job))
                .map_or(usize::MAX, |p| i + p);
            out.push((i, end, inputs.clone()));
        }
    }
    out
}

#[test]
fn obsolete_inputs_stay_until_every_compaction_started_before_them_ends() {
    // RocksDB deletes a compaction's inputs only when no running job pins them
    // (`Compaction::SetInputVersion`, `Version::~Version`, pending outputs): every
    // compaction that started before the inputs became obsolete must have ended.
    let mut o = small_options();
    o.cpu.compaction_ps_per_byte = 20_000; // long compactions overlap
    let run = |defer: bool| {
        let mut o = o.clone();
        o.defer_obsolete_deletion = defer;
        let mut db = LsmDb::new(o, IdealStorage::new(20_000, 1000 * MIB)).unwrap();
        let mut ops = (0..120_000).map(|i| KvOp::Put { key: key(i) });
        db.run_ops(&mut ops, 0).unwrap();
        db.wait_for_compactions().unwrap();
        db
    };
    let db = run(true);
    let st = db.storage();
    let spans = compaction_spans(&st.hints);
    let deleted_at = |f: u64| st.deletions.iter().find(|d| d.1 == f).map(|d| d.0);
    let mut pinned = 0;
    for (start, end, inputs) in &spans {
        assert_ne!(*end, usize::MAX, "every compaction ended");
        // Compactions that started before this one's end and were still running.
        let pinning: Vec<usize> = spans
            .iter()
            .filter(|(s, e, _)| s < end && e > end)
            .map(|(_, e, _)| *e)
            .collect();
        for &f in inputs {
            let d = deleted_at(f).expect("obsolete input deleted in the end");
            assert!(
                d >= *end,
                "input {f} deleted before its compaction (start {start}) ended"
            );
            for &e in &pinning {
                assert!(
                    d > e,
                    "input {f} deleted at {d} while a compaction ending at {e} pinned it"
                );
            }
            pinned += usize::from(!pinning.is_empty());
        }
    }
    assert!(
        pinned > 0,
        "no compaction overlapped another: the test exercises nothing"
    );
    // Nothing obsolete is left once every job has ended: storage holds exactly the
    // Version's SSTs and the live WAL files.
    let ssts: usize = (0..db.version().num_levels())
        .map(|l| db.version().levels[l].len())
        .sum();
    let wal_files = st
        .files
        .values()
        .filter(|(k, _)| matches!(k, zonelab_systems::lsm::FileKind::Wal))
        .count();
    assert_eq!(st.files.len(), ssts + wal_files);
    assert!(db.obsolete_level_bytes().iter().all(|&b| b == 0));

    // The ablation deletes inputs at install, before the compaction's end hint.
    let db = run(false);
    let st = db.storage();
    for (_, end, inputs) in compaction_spans(&st.hints) {
        for f in inputs {
            let d = st.deletions.iter().find(|d| d.1 == f).unwrap().0;
            assert_eq!(d, end, "input {f} deleted at install");
        }
    }
}

/// L0 files after `puts` distinct keys and every flush, with options `o`.
fn l0_files_after(o: &LsmOptions, puts: u64) -> Vec<usize> {
    let storage = IdealStorage::new(20_000, 1000 * MIB);
    let mut db = LsmDb::new(o.clone(), storage).unwrap();
    let mut ops = (0..puts).map(|i| KvOp::Put { key: key(i) });
    db.run_ops(&mut ops, 0).unwrap();
    db.wait_for_compactions().unwrap();
    let v = db.version();
    v.levels[0]
        .iter()
        .map(|&f| v.get(f).unwrap().keys.len())
        .collect()
}

#[test]
fn a_memtable_switches_when_its_last_arena_block_is_three_quarters_used() {
    // RocksDB's `MemTable::ShouldFlushNow` with 1 MiB MemTables and 128 KiB arena
    // blocks (RocksDB's default before 6.21, write_buffer_size / 8): 1,051 arena
    // bytes per entry, one entry in the 2 KiB inline block, 124 in each of 7
    // blocks, and the switch when fewer than 32 KiB of the eighth block are left,
    // after 94 more: 963 entries (96.5 % of the buffer). Two MemTables are merged
    // per flush (min_write_buffer_number_to_merge 2).
    let mut o = small_options();
    assert_eq!(o.write_buffer_bytes, MIB);
    o.arena_block_bytes = 128 * KIB;
    let per_memtable = 1 + 7 * 124 + 94;
    assert!(l0_files_after(&o, 2 * per_memtable - 1).is_empty());
    assert_eq!(
        l0_files_after(&o, 2 * per_memtable),
        vec![2 * per_memtable as usize]
    );
    // The model's rule (arena_block_bytes 0): the switch when the entries reach
    // the buffer, after ceil(1 MiB / 1,051 B) = 998.
    o.arena_block_bytes = 0;
    assert!(l0_files_after(&o, 2 * per_memtable).is_empty());
    assert_eq!(l0_files_after(&o, 2 * 998), vec![2 * 998]);
}

#[test]
fn stored_level_sizes_count_every_file_the_storage_holds_per_level() {
    // A file system that sizes a level by its files (H2Zone's ZenFS,
    // `ComputeCurrentAllocation`) sees the Version's SSTs, obsolete SSTs running
    // jobs pin, and the outputs running flushes and compactions are writing. A slow
    // device keeps jobs running across the checkpoints.
    let storage = IdealStorage::new(20_000, 40 * MIB);
    let mut db = LsmDb::new(small_options(), storage).unwrap();
    let mut all = (0..120_000u64).map(|i| KvOp::Put { key: key(i) });
    let mut first = true;
    let mut checked_with_outputs_being_written = 0;
    for _ in 0..40 {
        let mut part = (&mut all).take(3_000);
        if first {
            db.run_ops(&mut part, 0).unwrap();
            first = false;
        } else {
            db.continue_ops(&mut part).unwrap();
        }
        let levels = db.version().num_levels();
        let st = db.storage();
        // A file's level is the one it was created in, or where a trivial move took
        // it (ZenFS re-tags it: H2Zone `SyncSetLevelMetadata`).
        let mut moved_to = std::collections::BTreeMap::new();
        for h in &st.hints {
            if let Hint::TrivialMove { sst, to_level, .. } = h {
                moved_to.insert(*sst, *to_level);
            }
        }
        let mut on_storage = vec![0u64; levels];
        for (no, (kind, bytes)) in &st.files {
            if let zonelab_systems::lsm::FileKind::Sst { level } = kind {
                let level = moved_to.get(no).copied().unwrap_or(*level);
                on_storage[level as usize] += bytes;
            }
        }
        assert_eq!(on_storage, db.stored_level_bytes());
        let obsolete = db.obsolete_level_bytes();
        let unfinished = db.unfinished_level_bytes();
        for l in 0..levels {
            assert_eq!(
                on_storage[l],
                db.version().level_bytes(l) + obsolete[l] + unfinished[l],
                "level {l}"
            );
        }
        checked_with_outputs_being_written +=
            usize::from(unfinished.iter().skip(1).any(|&b| b > 0));
    }
    assert!(
        checked_with_outputs_being_written > 0,
        "no checkpoint met a compaction writing: the test exercises nothing"
    );
    db.wait_for_compactions().unwrap();
    assert!(db.unfinished_level_bytes().iter().all(|&b| b == 0));
}
