//! Searches of sorted arrays that start from a guess (a simulator speed-up; the
//! answer is always `slice::partition_point`'s).
//!
//! Why: a paper-scale SST has about a thousand extents (one per 1 MiB write) of
//! 48 B, and every block read finds its extent by a binary search that missed the
//! CPU cache on most of its steps (`read_internal`, 14–16 % of `reproduce hhzs
//! --scale 1`'s samples). Extents are mostly equal in size, so the file offset
//! predicts the index well, and a galloping search from there touches one or two
//! cache lines.

/// `v.partition_point(pred)` (`pred` true on a prefix of `v`), found by galloping
/// out from `guess`: O(log d) steps where d is the guess's distance to the answer,
/// and correct for any guess.
pub(crate) fn partition_point_from<T>(v: &[T], guess: usize, pred: impl Fn(&T) -> bool) -> usize {
    let n = v.len();
    let g = guess.min(n);
    if g < n && pred(&v[g]) {
        // The answer is in (g, n]; everything before `lo` satisfies `pred`.
        let mut lo = g + 1;
        let mut step = 1;
        loop {
            let probe = lo + step - 1;
            if probe >= n {
                return lo + v[lo..n].partition_point(&pred);
            }
            if !pred(&v[probe]) {
                return lo + v[lo..probe].partition_point(&pred);
            }
            lo = probe + 1;
            step *= 2;
        }
    }
    // The answer is at most `hi`.
    let mut hi = g;
    let mut step = 1;
    loop {
        if hi < step {
            return v[..hi].partition_point(&pred);
        }
        let probe = hi - step;
        if pred(&v[probe]) {
            return probe + 1 + v[probe + 1..hi].partition_point(&pred);
        }
        hi = probe;
        step *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn finds_the_partition_point_from_every_guess() {
        let v: Vec<u64> = (0..40).map(|i| i * 10).collect();
        for bound in 0..=400u64 {
            let want = v.partition_point(|&x| x < bound);
            for guess in 0..=45 {
                assert_eq!(partition_point_from(&v, guess, |&x| x < bound), want);
            }
        }
        assert_eq!(partition_point_from(&[] as &[u64], 3, |&x| x < 5), 0);
    }

    proptest! {
        #[test]
        fn equals_partition_point(
            v in proptest::collection::btree_set(0u64..10_000, 0..2_000),
            bound in 0u64..10_001,
            guess in 0usize..2_100,
        ) {
            let v: Vec<u64> = v.into_iter().collect();
            prop_assert_eq!(
                partition_point_from(&v, guess, |&x| x < bound),
                v.partition_point(|&x| x < bound)
            );
        }
    }
}
