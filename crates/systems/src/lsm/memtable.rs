//! MemTables: the keys written since the last switch, with RocksDB's arena
//! accounting (a MemTable is full when its arena reaches `write_buffer_size`).

use super::hints::FileNo;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// Arena bytes of a skiplist entry besides key and value: internal-key suffix (8 B),
/// length varints (~3 B) and the node with its average 1.33 next-pointers plus
/// alignment (~16 B) — RocksDB's `InlineSkipList` layout.
pub const ENTRY_OVERHEAD_BYTES: u64 = 27;

/// A deterministic multiply-shift hasher for u64 keys (lookups only; never iterated).
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
}

pub type KeySet = HashSet<u64, BuildHasherDefault<KeyHasher>>;

/// One MemTable and the WAL file its writes went to.
#[derive(Debug, Clone)]
pub struct MemTable {
    /// Keys in write order (may repeat).
    keys: Vec<u64>,
    /// Built on the first lookup, then kept up to date.
    index: Option<KeySet>,
    pub arena_bytes: u64,
    pub wal: FileNo,
}

impl MemTable {
    pub fn new(wal: FileNo) -> Self {
        Self {
            keys: Vec::new(),
            index: None,
            arena_bytes: 0,
            wal,
        }
    }

    pub fn insert(&mut self, key: u64, entry_bytes: u64) {
        self.keys.push(key);
        if let Some(ix) = &mut self.index {
            ix.insert(key);
        }
        self.arena_bytes += entry_bytes;
    }

    pub fn contains(&mut self, key: u64) -> bool {
        let keys = &self.keys;
        self.index
            .get_or_insert_with(|| keys.iter().copied().collect())
            .contains(&key)
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn entries(&self) -> usize {
        self.keys.len()
    }

    /// The distinct keys, sorted (what a flush writes).
    pub fn sorted_keys(&self) -> Vec<u64> {
        let mut k = self.keys.clone();
        k.sort_unstable();
        k.dedup();
        k
    }
}
