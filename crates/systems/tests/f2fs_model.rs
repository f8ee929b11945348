//! The F2FS-like model on small ConZone+ devices: it runs SQLite-like and fio-like
//! workloads with its invariants checked after every step, cleans, checkpoints,
//! resets zones, keeps fsync semantics, and is deterministic.

mod f2fs_support;

use f2fs_support::{block_text, storage, zoned_text};
use zonelab_engine::RngStreams;
use zonelab_systems::f2fs::{F2fsBlock, F2fsZoned, FsConfig, FsMode, FsSim, SimOptions};
use zonelab_workloads::files::{
    FileService, FioFileJob, FioFileSpec, FioPattern, SqliteOp, SqliteWal, SqliteWalSpec,
};

fn checked() -> SimOptions {
    SimOptions {
        check_invariants: true,
        ..SimOptions::default()
    }
}

#[test]
fn sqlite_inserts_on_zoned_storage_write_a_node_per_fsync() {
    let mut st = storage(zoned_text(24));
    let mut sim = FsSim::new(
        FsConfig::new(FsMode::Lfs),
        &mut st,
        Box::new(F2fsZoned::new()),
        checked(),
    )
    .unwrap();
    let w = SqliteWal::new(
        SqliteWalSpec::new(SqliteOp::Insert, 300),
        RngStreams::new(1).stream("sql"),
    );
    sim.add_job(Box::new(w), 0);
    let r = sim.run().unwrap();
    assert_eq!(r[0].units, 300);
    let s = sim.fs.stats;
    assert!(s.fsyncs >= 300);
    // lfs: every fsync that wrote data also writes the inode or a dnode.
    assert!(s.node_blocks >= 300, "{s:?}");
    assert_eq!(s.ipu_blocks, 0);
}

#[test]
fn sqlite_updates_on_block_storage_update_in_place() {
    let mut st = storage(block_text(96));
    let mut sim = FsSim::new(
        FsConfig::new(FsMode::Adaptive),
        &mut st,
        Box::new(F2fsBlock::new(5_000_000_000)),
        checked(),
    )
    .unwrap();
    let mut spec = SqliteWalSpec::new(SqliteOp::Update, 2500);
    spec.preload_rows = 2000;
    sim.add_job(
        Box::new(SqliteWal::new(spec, RngStreams::new(1).stream("s"))),
        0,
    );
    let r = sim.run().unwrap();
    assert_eq!(r[0].units, 2500);
    let s = sim.fs.stats;
    // After the WAL restarts, frames overwrite WAL blocks in place and the
    // checkpoint's page writes overwrite the database in place.
    assert!(s.ipu_blocks > 1000, "{s:?}");
}

#[test]
fn random_overwrites_on_zoned_storage_clean_and_reset_zones() {
    let mut st = storage(zoned_text(24));
    // ~100 k steps: a check reads every live block, so checking after each one took
    // three minutes. Every 64th step and the end still check ~1,500 states across
    // the fill, the GC rounds and the checkpoints; f2fs_proptest checks every step
    // of shorter histories.
    let mut sim = FsSim::new(
        FsConfig::new(FsMode::Lfs),
        &mut st,
        Box::new(F2fsZoned::new()),
        SimOptions {
            check_every_steps: 64,
            ..checked()
        },
    )
    .unwrap();
    // 120 MiB of a ~216 MiB file system, rewritten at random twice over.
    let mut seq = FioFileSpec::new("fill", 1, 120 << 20, 4096, FioPattern::Sequential);
    seq.direct = true;
    let mut rnd = FioFileSpec::new("upd", 1, 120 << 20, 4096, FioPattern::Random);
    rnd.direct = true;
    rnd.create = false;
    rnd.io_bytes = 240 << 20;
    sim.add_job(
        Box::new(FioFileJob::new(seq, RngStreams::new(1).stream("a"))),
        0,
    );
    let r = sim.run().unwrap();
    let t = r[0].end_ns;
    sim.add_job(
        Box::new(FioFileJob::new(rnd, RngStreams::new(1).stream("b"))),
        t,
    );
    sim.run().unwrap();
    let s = sim.fs.stats;
    assert!(s.gc_data_blocks > 0 && s.gc_sections > 0, "{s:?}");
    assert!(s.zone_resets > 0 && s.checkpoints > 0, "{s:?}");
    assert!(s.fs_waf() > 1.0);
}

#[test]
fn fio_jobs_with_hints_use_their_logs_and_runs_are_deterministic() {
    let run = || {
        let mut st = storage(zoned_text(24));
        let mut sim = FsSim::new(
            FsConfig::new(FsMode::Lfs),
            &mut st,
            Box::new(F2fsZoned::new()),
            SimOptions::default(),
        )
        .unwrap();
        for (i, hint) in [
            zonelab_workloads::files::WriteHint::Short,
            zonelab_workloads::files::WriteHint::Extreme,
        ]
        .into_iter()
        .enumerate()
        {
            let mut s = FioFileSpec::new("j", 4, 2 << 20, 4096, FioPattern::Random);
            s.first_file = 100 * i as u32;
            s.fsync_every = 1;
            s.service = FileService::Random(8);
            s.hint = hint;
            sim.add_job(
                Box::new(FioFileJob::new(
                    s,
                    RngStreams::new(7).stream(&i.to_string()),
                )),
                0,
            );
        }
        let r = sim.run().unwrap();
        (
            r.iter().map(|j| (j.units, j.end_ns)).collect::<Vec<_>>(),
            sim.fs.stats,
        )
    };
    let a = run();
    assert_eq!(a, run());
    assert_eq!(a.0[0].0, 2048);
}
