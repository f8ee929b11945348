//! The LSM-tree's hints by file name (HHZS §3.1), mapped to the `Hint`s the
//! placement policies consume, and the SSD cache calls (§3.5). Names the store
//! never saw are ignored (RocksDB may name files of other file systems).
//!
//! - flush → `FlushStarted` (an SST whose level is unknown and that holds no data
//!   yet becomes level 0, where flushes write).
//! - compaction begin → `CompactionStarted` with the known inputs; RocksDB does
//!   not announce how many SSTs a compaction will write, so `planned_outputs` is
//!   the number of inputs (a leveled compaction rewrites about as many SSTs as it
//!   reads; HHZS §3.3 uses it to reserve SSD zones for the output level).
//! - SST level (`set_level`) → `SstGenerated` for the running compaction with that
//!   output level (job 0 when none).
//! - compaction end → `CompactionFinished`; trivial move → `TrivialMove`.
//! - block evicted → SSD cache admission with the bytes, then `BlockEvicted`.

use crate::error::FsError;
use crate::fs::{level_arg, ZoneFs};
use serde::Serialize;
use zonelab_systems::lsm::{FileKind, FileNo, Hint, LsmStorage};

/// How many hints and cache calls arrived.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct HintCounters {
    pub flush: u64,
    pub compaction_begin: u64,
    pub compaction_end: u64,
    pub sst_level: u64,
    /// Level hints that came after the file's first append (ignored).
    pub sst_level_late: u64,
    pub trivial_move: u64,
    pub block_evicted: u64,
    pub cache_lookups: u64,
    pub cache_hits: u64,
    pub cache_admitted: u64,
    /// Hints naming files the store does not hold.
    pub unknown_files: u64,
}

fn output_level(level: i32) -> Result<u32, FsError> {
    level_arg(level)?.ok_or_else(|| {
        FsError::new(
            crate::error::FsErrorKind::Invalid,
            "output level -1: a compaction's output level must be known",
        )
    })
}

impl ZoneFs {
    /// Sets an SST's level while it has no data (zones are allocated at the first
    /// append); later calls are counted and ignored, as are levels of WAL files.
    pub fn set_level(&self, name: &str, level: i32) -> Result<(), FsError> {
        let level = level_arg(level)?;
        self.run(|g, now| {
            let no = g.file(name)?;
            let is_sst = matches!(g.store.0.kind_of(no), Some(FileKind::Sst { .. }));
            let Some(level) = level.filter(|_| is_sst) else {
                return Ok(((), now));
            };
            g.counters.sst_level += 1;
            if g.store.0.file_size(no) != Some(0)
                || !g.store.0.set_kind_before_data(no, FileKind::Sst { level })
            {
                g.counters.sst_level_late += 1;
                return Ok(((), now));
            }
            if let Some(m) = g.files.get_mut(&no) {
                m.level_known = true;
            }
            g.store.0.journal_level(no);
            let job = g
                .jobs
                .iter()
                .find(|(_, &l)| l == level)
                .map_or(0, |(&j, _)| j);
            g.store.0.hint(
                now,
                &Hint::SstGenerated {
                    job,
                    sst: no,
                    level,
                    // RocksDB does not tell the file system how large an SST will be.
                    expected_bytes: 0,
                },
            )?;
            Ok(((), now))
        })
    }

    pub fn hint_flush(&self, job: u64, sst: &str) -> Result<(), FsError> {
        self.run(|g, now| {
            g.counters.flush += 1;
            let Some(&no) = g.names.get(sst) else {
                g.counters.unknown_files += 1;
                return Ok(((), now));
            };
            let unknown = g.files.get(&no).is_some_and(|m| !m.level_known);
            if unknown
                && g.store
                    .0
                    .set_kind_before_data(no, FileKind::Sst { level: 0 })
            {
                if let Some(m) = g.files.get_mut(&no) {
                    m.level_known = true;
                }
                g.store.0.journal_level(no);
            }
            g.store.0.hint(
                now,
                &Hint::FlushStarted {
                    job,
                    sst: no,
                    expected_bytes: 0,
                },
            )?;
            Ok(((), now))
        })
    }

    pub fn hint_compaction_begin(
        &self,
        job: u64,
        inputs: &[&str],
        output_level: i32,
    ) -> Result<(), FsError> {
        let level = self::output_level(output_level)?;
        self.run(|g, now| {
            g.counters.compaction_begin += 1;
            let files: Vec<FileNo> = inputs
                .iter()
                .filter_map(|n| g.names.get(*n).copied())
                .collect();
            g.counters.unknown_files += (inputs.len() - files.len()) as u64;
            g.jobs.insert(job, level);
            let hint = Hint::CompactionStarted {
                job,
                planned_outputs: inputs.len() as u32,
                inputs: files,
                output_level: level,
            };
            g.store.0.hint(now, &hint)?;
            Ok(((), now))
        })
    }

    pub fn hint_compaction_end(
        &self,
        job: u64,
        outputs: &[&str],
        output_level: i32,
    ) -> Result<(), FsError> {
        let level = self::output_level(output_level)?;
        self.run(|g, now| {
            g.counters.compaction_end += 1;
            let files: Vec<FileNo> = outputs
                .iter()
                .filter_map(|n| g.names.get(*n).copied())
                .collect();
            g.counters.unknown_files += (outputs.len() - files.len()) as u64;
            g.jobs.remove(&job);
            let hint = Hint::CompactionFinished {
                job,
                outputs: files,
                output_level: level,
            };
            g.store.0.hint(now, &hint)?;
            Ok(((), now))
        })
    }

    pub fn hint_trivial_move(&self, sst: &str, to_level: i32) -> Result<(), FsError> {
        let to = self::output_level(to_level)?;
        self.run(|g, now| {
            g.counters.trivial_move += 1;
            let Some(&no) = g.names.get(sst) else {
                g.counters.unknown_files += 1;
                return Ok(((), now));
            };
            let from_level = match g.store.0.kind_of(no) {
                Some(FileKind::Sst { level }) => level,
                _ => return Ok(((), now)),
            };
            g.store.0.hint(
                now,
                &Hint::TrivialMove {
                    sst: no,
                    from_level,
                    to_level: to,
                },
            )?;
            if let Some(m) = g.files.get_mut(&no) {
                m.level_known = true;
            }
            Ok(((), now))
        })
    }

    /// A block evicted from the block cache, with its bytes.
    pub fn hint_block_evicted(&self, sst: &str, offset: u64, data: &[u8]) -> Result<(), FsError> {
        self.run(|g, now| {
            g.counters.block_evicted += 1;
            let Some(&no) = g.names.get(sst) else {
                g.counters.unknown_files += 1;
                return Ok(((), now));
            };
            let before = g.store.0.cache_stats().map_or(0, |s| s.0.admitted);
            g.store.0.hint_block_evicted(now, no, offset, data)?;
            let after = g.store.0.cache_stats().map_or(0, |s| s.0.admitted);
            g.counters.cache_admitted += after - before;
            Ok(((), now))
        })
    }

    /// Looks a block up in the SSD cache: its bytes on a hit.
    pub fn cache_lookup(&self, sst: &str, offset: u64) -> Result<Option<Vec<u8>>, FsError> {
        self.run(|g, now| {
            g.counters.cache_lookups += 1;
            let Some(&no) = g.names.get(sst) else {
                return Ok((None, now));
            };
            match g.store.0.cache_lookup_bytes(now, no, offset) {
                Some((bytes, done)) => {
                    g.counters.cache_hits += 1;
                    Ok((Some(bytes), done))
                }
                None => Ok((None, now)),
            }
        })
    }
}
