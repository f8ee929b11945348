//! Background jobs as state machines in virtual time: a flush writes the merged
//! immutable MemTables as one L0 SST; a compaction reads its inputs with
//! readahead, merges (CPU per key and per byte) and writes its outputs chunk by chunk, creating
//! each output file (and asking the storage to place it) when it starts writing it.
//! The key-level result of a job is computed when it starts, so output sizes and
//! the SST-generated hints are exact; its I/O then takes virtual time.

use super::hints::FileNo;
use std::sync::Arc;

/// A flush in progress.
#[derive(Debug, Clone)]
pub struct FlushJob {
    pub job: u64,
    pub sst: FileNo,
    pub keys: Arc<[u64]>,
    /// MemTables (by WAL file number) this flush persists.
    pub memtable_wals: Vec<FileNo>,
    pub file_bytes: u64,
    pub written_bytes: u64,
    /// Version sequence when the job started (the Version it pins).
    pub start_seq: u64,
    pub phase: JobPhase,
}

/// A compaction in progress.
#[derive(Debug, Clone)]
pub struct CompactionJob {
    pub job: u64,
    pub start_level: u32,
    pub output_level: u32,
    pub inputs: Vec<FileNo>,
    /// Data bytes of each input (what the merge reads).
    pub input_data_bytes: Vec<u64>,
    /// Bytes read so far from each input (whole readahead chunks).
    pub fetched_bytes: Vec<u64>,
    pub total_input_bytes: u64,
    /// Entries of all inputs (the merge's CPU is charged per key and per byte).
    pub total_input_keys: u64,
    /// Planned outputs: keys and file bytes.
    pub outputs: Vec<(Arc<[u64]>, u64)>,
    pub output_nos: Vec<FileNo>,
    pub total_output_bytes: u64,
    pub written_total_bytes: u64,
    /// Index of the output being written and its bytes written so far.
    pub current_output: usize,
    pub current_written_bytes: u64,
    /// Output bytes of the chunk being produced (read in `Step`, written in `Write`).
    pub pending_chunk_bytes: u64,
    /// Input bytes the merge has consumed so far.
    pub consumed_input_bytes: u64,
    pub lo: u64,
    pub hi: u64,
    /// Version sequence when the job started (the Version it pins).
    pub start_seq: u64,
    pub started_ns: u64,
    pub phase: JobPhase,
}

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobPhase {
    /// Next: read input for the next chunk (compactions) or write it (flushes).
    Step,
    /// Input for the next chunk has been read and merged: write it.
    Write,
    /// Everything is written; the tables have been opened: install the result.
    Install,
}
