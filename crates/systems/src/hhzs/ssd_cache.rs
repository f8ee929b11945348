//! Application-hinted caching (HHZS §3.5): data blocks the LSM-tree's block cache
//! evicts are appended to cache zones on the SSD when their SST lives on the HDD and
//! they are not cached yet; a mapping (SST, offset) → SSD location serves later
//! reads; cache zones are evicted first-in first-out (their entries dropped, the zone
//! reset) when the cache or the WAL needs a zone. Cache and WAL zones share the
//! SSD's WAL/cache pool. Entries of deleted or migrated SSTs are invalidated.

use super::zone_store::ZoneFileStore;
use crate::lsm::{FileNo, StorageError};
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use zonelab_devices::{Command, ZoneAction};
use zonelab_engine::Ns;

/// Where a cached block is: zone of the SSD, offset in it, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachedBlock {
    pub zone: u32,
    pub zone_offset: u64,
    pub bytes: u64,
}

/// Cache state: the mapping table and the FIFO queue of cache zones with the
/// blocks each holds.
#[derive(Debug, Clone, Default)]
pub struct SsdCache {
    pub map: BTreeMap<(FileNo, u64), CachedBlock>,
    /// Cache zones, oldest first; the last one is the active zone.
    pub fifo: VecDeque<(u32, Vec<(FileNo, u64)>)>,
    pub stats: CacheStats,
}

/// Cache counters.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct CacheStats {
    pub admitted: u64,
    pub rejected_on_ssd: u64,
    pub rejected_cached: u64,
    pub hits: u64,
    pub evicted_zones: u64,
    pub invalidated: u64,
}

impl SsdCache {
    /// Drops every entry of `file` (deleted or migrated).
    pub fn invalidate_file(&mut self, file: FileNo) {
        let keys: Vec<(FileNo, u64)> = self
            .map
            .range((file, 0)..=(file, u64::MAX))
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            self.map.remove(&k);
            self.stats.invalidated += 1;
        }
    }

    /// Bytes of memory HHZS needs for the cache metadata: 48 B per cached block
    /// (SST id, HDD offset and SSD location in both the table and the queue, §3.6).
    pub fn metadata_bytes(&self) -> u64 {
        self.map.len() as u64 * 48
    }
}

impl ZoneFileStore {
    /// The cache statistics, if caching is on.
    pub fn cache_stats(&self) -> Option<(CacheStats, usize, u64)> {
        self.cache
            .as_ref()
            .map(|c| (c.stats, c.map.len(), c.metadata_bytes()))
    }

    /// Admits an evicted block (cache hint).
    pub(super) fn cache_admit(
        &mut self,
        now: Ns,
        file: FileNo,
        offset: u64,
        bytes: u64,
    ) -> Result<(), StorageError> {
        self.cache_admit_data(now, file, offset, bytes, None)
    }

    /// Admits an evicted block; with `data` (emulation, `bytes` long) its bytes
    /// are written, zero-padded to whole blocks.
    pub(super) fn cache_admit_data(
        &mut self,
        now: Ns,
        file: FileNo,
        offset: u64,
        bytes: u64,
        data: Option<&[u8]>,
    ) -> Result<(), StorageError> {
        let Some(cache) = self.cache.as_mut() else {
            return Ok(());
        };
        if cache.map.contains_key(&(file, offset)) {
            cache.stats.rejected_cached += 1;
            return Ok(());
        }
        match self.device_of(file) {
            Some(d) if d != 0 => {}
            _ => {
                if let Some(c) = self.cache.as_mut() {
                    c.stats.rejected_on_ssd += 1;
                }
                return Ok(());
            }
        }
        let block = self.devices[0].block_bytes;
        let physical = bytes.div_ceil(block) * block;
        // The active cache zone, or a new one from the WAL/cache pool.
        let active = self.cache.as_ref().and_then(|c| c.fifo.back().map(|z| z.0));
        let zone = match active {
            Some(z)
                if self.devices[0].zones[z as usize].written_bytes + physical
                    <= self.devices[0].zones[z as usize].capacity_bytes =>
            {
                z
            }
            _ => {
                if let Some(z) = active {
                    self.close_cache_zone(now, z)?;
                }
                let Some(z) = self.take_reserve_zone(now)? else {
                    return Ok(());
                };
                self.devices[0].zones[z as usize].cache = true;
                self.cache
                    .as_mut()
                    .expect("cache")
                    .fifo
                    .push_back((z, Vec::new()));
                z
            }
        };
        let dev = &self.devices[0];
        let zn = &dev.zones[zone as usize];
        let lba = zn.start_lba + zn.written_bytes / block;
        let zone_offset = zn.written_bytes;
        let cmd = Command::Write {
            lba,
            blocks: (physical / block) as u32,
        };
        match data {
            None => self.submit(0, now, cmd)?,
            Some(d) => self.submit_write(0, now, cmd, d, physical)?,
        };
        let zn = &mut self.devices[0].zones[zone as usize];
        zn.written_bytes += physical;
        if zn.written_bytes >= zn.capacity_bytes {
            self.close_cache_zone(now, zone)?;
        }
        self.traffic[0].written_bytes += physical;
        let cache = self.cache.as_mut().expect("cache");
        cache.map.insert(
            (file, offset),
            CachedBlock {
                zone,
                zone_offset,
                bytes,
            },
        );
        cache
            .fifo
            .back_mut()
            .expect("active zone")
            .1
            .push((file, offset));
        cache.stats.admitted += 1;
        Ok(())
    }

    fn close_cache_zone(&mut self, now: Ns, z: u32) -> Result<(), StorageError> {
        let zn = &self.devices[0].zones[z as usize];
        if !zn.open {
            return Ok(());
        }
        if zn.written_bytes < zn.capacity_bytes {
            let lba = zn.start_lba;
            self.submit(
                0,
                now,
                Command::Zone {
                    action: ZoneAction::Finish,
                    zone_lba: lba,
                },
            )?;
        }
        let dev = &mut self.devices[0];
        dev.zones[z as usize].open = false;
        dev.active -= 1;
        Ok(())
    }

    /// Evicts the oldest cache zone: drops its entries and resets it (FIFO, §3.5).
    pub(super) fn evict_oldest_cache_zone(&mut self, now: Ns) -> Result<(), StorageError> {
        let Some(cache) = self.cache.as_mut() else {
            return Ok(());
        };
        let Some((z, keys)) = cache.fifo.pop_front() else {
            return Ok(());
        };
        for k in keys {
            if cache.map.get(&k).is_some_and(|b| b.zone == z) {
                cache.map.remove(&k);
            }
        }
        cache.stats.evicted_zones += 1;
        self.close_cache_zone(now, z)?;
        self.reset_zone(0, z, now)
    }

    /// Serves a read from the SSD cache when the block is there.
    pub(super) fn cache_lookup(
        &mut self,
        now: Ns,
        file: FileNo,
        offset: u64,
        bytes: u64,
    ) -> Option<Ns> {
        self.cache_lookup_data(now, file, offset, bytes, None)
    }

    /// Serves a read from the SSD cache; with `out` (emulation) the cached block's
    /// bytes are copied into it.
    pub(super) fn cache_lookup_data(
        &mut self,
        now: Ns,
        file: FileNo,
        offset: u64,
        bytes: u64,
        out: Option<&mut Vec<u8>>,
    ) -> Option<Ns> {
        let b = *self.cache.as_ref()?.map.get(&(file, offset))?;
        let block = self.devices[0].block_bytes;
        let lba = self.devices[0].zones[b.zone as usize].start_lba + b.zone_offset / block;
        let blocks = bytes.max(b.bytes).div_ceil(block) as u32;
        let cmd = Command::Read { lba, blocks };
        let done = match out {
            None => self.submit(0, now, cmd).ok()?,
            Some(out) => {
                let mut buf = vec![0u8; blocks as usize * block as usize];
                let done = self
                    .submit_payload(0, now, cmd, zonelab_devices::Payload::Read(&mut buf))
                    .ok()?;
                buf.truncate(b.bytes as usize);
                *out = buf;
                done
            }
        };
        self.traffic[0].read_bytes += blocks as u64 * block;
        self.traffic[0].reads += 1;
        self.traffic[0].point_reads += 1;
        self.cache.as_mut()?.stats.hits += 1;
        Some(done)
    }
}
