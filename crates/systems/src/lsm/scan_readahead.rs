//! RocksDB 6.22's implicit auto-readahead for iterators over direct-I/O files: how
//! a scan (YCSB E's range query) reads the data blocks of each SST it walks.
//!
//! An iterator keeps one `BlockPrefetcher` per table file it reads
//! (`table/block_based/block_prefetcher.{h,cc}` at v6.22.1). Every data block the
//! iterator moves to passes `PrefetchIfNeeded`: a block that does not start where
//! the previous one ended resets the count of sequential reads to 1; a sequential
//! one increments it, and on the third (`kMinNumFileReadsToStartAutoReadahead` = 2)
//! the prefetcher creates a `FilePrefetchBuffer` with an 8 KiB readahead
//! (`kInitAutoReadaheadSize`) that may grow to `max_auto_readahead_size` (256 KiB by
//! default, `include/rocksdb/table.h`). A block missing from the block cache is then
//! read through that buffer (`file/file_prefetch_buffer.cc`, `TryReadFromCache`):
//! served from it when it holds the block; else, if this read is sequential to the
//! buffer's last one, the buffer keeps the pages it still holds from the block's
//! page on and reads the rest of `block + readahead` (rounded to 4 KiB pages) in one
//! device read, and the readahead doubles; a non-sequential read resets the
//! buffer's pattern and readahead and is read plainly, as are the first two after
//! a reset. A block found in the block cache never reaches the buffer, so it
//! breaks the buffer's sequence (the prefetcher's own count still sees it).
//!
//! Point lookups (`Get`) use no prefetching; a new scan opens a new iterator, so
//! the state is per scan ([`ScanReadahead::reset`]).

use super::hints::FileNo;
use zonelab_engine::KIB;

/// `BlockBasedTable::kInitAutoReadaheadSize`.
pub const INIT_AUTO_READAHEAD_BYTES: u64 = 8 * KIB;
/// `kMinNumFileReadsToStartAutoReadahead`.
const MIN_FILE_READS_TO_START: u32 = 2;
/// Direct I/O's alignment (the devices' logical block).
const PAGE_BYTES: u64 = 4096;

/// Where a scan's data block comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockSource {
    /// The in-memory block cache: no I/O.
    BlockCache,
    /// The iterator's prefetch buffer, filled by an earlier read: no I/O.
    PrefetchBuffer,
    /// One device read of `bytes` at file offset `offset` (whole pages);
    /// `prefetch` when it is a readahead read of the prefetch buffer.
    Device {
        offset: u64,
        bytes: u64,
        prefetch: bool,
    },
}

/// The prefetch buffer of one file (`FilePrefetchBuffer` with implicit readahead).
#[derive(Debug, Clone, Copy)]
struct PrefetchBuffer {
    /// File bytes the buffer holds: `start..end` (empty when equal).
    start: u64,
    end: u64,
    readahead_bytes: u64,
    /// End of the last block read through the buffer (`prev_offset_ + prev_len_`).
    prev_end: Option<u64>,
    reads: u32,
}

/// The prefetcher of one file (`BlockPrefetcher`, direct-I/O path).
#[derive(Debug, Clone, Copy, Default)]
struct FileReadahead {
    prev_end: Option<u64>,
    reads: u32,
    buffer: Option<PrefetchBuffer>,
}

/// The readahead state of one scan's iterators.
#[derive(Debug, Clone)]
pub struct ScanReadahead {
    max_auto_readahead_bytes: u64,
    files: Vec<(FileNo, FileReadahead)>,
}

fn page_floor(x: u64) -> u64 {
    x / PAGE_BYTES * PAGE_BYTES
}

fn page_ceil(x: u64) -> u64 {
    x.div_ceil(PAGE_BYTES) * PAGE_BYTES
}

impl BlockSource {
    /// A block read on its own: the whole 4 KiB pages it lies in (direct I/O), as a
    /// get reads every block and a scan reads blocks outside a readahead.
    pub fn own_pages(offset: u64, len: u64) -> Self {
        BlockSource::Device {
            offset: page_floor(offset),
            bytes: page_ceil(offset + len) - page_floor(offset),
            prefetch: false,
        }
    }
}

impl ScanReadahead {
    /// `max_auto_readahead_bytes` is RocksDB's `max_auto_readahead_size`; 0 turns
    /// implicit readahead off (every block is read on its own).
    pub fn new(max_auto_readahead_bytes: u64) -> Self {
        Self {
            max_auto_readahead_bytes,
            files: Vec::new(),
        }
    }

    /// A new iterator: no file has been read yet.
    pub fn reset(&mut self) {
        self.files.clear();
    }

    /// The data block at `offset..offset + len` of file `sst` (`file_bytes` long),
    /// which the block cache holds or not: where it comes from, and the read it
    /// needs.
    pub fn read_block(
        &mut self,
        sst: FileNo,
        offset: u64,
        len: u64,
        file_bytes: u64,
        in_block_cache: bool,
    ) -> BlockSource {
        let plain = BlockSource::own_pages(offset, len);
        if self.max_auto_readahead_bytes == 0 {
            return if in_block_cache {
                BlockSource::BlockCache
            } else {
                plain
            };
        }
        let init = INIT_AUTO_READAHEAD_BYTES.min(self.max_auto_readahead_bytes);
        let max = self.max_auto_readahead_bytes;
        let f = match self.files.iter().position(|(no, _)| *no == sst) {
            Some(i) => &mut self.files[i].1,
            None => {
                self.files.push((sst, FileReadahead::default()));
                &mut self.files.last_mut().expect("just pushed").1
            }
        };
        // BlockPrefetcher::PrefetchIfNeeded.
        let sequential = f.prev_end.is_none_or(|end| end == offset);
        f.prev_end = Some(offset + len);
        if sequential {
            f.reads += 1;
            if f.reads > MIN_FILE_READS_TO_START && f.buffer.is_none() {
                f.buffer = Some(PrefetchBuffer {
                    start: 0,
                    end: 0,
                    readahead_bytes: init,
                    prev_end: None,
                    reads: MIN_FILE_READS_TO_START + 1,
                });
            }
        } else {
            f.reads = 1;
        }
        if in_block_cache {
            return BlockSource::BlockCache;
        }
        let Some(b) = f.buffer.as_mut() else {
            return plain;
        };
        // FilePrefetchBuffer::TryReadFromCache.
        if offset < b.start {
            return plain;
        }
        if offset + len <= b.end {
            b.prev_end = Some(offset + len);
            return BlockSource::PrefetchBuffer;
        }
        if !b.prev_end.is_none_or(|end| end == offset) {
            b.prev_end = Some(offset + len);
            b.reads = 1;
            b.readahead_bytes = init;
            return plain;
        }
        b.reads += 1;
        if b.reads <= MIN_FILE_READS_TO_START {
            b.prev_end = Some(offset + len);
            return plain;
        }
        // FilePrefetchBuffer::Prefetch(offset, len + readahead): keeps the buffered
        // pages from the block's page on and reads only the rest. The file's end
        // bounds the read (a short read there), never below the block's own pages.
        let start = page_floor(offset);
        let want_end = page_ceil(offset + len + b.readahead_bytes);
        let end = want_end
            .min(page_floor(file_bytes))
            .max(page_ceil(offset + len));
        let read_from = if b.end > b.start && offset <= b.end {
            b.end.max(start)
        } else {
            start
        };
        b.start = start;
        b.end = end;
        b.readahead_bytes = (b.readahead_bytes * 2).min(max);
        b.prev_end = Some(offset + len);
        BlockSource::Device {
            offset: read_from,
            bytes: end - read_from,
            prefetch: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: u64 = 4157; // a full 1 KiB-value data block with its trailer
    const FILE: u64 = 1 << 30;

    fn scan(r: &mut ScanReadahead, sst: FileNo, blocks: std::ops::Range<u64>) -> Vec<BlockSource> {
        blocks
            .map(|i| r.read_block(sst, i * BLOCK, BLOCK, FILE, false))
            .collect()
    }

    #[test]
    fn the_third_sequential_block_starts_a_readahead_that_doubles_to_the_cap() {
        let mut r = ScanReadahead::new(256 * KIB);
        let got = scan(&mut r, 7, 0..200);
        let device: Vec<(u64, u64, bool)> = got
            .iter()
            .filter_map(|s| match *s {
                BlockSource::Device {
                    offset,
                    bytes,
                    prefetch,
                } => Some((offset, bytes, prefetch)),
                _ => None,
            })
            .collect();
        // Blocks 0 and 1 are read plainly, as their own pages.
        assert_eq!(device[0], (0, 8192, false));
        assert_eq!(device[1], (4096, 8192, false));
        // Block 2: block + 8 KiB from its page on.
        let b2 = 2 * BLOCK;
        assert_eq!(
            device[2],
            (
                page_floor(b2),
                page_ceil(b2 + BLOCK + 8 * KIB) - page_floor(b2),
                true
            )
        );
        // Each later read continues the buffer where it ended (no byte read twice)
        // and grows until the 256 KiB cap.
        for w in device[2..].windows(2) {
            assert_eq!(w[0].0 + w[0].1, w[1].0, "{w:?}");
        }
        let largest = device.iter().map(|d| d.1).max().unwrap();
        assert!(largest <= 256 * KIB + 2 * BLOCK + PAGE_BYTES, "{largest}");
        assert!(largest >= 256 * KIB, "{largest}");
        // 200 blocks (≈ 812 KiB) in a handful of reads, the rest from the buffer.
        assert!(device.len() < 12, "{}", device.len());
        let from_buffer = got
            .iter()
            .filter(|s| **s == BlockSource::PrefetchBuffer)
            .count();
        assert_eq!(from_buffer + device.len(), 200);
    }

    #[test]
    fn a_jump_or_a_block_cache_hit_restarts_the_sequence() {
        let mut r = ScanReadahead::new(256 * KIB);
        scan(&mut r, 1, 0..5);
        // A block elsewhere in the file resets both counts: it and the next one
        // are read plainly, the third starts a readahead again.
        let far = 1000 * BLOCK;
        assert!(matches!(
            r.read_block(1, far, BLOCK, FILE, false),
            BlockSource::Device {
                prefetch: false,
                ..
            }
        ));
        assert!(matches!(
            r.read_block(1, far + BLOCK, BLOCK, FILE, false),
            BlockSource::Device {
                prefetch: false,
                ..
            }
        ));
        assert!(matches!(
            r.read_block(1, far + 2 * BLOCK, BLOCK, FILE, false),
            BlockSource::Device { prefetch: true, .. }
        ));
        // Blocks the block cache holds need no read, and the prefetch buffer does
        // not see them: the next block past the buffer breaks its sequence and is
        // read plainly.
        for i in 3..6 {
            assert_eq!(
                r.read_block(1, far + i * BLOCK, BLOCK, FILE, true),
                BlockSource::BlockCache
            );
        }
        assert!(matches!(
            r.read_block(1, far + 6 * BLOCK, BLOCK, FILE, false),
            BlockSource::Device {
                prefetch: false,
                ..
            }
        ));
    }

    #[test]
    fn files_are_independent_and_a_new_scan_starts_afresh() {
        let mut r = ScanReadahead::new(256 * KIB);
        // Interleaved files each count their own sequence.
        for i in 0..2 {
            r.read_block(1, i * BLOCK, BLOCK, FILE, false);
            r.read_block(2, i * BLOCK, BLOCK, FILE, false);
        }
        assert!(matches!(
            r.read_block(1, 2 * BLOCK, BLOCK, FILE, false),
            BlockSource::Device { prefetch: true, .. }
        ));
        r.reset();
        assert!(matches!(
            r.read_block(2, 2 * BLOCK, BLOCK, FILE, false),
            BlockSource::Device {
                prefetch: false,
                ..
            }
        ));
    }

    #[test]
    fn readahead_stops_at_the_file_end_and_zero_turns_it_off() {
        let mut r = ScanReadahead::new(256 * KIB);
        let file = 4 * BLOCK + 100;
        let got: Vec<BlockSource> = (0..4)
            .map(|i| r.read_block(3, i * BLOCK, BLOCK, file, false))
            .collect();
        for s in &got {
            if let BlockSource::Device { offset, bytes, .. } = *s {
                assert!(offset + bytes <= page_ceil(file), "{s:?}");
            }
        }
        let mut off = ScanReadahead::new(0);
        let got = scan(&mut off, 4, 0..50);
        assert!(got.iter().all(|s| matches!(
            s,
            BlockSource::Device {
                prefetch: false,
                ..
            }
        )));
    }
}
