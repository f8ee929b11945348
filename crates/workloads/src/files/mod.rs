//! File-level workloads: sequences of file operations (create, write, fsync,
//! delete, host think time) that a file-system model executes in virtual time.
//! Payloads are size-only.
//!
//! - [`sqlite`]: a SQLite-like writer in WAL mode, one transaction per insert or
//!   update as mobibench issues them (ConZone+ §6.3, Fig. 10).
//! - [`fio`]: fio-like file jobs: files of a size, sequential or random writes
//!   of a block size, buffered or direct, fsync every N writes, a file-service
//!   policy, think time, a lifetime hint (ConZone+ §6.4-§6.5, Figs. 11-12).

pub mod fio;
pub mod sqlite;

pub use fio::{FileService, FioFileJob, FioFileSpec, FioPattern};
pub use sqlite::{SqliteOp, SqliteWal, SqliteWalSpec};

use zonelab_engine::Ns;

/// `fcntl(F_SET_RW_HINT)` lifetime hints (`enum rw_hint`; fio `write_hint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteHint {
    None,
    Short,
    Medium,
    Long,
    Extreme,
}

/// One file operation. File ids are chosen by the workload (dense, small).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    Create {
        file: u32,
        hint: WriteHint,
    },
    /// `len` bytes at byte `offset`; `direct` bypasses the page cache (O_DIRECT).
    Write {
        file: u32,
        offset: u64,
        len: u64,
        direct: bool,
    },
    Fsync {
        file: u32,
    },
    Delete {
        file: u32,
    },
    /// Host time (CPU, think time) before the next operation.
    Think {
        ns: Ns,
    },
    /// A unit the workload counts (a transaction committed, an I/O done).
    Done,
}

/// A source of file operations.
pub trait FileWorkload {
    /// The next operation, `None` when the workload is over.
    fn next_op(&mut self) -> Option<FileOp>;
    fn name(&self) -> &str;
    /// Files this workload uses (ids).
    fn files(&self) -> Vec<u32>;
}
