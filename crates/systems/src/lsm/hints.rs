//! What the LSM-tree model tells the storage below it: the files it creates, writes,
//! reads and deletes ([`LsmStorage`]), and the hints of HHZS §3.1 ([`Hint`]) — the
//! flushing hint, the three compaction hints (triggered, SST generated, finished)
//! and the cache hint (a data block evicted from the block cache).

use serde::Serialize;
use thiserror::Error;
use zonelab_engine::Ns;

/// RocksDB-style file number, shared by WAL files and SSTs.
pub type FileNo = u64;

/// What a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum FileKind {
    /// A write-ahead log file.
    Wal,
    /// An SST and the level it is written to.
    Sst { level: u32 },
}

/// Hints, emitted when the event happens in virtual time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Hint {
    /// A flush starts writing `sst` to L0 (the flushing hint). `expected_bytes`:
    /// the file's size as far as the LSM-tree knows it (0: unknown), so the store
    /// can give it the zones it needs on one device (§3.2).
    FlushStarted {
        job: u64,
        sst: FileNo,
        expected_bytes: u64,
    },
    /// A compaction was triggered: its input SSTs and output level.
    CompactionStarted {
        job: u64,
        inputs: Vec<FileNo>,
        output_level: u32,
        /// Output SSTs the compaction will write (exact: the merge is known).
        planned_outputs: u32,
    },
    /// A compaction starts writing an output SST at `level`; `expected_bytes` as
    /// for [`Hint::FlushStarted`].
    SstGenerated {
        job: u64,
        sst: FileNo,
        level: u32,
        expected_bytes: u64,
    },
    /// A compaction finished and installed its outputs.
    CompactionFinished {
        job: u64,
        outputs: Vec<FileNo>,
        output_level: u32,
    },
    /// A file moved to the next level without being rewritten (a trivial move).
    TrivialMove {
        sst: FileNo,
        from_level: u32,
        to_level: u32,
    },
    /// The block cache evicted a data block (the cache hint).
    BlockEvicted {
        sst: FileNo,
        offset: u64,
        bytes: u64,
    },
}

/// A storage operation that failed; the message names the file and the cause.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct StorageError(pub String);

/// The file store the LSM-tree runs on. Every call happens at virtual time `now`
/// (non-decreasing across calls) and returns when the I/O completes.
pub trait LsmStorage {
    /// Creates an empty file of `kind`.
    fn create(&mut self, now: Ns, file: FileNo, kind: FileKind) -> Result<(), StorageError>;
    /// Appends `bytes` to `file`; returns the completion time.
    fn append(&mut self, now: Ns, file: FileNo, bytes: u64) -> Result<Ns, StorageError>;
    /// No more appends will come (an SST is complete); returns when done.
    fn close(&mut self, now: Ns, file: FileNo) -> Result<Ns, StorageError>;
    /// Reads `bytes` at `offset` of `file`; returns the completion time.
    fn read(&mut self, now: Ns, file: FileNo, offset: u64, bytes: u64) -> Result<Ns, StorageError>;
    /// Deletes `file`; its space becomes reclaimable.
    fn delete(&mut self, now: Ns, file: FileNo) -> Result<(), StorageError>;
    /// A hint from the LSM-tree. An error is a device error while acting on it
    /// (HHZS: writing an evicted block to the SSD cache).
    fn hint(&mut self, now: Ns, hint: &Hint) -> Result<(), StorageError>;
    /// Whether `file`'s block at `offset` is served from a secondary cache (HHZS's
    /// SSD cache); the default has none.
    fn cached_read(&mut self, _now: Ns, _file: FileNo, _offset: u64, _bytes: u64) -> Option<Ns> {
        None
    }
    /// Which storage tier holds `file` (0 = fastest); lets the LSM-tree count the
    /// reads each tier served. The default is a single tier.
    fn tier_of(&self, _file: FileNo) -> usize {
        0
    }
    /// The LSM-tree was closed and opened in a new process (its files stay): a
    /// file system mounted with it loses its in-memory state. The default keeps
    /// everything.
    fn reopened(&mut self, _now: Ns) {}
}
