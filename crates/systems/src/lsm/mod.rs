//! A RocksDB-like LSM-tree in virtual time (DESIGN.md layer 4, `lsm`), the
//! key-value store whose hints drive HHZS (`papers/hhzs.txt` §2.2, §3.1).
//!
//! Faithful to RocksDB 6.22's leveled compaction where the HHZS results depend on
//! it: MemTables with a WAL, flushes to L0, compaction picking by score, L0→L1 and
//! intra-L0 compactions, `kMinOverlappingRatio` file choice, trivial moves, write
//! stalls (MemTable count, L0 files, pending compaction bytes) with RocksDB's
//! adaptive delayed-write rate, one flush pool and one compaction pool (a single
//! compaction until RocksDB's speed-up conditions hold), 4 KiB data blocks laid out
//! as the table builder does, optional Bloom filters, and an LRU block cache whose
//! evictions are hints. Keys are exact: every SST holds its sorted keys, so file
//! sizes after compaction and the block each read touches are exact; values are
//! size-only.
//!
//! Keys are `u64` order codes: for YCSB's 24-byte keys (`"user"` + the hashed key
//! number zero-padded to 20 digits) byte order equals the numeric order of the
//! number, so the code is that number (see `zonelab_workloads::ycsb::keys`).
//!
//! Not modelled: compression, range deletions, snapshots, multiple column
//! families, subcompactions, the WAL's 32 KiB block fragmentation, and CPU
//! contention between threads (each thread's CPU time is charged to it alone).

pub mod block_cache;
pub mod db;
pub mod fence_index;
pub mod hints;
pub mod ideal_storage;
pub mod jobs;
pub mod layout;
pub mod memtable;
pub mod merge;
pub mod options;
pub mod picker;
pub mod read_plan;
pub mod scan_readahead;
pub mod stall;
pub mod stats;
pub mod version;

pub use db::{KvOp, LsmDb, LsmError, OpSource};
pub use hints::{FileKind, FileNo, Hint, LsmStorage, StorageError};
pub use ideal_storage::IdealStorage;
pub use options::{CpuCosts, LsmOptionError, LsmOptions};
pub use stats::{LevelSamples, LsmSummary};
