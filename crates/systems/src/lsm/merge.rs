//! The key work of flushes and compactions: merging sorted runs of keys (newer
//! versions shadow older ones, so each key survives once) and cutting the result
//! into output files of at most `max_entries_per_file` entries.

use std::sync::Arc;

/// Merges two sorted, duplicate-free runs into one, dropping duplicates. The loop
/// is branch-free in the comparison (the output slot is written, then each cursor
/// advances by 0 or 1), which matters: merging is a fifth of a paper-scale run.
fn merge_two(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len()];
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out[n] = x.min(y);
        n += 1;
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.truncate(n);
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Merges sorted duplicate-free runs into one sorted duplicate-free run, pairwise
/// (a merge tree: O(n log k)). The runs are borrowed: SST key arrays are shared
/// and immutable, so a compaction reads them in place instead of copying them.
pub fn merge_runs<R: AsRef<[u64]>>(runs: &[R]) -> Vec<u64> {
    let inputs: Vec<&[u64]> = runs
        .iter()
        .map(|r| r.as_ref())
        .filter(|r| !r.is_empty())
        .collect();
    if inputs.len() <= 1 {
        return inputs.first().map_or_else(Vec::new, |r| r.to_vec());
    }
    let mut runs: Vec<Vec<u64>> = inputs
        .chunks(2)
        .map(|p| match p {
            [a, b] => merge_two(a, b),
            [a] => a.to_vec(),
            _ => unreachable!("chunks(2) yields one or two runs"),
        })
        .collect();
    while runs.len() > 1 {
        let mut next = Vec::with_capacity(runs.len().div_ceil(2));
        let mut it = runs.into_iter();
        while let Some(a) = it.next() {
            match it.next() {
                Some(b) => next.push(merge_two(&a, &b)),
                None => next.push(a),
            }
        }
        runs = next;
    }
    runs.pop().unwrap_or_default()
}

/// Cuts `keys` into files of at most `max_per_file` keys (the last may be smaller),
/// each an immutable shared key array (forks of a database share them).
pub fn split_into_files(keys: &[u64], max_per_file: u64) -> Vec<Arc<[u64]>> {
    let max = max_per_file.max(1) as usize;
    keys.chunks(max).map(Arc::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn merge_equals_sorted_union(runs in proptest::collection::vec(
            proptest::collection::btree_set(0u64..500, 0..40), 0..6)) {
            let expected: std::collections::BTreeSet<u64> =
                runs.iter().flat_map(|r| r.iter().copied()).collect();
            let runs: Vec<Vec<u64>> = runs.iter().map(|r| r.iter().copied().collect()).collect();
            let merged = merge_runs(&runs);
            prop_assert_eq!(merged, expected.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn split_keeps_every_key_in_order() {
        let keys: Vec<u64> = (0..10).collect();
        let files = split_into_files(&keys, 4);
        assert_eq!(files.len(), 3);
        assert_eq!(
            files
                .iter()
                .flat_map(|f| f.iter().copied())
                .collect::<Vec<_>>(),
            keys
        );
        assert!(split_into_files(&[], 4).is_empty());
    }
}
