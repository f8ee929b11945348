//! The SSD cache's mapping table (HHZS §3.5): (SST, block offset) → where the block
//! sits in a cache zone.
//!
//! Hash maps per SST rather than one ordered map: a paper-scale cache holds
//! millions of blocks, and every block-cache eviction (an admission) and every
//! HDD-SST block read (a lookup) consults the table, where an ordered map's
//! lookups missed the CPU cache at most of their steps (docs/PERFORMANCE.md).
//! Dropping a whole SST's entries (deletion, migration) stays one removal. Nothing
//! reaches results through the maps' iteration order; [`CacheTable::sorted`]
//! gives a fixed order where one is needed.

use super::ssd_cache::CachedBlock;
use crate::lsm::FileNo;
use std::collections::HashMap;

/// Cached blocks by SST, then by the block's offset in the SST.
#[derive(Debug, Clone, Default)]
pub struct CacheTable {
    by_file: HashMap<FileNo, HashMap<u64, CachedBlock>>,
}

impl CacheTable {
    pub fn get(&self, file: FileNo, offset: u64) -> Option<&CachedBlock> {
        self.by_file.get(&file)?.get(&offset)
    }

    pub fn contains(&self, file: FileNo, offset: u64) -> bool {
        self.get(file, offset).is_some()
    }

    /// Maps the block at `offset` of `file` to `block`, replacing any entry.
    pub fn insert(&mut self, file: FileNo, offset: u64, block: CachedBlock) {
        self.by_file.entry(file).or_default().insert(offset, block);
    }

    /// Drops the entry of the block at `offset` of `file` if it is in cache zone
    /// `zone` (an evicted zone's blocks that were not cached again since).
    pub fn remove_in_zone(&mut self, file: FileNo, offset: u64, zone: u32) {
        let Some(blocks) = self.by_file.get_mut(&file) else {
            return;
        };
        if blocks.get(&offset).is_some_and(|b| b.zone == zone) {
            blocks.remove(&offset);
            if blocks.is_empty() {
                self.by_file.remove(&file);
            }
        }
    }

    /// Drops every entry of `file`; returns how many there were.
    pub fn remove_file(&mut self, file: FileNo) -> usize {
        self.by_file.remove(&file).map_or(0, |b| b.len())
    }

    /// Number of cached blocks (counted on demand: only reports ask).
    pub fn len(&self) -> usize {
        self.by_file.values().map(HashMap::len).sum()
    }

    /// Whether no block is cached (an SST's map is dropped with its last entry).
    pub fn is_empty(&self) -> bool {
        self.by_file.is_empty()
    }

    /// Every entry, ordered by (SST, offset).
    pub fn sorted(&self) -> Vec<((FileNo, u64), CachedBlock)> {
        let mut all: Vec<((FileNo, u64), CachedBlock)> = self
            .by_file
            .iter()
            .flat_map(|(&f, blocks)| blocks.iter().map(move |(&o, &b)| ((f, o), b)))
            .collect();
        all.sort_unstable_by_key(|&(k, _)| k);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(zone: u32) -> CachedBlock {
        CachedBlock {
            zone,
            zone_offset: 0,
            bytes: 4096,
        }
    }

    #[test]
    fn counts_entries_through_inserts_and_removals() {
        let mut t = CacheTable::default();
        t.insert(7, 0, at(1));
        t.insert(7, 4096, at(1));
        t.insert(7, 0, at(2)); // cached again in a newer zone: replaced, not added
        t.insert(9, 0, at(1));
        assert_eq!(t.len(), 3);
        assert_eq!(t.get(7, 0), Some(&at(2)));
        // Evicting zone 1 keeps block 0 of SST 7, which now lives in zone 2.
        t.remove_in_zone(7, 0, 1);
        t.remove_in_zone(7, 4096, 1);
        t.remove_in_zone(5, 0, 1); // an SST with no entries
        assert_eq!(t.len(), 2);
        assert!(t.contains(7, 0) && !t.contains(7, 4096));
        assert_eq!(t.remove_file(7), 1);
        assert_eq!(t.remove_file(7), 0);
        assert_eq!(t.sorted(), vec![((9, 0), at(1))]);
        t.remove_in_zone(9, 0, 1);
        assert!(t.is_empty() && t.by_file.is_empty());
    }

    #[test]
    fn sorted_orders_by_sst_then_offset() {
        let mut t = CacheTable::default();
        for (f, o) in [(3, 8192), (1, 4096), (3, 0), (1, 0)] {
            t.insert(f, o, at(0));
        }
        let keys: Vec<(FileNo, u64)> = t.sorted().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec![(1, 0), (1, 4096), (3, 0), (3, 8192)]);
    }
}
