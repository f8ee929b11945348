//! The LSM-tree's current shape: SSTs (each with its exact sorted keys) in levels.
//! L0 files overlap and are kept newest first; every other level is sorted by key
//! and its files never overlap (RocksDB's `VersionStorageInfo`).

use super::fence_index::FenceIndex;
use super::hints::FileNo;
use super::layout::SstLayout;
use std::sync::Arc;

/// One SST: its keys (ordered key codes, see `lsm` module docs) and size.
#[derive(Debug, Clone)]
pub struct Sst {
    pub no: FileNo,
    pub level: u32,
    /// Sorted key codes; immutable once written, so forks share them.
    pub keys: Arc<[u64]>,
    /// A sparse index over `keys` that makes point lookups cache-friendly (a
    /// simulator speed-up; it models nothing of RocksDB).
    fences: Arc<FenceIndex>,
    /// First and last key, kept inline: level searches compare them without
    /// touching the key array.
    smallest_key: u64,
    largest_key: u64,
    pub file_bytes: u64,
    pub being_compacted: bool,
}

impl Sst {
    /// An SST of `keys` (sorted, non-empty) at `level`.
    pub fn new(no: FileNo, level: u32, keys: Arc<[u64]>, file_bytes: u64) -> Self {
        let fences = Arc::new(FenceIndex::new(&keys));
        Sst {
            no,
            level,
            smallest_key: keys[0],
            largest_key: keys[keys.len() - 1],
            keys,
            fences,
            file_bytes,
            being_compacted: false,
        }
    }

    /// Position of the first key ≥ `key` (`keys.partition_point(|k| k < key)`).
    pub fn lower_bound(&self, key: u64) -> usize {
        self.fences.lower_bound(&self.keys, key)
    }

    pub fn smallest(&self) -> u64 {
        self.smallest_key
    }
    pub fn largest(&self) -> u64 {
        self.largest_key
    }
    pub fn overlaps(&self, lo: u64, hi: u64) -> bool {
        self.smallest() <= hi && self.largest() >= lo
    }
}

/// SSTs by level; files are stored densely by file number.
#[derive(Debug, Clone)]
pub struct Version {
    files: Vec<Option<Sst>>,
    /// File numbers per level: L0 newest first, others by smallest key.
    pub levels: Vec<Vec<FileNo>>,
    level_bytes: Vec<u64>,
}

impl Version {
    pub fn new(num_levels: usize) -> Self {
        Self {
            files: Vec::new(),
            levels: vec![Vec::new(); num_levels],
            level_bytes: vec![0; num_levels],
        }
    }

    pub fn num_levels(&self) -> usize {
        self.levels.len()
    }

    pub fn sst(&self, no: FileNo) -> &Sst {
        self.files[no as usize].as_ref().expect("live SST")
    }

    pub fn sst_mut(&mut self, no: FileNo) -> &mut Sst {
        self.files[no as usize].as_mut().expect("live SST")
    }

    pub fn get(&self, no: FileNo) -> Option<&Sst> {
        self.files.get(no as usize).and_then(|f| f.as_ref())
    }

    /// Bytes of the SSTs at `level`.
    pub fn level_bytes(&self, level: usize) -> u64 {
        self.level_bytes[level]
    }

    /// Adds `sst` at its level (L0: as the newest file).
    pub fn add(&mut self, sst: Sst) {
        let level = sst.level as usize;
        let no = sst.no;
        self.level_bytes[level] += sst.file_bytes;
        if level == 0 {
            self.levels[0].insert(0, no);
        } else {
            let smallest = sst.smallest();
            let files = &self.files;
            let pos = self.levels[level].partition_point(|&f| {
                files[f as usize].as_ref().expect("live").smallest() < smallest
            });
            self.levels[level].insert(pos, no);
        }
        if self.files.len() <= no as usize {
            self.files.resize_with(no as usize + 1, || None);
        }
        self.files[no as usize] = Some(sst);
    }

    /// Adds an L0 `sst` at position `pos` of L0's newest-first list (where the
    /// inputs of the intra-L0 compaction that produced it were).
    pub fn add_l0_at(&mut self, pos: usize, sst: Sst) {
        let no = sst.no;
        self.level_bytes[0] += sst.file_bytes;
        let pos = pos.min(self.levels[0].len());
        self.levels[0].insert(pos, no);
        if self.files.len() <= no as usize {
            self.files.resize_with(no as usize + 1, || None);
        }
        self.files[no as usize] = Some(sst);
    }

    /// Removes SST `no` and returns it.
    pub fn remove(&mut self, no: FileNo) -> Sst {
        let sst = self.files[no as usize].take().expect("live SST");
        let level = sst.level as usize;
        self.level_bytes[level] -= sst.file_bytes;
        self.levels[level].retain(|&f| f != no);
        sst
    }

    /// Moves SST `no` one level down without rewriting it (a trivial move).
    pub fn move_down(&mut self, no: FileNo, to_level: u32) {
        let mut sst = self.remove(no);
        sst.level = to_level;
        self.add(sst);
    }

    /// Files of `level` (≥ 1) overlapping [lo, hi], in key order.
    pub fn overlapping(&self, level: usize, lo: u64, hi: u64) -> &[FileNo] {
        let files = &self.levels[level];
        let first = files.partition_point(|&f| self.sst(f).largest() < lo);
        let last = files.partition_point(|&f| self.sst(f).smallest() <= hi);
        &files[first..last.max(first)]
    }

    /// The file of `level` (≥ 1) whose range holds `key`, if any.
    pub fn file_for_key(&self, level: usize, key: u64) -> Option<FileNo> {
        let files = &self.levels[level];
        let i = files.partition_point(|&f| self.sst(f).largest() < key);
        files
            .get(i)
            .copied()
            .filter(|&f| self.sst(f).smallest() <= key)
    }

    /// Every live SST, by file number.
    pub fn all(&self) -> impl Iterator<Item = &Sst> {
        self.files.iter().filter_map(|f| f.as_ref())
    }

    /// Checks the invariants: L1+ sorted and disjoint, level sizes are sums of file
    /// sizes, keys sorted and unique within each file. Returns the first violation.
    pub fn check(&self, layout: &SstLayout) -> Result<(), String> {
        for (level, files) in self.levels.iter().enumerate() {
            let sum: u64 = files.iter().map(|&f| self.sst(f).file_bytes).sum();
            if sum != self.level_bytes[level] {
                return Err(format!(
                    "L{level}: size {} != sum {sum}",
                    self.level_bytes[level]
                ));
            }
            for &f in files {
                let s = self.sst(f);
                if s.keys.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(format!("SST {f}: keys not sorted and unique"));
                }
                if s.file_bytes != layout.file_bytes(s.keys.len() as u64) {
                    return Err(format!("SST {f}: size does not match its keys"));
                }
                if s.level as usize != level {
                    return Err(format!("SST {f}: level {} listed in L{level}", s.level));
                }
            }
            if level > 0 {
                for w in files.windows(2) {
                    if self.sst(w[0]).largest() >= self.sst(w[1]).smallest() {
                        return Err(format!("L{level}: SSTs {} and {} overlap", w[0], w[1]));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn lower_bound_equals_a_full_binary_search(
            keys in proptest::collection::btree_set(0u64..100_000, 1..600),
            probes in proptest::collection::vec(0u64..100_001, 1..50),
        ) {
            let keys: Vec<u64> = keys.into_iter().collect();
            let sst = Sst::new(7, 1, keys.clone().into(), 4096);
            prop_assert_eq!(sst.smallest(), keys[0]);
            prop_assert_eq!(sst.largest(), *keys.last().unwrap());
            for k in probes.into_iter().chain(keys.iter().copied()) {
                prop_assert_eq!(sst.lower_bound(k), keys.partition_point(|&x| x < k));
            }
        }
    }
}
