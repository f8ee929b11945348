//! Real bytes through the zone file store (issue 9 part 2; HHZS §3.2 layout, ZenFS's
//! handling of unaligned appends).
//!
//! Simulation moves sizes only (`Payload::SizeOnly`); [`ZoneFileStore::enable_payloads`]
//! switches a store to carrying bytes: appends write the caller's data, reads copy
//! it out, migration (§3.4) reads each chunk and writes it to the new copy, and the
//! SSD cache (§3.5) stores and returns the evicted blocks.
//!
//! **Unaligned appends.** Zones are written in whole blocks, so an append that does
//! not end on a block boundary keeps its last partial block (the *tail*) in memory.
//! The tail is written when it fills a block, or — padded with zeros to a block —
//! when the file is synced ([`ZoneFileStore::sync_tail`]) or closed. A padded tail
//! becomes an extent whose `len` is shorter than its `physical` size; the next
//! append starts a new extent at the next block of the zone, so a file's bytes are
//! contiguous in file offsets but may have padding gaps on the device (at most one
//! block per sync; a WAL synced after every small write pays one block per sync, as
//! in ZenFS). Reads see the tail too. A crash loses unsynced tails.

use super::zone_store::ZoneFileStore;
use crate::lsm::{FileKind, FileNo, Hint, StorageError};
use std::collections::BTreeMap;
use zonelab_devices::{Command, Payload};
use zonelab_engine::Ns;

/// Reads below this size count as point reads (data blocks of gets and scans), as
/// in [`crate::lsm::LsmStorage::read`] of the store.
const POINT_READ_MAX_BYTES: u64 = 64 * 1024;

/// Payload state of a store carrying bytes.
#[derive(Debug, Clone, Default)]
pub struct DataState {
    /// Bytes appended after the last whole block, per file.
    pub tails: BTreeMap<FileNo, Vec<u8>>,
}

impl ZoneFileStore {
    /// Carries real bytes from now on (emulation). Call before any file exists.
    pub fn enable_payloads(&mut self) {
        self.data.get_or_insert_with(DataState::default);
    }

    pub fn carries_payloads(&self) -> bool {
        self.data.is_some()
    }

    /// The block every device writes in whole multiples of (the largest block size).
    pub fn append_unit_bytes(&self) -> u64 {
        self.devices
            .iter()
            .map(|d| d.block_bytes)
            .max()
            .unwrap_or(1)
    }

    fn tail_len(&self, file: FileNo) -> u64 {
        self.data
            .as_ref()
            .and_then(|d| d.tails.get(&file))
            .map_or(0, |t| t.len() as u64)
    }

    /// Bytes of `file` including its unwritten tail; `None` if it does not exist.
    pub fn file_size(&self, file: FileNo) -> Option<u64> {
        Some(self.files.get(&file)?.size + self.tail_len(file))
    }

    /// Changes the kind of a file that has no data yet (an SST's level hint arriving
    /// after creation; zones are allocated at the first append).
    pub fn set_kind_before_data(&mut self, file: FileNo, kind: FileKind) -> bool {
        match self.files.get_mut(&file) {
            Some(f) if f.extents.is_empty() => {
                f.kind = kind;
                true
            }
            _ => false,
        }
    }

    pub fn kind_of(&self, file: FileNo) -> Option<FileKind> {
        self.files.get(&file).map(|f| f.kind)
    }

    /// Whether RocksDB moved SST `file` to its level without a rewrite (it then
    /// ranks below unmoved SSTs of the level, [`super::PriorityOrder`]).
    pub fn trivially_moved(&self, file: FileNo) -> bool {
        self.files.get(&file).is_some_and(|f| f.trivially_moved)
    }

    /// Appends `data` to `file`: whole blocks go to the zones, the rest waits in
    /// the tail. Returns the completion time.
    pub fn append_bytes(&mut self, now: Ns, file: FileNo, data: &[u8]) -> Result<Ns, StorageError> {
        self.background(now)?;
        if !self.files.contains_key(&file) {
            return Err(StorageError(format!(
                "append to file {file}, which does not exist"
            )));
        }
        let unit = self.append_unit_bytes() as usize;
        let mut tail = self
            .data
            .get_or_insert_with(DataState::default)
            .tails
            .remove(&file)
            .unwrap_or_default();
        let mut rest = data;
        let mut done = now;
        if !tail.is_empty() {
            let take = (unit - tail.len()).min(rest.len());
            tail.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if tail.len() == unit {
                match self.append_internal(now, file, unit as u64, Some(&tail)) {
                    Ok(d) => done = d,
                    Err(e) => {
                        // The bytes of this call stay unwritten; keep the old tail.
                        tail.truncate(unit - take);
                        self.keep_tail(file, tail);
                        return Err(e);
                    }
                }
                tail.clear();
            }
        }
        let whole = rest.len() / unit * unit;
        if whole > 0 {
            let r = self.append_internal(now, file, whole as u64, Some(&rest[..whole]));
            if let Err(e) = r {
                self.keep_tail(file, tail);
                return Err(e);
            }
            done = done.max(r?);
            rest = &rest[whole..];
        }
        tail.extend_from_slice(rest);
        self.keep_tail(file, tail);
        Ok(done)
    }

    fn keep_tail(&mut self, file: FileNo, tail: Vec<u8>) {
        if !tail.is_empty() {
            if let Some(d) = self.data.as_mut() {
                d.tails.insert(file, tail);
            }
        }
    }

    /// Writes `file`'s tail padded to a block (before a sync or close).
    pub fn sync_tail(&mut self, now: Ns, file: FileNo) -> Result<Ns, StorageError> {
        if !self.files.contains_key(&file) {
            return Err(StorageError(format!(
                "sync of file {file}, which does not exist"
            )));
        }
        let Some(tail) = self.data.as_mut().and_then(|d| d.tails.remove(&file)) else {
            return Ok(now);
        };
        let r = self.append_internal(now, file, tail.len() as u64, Some(&tail));
        if r.is_err() {
            self.keep_tail(file, tail);
        }
        r
    }

    /// Writes the tail and closes `file` (no more appends; its zones are finished).
    pub fn close_bytes(&mut self, now: Ns, file: FileNo) -> Result<Ns, StorageError> {
        self.background(now)?;
        let done = self.sync_tail(now, file)?;
        self.journal_push_close(file);
        Ok(done.max(self.close_internal(now, file)?))
    }

    /// Reads up to `out.len()` bytes of `file` at `offset`; returns the bytes read
    /// (short at the end of the file) and the completion time.
    pub fn read_bytes(
        &mut self,
        now: Ns,
        file: FileNo,
        offset: u64,
        out: &mut [u8],
    ) -> Result<(u64, Ns), StorageError> {
        self.background(now)?;
        let r = self.read_bytes_internal(now, file, offset, out)?;
        if r.0 > 0 && (out.len() as u64) < POINT_READ_MAX_BYTES {
            *self.file_reads.entry(file).or_insert(0) += 1;
            if let Some(d) = self.device_of(file) {
                self.traffic[d].point_reads += 1;
            }
        }
        Ok(r)
    }

    pub(super) fn read_bytes_internal(
        &mut self,
        now: Ns,
        file: FileNo,
        offset: u64,
        out: &mut [u8],
    ) -> Result<(u64, Ns), StorageError> {
        let f = self
            .files
            .get(&file)
            .ok_or_else(|| StorageError(format!("read of file {file}, which does not exist")))?;
        let on_device = f.size;
        let size = on_device + self.tail_len(file);
        let n = (out.len() as u64).min(size.saturating_sub(offset));
        let end = offset + n;
        // (device, first lba, blocks, skip bytes, out range)
        let mut pieces: Vec<(usize, u64, u64, u64, usize, usize)> = Vec::new();
        for e in &f.extents {
            let (s, t) = (e.file_offset, e.file_offset + e.len);
            if t <= offset || s >= end {
                continue;
            }
            let lo = offset.max(s) - s + e.zone_offset;
            let hi = end.min(t) - s + e.zone_offset;
            let dev = &self.devices[e.device];
            let block = dev.block_bytes;
            let start_lba = dev.zones[e.zone as usize].start_lba;
            let first = lo / block;
            let blocks = hi.div_ceil(block) - first;
            let at = (offset.max(s) - offset) as usize;
            pieces.push((
                e.device,
                start_lba + first,
                blocks,
                lo - first * block,
                at,
                at + (hi - lo) as usize,
            ));
        }
        let mut done = now;
        let mut buf = Vec::new();
        for (d, lba, blocks, skip, a, b) in pieces {
            let block = self.devices[d].block_bytes;
            buf.resize((blocks * block) as usize, 0);
            let cmd = Command::Read {
                lba,
                blocks: blocks as u32,
            };
            done = done.max(self.submit_payload(d, now, cmd, Payload::Read(&mut buf))?);
            out[a..b].copy_from_slice(&buf[skip as usize..skip as usize + (b - a)]);
            self.traffic[d].read_bytes += blocks * block;
            self.traffic[d].reads += 1;
        }
        if end > on_device {
            let tail = &self.data.as_ref().expect("tail").tails[&file];
            let from = offset.max(on_device);
            let a = (from - offset) as usize;
            out[a..n as usize]
                .copy_from_slice(&tail[(from - on_device) as usize..(end - on_device) as usize]);
        }
        Ok((n, done))
    }

    /// The cache hint with the evicted block's bytes (HHZS §3.5): admitted to the
    /// SSD cache if the SST is on the HDD and the block is not cached; then the
    /// policy sees the hint.
    pub fn hint_block_evicted(
        &mut self,
        now: Ns,
        sst: FileNo,
        offset: u64,
        data: &[u8],
    ) -> Result<(), StorageError> {
        self.background(now)?;
        let r = self.cache_admit_data(now, sst, offset, data.len() as u64, Some(data));
        self.policy.on_hint(
            now,
            &Hint::BlockEvicted {
                sst,
                offset,
                bytes: data.len() as u64,
            },
        );
        r
    }

    /// Looks a block up in the SSD cache; on a hit returns its bytes.
    pub fn cache_lookup_bytes(
        &mut self,
        now: Ns,
        sst: FileNo,
        offset: u64,
    ) -> Option<(Vec<u8>, Ns)> {
        let mut out = Vec::new();
        let done = self.cache_lookup_data(now, sst, offset, 0, Some(&mut out))?;
        Some((out, done))
    }

    /// Whether the cache is on.
    pub fn caching(&self) -> bool {
        self.cache.is_some()
    }

    /// File numbers in use (including migration's temporary copies).
    pub fn file_numbers(&self) -> Vec<FileNo> {
        self.files.keys().copied().collect()
    }
}
