//! Application-hinted caching (HHZS §3.5): data blocks the LSM-tree's block cache
//! evicts are appended to cache zones on the SSD when their SST lives on the HDD and
//! they are not cached yet; a mapping (SST, offset) → SSD location serves later
//! reads; cache zones are evicted first-in first-out (their entries dropped, the zone
//! reset) when the cache or the WAL needs a zone. Cache and WAL zones share the
//! SSD's WAL/cache pool. Entries of deleted or migrated SSTs are invalidated.
//!
//! Blocks are packed at their real size, as H2Zone's `CacheManager::BufferedWrite`
//! does (`src/zenfs/fs/cache_manager.cc`): they are appended byte after byte to a
//! 16 KiB write buffer that is written to the active cache zone whenever it fills;
//! a block never spans two zones (the buffer is written, padded, before a new zone
//! is taken), and a read of a block still in the buffer is served from memory.

use super::cache_table::CacheTable;
use super::zone_store::ZoneFileStore;
use crate::lsm::{FileNo, StorageError};
use serde::Serialize;
use std::collections::VecDeque;
use zonelab_devices::{Command, Payload, ZoneAction};
use zonelab_engine::Ns;

/// H2Zone's cache write buffer (`cache_manager.h`: `kBufSize` = 16 KiB).
pub const CACHE_WRITE_BUFFER_BYTES: u64 = 16 * 1024;

/// Where a cached block is: zone of the SSD, byte offset in it, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachedBlock {
    pub zone: u32,
    pub zone_offset: u64,
    pub bytes: u64,
}

/// Cache state: the mapping table, the FIFO queue of cache zones with the
/// blocks each holds, and the write buffer of the active (last) zone.
#[derive(Debug, Clone, Default)]
pub struct SsdCache {
    pub map: CacheTable,
    /// Cache zones, oldest first; the last one is the active zone.
    pub fifo: VecDeque<(u32, Vec<(FileNo, u64)>)>,
    /// Bytes admitted to the active zone but not yet written (they follow the
    /// zone's write pointer).
    pub buffer_bytes: u64,
    /// Those bytes, when the store carries payloads (emulation).
    pub buffer_data: Vec<u8>,
    pub stats: CacheStats,
}

/// Cache counters.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct CacheStats {
    pub admitted: u64,
    pub rejected_on_ssd: u64,
    pub rejected_cached: u64,
    /// Not admitted: no cache zone could be taken (the WAL/cache pool holds only
    /// WAL zones, or the SSD is at its active-zone limit). H2Zone's
    /// `CacheManager::Insert` returns `NoSpace("No cache space")` when
    /// `AllocateCacheZone` gives none, and `CacheManager::Sync` drops the status
    /// (`src/zenfs/fs/cache_manager.cc`, lines 43–55, 329–336); the block stays
    /// on the HDD. Also counts a block larger than a whole zone (no zone can
    /// take it).
    pub rejected_no_zone: u64,
    pub hits: u64,
    /// Hits served from the write buffer (no device read).
    pub buffer_hits: u64,
    pub evicted_zones: u64,
    pub invalidated: u64,
}

impl SsdCache {
    /// Drops every entry of `file` (deleted or migrated).
    pub fn invalidate_file(&mut self, file: FileNo) {
        self.stats.invalidated += self.map.remove_file(file) as u64;
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
    /// are kept.
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
        if cache.map.contains(file, offset) {
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
        // The active cache zone if the block fits behind its buffer, else a new
        // one from the WAL/cache pool.
        let active = self.cache.as_ref().and_then(|c| c.fifo.back().map(|z| z.0));
        let buffered = self.cache.as_ref().map_or(0, |c| c.buffer_bytes);
        let fits = |s: &Self, z: u32| {
            let zn = &s.devices[0].zones[z as usize];
            zn.open && zn.written_bytes + buffered + bytes <= zn.capacity_bytes
        };
        let zone = match active {
            Some(z) if fits(self, z) => z,
            _ => {
                if let Some(z) = active {
                    self.finish_cache_zone(now, z)?;
                }
                let Some(z) = self.take_reserve_zone(now)? else {
                    if let Some(c) = self.cache.as_mut() {
                        c.stats.rejected_no_zone += 1;
                    }
                    return Ok(());
                };
                if self.devices[0].zones[z as usize].capacity_bytes < bytes {
                    // A block larger than a zone: never cacheable.
                    if let Some(c) = self.cache.as_mut() {
                        c.stats.rejected_no_zone += 1;
                    }
                    return Ok(());
                }
                self.devices[0].zones[z as usize].cache = true;
                let c = self.cache.as_mut().expect("cache");
                c.fifo.push_back((z, Vec::new()));
                c.buffer_bytes = 0;
                c.buffer_data.clear();
                z
            }
        };
        let c = self.cache.as_mut().expect("cache");
        let zone_offset = self.devices[0].zones[zone as usize].written_bytes + c.buffer_bytes;
        c.buffer_bytes += bytes;
        if let Some(d) = data {
            c.buffer_data.extend_from_slice(d);
        }
        c.map.insert(
            file,
            offset,
            CachedBlock {
                zone,
                zone_offset,
                bytes,
            },
        );
        c.fifo
            .back_mut()
            .expect("active zone")
            .1
            .push((file, offset));
        c.stats.admitted += 1;
        while self.cache.as_ref().expect("cache").buffer_bytes >= CACHE_WRITE_BUFFER_BYTES {
            self.write_cache_buffer(now, zone, CACHE_WRITE_BUFFER_BYTES)?;
        }
        let zn = &self.devices[0].zones[zone as usize];
        if zn.written_bytes >= zn.capacity_bytes {
            self.finish_cache_zone(now, zone)?;
        }
        Ok(())
    }

    /// Writes the first `len` buffered bytes (whole blocks; the last block
    /// zero-padded) at the write pointer of cache zone `z`.
    fn write_cache_buffer(&mut self, now: Ns, z: u32, len: u64) -> Result<(), StorageError> {
        let block = self.devices[0].block_bytes;
        let physical = len.div_ceil(block) * block;
        let zn = &self.devices[0].zones[z as usize];
        let lba = zn.start_lba + zn.written_bytes / block;
        let cmd = Command::Write {
            lba,
            blocks: (physical / block) as u32,
        };
        let c = self.cache.as_mut().expect("cache");
        let piece: Option<Vec<u8>> =
            (!c.buffer_data.is_empty() || self.data.is_some()).then(|| {
                let take = (len as usize).min(c.buffer_data.len());
                c.buffer_data.drain(..take).collect()
            });
        c.buffer_bytes -= len.min(c.buffer_bytes);
        match piece {
            None => self.submit(0, now, cmd)?,
            Some(p) => self.submit_write(0, now, cmd, &p, physical)?,
        };
        self.devices[0].zones[z as usize].written_bytes += physical;
        self.traffic[0].written_bytes += physical;
        Ok(())
    }

    /// Writes the rest of the buffer (padded) to cache zone `z` and closes it.
    fn finish_cache_zone(&mut self, now: Ns, z: u32) -> Result<(), StorageError> {
        let rest = self.cache.as_ref().map_or(0, |c| c.buffer_bytes);
        if rest > 0 && self.devices[0].zones[z as usize].open {
            self.write_cache_buffer(now, z, rest)?;
        }
        self.close_cache_zone(now, z)
    }

    fn close_cache_zone(&mut self, now: Ns, z: u32) -> Result<(), StorageError> {
        let zn = &self.devices[0].zones[z as usize];
        if !zn.open {
            return Ok(());
        }
        // A zone nothing was written to yet (its blocks still in the buffer, or
        // dropped by an eviction) is empty on the device: finishing it would make
        // it full there, and `reset_zone` resets only zones the store saw written,
        // so the pool would hand out a full zone (to the WAL or the cache).
        if zn.written_bytes > 0 && zn.written_bytes < zn.capacity_bytes {
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
        for (file, offset) in keys {
            cache.map.remove_in_zone(file, offset, z);
        }
        if cache.fifo.is_empty() {
            // It was the active zone too: its buffered blocks go with it.
            cache.buffer_bytes = 0;
            cache.buffer_data.clear();
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

    /// Serves a read from the SSD cache: the pages of the cache zone the block
    /// spans, or the write buffer for its bytes not written yet. With `out`
    /// (emulation) the block's bytes are copied into it. A hit counts as a read of
    /// the SST (its read rate, §3.4).
    pub(super) fn cache_lookup_data(
        &mut self,
        now: Ns,
        file: FileNo,
        offset: u64,
        _bytes: u64,
        out: Option<&mut Vec<u8>>,
    ) -> Option<Ns> {
        let b = *self.cache.as_ref()?.map.get(file, offset)?;
        let block = self.devices[0].block_bytes;
        let zn = &self.devices[0].zones[b.zone as usize];
        let (start_lba, written) = (zn.start_lba, zn.written_bytes);
        let end = b.zone_offset + b.bytes;
        let on_device_end = end.min(written);
        let mut done = now;
        let mut bytes_out: Vec<u8> = Vec::new();
        if b.zone_offset < on_device_end {
            let first = b.zone_offset / block;
            let blocks = (on_device_end.div_ceil(block) - first) as u32;
            let cmd = Command::Read {
                lba: start_lba + first,
                blocks,
            };
            done = match out.is_some() {
                false => self.submit(0, now, cmd).ok()?,
                true => {
                    let mut buf = vec![0u8; blocks as usize * block as usize];
                    let d = self
                        .submit_payload(0, now, cmd, Payload::Read(&mut buf))
                        .ok()?;
                    let skip = (b.zone_offset - first * block) as usize;
                    bytes_out.extend_from_slice(
                        &buf[skip..skip + (on_device_end - b.zone_offset) as usize],
                    );
                    d
                }
            };
            self.traffic[0].read_bytes += blocks as u64 * block;
            self.traffic[0].reads += 1;
            self.traffic[0].point_reads += 1;
        }
        let cache = self.cache.as_mut()?;
        if end > written {
            // Bytes still in the write buffer, which starts at the write pointer.
            cache.stats.buffer_hits += (b.zone_offset >= written) as u64;
            if out.is_some() {
                let from = (b.zone_offset.max(written) - written) as usize;
                let to = (end - written) as usize;
                bytes_out.extend_from_slice(cache.buffer_data.get(from..to)?);
            }
        }
        cache.stats.hits += 1;
        self.read_stats.cache_latency.record(done - now);
        *self.file_reads.entry(file).or_insert(0) += 1;
        if let Some(o) = out {
            *o = bytes_out;
        }
        Some(done)
    }
}
