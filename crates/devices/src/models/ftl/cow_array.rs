//! A fixed-length `u32` array whose clones share storage chunk by chunk until
//! written (copy on write): the FTL's page maps (L2P, P2L).
//!
//! Experiments start many runs from one preconditioned drive (`reproduce mios`
//! ages an SSD once and clones it for every run). A 64 GiB drive's maps are about
//! 140 MB and a 250 GB drive's about 0.5 GB, and a plain clone copies and
//! page-faults all of it although a run writes a small part: at `reproduce mios
//! --scale 0.05` copying the maps was 46 % of the CPU time. Here a clone copies
//! only the chunk pointers; the first write to a shared chunk copies that 32 KiB
//! chunk. A new array shares one chunk of its fill value everywhere, so an unused
//! part of a fresh drive takes no memory either.

use std::sync::Arc;

const CHUNK_SHIFT: u32 = 13;
const CHUNK_LEN: usize = 1 << CHUNK_SHIFT;
const CHUNK_MASK: usize = CHUNK_LEN - 1;

type Chunk = [u32; CHUNK_LEN];

/// `len` `u32`s in shared chunks of `CHUNK_LEN`.
#[derive(Debug, Clone)]
pub(crate) struct CowArray {
    chunks: Vec<Arc<Chunk>>,
    len: usize,
}

impl CowArray {
    /// `len` copies of `value`.
    pub fn filled(len: usize, value: u32) -> Self {
        let chunk: Arc<Chunk> = Arc::new([value; CHUNK_LEN]);
        Self {
            chunks: vec![chunk; len.div_ceil(CHUNK_LEN)],
            len,
        }
    }

    /// The value at `i`; panics if `i` is out of range, as a slice index does.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        assert!(
            i < self.len,
            "index {i} out of range for length {}",
            self.len
        );
        self.chunks[i >> CHUNK_SHIFT][i & CHUNK_MASK]
    }

    /// Sets the value at `i`, first copying its chunk if a clone shares it.
    #[inline]
    pub fn set(&mut self, i: usize, value: u32) {
        assert!(
            i < self.len,
            "index {i} out of range for length {}",
            self.len
        );
        Arc::make_mut(&mut self.chunks[i >> CHUNK_SHIFT])[i & CHUNK_MASK] = value;
    }

    /// Every value in index order.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.chunks
            .iter()
            .flat_map(|c| c.iter().copied())
            .take(self.len)
    }

    /// Chunks this array holds that no clone shares (what writes have copied).
    #[cfg(test)]
    pub fn unshared_chunks(&self) -> usize {
        self.chunks
            .iter()
            .filter(|c| Arc::strong_count(c) == 1)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_write_to_a_clone_copies_one_chunk_and_leaves_the_original() {
        let mut a = CowArray::filled(3 * CHUNK_LEN + 5, 7);
        a.set(CHUNK_LEN + 1, 1);
        let mut b = a.clone();
        assert_eq!(b.unshared_chunks(), 0);
        b.set(CHUNK_LEN + 2, 2);
        b.set(3 * CHUNK_LEN + 4, 3);
        assert_eq!(b.unshared_chunks(), 2);
        assert_eq!((a.get(CHUNK_LEN + 2), a.get(3 * CHUNK_LEN + 4)), (7, 7));
        assert_eq!((b.get(CHUNK_LEN + 1), b.get(CHUNK_LEN + 2)), (1, 2));
        assert_eq!(b.get(3 * CHUNK_LEN + 4), 3);
        assert_eq!(b.iter().count(), 3 * CHUNK_LEN + 5);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn an_index_past_the_end_panics_even_inside_the_last_chunk() {
        CowArray::filled(10, 0).get(10);
    }

    proptest! {
        /// Against two plain vectors: writes to an array and its clone, interleaved.
        #[test]
        fn behaves_as_two_vectors(
            len in 1usize..3 * CHUNK_LEN,
            writes in proptest::collection::vec((any::<bool>(), any::<usize>(), any::<u32>()), 0..100),
        ) {
            let mut a = CowArray::filled(len, u32::MAX);
            let mut va = vec![u32::MAX; len];
            let mut b = a.clone();
            let mut vb = va.clone();
            for (to_clone, i, v) in writes {
                let i = i % len;
                if to_clone { b.set(i, v); vb[i] = v; } else { a.set(i, v); va[i] = v; }
            }
            prop_assert!(a.iter().eq(va.iter().copied()));
            prop_assert!(b.iter().eq(vb.iter().copied()));
        }
    }
}
