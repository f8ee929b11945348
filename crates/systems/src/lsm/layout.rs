//! Byte layout of an SST of fixed-size records, as RocksDB's block-based table
//! builder lays it out (`table/block_based/block_builder.cc`,
//! `flush_block_policy.cc`, `block_based_table_builder.cc`): how many entries fit in
//! a data block, how large a block is on disk, where an entry's block lies, when a
//! compaction output file is cut, and the index / filter / footer bytes.
//!
//! Keys are encoded without prefix sharing (each entry carries its whole 8-byte-
//! suffixed internal key): RocksDB's delta encoding would save a few bytes of the
//! common "user000…" prefix per entry (< 1 % of a 1 KiB record).

use super::options::LsmOptions;

/// RocksDB's per-block trailer: compression type (1 B) + checksum (4 B).
const BLOCK_TRAILER_BYTES: u64 = 5;
/// Internal-key suffix: sequence number and type (8 B).
const INTERNAL_KEY_SUFFIX_BYTES: u64 = 8;
/// Index entry per data block: shortened separator key (~14 B) + internal suffix
/// (8 B) + block handle (offset and size varints, ~7 B) + entry header (3 B) +
/// restart point (4 B, restart interval 1 in the index).
const INDEX_ENTRY_BYTES: u64 = 36;
/// Properties block, meta-index block and footer (an estimate; ~2 KiB per file).
const META_BYTES: u64 = 2048;
/// Full-filter metadata (number of probes etc.).
const FILTER_META_BYTES: u64 = 5;

fn varint_len(mut v: u64) -> u64 {
    let mut n = 1;
    while v >= 128 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Layout of the SSTs of one database (all records have the same size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SstLayout {
    /// Bytes of one entry in a data block.
    pub entry_bytes: u64,
    /// Entries per full data block (RocksDB's flush-by-size policy).
    pub entries_per_block: u64,
    /// On-disk bytes of a full data block (restart array and trailer included).
    pub full_block_bytes: u64,
    /// Entries a compaction output file holds at most (cut at the target size).
    pub max_entries_per_file: u64,
    /// Bloom bits per key (0: no filter).
    pub bloom_bits_per_key: u64,
    pub restart_interval: u64,
}

impl SstLayout {
    pub fn new(o: &LsmOptions) -> Self {
        let ikey = o.key_bytes + INTERNAL_KEY_SUFFIX_BYTES;
        let entry_bytes = 1 + varint_len(ikey) + varint_len(o.value_bytes) + ikey + o.value_bytes;
        let restart_interval = o.block_restart_interval as u64;
        // FlushBlockBySizePolicy::Update with BlockBuilder's estimates.
        let deviation_limit =
            (o.block_bytes * (100 - o.block_size_deviation_pct as u64)).div_ceil(100);
        let mut n: u64 = 0;
        let mut buffer: u64 = 0;
        let mut restarts: u64 = 0;
        loop {
            if n > 0 {
                let curr = buffer + restarts * 4 + 4;
                let mut after =
                    curr + ikey + o.value_bytes + 4 + varint_len(ikey) + varint_len(o.value_bytes);
                if n.is_multiple_of(restart_interval) {
                    after += 4;
                }
                let almost_full = after > o.block_bytes && curr > deviation_limit;
                if curr >= o.block_bytes || almost_full {
                    break;
                }
            }
            if n.is_multiple_of(restart_interval) {
                restarts += 1;
            }
            buffer += entry_bytes;
            n += 1;
        }
        let full_block_bytes = buffer + restarts * 4 + 4 + BLOCK_TRAILER_BYTES;
        // CompactionJob cuts an output once FileSize() (bytes of finished blocks)
        // reaches the target, checked after each add: the key that opened the last
        // block is in the file too.
        let blocks = o.target_file_bytes.div_ceil(full_block_bytes).max(1);
        Self {
            entry_bytes,
            entries_per_block: n,
            full_block_bytes,
            max_entries_per_file: blocks * n + 1,
            bloom_bits_per_key: o.bloom_bits_per_key as u64,
            restart_interval,
        }
    }

    /// Data blocks of an SST of `entries` entries.
    pub fn blocks(&self, entries: u64) -> u64 {
        entries.div_ceil(self.entries_per_block)
    }

    /// On-disk bytes of a data block with `n` entries.
    pub fn block_bytes_for(&self, n: u64) -> u64 {
        n * self.entry_bytes + n.div_ceil(self.restart_interval) * 4 + 4 + BLOCK_TRAILER_BYTES
    }

    /// Bytes of all data blocks of an SST of `entries` entries.
    pub fn data_bytes(&self, entries: u64) -> u64 {
        let full = entries / self.entries_per_block;
        let rest = entries % self.entries_per_block;
        full * self.full_block_bytes
            + if rest > 0 {
                self.block_bytes_for(rest)
            } else {
                0
            }
    }

    /// (offset, bytes) of data block `block` of an SST of `entries` entries.
    pub fn block_extent(&self, block: u64, entries: u64) -> (u64, u64) {
        let offset = block * self.full_block_bytes;
        let first = block * self.entries_per_block;
        let n = (entries - first).min(self.entries_per_block);
        (offset, self.block_bytes_for(n))
    }

    /// Bytes of the index block.
    pub fn index_bytes(&self, entries: u64) -> u64 {
        self.blocks(entries) * INDEX_ENTRY_BYTES + 4 + BLOCK_TRAILER_BYTES
    }

    /// Bytes of the full filter (0 without a filter).
    pub fn filter_bytes(&self, entries: u64) -> u64 {
        if self.bloom_bits_per_key == 0 {
            0
        } else {
            (entries * self.bloom_bits_per_key).div_ceil(8)
                + FILTER_META_BYTES
                + BLOCK_TRAILER_BYTES
        }
    }

    /// Index, filter and meta bytes after the data blocks (read when a table opens).
    pub fn tail_bytes(&self, entries: u64) -> u64 {
        self.index_bytes(entries) + self.filter_bytes(entries) + META_BYTES
    }

    /// Whole file size of an SST of `entries` entries.
    pub fn file_bytes(&self, entries: u64) -> u64 {
        self.data_bytes(entries) + self.tail_bytes(entries)
    }

    /// Bloom false-positive probability of a full filter with k = round(bits·ln 2)
    /// probes (RocksDB caps k at 30): (1 − e^(−k/bits))^k.
    pub fn bloom_false_positive_rate(&self) -> f64 {
        if self.bloom_bits_per_key == 0 {
            return 1.0;
        }
        let bits = self.bloom_bits_per_key as f64;
        let k = (bits * std::f64::consts::LN_2).round().clamp(1.0, 30.0);
        (1.0 - (-k / bits).exp()).powf(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_kib_records_fill_four_per_4kib_block() {
        let o = LsmOptions::hhzs_paper();
        let l = SstLayout::new(&o);
        // 1 + 1 + 2 + 32 + 1000
        assert_eq!(l.entry_bytes, 1036);
        // After 3 entries the block estimate (3,116 B) is below the 90 % deviation
        // limit (3,687 B), so a 4th entry is added; then 4,152 B ≥ 4,096 B flushes.
        assert_eq!(l.entries_per_block, 4);
        assert_eq!(l.full_block_bytes, 4 * 1036 + 4 + 4 + 5);
        assert_eq!(l.block_bytes_for(4), l.full_block_bytes);
    }

    #[test]
    fn output_files_are_cut_at_the_target_size() {
        let o = LsmOptions::hhzs_paper();
        let l = SstLayout::new(&o);
        let n = l.max_entries_per_file;
        assert!(l.data_bytes(n - 1) >= o.target_file_bytes);
        assert!(l.data_bytes(n - 2) < o.target_file_bytes + l.full_block_bytes);
        // A full SST fits one 1,077 MiB ZN540 zone (HHZS §3.2).
        assert!(l.file_bytes(n) < 1077 * zonelab_engine::time::MIB);
    }

    #[test]
    fn block_extents_tile_the_data() {
        let l = SstLayout::new(&LsmOptions::hhzs_paper());
        let entries = 10;
        let (o0, b0) = l.block_extent(0, entries);
        let (o2, b2) = l.block_extent(2, entries);
        assert_eq!(o0, 0);
        assert_eq!(b0, l.full_block_bytes);
        assert_eq!(o2 + b2, l.data_bytes(entries));
    }

    #[test]
    fn bloom_rate_of_ten_bits_is_about_one_percent() {
        let mut o = LsmOptions::hhzs_paper();
        o.bloom_bits_per_key = 10;
        let r = SstLayout::new(&o).bloom_false_positive_rate();
        assert!((0.005..0.012).contains(&r), "{r}");
    }
}
