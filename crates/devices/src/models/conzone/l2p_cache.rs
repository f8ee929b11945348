//! The L2P cache (§3.3 "Management of L2P Cache", §4 Fig. 7): a fixed number of
//! entries (cache bytes / entry bytes), spread over hash buckets, each bucket an
//! LRU list. An entry is (namespace, granularity, logical address): a hit needs
//! both the address and its granularity to match. Entries can be pinned (§6.6:
//! aggregated entries kept resident); pinned entries are never evicted.
//!
//! The map from key to slot is a `HashMap`, used for lookups only and never
//! iterated, so runs stay deterministic.

use std::collections::HashMap;
use zonelab_engine::rng::splitmix64;

/// Mapping granularity of an entry (two reserved bits in the reference's table;
/// `ssd_config.h:387-395`: page, chunk, sub-zone, zone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Gran {
    Page = 0,
    Chunk = 1,
    /// An SLC superblock's worth of a zone (reference `SUB_ZONE_MAP`).
    SubZone = 2,
    Zone = 3,
}

/// Cache key: namespace, granularity and the logical address at that granularity
/// (page, chunk, sub-zone or zone number).
#[inline]
pub fn key(ns: u8, gran: Gran, la: u64) -> u64 {
    debug_assert!(la < 1 << 56);
    ((ns as u64) << 60) | ((gran as u64) << 56) | la
}

const NIL: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Slot {
    key: u64,
    prev: u32,
    next: u32,
    bucket: u32,
    pinned: bool,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    head: u32,
    tail: u32,
    used: u64,
}

/// Fixed-capacity, bucketed LRU cache of mapping entries.
#[derive(Debug)]
pub struct L2pCache {
    slots: Vec<Slot>,
    free: Vec<u32>,
    index: HashMap<u64, u32>,
    buckets: Vec<Bucket>,
    per_bucket: u64,
    pub evictions: u64,
}

impl L2pCache {
    /// `entries` in all, over `buckets` buckets (each holds entries / buckets).
    pub fn new(entries: u64, buckets: u32) -> Self {
        let buckets = buckets.max(1);
        Self {
            slots: Vec::new(),
            free: Vec::new(),
            index: HashMap::new(),
            buckets: vec![
                Bucket {
                    head: NIL,
                    tail: NIL,
                    used: 0,
                };
                buckets as usize
            ],
            per_bucket: (entries / buckets as u64).max(1),
            evictions: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    pub fn capacity(&self) -> u64 {
        self.per_bucket * self.buckets.len() as u64
    }

    pub fn contains(&self, key: u64) -> bool {
        self.index.contains_key(&key)
    }

    #[inline]
    fn bucket_of(&self, key: u64) -> u32 {
        (splitmix64(key) % self.buckets.len() as u64) as u32
    }

    /// True on a hit; the entry becomes most recently used.
    pub fn lookup(&mut self, key: u64) -> bool {
        match self.index.get(&key) {
            Some(&s) => {
                if !self.slots[s as usize].pinned {
                    self.unlink(s);
                    self.push_front(s);
                }
                true
            }
            None => false,
        }
    }

    /// Inserts `key` (or refreshes / re-pins it). When its bucket is full the LRU
    /// unpinned entry is evicted; if every entry there is pinned, nothing is cached.
    pub fn insert(&mut self, key: u64, pinned: bool) {
        if let Some(&s) = self.index.get(&key) {
            let slot = self.slots[s as usize];
            if !slot.pinned {
                self.unlink(s);
            }
            self.slots[s as usize].pinned = pinned || slot.pinned;
            if !self.slots[s as usize].pinned {
                self.push_front(s);
            }
            return;
        }
        let b = self.bucket_of(key);
        if self.buckets[b as usize].used >= self.per_bucket {
            let victim = self.buckets[b as usize].tail;
            if victim == NIL {
                return;
            }
            let vkey = self.slots[victim as usize].key;
            self.remove(vkey);
            self.evictions += 1;
        }
        let s = match self.free.pop() {
            Some(s) => s,
            None => {
                self.slots.push(Slot {
                    key,
                    prev: NIL,
                    next: NIL,
                    bucket: b,
                    pinned,
                });
                (self.slots.len() - 1) as u32
            }
        };
        self.slots[s as usize] = Slot {
            key,
            prev: NIL,
            next: NIL,
            bucket: b,
            pinned,
        };
        self.buckets[b as usize].used += 1;
        self.index.insert(key, s);
        if !pinned {
            self.push_front(s);
        }
    }

    /// Empties the cache, pinned entries included (the cache is SRAM: a power
    /// cycle loses it). The eviction counter is kept.
    pub fn clear(&mut self) {
        let evictions = self.evictions;
        *self = Self::new(self.capacity(), self.buckets.len() as u32);
        self.evictions = evictions;
    }

    /// Removes `key` if cached.
    pub fn remove(&mut self, key: u64) {
        if let Some(s) = self.index.remove(&key) {
            if !self.slots[s as usize].pinned {
                self.unlink(s);
            }
            let b = self.slots[s as usize].bucket;
            self.buckets[b as usize].used -= 1;
            self.free.push(s);
        }
    }

    fn unlink(&mut self, s: u32) {
        let Slot {
            prev, next, bucket, ..
        } = self.slots[s as usize];
        let b = &mut self.buckets[bucket as usize];
        if prev == NIL {
            b.head = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        if next == NIL {
            b.tail = prev;
        } else {
            self.slots[next as usize].prev = prev;
        }
    }

    fn push_front(&mut self, s: u32) {
        let bucket = self.slots[s as usize].bucket;
        let head = self.buckets[bucket as usize].head;
        self.slots[s as usize].prev = NIL;
        self.slots[s as usize].next = head;
        if head != NIL {
            self.slots[head as usize].prev = s;
        } else {
            self.buckets[bucket as usize].tail = s;
        }
        self.buckets[bucket as usize].head = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_evicts_least_recently_used_in_a_bucket() {
        let mut c = L2pCache::new(2, 1);
        c.insert(key(0, Gran::Page, 1), false);
        c.insert(key(0, Gran::Page, 2), false);
        assert!(c.lookup(key(0, Gran::Page, 1)));
        c.insert(key(0, Gran::Page, 3), false);
        assert!(c.contains(key(0, Gran::Page, 1)));
        assert!(!c.contains(key(0, Gran::Page, 2)));
        assert_eq!(c.evictions, 1);
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn pinned_entries_are_never_evicted_and_granularity_is_part_of_the_key() {
        let mut c = L2pCache::new(2, 1);
        c.insert(key(0, Gran::Zone, 7), true);
        c.insert(key(0, Gran::Page, 7), false);
        c.insert(key(0, Gran::Page, 8), false);
        assert!(c.contains(key(0, Gran::Zone, 7)));
        assert!(!c.contains(key(0, Gran::Chunk, 7)));
        assert!(!c.contains(key(1, Gran::Zone, 7)));
        c.insert(key(0, Gran::Zone, 9), true);
        // Bucket full of pinned entries: an unpinned insert is not cached.
        c.insert(key(0, Gran::Page, 10), false);
        assert!(!c.contains(key(0, Gran::Page, 10)));
        c.remove(key(0, Gran::Zone, 7));
        assert_eq!(c.len(), 1);
    }
}
