//! A static multi-level sparse index over an SST's sorted keys: a simulator speed-up
//! for point lookups and scan seeks (it models nothing of RocksDB, whose lookups the
//! model times from its block layout, not from this search).
//!
//! Why: a paper-scale SST holds about 1 M keys (`target_file_size_base` ≈ 1 GiB of
//! 1 KiB objects), and a Get at paper scale probes every L0 file and one file per
//! deeper level. A one-level fence every 64 keys (128 KiB per SST, 25 MiB for the
//! store's ~200 SSTs) still missed the CPU cache on most of its steps: `probe_sst`
//! was 41 % of `reproduce hhzs --scale 1`'s samples in its read phases
//! (docs/PERFORMANCE.md). Here level 0 holds every 16th key, level 1 every 16th
//! entry of level 0, and so on until a level has at most 16 entries. A search
//! reads the top level, then a window of at most 16 entries (two cache lines) on
//! each level below it and in the keys. The small upper levels of all SSTs stay
//! cached, so a lookup misses the cache on the last one or two levels only.

/// Entries below each index entry: 16 `u64`s, two cache lines.
const FANOUT: usize = 16;

/// The index levels of one sorted key array (see the module docs).
#[derive(Debug, Default)]
pub struct FenceIndex {
    /// `levels[0][j] = keys[j × FANOUT]`, `levels[i + 1][j] = levels[i][j × FANOUT]`;
    /// empty when the keys fit in one window.
    levels: Vec<Box<[u64]>>,
}

impl FenceIndex {
    /// The index of `keys` (sorted ascending).
    pub fn new(keys: &[u64]) -> Self {
        let mut levels: Vec<Box<[u64]>> = Vec::new();
        let mut below: &[u64] = keys;
        while below.len() > FANOUT {
            let level: Box<[u64]> = below.iter().step_by(FANOUT).copied().collect();
            levels.push(level);
            below = levels.last().expect("just pushed");
        }
        FenceIndex { levels }
    }

    /// Position of the first key ≥ `key` in `keys`, the array the index was built
    /// from (`keys.partition_point(|k| k < key)`).
    pub fn lower_bound(&self, keys: &[u64], key: u64) -> usize {
        let Some(top) = self.levels.last() else {
            return keys.partition_point(|&k| k < key);
        };
        let mut g = top.partition_point(|&k| k < key);
        for level in self.levels[..self.levels.len() - 1].iter().rev() {
            g = narrow(level, g, key);
        }
        narrow(keys, g, key)
    }

    /// Entries held by the index (memory accounting, tests).
    pub fn entries(&self) -> usize {
        self.levels.iter().map(|l| l.len()).sum()
    }
}

/// The answer in `below` given `g`, the answer one level up: `above[g − 1] =
/// below[(g − 1) × FANOUT] < key` and `above[g] = below[g × FANOUT] ≥ key`, so it
/// lies in `((g − 1) × FANOUT, g × FANOUT]`.
fn narrow(below: &[u64], g: usize, key: u64) -> usize {
    let lo = g.saturating_sub(1) * FANOUT;
    let hi = (g * FANOUT).min(below.len());
    lo + below[lo..hi].partition_point(|&k| k < key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn levels_shrink_by_the_fanout_until_one_window_is_left() {
        let keys: Vec<u64> = (0..70_000u64).map(|i| i * 3).collect();
        let index = FenceIndex::new(&keys);
        let sizes: Vec<usize> = index.levels.iter().map(|l| l.len()).collect();
        assert_eq!(sizes, vec![4375, 274, 18, 2]);
        assert_eq!(FenceIndex::new(&keys[..16]).entries(), 0);
    }

    #[test]
    fn lower_bound_of_a_large_array_equals_a_full_binary_search() {
        // A paper-scale-like SST: 300 K random keys, so every level is used.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut keys: Vec<u64> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let index = FenceIndex::new(&keys);
        assert_eq!(index.levels.len(), 4);
        let probes = keys
            .iter()
            .step_by(97)
            .flat_map(|&k| [k.wrapping_sub(1), k, k.wrapping_add(1)])
            .chain([0, u64::MAX]);
        for k in probes {
            assert_eq!(
                index.lower_bound(&keys, k),
                keys.partition_point(|&x| x < k)
            );
        }
    }

    proptest! {
        #[test]
        fn lower_bound_equals_a_full_binary_search(
            keys in proptest::collection::btree_set(0u64..1_000_000, 0..5_000),
            probes in proptest::collection::vec(0u64..1_000_001, 1..64),
        ) {
            let keys: Vec<u64> = keys.into_iter().collect();
            let index = FenceIndex::new(&keys);
            for k in probes.into_iter().chain(keys.iter().copied()) {
                prop_assert_eq!(index.lower_bound(&keys, k), keys.partition_point(|&x| x < k));
            }
        }
    }
}
