//! Property test of the F2FS-like model: random histories of creates, buffered
//! and direct writes, fsyncs and deletes over a few files, on a file system small
//! enough that slack-space recycling, foreground GC and checkpoints happen, with
//! the invariants checked after every step of every actor: no live block is lost
//! (each file block and node is valid and names its owner and version) and the
//! last checkpoint stays intact until the next one commits.

mod f2fs_support;

use f2fs_support::{block_text, storage, zoned_text};
use proptest::prelude::*;
use zonelab_engine::NS_PER_MS;
use zonelab_systems::f2fs::{F2fsBlock, F2fsZoned, FsConfig, FsMode, FsSim, SimOptions};
use zonelab_workloads::files::{FileOp, FileWorkload, WriteHint};

/// Replays a list of operations, creating a file before its first use and after
/// a delete.
struct Replay {
    ops: Vec<FileOp>,
    next: usize,
    exists: [bool; 4],
    pending: Option<FileOp>,
}

impl FileWorkload for Replay {
    fn next_op(&mut self) -> Option<FileOp> {
        if let Some(p) = self.pending.take() {
            if let FileOp::Delete { file } = p {
                self.exists[file as usize] = false;
            }
            return Some(p);
        }
        let op = *self.ops.get(self.next)?;
        self.next += 1;
        let file = match op {
            FileOp::Write { file, .. } | FileOp::Fsync { file } | FileOp::Delete { file } => file,
            _ => return Some(op),
        };
        let f = file as usize;
        if !self.exists[f] {
            self.exists[f] = true;
            self.pending = Some(op);
            return Some(FileOp::Create {
                file,
                hint: [
                    WriteHint::Short,
                    WriteHint::None,
                    WriteHint::Extreme,
                    WriteHint::Medium,
                ][f],
            });
        }
        if matches!(op, FileOp::Delete { .. }) {
            self.exists[f] = false;
        }
        Some(op)
    }

    fn name(&self) -> &str {
        "replay"
    }

    fn files(&self) -> Vec<u32> {
        (0..4).collect()
    }
}

fn op() -> impl Strategy<Value = FileOp> {
    prop_oneof![
        6 => (0u32..4, 0u64..1536, 1u64..96, any::<bool>()).prop_map(|(file, b, n, direct)| FileOp::Write {
            file,
            offset: b * 4096 + if direct { 0 } else { (b % 3) * 100 },
            len: n * 4096,
            direct,
        }),
        3 => (0u32..4).prop_map(|file| FileOp::Fsync { file }),
        1 => (0u32..4).prop_map(|file| FileOp::Delete { file }),
        1 => (1u64..20).prop_map(|ms| FileOp::Think { ns: ms * NS_PER_MS }),
    ]
}

fn run(ops: Vec<FileOp>, zoned: bool, mode: FsMode) -> Result<(), TestCaseError> {
    let mut st = if zoned {
        storage(zoned_text(8))
    } else {
        storage(block_text(64))
    };
    let mut cfg = FsConfig::new(mode);
    cfg.cp_interval_ns = 25 * NS_PER_MS;
    let policy: Box<dyn zonelab_systems::f2fs::CleaningPolicy> = if zoned {
        Box::new(F2fsZoned::new())
    } else {
        Box::new(F2fsBlock::new(0))
    };
    let opts = SimOptions {
        check_invariants: true,
        ..SimOptions::default()
    };
    let mut sim = FsSim::new(cfg, &mut st, policy, opts).unwrap();
    sim.add_job(
        Box::new(Replay {
            ops,
            next: 0,
            exists: [false; 4],
            pending: None,
        }),
        0,
    );
    match sim.run() {
        Ok(_) => Ok(()),
        // Running out of space is a legal outcome of a random history; a broken
        // invariant (or any other error) is not.
        Err(zonelab_systems::f2fs::FsError::NoSpace(_)) => Ok(()),
        Err(e) => Err(TestCaseError::fail(e.to_string())),
    }
}

proptest! {
    // A fixed seed and case count keep CI runs identical (the runner itself turns
    // a stuck cleaning loop into an error, so no history can hang);
    // `PROPTEST_RNG_SEED` is ignored with a fixed seed: change it here to explore.
    #![proptest_config(ProptestConfig {
        cases: 24,
        rng_seed: proptest::test_runner::RngSeed::Fixed(16),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    // Once a livelock (issue 16): slack-space recycling chose a segment whose
    // valid and checkpointed blocks together filled it (docs/conzone.md).
    #[test]
    fn block_adaptive_histories_keep_every_live_block_and_the_checkpoint(ops in prop::collection::vec(op(), 40..160)) {
        run(ops, false, FsMode::Adaptive)?;
    }

    #[test]
    fn block_lfs_histories_keep_every_live_block_and_the_checkpoint(ops in prop::collection::vec(op(), 40..160)) {
        run(ops, false, FsMode::Lfs)?;
    }

    #[test]
    fn zoned_histories_keep_every_live_block_and_the_checkpoint(ops in prop::collection::vec(op(), 40..160)) {
        run(ops, true, FsMode::Lfs)?;
    }
}
