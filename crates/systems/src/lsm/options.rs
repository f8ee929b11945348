//! The RocksDB options the LSM-tree model honours, with RocksDB 6.22's defaults and
//! a preset for the HHZS paper's setup (`papers/hhzs.txt` §2.3 and §4.1).
//!
//! The HHZS preset follows what the authors' YCSB binding actually configured
//! (h2zone-project/h2zone `src/ycsb/rocksdb/.../RocksDBClient.java`: `new Options()
//! .optimizeLevelStyleCompaction().setIncreaseParallelism(12)
//! .setMaxBackgroundCompactions(12)`), and their patched
//! `ColumnFamilyOptions::OptimizeLevelStyleCompaction` (`src/rocksdb/options/
//! options_sst1011m_l1_1g.cc`): 512 MiB MemTables, merge 2 before a flush, at most 4,
//! L0 trigger 2 files, `target_file_size_base` 1,060,320,051 B (1,011.2 MiB),
//! `max_bytes_for_level_base` 1 GiB, no compression. No Bloom filter is configured
//! there (only `OptimizeForPointLookup` sets one), so the preset has none.

use serde::Serialize;
use thiserror::Error;
use zonelab_engine::rng::splitmix64;
use zonelab_engine::time::{GIB, KIB, MIB};

/// Options of the modelled RocksDB instance. Sizes in bytes, times in ns.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LsmOptions {
    /// `write_buffer_size`: a MemTable is switched when its entries reach this
    /// (see `arena_block_bytes`).
    pub write_buffer_bytes: u64,
    /// `arena_block_size`, for RocksDB's block accounting of the MemTable arena
    /// (`MemTable::ShouldFlushNow`, `memtable::ArenaAccount`). 0 = the model's
    /// rule: a MemTable switches when its entries' arena bytes reach
    /// `write_buffer_size`. RocksDB 6.22.1 sanitises the binding's 0 to
    /// min(1 MiB, `write_buffer_size` / 8) (the cap since 6.21), and with 1 MiB
    /// blocks its switch lands within 1.1 % of that rule (measured with RocksDB
    /// 7.8.3, same rule and cap: 505,375 entries per 512 MiB MemTable against the
    /// rule's 510,820; docs/hhzs.md, "B3's WAL share"). > 0: RocksDB's accounting
    /// with blocks of this size — RocksDB before 6.21 defaulted to
    /// `write_buffer_size` / 8, 64 MiB here (level trace ablation `arena-64mib`).
    pub arena_block_bytes: u64,
    /// `max_write_buffer_number`: writes stop when this many MemTables exist.
    pub max_write_buffers: u32,
    /// `min_write_buffer_number_to_merge`: immutable MemTables gathered per flush.
    pub min_write_buffers_to_merge: u32,
    /// `level0_file_num_compaction_trigger`.
    pub l0_compaction_trigger_files: u32,
    /// `level0_slowdown_writes_trigger` (RocksDB default 20).
    pub l0_slowdown_trigger_files: u32,
    /// `level0_stop_writes_trigger` (RocksDB default 36).
    pub l0_stop_trigger_files: u32,
    /// `max_bytes_for_level_base`: target of L1.
    pub level_base_bytes: u64,
    /// `max_bytes_for_level_multiplier`.
    pub level_multiplier: f64,
    /// `num_levels` (RocksDB default 7).
    pub num_levels: u32,
    /// `target_file_size_base` (multiplier 1: every level uses it).
    pub target_file_bytes: u64,
    /// `max_compaction_bytes` (RocksDB default 25 × target file size): bounds an
    /// intra-L0 compaction.
    pub max_compaction_bytes: u64,
    /// `soft_pending_compaction_bytes_limit` (RocksDB default 64 GiB): writes slow down.
    pub soft_pending_compaction_bytes: u64,
    /// `hard_pending_compaction_bytes_limit` (RocksDB default 256 GiB): writes stop.
    pub hard_pending_compaction_bytes: u64,
    /// `delayed_write_rate` (RocksDB default 16 MiB/s when no rate limiter is set):
    /// the starting rate of delayed writes.
    pub delayed_write_rate_bytes_per_s: u64,
    /// `max_total_wal_size`: when the live WAL exceeds it, the MemTable holding the
    /// oldest WAL is switched and flushed (`DBImpl::SwitchWAL`). 0 = RocksDB's
    /// default, 4 × the MemTable memory (`GetMaxTotalWalSize`), which never binds
    /// here. RocksDB checks it only with several column families; the modelled DB
    /// stands for YCSB's, which has two (`default` and `usertable`).
    pub max_total_wal_bytes: u64,
    /// Threads of the flush pool (`max_background_flushes`).
    pub flush_threads: u32,
    /// Threads of the compaction pool (`max_background_compactions`).
    pub compaction_threads: u32,
    /// `block_size` of data blocks (RocksDB default 4 KiB).
    pub block_bytes: u64,
    /// `block_size_deviation` in percent (RocksDB default 10).
    pub block_size_deviation_pct: u32,
    /// `block_restart_interval` (RocksDB default 16).
    pub block_restart_interval: u32,
    /// Bloom filter bits per key; 0 = no filter (RocksDB's default table options).
    pub bloom_bits_per_key: u32,
    /// Block cache capacity (RocksDB's default table factory creates 8 MiB).
    pub block_cache_bytes: u64,
    /// `num_shard_bits` of the LRU block cache (RocksDB picks 4 for 8 MiB: shards of
    /// at least 512 KiB).
    pub block_cache_shard_bits: u32,
    /// Compaction input readahead with direct reads (RocksDB sanitises 0 to 2 MiB).
    pub compaction_readahead_bytes: u64,
    /// Iterators' implicit auto-readahead cap (`BlockBasedTableOptions::
    /// max_auto_readahead_size`, 256 KiB by default; 0 turns it off): a scan's
    /// sequential data-block reads of a file grow from 8 KiB of readahead by
    /// doubling up to it (`scan_readahead`).
    pub max_auto_readahead_bytes: u64,
    /// Writes of SST data to the file system (`writable_file_max_buffer_size`, 1 MiB).
    pub file_write_chunk_bytes: u64,
    /// WAL bytes buffered before one device write (ZenFS buffers 1 MiB per file).
    pub wal_write_chunk_bytes: u64,
    /// RocksDB deletes an SST that a compaction made obsolete only when no running
    /// job can still use it: a compaction pins the Version it started from
    /// (`Compaction::SetInputVersion` → `input_version_->Ref()`, released by
    /// `c.reset()` at its end), a file leaves the obsolete list only when the last
    /// Version holding it dies (`Version::~Version`), files numbered at or above
    /// the oldest running job's `CaptureCurrentFileNumberInPendingOutputs` are
    /// kept (`VersionSet::GetObsoleteFiles`), and the purge runs at the end of each
    /// background job (`BackgroundCallCompaction` → `FindObsoleteFiles`,
    /// `PurgeObsoleteFiles`). So an obsolete SST stays on storage until every job
    /// that started before it became obsolete has finished. `false` deletes
    /// compaction inputs when the compaction installs (an ablation).
    pub defer_obsolete_deletion: bool,
    /// Key size of every record (YCSB with 24-byte keys, HHZS §2.3).
    pub key_bytes: u64,
    /// Value size of every record (HHZS §2.3: 1,000 bytes).
    pub value_bytes: u64,
    pub cpu: CpuCosts,
}

/// CPU time the model charges, so throughput is bounded by CPU as well as devices.
/// The client costs are assumptions (no paper gives them); the flush and
/// compaction costs are measured (`integrations/rocksdb/measure_cpu.sh`, see
/// `docs/hhzs.md`, "CPU costs").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuCosts {
    /// Per put, in the client thread: YCSB client, JNI, write batch, WAL record
    /// append and MemTable insert.
    pub put_ns: u64,
    /// Per get, in the client thread, besides block reads.
    pub get_ns: u64,
    /// Per data block searched (binary search in the block, checksum).
    pub block_search_ns: u64,
    /// Per scanned entry.
    pub scan_entry_ns: u64,
    /// Per entry a flush writes (MemTable iteration, table building).
    pub flush_ns_per_key: u64,
    /// Per byte a flush writes, in picoseconds.
    pub flush_ps_per_byte: u64,
    /// Per entry a compaction reads (merging iterator, key comparisons, building).
    pub compaction_ns_per_key: u64,
    /// Per byte a compaction reads, in picoseconds (block decoding, checksums,
    /// copying into the output, no compression).
    pub compaction_ps_per_byte: u64,
    /// Run-to-run variation of a flush's or a compaction's CPU time: the
    /// coefficient of variation of a per-job factor, in parts per million (0, the
    /// default: every job takes exactly the costs above). Each job's factor is
    /// drawn uniformly with this standard deviation around 1 from
    /// `job_jitter_seed` and the job's number, so a run stays deterministic and
    /// two seeds give two runs, as two loads on a real machine do.
    pub job_jitter_ppm: u64,
    /// Seed of the per-job CPU factors (a draw's own; unused at 0 ppm).
    pub job_jitter_seed: u64,
}

/// The largest `CpuCosts::job_jitter_ppm`: a CV of 50 % keeps every job's factor
/// above 1 − √3/2 > 0 (`CpuCosts::job_factor`).
pub const MAX_JOB_JITTER_PPM: u64 = 500_000;

impl Default for CpuCosts {
    fn default() -> Self {
        Self {
            // Assumption: a single YCSB (Java) thread does ~100 K puts/s into
            // RocksDB without stalls — 10 µs per put, the same per get.
            put_ns: 10_000,
            get_ns: 10_000,
            block_search_ns: 1_000,
            scan_entry_ns: 200,
            // Measured with Debian's RocksDB 7.8.3 db_bench on this 2-core AMD EPYC VM
            // (tmpfs, 24 B keys, 100-4,000 B values, no compression, 18 runs):
            // flush 412 ns/key + 1.111 ns/B, compaction 311 ns/key + 2.281 ns/B
            // (`integrations/rocksdb/measure_cpu.sh`, docs/hhzs.md "CPU costs").
            flush_ns_per_key: 412,
            flush_ps_per_byte: 1_111,
            compaction_ns_per_key: 311,
            compaction_ps_per_byte: 2_281,
            job_jitter_ppm: 0,
            job_jitter_seed: 0,
        }
    }
}

impl CpuCosts {
    /// CPU a flush spends on `keys` entries written as `bytes` bytes.
    pub fn flush_ns(&self, keys: u64, bytes: u64) -> u64 {
        keys * self.flush_ns_per_key + bytes * self.flush_ps_per_byte / 1000
    }

    /// CPU a compaction spends on `keys` input entries of `bytes` input bytes.
    pub fn compaction_ns(&self, keys: u64, bytes: u64) -> u64 {
        keys * self.compaction_ns_per_key + bytes * self.compaction_ps_per_byte / 1000
    }

    /// Job `job`'s CPU factor: 1 without jitter, else uniform on
    /// 1 ± √3 · CV (standard deviation CV), fixed by the seed and the job number.
    pub fn job_factor(&self, job: u64) -> f64 {
        if self.job_jitter_ppm == 0 {
            return 1.0;
        }
        let x = splitmix64(self.job_jitter_seed ^ job.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        let cv = self.job_jitter_ppm as f64 / 1e6;
        1.0 + 3f64.sqrt() * cv * (2.0 * u - 1.0)
    }

    /// `ns` of job `job`'s CPU, with its factor applied (exactly `ns` without jitter).
    pub fn jittered_ns(&self, job: u64, ns: u64) -> u64 {
        if self.job_jitter_ppm == 0 {
            return ns;
        }
        (ns as f64 * self.job_factor(job)).round() as u64
    }
}

/// An option with a value outside what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("lsm option {field} = {value}: {allowed}")]
pub struct LsmOptionError {
    pub field: &'static str,
    pub value: String,
    pub allowed: String,
}

fn bad(field: &'static str, value: impl std::fmt::Display, allowed: &str) -> LsmOptionError {
    LsmOptionError {
        field,
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}

impl LsmOptions {
    /// RocksDB 6.22 with the HHZS paper's configuration (module docs).
    pub fn hhzs_paper() -> Self {
        Self {
            write_buffer_bytes: 512 * MIB,
            arena_block_bytes: 0,
            max_write_buffers: 4,
            min_write_buffers_to_merge: 2,
            l0_compaction_trigger_files: 2,
            l0_slowdown_trigger_files: 20,
            l0_stop_trigger_files: 36,
            level_base_bytes: GIB,
            level_multiplier: 10.0,
            num_levels: 7,
            target_file_bytes: 1_060_320_051,
            max_compaction_bytes: 25 * 1_060_320_051,
            soft_pending_compaction_bytes: 64 * GIB,
            hard_pending_compaction_bytes: 256 * GIB,
            delayed_write_rate_bytes_per_s: 16 * MIB,
            max_total_wal_bytes: 0,
            // `setIncreaseParallelism(12)` gives one HIGH (flush) thread, and
            // `setMaxBackgroundCompactions(12)` 12 compactions (GetBGJobLimits).
            flush_threads: 1,
            compaction_threads: 12,
            block_bytes: 4 * KIB,
            block_size_deviation_pct: 10,
            block_restart_interval: 16,
            bloom_bits_per_key: 0,
            block_cache_bytes: 8 * MIB,
            block_cache_shard_bits: 4,
            compaction_readahead_bytes: 2 * MIB,
            max_auto_readahead_bytes: 256 * KIB,
            file_write_chunk_bytes: MIB,
            wal_write_chunk_bytes: MIB,
            defer_obsolete_deletion: true,
            key_bytes: 24,
            value_bytes: 1000,
            cpu: CpuCosts::default(),
        }
    }

    /// Shrinks every size of the configuration by `scale` (MemTables, SSTs, level
    /// targets, compaction limits), keeping block and record sizes, so a data set
    /// shrunk by the same factor keeps the same shape. The block cache keeps its
    /// size: YCSB's scrambled zipfian draws popularity ranks over 10^10 items
    /// whatever the record count, so the hot set — and the hit rate of a cache of
    /// a given size — does not shrink with the data.
    pub fn scaled(&self, scale: f64) -> Self {
        let s = |b: u64| ((b as f64 * scale).round() as u64).max(1);
        Self {
            write_buffer_bytes: s(self.write_buffer_bytes).max(64 * KIB),
            arena_block_bytes: if self.arena_block_bytes == 0 {
                0
            } else {
                s(self.arena_block_bytes).max(4 * KIB)
            },
            level_base_bytes: s(self.level_base_bytes).max(128 * KIB),
            target_file_bytes: s(self.target_file_bytes).max(64 * KIB),
            max_compaction_bytes: s(self.max_compaction_bytes).max(64 * KIB),
            soft_pending_compaction_bytes: s(self.soft_pending_compaction_bytes),
            hard_pending_compaction_bytes: s(self.hard_pending_compaction_bytes),
            max_total_wal_bytes: if self.max_total_wal_bytes == 0 {
                0
            } else {
                s(self.max_total_wal_bytes)
            },
            ..self.clone()
        }
    }

    /// The MemTable arena's block size for RocksDB's accounting, `None` with the
    /// model's rule (`arena_block_bytes` = 0). Clamped to [4 KiB, 2 GiB] and
    /// aligned to 16 B as RocksDB's `OptimizeBlockSize` (`memory/arena.cc`) does.
    pub fn arena_block_bytes_effective(&self) -> Option<u64> {
        (self.arena_block_bytes > 0)
            .then(|| self.arena_block_bytes.clamp(4 * KIB, 2 * GIB).div_ceil(16) * 16)
    }

    /// The live WAL bytes above which RocksDB forces a flush
    /// (`DBImpl::GetMaxTotalWalSize`).
    pub fn max_total_wal_bytes_effective(&self) -> u64 {
        if self.max_total_wal_bytes > 0 {
            self.max_total_wal_bytes
        } else {
            4 * self.write_buffer_bytes * self.max_write_buffers as u64
        }
    }

    /// Target size of level `level` (≥ 1): base × multiplier^(level − 1).
    pub fn level_target_bytes(&self, level: usize) -> u64 {
        let mut t = self.level_base_bytes as f64;
        for _ in 1..level {
            t *= self.level_multiplier;
        }
        t.min(u64::MAX as f64) as u64
    }

    /// Checks every value; the error names the option, its value and what is allowed.
    pub fn validate(&self) -> Result<(), LsmOptionError> {
        let pos = |field, v: u64| {
            if v == 0 {
                Err(bad(field, v, "must be > 0"))
            } else {
                Ok(())
            }
        };
        pos("write_buffer_bytes", self.write_buffer_bytes)?;
        pos("level_base_bytes", self.level_base_bytes)?;
        pos("target_file_bytes", self.target_file_bytes)?;
        pos("block_bytes", self.block_bytes)?;
        pos(
            "delayed_write_rate_bytes_per_s",
            self.delayed_write_rate_bytes_per_s,
        )?;
        pos(
            "compaction_readahead_bytes",
            self.compaction_readahead_bytes,
        )?;
        pos("file_write_chunk_bytes", self.file_write_chunk_bytes)?;
        pos("wal_write_chunk_bytes", self.wal_write_chunk_bytes)?;
        pos("key_bytes", self.key_bytes)?;
        if self.max_write_buffers < 2 {
            return Err(bad(
                "max_write_buffers",
                self.max_write_buffers,
                "must be ≥ 2",
            ));
        }
        if self.min_write_buffers_to_merge == 0
            || self.min_write_buffers_to_merge >= self.max_write_buffers
        {
            return Err(bad(
                "min_write_buffers_to_merge",
                self.min_write_buffers_to_merge,
                "must be ≥ 1 and < max_write_buffers",
            ));
        }
        if self.l0_compaction_trigger_files == 0 {
            return Err(bad("l0_compaction_trigger_files", 0, "must be ≥ 1"));
        }
        if self.l0_slowdown_trigger_files < self.l0_compaction_trigger_files
            || self.l0_stop_trigger_files < self.l0_slowdown_trigger_files
        {
            return Err(bad(
                "l0_stop_trigger_files",
                self.l0_stop_trigger_files,
                "need compaction trigger ≤ slowdown trigger ≤ stop trigger",
            ));
        }
        if !(self.level_multiplier > 1.0 && self.level_multiplier.is_finite()) {
            return Err(bad(
                "level_multiplier",
                self.level_multiplier,
                "must be > 1",
            ));
        }
        if !(2..=16).contains(&self.num_levels) {
            return Err(bad("num_levels", self.num_levels, "must be in 2..=16"));
        }
        if self.flush_threads == 0 || self.compaction_threads == 0 {
            return Err(bad(
                "flush_threads/compaction_threads",
                format!("{}/{}", self.flush_threads, self.compaction_threads),
                "both must be ≥ 1",
            ));
        }
        if self.block_restart_interval == 0 {
            return Err(bad("block_restart_interval", 0, "must be ≥ 1"));
        }
        if self.block_size_deviation_pct > 100 {
            return Err(bad(
                "block_size_deviation_pct",
                self.block_size_deviation_pct,
                "must be in 0..=100",
            ));
        }
        if self.cpu.job_jitter_ppm > MAX_JOB_JITTER_PPM {
            return Err(bad(
                "cpu.job_jitter_ppm",
                self.cpu.job_jitter_ppm,
                "must be in 0..=500000 (a CV of at most 50 %)",
            ));
        }
        if self.bloom_bits_per_key > 64 {
            return Err(bad(
                "bloom_bits_per_key",
                self.bloom_bits_per_key,
                "must be in 0..=64",
            ));
        }
        if self.block_cache_shard_bits > 10 {
            return Err(bad(
                "block_cache_shard_bits",
                self.block_cache_shard_bits,
                "must be in 0..=10",
            ));
        }
        if self.soft_pending_compaction_bytes > self.hard_pending_compaction_bytes {
            return Err(bad(
                "soft_pending_compaction_bytes",
                self.soft_pending_compaction_bytes,
                "must be ≤ hard_pending_compaction_bytes",
            ));
        }
        if self.key_bytes + self.value_bytes + 16 > self.target_file_bytes {
            return Err(bad(
                "target_file_bytes",
                self.target_file_bytes,
                "must hold at least one record",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_preset_is_valid_and_matches_the_paper() {
        let o = LsmOptions::hhzs_paper();
        o.validate().unwrap();
        assert_eq!(o.level_target_bytes(1), GIB);
        assert_eq!(o.level_target_bytes(3), 100 * GIB);
        // 1,011.2 MiB SSTs (HHZS §3.2).
        assert_eq!(
            (o.target_file_bytes as f64 / MIB as f64 * 10.0).round(),
            10112.0
        );
    }

    #[test]
    fn bad_values_are_named() {
        let mut o = LsmOptions::hhzs_paper();
        o.min_write_buffers_to_merge = 4;
        let e = o.validate().unwrap_err();
        assert_eq!(e.field, "min_write_buffers_to_merge");
        let mut o = LsmOptions::hhzs_paper();
        o.level_multiplier = 1.0;
        assert!(o
            .validate()
            .unwrap_err()
            .to_string()
            .contains("level_multiplier = 1"));
    }

    #[test]
    fn job_cpu_factors_have_the_asked_spread_and_none_without_jitter() {
        let mut c = CpuCosts::default();
        assert!((0..100).all(|j| c.job_factor(j) == 1.0 && c.jittered_ns(j, 12_345) == 12_345));
        c.job_jitter_ppm = 20_000; // CV 2 %
        c.job_jitter_seed = 7;
        let f: Vec<f64> = (0..20_000).map(|j| c.job_factor(j)).collect();
        let mean = f.iter().sum::<f64>() / f.len() as f64;
        let sd = (f.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / f.len() as f64).sqrt();
        assert!((mean - 1.0).abs() < 0.001, "{mean}");
        assert!((sd - 0.02).abs() < 0.001, "{sd}");
        let edge = 3f64.sqrt() * 0.02;
        assert!(f.iter().all(|x| (x - 1.0).abs() <= edge));
        // Another seed, other factors; the same seed, the same ones.
        let mut d = c.clone();
        d.job_jitter_seed = 8;
        assert!((0..100).any(|j| d.job_factor(j) != c.job_factor(j)));
        d.job_jitter_seed = 7;
        assert!((0..100).all(|j| d.job_factor(j) == c.job_factor(j)));
        let mut o = LsmOptions::hhzs_paper();
        o.cpu.job_jitter_ppm = 500_001;
        let e = o.validate().unwrap_err();
        assert_eq!(e.field, "cpu.job_jitter_ppm");
    }

    #[test]
    fn scaling_shrinks_sizes_not_records() {
        let o = LsmOptions::hhzs_paper().scaled(0.01);
        o.validate().unwrap();
        assert_eq!(o.value_bytes, 1000);
        assert_eq!(o.block_cache_bytes, 8 * MIB);
        assert_eq!(o.block_bytes, 4 * KIB);
        assert!(o.write_buffer_bytes < 6 * MIB);
    }
}
