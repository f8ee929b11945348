//! Real bytes for requests that carry them: a sparse map from a key (an LBA or a
//! physical page) to one block of data. Used only when payloads are given, so
//! size-only simulation pays nothing for it. Ordered map: deterministic.

use std::collections::BTreeMap;

#[derive(Debug, Clone, Default)]
pub struct BlockStore {
    block_bytes: usize,
    blocks: BTreeMap<u64, Box<[u8]>>,
}

impl BlockStore {
    pub fn new(block_bytes: u32) -> Self {
        Self {
            block_bytes: block_bytes as usize,
            blocks: BTreeMap::new(),
        }
    }

    /// Stores `data` (a whole number of blocks) at consecutive keys from `first`.
    pub fn write(&mut self, first: u64, data: &[u8]) {
        for (i, chunk) in data.chunks_exact(self.block_bytes).enumerate() {
            self.blocks.insert(first + i as u64, chunk.into());
        }
    }

    /// Stores one block at `key`.
    pub fn put(&mut self, key: u64, block: Box<[u8]>) {
        self.blocks.insert(key, block);
    }

    /// Removes and returns the block at `key` (to move it, e.g. in GC).
    pub fn take(&mut self, key: u64) -> Option<Box<[u8]>> {
        self.blocks.remove(&key)
    }

    /// Reads consecutive blocks from `first` into `out`; unwritten blocks read as zeros.
    pub fn read(&self, first: u64, out: &mut [u8]) {
        for (i, chunk) in out.chunks_exact_mut(self.block_bytes).enumerate() {
            match self.blocks.get(&(first + i as u64)) {
                Some(b) => chunk.copy_from_slice(b),
                None => chunk.fill(0),
            }
        }
    }

    /// Forgets `count` blocks from `first` (zone reset, trim).
    pub fn discard(&mut self, first: u64, count: u64) {
        if count == 0 {
            return;
        }
        let keys: Vec<u64> = self
            .blocks
            .range(first..first + count)
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            self.blocks.remove(&k);
        }
    }

    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_discard() {
        let mut s = BlockStore::new(4);
        s.write(10, &[1, 2, 3, 4, 5, 6, 7, 8]);
        let mut out = [9u8; 12];
        s.read(9, &mut out);
        assert_eq!(out, [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
        s.discard(11, 5);
        s.read(10, &mut out[..8]);
        assert_eq!(&out[..8], &[1, 2, 3, 4, 0, 0, 0, 0]);
        assert_eq!(s.len(), 1);
    }
}
