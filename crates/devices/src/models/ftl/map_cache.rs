//! A demand-paged mapping cache (`[mapping_cache]` profile section of `ftl-ssd`;
//! issue 22): the controller keeps only part of the page map in its memory, as
//! DRAM-less and HMB drives do and large drives with a partial map cache.
//!
//! Mechanism, after DFTL (Gupta, Kim and Urgaonkar, "DFTL: A Flash Translation
//! Layer Employing Demand-based Selective Caching of Page-level Address
//! Mappings", ASPLOS'09, §3): the full map lives on flash in *translation
//! pages* of `translation_page_kib` (each holding `translation_page_kib × 1024 /
//! entry_bytes` consecutive logical units' entries); the controller caches
//! `cache_kib` worth of them, least recently used first out (the cache is kept
//! at translation-page granularity, as TPFTL and MQSim's CMT with page-level
//! prefetching do; DFTL caches single entries).
//! - A host **read** whose translation page is not cached first reads it from
//!   flash (one tR on the die that holds it, then the transfer); the data read
//!   starts only when it is in.
//! - A host **write** or **trim** updates the entries: a missing page is read
//!   first (in the background: the write is acknowledged from the buffer), and
//!   the page becomes dirty.
//! - Evicting a **dirty** page writes it back: write-backs are gathered into
//!   program units (one program per unit's worth of translation pages, on the
//!   dies in turn) and counted in media writes, so they show in WAF.
//!
//! Translation pages' home is a separate translation area striped over the dies
//! (page `t` on die `t mod dies`); its own GC, and the map updates of GC
//! relocations (which DFTL batches per translation page), are not modelled.

use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use zonelab_engine::KIB;

/// `[mapping_cache]` profile section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MappingCacheSection {
    /// Controller memory for cached translation pages.
    pub cache_kib: u64,
    /// Bytes of one translation page (the flash page that stores map entries).
    pub translation_page_kib: u32,
    /// Bytes per map entry.
    #[serde(default = "default_entry_bytes")]
    pub entry_bytes: u32,
}

fn default_entry_bytes() -> u32 {
    4
}

/// Counters of the cache.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MapCacheCounters {
    pub hits: u64,
    pub misses: u64,
    pub dirty_evictions: u64,
    pub translation_read_bytes: u64,
    pub translation_write_bytes: u64,
}

/// What one lookup did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Access {
    pub hit: bool,
    /// A dirty page was evicted to make room (its write-back is due).
    pub evicted_dirty: bool,
}

const NIL: u32 = u32::MAX;
const ABSENT: u8 = 0;
const CLEAN: u8 = 1;
const DIRTY: u8 = 2;

/// LRU set of cached translation pages (an intrusive list over dense arrays:
/// no allocation per access).
#[derive(Debug, Clone)]
pub(crate) struct MapCache {
    entries_per_page: u64,
    pub page_bytes: u64,
    capacity_pages: u32,
    cached_pages: u32,
    state: Vec<u8>,
    prev: Vec<u32>,
    next: Vec<u32>,
    /// Most recently used.
    head: u32,
    /// Least recently used.
    tail: u32,
    /// Write-back bytes gathered for the next translation program unit.
    pub pending_write_back_bytes: u64,
    /// The die the next translation program unit goes to (in turn).
    pub next_write_back_die: u32,
    pub counters: MapCacheCounters,
}

impl MappingCacheSection {
    /// Checks the section; errors name `mapping_cache.<field>`.
    pub(crate) fn validate(
        &self,
        v: &Validator<'_>,
        logical_units: u64,
        flash_page_kib: u32,
    ) -> Result<MapCache, ProfileError> {
        v.range(
            "mapping_cache.translation_page_kib",
            self.translation_page_kib,
            1,
            flash_page_kib,
        )?;
        v.check(
            "mapping_cache.entry_bytes",
            self.entry_bytes,
            (1..=16).contains(&self.entry_bytes)
                && (self.translation_page_kib as u64 * KIB).is_multiple_of(self.entry_bytes as u64),
            "1..=16 bytes, dividing the translation page",
        )?;
        let page_bytes = self.translation_page_kib as u64 * KIB;
        let entries_per_page = page_bytes / self.entry_bytes as u64;
        let pages = logical_units.div_ceil(entries_per_page);
        v.range(
            "mapping_cache.cache_kib",
            self.cache_kib,
            self.translation_page_kib as u64,
            1 << 30,
        )?;
        let capacity_pages = (self.cache_kib * KIB / page_bytes).min(pages) as u32;
        Ok(MapCache {
            entries_per_page,
            page_bytes,
            capacity_pages,
            cached_pages: 0,
            state: vec![ABSENT; pages as usize],
            prev: vec![NIL; pages as usize],
            next: vec![NIL; pages as usize],
            head: NIL,
            tail: NIL,
            pending_write_back_bytes: 0,
            next_write_back_die: 0,
            counters: MapCacheCounters::default(),
        })
    }
}

impl MapCache {
    /// The translation page holding `lpn`'s entry.
    #[inline]
    pub fn page_of(&self, lpn: u64) -> u32 {
        (lpn / self.entries_per_page) as u32
    }

    /// Translation pages the cache holds at most.
    pub fn capacity_pages(&self) -> u32 {
        self.capacity_pages
    }

    /// Looks `page` up (a write or trim makes it dirty), loading it on a miss
    /// and evicting the least recently used page if the cache is full.
    pub fn access(&mut self, page: u32, dirty: bool) -> Access {
        let p = page as usize;
        let hit = self.state[p] != ABSENT;
        let mut evicted_dirty = false;
        if hit {
            self.counters.hits += 1;
            self.unlink(page);
        } else {
            self.counters.misses += 1;
            self.counters.translation_read_bytes += self.page_bytes;
            if self.cached_pages == self.capacity_pages {
                let victim = self.tail;
                self.unlink(victim);
                if self.state[victim as usize] == DIRTY {
                    evicted_dirty = true;
                    self.counters.dirty_evictions += 1;
                    self.pending_write_back_bytes += self.page_bytes;
                }
                self.state[victim as usize] = ABSENT;
                self.cached_pages -= 1;
            }
            self.cached_pages += 1;
            self.state[p] = CLEAN;
        }
        if dirty {
            self.state[p] = DIRTY;
        }
        self.push_front(page);
        Access { hit, evicted_dirty }
    }

    /// Takes a program unit's worth of gathered write-backs, if there is one.
    pub fn take_write_back_unit(&mut self, program_unit_bytes: u64) -> bool {
        if self.pending_write_back_bytes >= program_unit_bytes {
            self.pending_write_back_bytes -= program_unit_bytes;
            self.counters.translation_write_bytes += program_unit_bytes;
            true
        } else {
            false
        }
    }

    fn unlink(&mut self, page: u32) {
        let (p, n) = (self.prev[page as usize], self.next[page as usize]);
        if p == NIL {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.prev[page as usize] = NIL;
        self.next[page as usize] = NIL;
    }

    fn push_front(&mut self, page: u32) {
        self.next[page as usize] = self.head;
        self.prev[page as usize] = NIL;
        if self.head != NIL {
            self.prev[self.head as usize] = page;
        }
        self.head = page;
        if self.tail == NIL {
            self.tail = page;
        }
    }

    /// Checks the list against the states (tests).
    #[cfg(test)]
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut n = 0;
        let mut at = self.head;
        let mut last = NIL;
        while at != NIL {
            if self.state[at as usize] == ABSENT {
                return Err(format!("page {at} listed but absent"));
            }
            if self.prev[at as usize] != last {
                return Err(format!("page {at}: broken back link"));
            }
            last = at;
            at = self.next[at as usize];
            n += 1;
        }
        if last != self.tail || n != self.cached_pages || n > self.capacity_pages {
            return Err(format!(
                "{n} listed, {} counted, capacity {}",
                self.cached_pages, self.capacity_pages
            ));
        }
        let present = self.state.iter().filter(|&&s| s != ABSENT).count() as u32;
        if present != n {
            return Err(format!("{present} present, {n} listed"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Validator;

    fn cache(pages: u32) -> MapCache {
        // 4 KiB translation pages of 1024 entries; 8 pages of map; `pages` cached.
        MappingCacheSection {
            cache_kib: 4 * pages as u64,
            translation_page_kib: 4,
            entry_bytes: 4,
        }
        .validate(&Validator::new("t"), 8 * 1024, 16)
        .unwrap()
    }

    #[test]
    fn lru_hits_misses_and_dirty_write_backs() {
        let mut c = cache(2);
        assert_eq!(c.page_of(1023), 0);
        assert_eq!(c.page_of(1024), 1);
        assert!(!c.access(0, true).hit);
        assert!(!c.access(1, false).hit);
        assert!(c.access(0, false).hit, "page 0 is cached");
        // Page 1 is now least recently used and clean: evicting it costs nothing.
        let a = c.access(2, false);
        assert!(!a.hit && !a.evicted_dirty);
        // Page 0 (dirty) is the LRU now.
        let a = c.access(3, false);
        assert!(!a.hit && a.evicted_dirty);
        assert_eq!(c.counters.hits, 1);
        assert_eq!(c.counters.misses, 4);
        assert_eq!(c.counters.dirty_evictions, 1);
        assert_eq!(c.counters.translation_read_bytes, 4 * 4096);
        assert_eq!(c.pending_write_back_bytes, 4096);
        assert!(!c.take_write_back_unit(8192));
        c.check_invariants().unwrap();
    }

    #[test]
    fn a_cache_as_big_as_the_map_misses_once_per_page() {
        let mut c = cache(64);
        assert_eq!(c.capacity_pages(), 8, "capped at the map's size");
        for round in 0..3 {
            for p in 0..8 {
                assert_eq!(c.access(p, true).hit, round > 0);
            }
        }
        assert_eq!(c.counters.misses, 8);
        assert_eq!(c.counters.dirty_evictions, 0);
        c.check_invariants().unwrap();
    }

    #[test]
    fn invariants_under_random_access() {
        let mut c = cache(3);
        let mut x: u64 = 1;
        for _ in 0..10_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            c.access(((x >> 33) % 8) as u32, x & 1 == 0);
        }
        c.check_invariants().unwrap();
        let k = c.counters;
        assert_eq!(k.hits + k.misses, 10_000);
        assert!(k.hits > 0 && k.misses > 0 && k.dirty_evictions > 0);
    }
}
