//! The key work of flushes and compactions: merging sorted runs of keys (newer
//! versions shadow older ones, so each key survives once) and cutting the result
//! into output files of at most `max_entries_per_file` entries.

/// Merges two sorted, duplicate-free runs into one, dropping duplicates.
fn merge_two(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if x < y {
            out.push(x);
            i += 1;
        } else if y < x {
            out.push(y);
            j += 1;
        } else {
            out.push(x);
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Merges sorted duplicate-free runs into one sorted duplicate-free run, pairwise
/// (a merge tree: O(n log k)).
pub fn merge_runs(mut runs: Vec<Vec<u64>>) -> Vec<u64> {
    runs.retain(|r| !r.is_empty());
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

/// Cuts `keys` into files of at most `max_per_file` keys (the last may be smaller).
pub fn split_into_files(keys: Vec<u64>, max_per_file: u64) -> Vec<Vec<u64>> {
    let max = max_per_file.max(1) as usize;
    if keys.len() <= max {
        return if keys.is_empty() {
            Vec::new()
        } else {
            vec![keys]
        };
    }
    keys.chunks(max).map(|c| c.to_vec()).collect()
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
            let merged = merge_runs(runs.iter().map(|r| r.iter().copied().collect()).collect());
            prop_assert_eq!(merged, expected.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn split_keeps_every_key_in_order() {
        let keys: Vec<u64> = (0..10).collect();
        let files = split_into_files(keys.clone(), 4);
        assert_eq!(files.len(), 3);
        assert_eq!(files.concat(), keys);
        assert!(split_into_files(Vec::new(), 4).is_empty());
    }
}
