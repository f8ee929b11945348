//! RocksDB's LRU block cache (`cache/lru_cache.cc`): capacity split over
//! 2^`shard_bits` shards by key hash, each shard an LRU list charged by block bytes.
//! Evictions are returned to the caller, which turns them into cache hints.

use super::hints::FileNo;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::memtable::KeyHasher;

const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Node {
    key: (FileNo, u64),
    charge: u64,
    prev: u32,
    next: u32,
}

#[derive(Debug, Clone, Default)]
struct Shard {
    map: HashMap<(FileNo, u64), u32, BuildHasherDefault<KeyHasher>>,
    nodes: Vec<Node>,
    free: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
    usage: u64,
    capacity: u64,
}

impl Shard {
    fn new(capacity: u64) -> Self {
        Self {
            head: NIL,
            tail: NIL,
            capacity,
            ..Default::default()
        }
    }

    fn unlink(&mut self, i: u32) {
        let (p, n) = (self.nodes[i as usize].prev, self.nodes[i as usize].next);
        if p != NIL {
            self.nodes[p as usize].next = n;
        } else {
            self.head = n;
        }
        if n != NIL {
            self.nodes[n as usize].prev = p;
        } else {
            self.tail = p;
        }
    }

    fn push_front(&mut self, i: u32) {
        self.nodes[i as usize].prev = NIL;
        self.nodes[i as usize].next = self.head;
        if self.head != NIL {
            self.nodes[self.head as usize].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }
}

/// A block evicted from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evicted {
    pub sst: FileNo,
    pub block: u64,
    pub bytes: u64,
}

/// The sharded LRU cache of data blocks, keyed by (SST, block index).
#[derive(Debug, Clone)]
pub struct BlockCache {
    shards: Vec<Shard>,
    shard_mask: u64,
    pub hits: u64,
    pub misses: u64,
}

fn shard_hash(sst: FileNo, block: u64) -> u64 {
    let x = sst.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ block.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    (x ^ (x >> 31)).wrapping_mul(0x94d0_49bb_1331_11eb) >> 32
}

impl BlockCache {
    pub fn new(capacity_bytes: u64, shard_bits: u32) -> Self {
        let n = 1u64 << shard_bits;
        Self {
            shards: (0..n).map(|_| Shard::new(capacity_bytes / n)).collect(),
            shard_mask: n - 1,
            hits: 0,
            misses: 0,
        }
    }

    /// Looks `block` of `sst` up; a hit makes it most recently used.
    pub fn lookup(&mut self, sst: FileNo, block: u64) -> bool {
        let shard = &mut self.shards[(shard_hash(sst, block) & self.shard_mask) as usize];
        match shard.map.get(&(sst, block)) {
            Some(&i) => {
                shard.unlink(i);
                shard.push_front(i);
                self.hits += 1;
                true
            }
            None => {
                self.misses += 1;
                false
            }
        }
    }

    /// Inserts a block read from storage; returns the blocks evicted to make room.
    pub fn insert(&mut self, sst: FileNo, block: u64, bytes: u64, evicted: &mut Vec<Evicted>) {
        let shard = &mut self.shards[(shard_hash(sst, block) & self.shard_mask) as usize];
        if shard.map.contains_key(&(sst, block)) || bytes > shard.capacity {
            return;
        }
        while shard.usage + bytes > shard.capacity && shard.tail != NIL {
            let t = shard.tail;
            shard.unlink(t);
            let node = &shard.nodes[t as usize];
            let key = node.key;
            let charge = node.charge;
            shard.map.remove(&key);
            shard.usage -= charge;
            shard.free.push(t);
            evicted.push(Evicted {
                sst: key.0,
                block: key.1,
                bytes: charge,
            });
        }
        let node = Node {
            key: (sst, block),
            charge: bytes,
            prev: NIL,
            next: NIL,
        };
        let i = match shard.free.pop() {
            Some(i) => {
                shard.nodes[i as usize] = node;
                i
            }
            None => {
                shard.nodes.push(node);
                (shard.nodes.len() - 1) as u32
            }
        };
        shard.map.insert((sst, block), i);
        shard.usage += bytes;
        shard.push_front(i);
    }

    /// Bytes cached now.
    pub fn usage_bytes(&self) -> u64 {
        self.shards.iter().map(|s| s.usage).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_first() {
        let mut c = BlockCache::new(3 * 100, 0);
        let mut ev = Vec::new();
        for b in 0..3 {
            c.insert(1, b, 100, &mut ev);
        }
        assert!(ev.is_empty());
        assert!(c.lookup(1, 0)); // 0 becomes most recent; 1 is now the LRU
        c.insert(1, 3, 100, &mut ev);
        assert_eq!(
            ev,
            vec![Evicted {
                sst: 1,
                block: 1,
                bytes: 100
            }]
        );
        assert!(!c.lookup(1, 1));
        assert!(c.lookup(1, 2));
        assert_eq!(c.usage_bytes(), 300);
        assert_eq!((c.hits, c.misses), (2, 1));
    }

    #[test]
    fn shards_split_the_capacity() {
        let mut c = BlockCache::new(16 * 4096, 2);
        let mut ev = Vec::new();
        for b in 0..1000 {
            c.insert(7, b, 4096, &mut ev);
        }
        assert!(c.usage_bytes() <= 16 * 4096);
        assert_eq!(ev.len() as u64, 1000 - c.usage_bytes() / 4096);
    }
}
