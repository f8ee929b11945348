//! What an LSM-tree run reports: operation latencies, stalls, bytes per activity,
//! background job counts, block-cache behaviour, and level sizes over time.

use serde::Serialize;
use zonelab_engine::stats::{LatencyHistogram, LatencySummary};
use zonelab_engine::Ns;

/// Counters of one phase (load or run) or of the whole life of the DB.
#[derive(Debug, Clone, Default)]
pub struct LsmCounters {
    pub puts: u64,
    pub gets: u64,
    pub gets_found: u64,
    /// Gets (and read-modify-writes) by the slowest tier they had to read from:
    /// index 0 also counts reads served from MemTables and the block cache.
    pub gets_by_slowest_tier: Vec<u64>,
    /// Gets (and read-modify-writes) the MemTables answered.
    pub memtable_gets: u64,
    pub scans: u64,
    pub rmws: u64,
    pub put_latency: LatencyHistogram,
    pub get_latency: LatencyHistogram,
    pub scan_latency: LatencyHistogram,
    pub rmw_latency: LatencyHistogram,
    pub stopped_ns: Ns,
    pub delayed_ns: Ns,
    pub wal_bytes: u64,
    pub flush_bytes: u64,
    pub compaction_read_bytes: u64,
    pub compaction_write_bytes: u64,
    /// Bytes of SSTs written per level (flush → L0, compaction → its output level).
    pub level_write_bytes: Vec<u64>,
    pub table_open_read_bytes: u64,
    /// Device reads of data blocks (a readahead read counts once) and their bytes.
    pub data_block_reads: u64,
    pub data_block_read_bytes: u64,
    /// Scan reads that were readahead reads, and data blocks a scan found in its
    /// prefetch buffer (`scan_readahead`).
    pub readahead_reads: u64,
    pub prefetch_buffer_blocks: u64,
    pub bloom_useful: u64,
    pub bloom_false_positives: u64,
    pub flushes: u64,
    pub compactions: u64,
    pub intra_l0_compactions: u64,
    pub trivial_moves: u64,
    pub cache_evictions: u64,
    /// Flushes forced because the live WAL exceeded `max_total_wal_size`.
    pub wal_full_flushes: u64,
    /// Bytes of obsolete SSTs deleted after their compaction (when no running job
    /// pinned them any more).
    pub obsolete_deleted_bytes: u64,
}

/// Serialisable summary of [`LsmCounters`] over `elapsed_ns`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LsmSummary {
    pub elapsed_s: f64,
    pub ops: u64,
    pub ops_per_s: f64,
    pub puts: u64,
    pub gets: u64,
    pub gets_found: u64,
    pub gets_by_slowest_tier: Vec<u64>,
    pub scans: u64,
    pub read_modify_writes: u64,
    pub put_latency: Option<LatencySummary>,
    pub get_latency: Option<LatencySummary>,
    pub scan_latency: Option<LatencySummary>,
    pub rmw_latency: Option<LatencySummary>,
    pub stopped_s: f64,
    pub delayed_s: f64,
    pub wal_bytes: u64,
    pub flush_bytes: u64,
    pub compaction_read_bytes: u64,
    pub compaction_write_bytes: u64,
    pub level_write_bytes: Vec<u64>,
    pub data_block_reads: u64,
    pub bloom_false_positives: u64,
    pub flushes: u64,
    pub compactions: u64,
    pub intra_l0_compactions: u64,
    pub trivial_moves: u64,
    pub cache_evictions: u64,
    pub wal_full_flushes: u64,
}

fn summary(h: &LatencyHistogram) -> Option<LatencySummary> {
    (h.count() > 0).then(|| h.summary())
}

impl LsmCounters {
    pub fn summarize(&self, elapsed_ns: Ns) -> LsmSummary {
        let ops = self.puts + self.gets + self.scans + self.rmws;
        let elapsed_s = elapsed_ns as f64 / 1e9;
        LsmSummary {
            elapsed_s,
            ops,
            ops_per_s: if elapsed_s > 0.0 {
                ops as f64 / elapsed_s
            } else {
                0.0
            },
            puts: self.puts,
            gets: self.gets,
            gets_found: self.gets_found,
            gets_by_slowest_tier: self.gets_by_slowest_tier.clone(),
            scans: self.scans,
            read_modify_writes: self.rmws,
            put_latency: summary(&self.put_latency),
            get_latency: summary(&self.get_latency),
            scan_latency: summary(&self.scan_latency),
            rmw_latency: summary(&self.rmw_latency),
            stopped_s: self.stopped_ns as f64 / 1e9,
            delayed_s: self.delayed_ns as f64 / 1e9,
            wal_bytes: self.wal_bytes,
            flush_bytes: self.flush_bytes,
            compaction_read_bytes: self.compaction_read_bytes,
            compaction_write_bytes: self.compaction_write_bytes,
            level_write_bytes: self.level_write_bytes.clone(),
            data_block_reads: self.data_block_reads,
            bloom_false_positives: self.bloom_false_positives,
            flushes: self.flushes,
            compactions: self.compactions,
            intra_l0_compactions: self.intra_l0_compactions,
            trivial_moves: self.trivial_moves,
            cache_evictions: self.cache_evictions,
            wal_full_flushes: self.wal_full_flushes,
        }
    }
}

/// Sizes sampled at a fixed interval: live WAL bytes and bytes per level.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct LevelSamples {
    pub interval_s: f64,
    pub time_s: Vec<f64>,
    pub wal_bytes: Vec<u64>,
    /// `level_bytes[level][sample]`: the SSTs of RocksDB's current Version.
    pub level_bytes: Vec<Vec<u64>>,
    /// `obsolete_level_bytes[level][sample]`: SSTs compactions removed from the
    /// Version that are still on storage because running jobs pin them; a file
    /// system that sizes levels by the files it holds (ZenFS) sees both.
    pub obsolete_level_bytes: Vec<Vec<u64>>,
    /// `unfinished_level_bytes[level][sample]`: what running flushes and
    /// compactions have written so far into their output level. These files are on
    /// storage, in the file system's count of the level, before the job installs
    /// them in the Version.
    pub unfinished_level_bytes: Vec<Vec<u64>>,
}

impl LevelSamples {
    /// Bytes of `level` on storage at sample `i`, as a file system that sizes a
    /// level by the files it holds counts them (H2Zone's ZenFS,
    /// `ZenFS::ComputeCurrentAllocation` sums every file in `files_` by level):
    /// the Version's SSTs, obsolete SSTs running jobs still pin, and the outputs
    /// running jobs are writing.
    pub fn stored_level_bytes(&self, level: usize, i: usize) -> u64 {
        self.pinned_level_bytes(level, i) + sample_at(&self.unfinished_level_bytes, level, i)
    }

    /// Bytes of `level` at sample `i` in finished files only: the Version's SSTs and
    /// obsolete SSTs running jobs still pin (the outputs being written left out).
    pub fn pinned_level_bytes(&self, level: usize, i: usize) -> u64 {
        self.level_bytes[level][i] + sample_at(&self.obsolete_level_bytes, level, i)
    }
}

/// `series[level][i]`, or 0 where the series was not sampled.
fn sample_at(series: &[Vec<u64>], level: usize, i: usize) -> u64 {
    series
        .get(level)
        .and_then(|v| v.get(i))
        .copied()
        .unwrap_or(0)
}
