//! The metadata journal of a persistent zone file store (issue 9 part 3), as
//! ZenFS keeps its metadata: records in dedicated zones of the SSD (device 0),
//! outside the store's zone budget (the last `log_zones` sequential zones of the
//! device; HHZS §3.2's 20-zone SSD budget is for data).
//!
//! - Metadata changes (create, level, extent added, close, delete, rename, a
//!   migration's new extents) are queued in memory as [`Record`]s.
//! - A **commit** (every `sync`, and before any zone that held file data is reset)
//!   flushes the data devices written since the last commit (a backed device saves
//!   its zone states on Flush), appends the queued records to the active log zone
//!   as whole blocks, then flushes the SSD. Extents are therefore never recorded
//!   before their data is durable (data on the SSD itself becomes durable with the
//!   same flush as the records: one Flush saves all its zones at once), and a
//!   delete is durable before its zones can be reset and reused.
//! - When the active log zone has no room, the commit **rolls**: it finishes the
//!   zone, writes a snapshot of all metadata (which includes the queued changes) to
//!   the next log zone, flushes, then resets the old zone. Recovery
//!   ([`super::recovery`]) picks the newest complete snapshot.
//!
//! Migration's temporary copies are not journalled: a crash during a migration
//! leaves the old copy in place and the new copy's zones are reset by recovery.
//! SSD cache contents (§3.5) are not journalled either: the cache starts empty after
//! a restart.

use super::journal_codec::{ExtentRecord, Record, KIND_SST, KIND_WAL, LEVEL_UNKNOWN};
use super::zone_store::{Extent, ZoneFileStore};
use crate::lsm::{FileKind, FileNo, StorageError};
use std::collections::BTreeMap;
use zonelab_devices::{Command, Payload, ZoneAction};
use zonelab_engine::Ns;

/// Log zones of a store (ZenFS reserves at least 2 metadata zones).
pub const DEFAULT_LOG_ZONES: u32 = 2;

/// A journalled file's name and whether its level is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub name: String,
    pub level_known: bool,
}

/// Journal counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct JournalStats {
    pub commits: u64,
    pub snapshots: u64,
    pub log_bytes: u64,
    pub data_flushes: u64,
}

/// Journal state.
#[derive(Debug, Clone)]
pub struct Journal {
    /// Start LBAs of the log zones on device 0.
    pub(super) zone_lbas: Vec<u64>,
    pub(super) zone_indices: Vec<u32>,
    pub(super) capacity_bytes: u64,
    /// Bytes written in each log zone.
    pub(super) written: Vec<u64>,
    pub(super) active: usize,
    pub(super) seq: u64,
    pub(super) pending: Vec<Record>,
    /// Devices written since the last commit.
    pub(super) dirty: Vec<bool>,
    pub(super) labels: BTreeMap<FileNo, Label>,
    pub stats: JournalStats,
}

impl Journal {
    /// Marks device `d` as written when `cmd` moves data to it.
    pub(super) fn note_write(&mut self, d: usize, cmd: &Command) {
        if matches!(cmd, Command::Write { .. } | Command::Append { .. }) {
            if let Some(x) = self.dirty.get_mut(d) {
                *x = true;
            }
        }
    }
}

fn kind_code(kind: FileKind, level_known: bool) -> (u8, i32) {
    match kind {
        FileKind::Wal => (KIND_WAL, LEVEL_UNKNOWN),
        FileKind::Sst { level } if level_known => (KIND_SST, level as i32),
        FileKind::Sst { .. } => (KIND_SST, LEVEL_UNKNOWN),
    }
}

pub(super) fn extent_record(e: &Extent) -> ExtentRecord {
    ExtentRecord {
        device: e.device as u32,
        zone: e.zone,
        zone_offset: e.zone_offset,
        file_offset: e.file_offset,
        len: e.len,
        physical: e.physical,
    }
}

impl ZoneFileStore {
    /// Turns on the journal in the last `log_zones` sequential zones of device 0,
    /// which must lie outside the store's zone budget. Call on a new store, then
    /// [`ZoneFileStore::recover_journal`].
    pub fn enable_journal(&mut self, log_zones: u32) -> Result<(), StorageError> {
        let dev = &mut self.devices[0];
        let info = dev.device.info().clone();
        let z = info.zoned.as_ref().expect("zoned device");
        let used = z.conventional_zones + dev.zones.len() as u32;
        if log_zones < 2 || used + log_zones > z.zone_count {
            return Err(StorageError(format!(
                "the metadata log needs {log_zones} (>= 2) zones of {} outside the {} zones the store uses, but it has {} zones",
                dev.name, dev.zones.len(), z.zone_count - z.conventional_zones
            )));
        }
        if dev.max_active != u32::MAX {
            if dev.max_active < 2 {
                return Err(StorageError(format!(
                    "{} allows {} active zones; the store and its log need at least 2",
                    dev.name, dev.max_active
                )));
            }
            // The active log zone stays open on the device.
            dev.max_active -= 1;
        }
        let zone_indices: Vec<u32> = (z.zone_count - log_zones..z.zone_count).collect();
        self.journal = Some(Journal {
            zone_lbas: zone_indices
                .iter()
                .map(|&i| i as u64 * z.zone_size_blocks)
                .collect(),
            zone_indices,
            capacity_bytes: z.zone_capacity_blocks * info.block_bytes as u64,
            written: vec![0; log_zones as usize],
            active: 0,
            seq: 0,
            pending: Vec::new(),
            dirty: vec![false; self.devices.len()],
            labels: BTreeMap::new(),
            stats: JournalStats::default(),
        });
        Ok(())
    }

    pub fn journal_stats(&self) -> Option<JournalStats> {
        self.journal.as_ref().map(|j| j.stats)
    }

    /// Names and level flags of the journalled files.
    pub fn journal_labels(&self) -> Vec<(FileNo, Label)> {
        self.journal
            .as_ref()
            .map(|j| j.labels.iter().map(|(k, v)| (*k, v.clone())).collect())
            .unwrap_or_default()
    }

    fn push(&mut self, file: FileNo, r: Record) {
        if let Some(j) = self.journal.as_mut() {
            if j.labels.contains_key(&file) {
                j.pending.push(r);
            }
        }
    }

    /// Records a new file (the store already holds it).
    pub fn journal_create(&mut self, file: FileNo, name: &str, level_known: bool) {
        let Some(kind) = self.files.get(&file).map(|f| f.kind) else {
            return;
        };
        if let Some(j) = self.journal.as_mut() {
            j.labels.insert(
                file,
                Label {
                    name: name.to_string(),
                    level_known,
                },
            );
            let (kind, level) = kind_code(kind, level_known);
            j.pending.push(Record::Create {
                file,
                name: name.to_string(),
                kind,
                level,
            });
        }
    }

    /// Records a file's (new) level.
    pub fn journal_level(&mut self, file: FileNo) {
        if let Some(FileKind::Sst { level }) = self.files.get(&file).map(|f| f.kind) {
            if let Some(l) = self.journal.as_mut().and_then(|j| j.labels.get_mut(&file)) {
                l.level_known = true;
            }
            self.push(
                file,
                Record::SetLevel {
                    file,
                    level: level as i32,
                },
            );
        }
    }

    pub fn journal_rename(&mut self, file: FileNo, name: &str) {
        self.push(
            file,
            Record::Rename {
                file,
                name: name.to_string(),
            },
        );
        if let Some(l) = self.journal.as_mut().and_then(|j| j.labels.get_mut(&file)) {
            l.name = name.to_string();
        }
    }

    pub(super) fn journal_push_extent(&mut self, file: FileNo, e: &Extent) {
        self.push(
            file,
            Record::Extent {
                file,
                extent: extent_record(e),
            },
        );
    }

    pub(super) fn journal_push_close(&mut self, file: FileNo) {
        self.push(file, Record::Close { file });
    }

    pub(super) fn journal_push_delete(&mut self, file: FileNo) {
        self.push(file, Record::Delete { file });
        if let Some(j) = self.journal.as_mut() {
            j.labels.remove(&file);
        }
    }

    pub(super) fn journal_push_extents_replaced(&mut self, file: FileNo) {
        if !self
            .journal
            .as_ref()
            .is_some_and(|j| j.labels.contains_key(&file))
        {
            return;
        }
        let extents: Vec<Extent> = self.files[&file].extents.clone();
        self.push(file, Record::ClearExtents { file });
        for e in &extents {
            self.journal_push_extent(file, e);
        }
    }

    pub(super) fn journal_has_pending(&self) -> bool {
        self.journal.as_ref().is_some_and(|j| !j.pending.is_empty())
    }

    /// Makes `file`'s appended bytes (its tail padded) and all metadata durable.
    pub fn sync_file(&mut self, now: Ns, file: FileNo) -> Result<Ns, StorageError> {
        let done = self.sync_tail(now, file)?;
        let size = self.files[&file].size;
        self.push(file, Record::Sync { file, size });
        Ok(done.max(self.journal_commit(now)?))
    }

    fn raw_submit(
        &mut self,
        now: Ns,
        cmd: Command,
        payload: Payload<'_>,
    ) -> Result<Ns, StorageError> {
        let dev = &mut self.devices[0];
        dev.device
            .submit(now, &cmd, payload)
            .map(|c| c.done_ns)
            .map_err(|e| StorageError(format!("{}: metadata log {}: {e}", dev.name, cmd.name())))
    }

    /// Flushes written data devices, appends the queued records and flushes the
    /// log device (see the module docs). Without a journal: nothing.
    pub fn journal_commit(&mut self, now: Ns) -> Result<Ns, StorageError> {
        let Some(j) = self.journal.as_mut() else {
            return Ok(now);
        };
        let pending = std::mem::take(&mut j.pending);
        // Device 0 holds the log: its flush after the records covers its data
        // too (one flush saves data and zone states together). Without records,
        // it is flushed here.
        let dirty: Vec<usize> = (0..j.dirty.len())
            .filter(|&d| j.dirty[d] && (d != 0 || pending.is_empty()))
            .collect();
        j.dirty.iter_mut().for_each(|d| *d = false);
        let mut done = now;
        for d in dirty {
            let dev = &mut self.devices[d];
            done = done.max(
                dev.device
                    .submit(now, &Command::Flush, Payload::SizeOnly)
                    .map(|c| c.done_ns)
                    .map_err(|e| dev_flush_error(&dev.name, e))?,
            );
            self.journal.as_mut().expect("journal").stats.data_flushes += 1;
        }
        if pending.is_empty() {
            return Ok(done);
        }
        let block = self.devices[0].block_bytes as usize;
        let mut buf = Vec::new();
        for r in &pending {
            r.encode(&mut buf);
        }
        buf.resize(buf.len().div_ceil(block) * block, 0);
        let j = self.journal.as_ref().expect("journal");
        if j.written[j.active] + buf.len() as u64 > j.capacity_bytes {
            // The snapshot includes every queued change.
            return Ok(done.max(self.journal_roll(now)?));
        }
        let done = done.max(self.log_write(now, &buf)?);
        let j = self.journal.as_mut().expect("journal");
        j.stats.commits += 1;
        Ok(done.max(self.raw_submit(now, Command::Flush, Payload::SizeOnly)?))
    }

    /// Appends whole blocks to the active log zone.
    fn log_write(&mut self, now: Ns, buf: &[u8]) -> Result<Ns, StorageError> {
        let block = self.devices[0].block_bytes;
        let j = self.journal.as_ref().expect("journal");
        let lba = j.zone_lbas[j.active] + j.written[j.active] / block;
        let done = self.raw_submit(
            now,
            Command::Write {
                lba,
                blocks: (buf.len() as u64 / block) as u32,
            },
            Payload::Write(buf),
        )?;
        let j = self.journal.as_mut().expect("journal");
        let a = j.active;
        j.written[a] += buf.len() as u64;
        j.stats.log_bytes += buf.len() as u64;
        Ok(done)
    }

    /// The records that recreate every journalled file.
    pub(super) fn snapshot_records(&self, seq: u64) -> Vec<Record> {
        let mut out = vec![Record::SnapshotBegin { seq }];
        let Some(j) = self.journal.as_ref() else {
            return out;
        };
        for (&file, label) in &j.labels {
            let Some(f) = self.files.get(&file) else {
                continue;
            };
            let (kind, level) = kind_code(f.kind, label.level_known);
            out.push(Record::Create {
                file,
                name: label.name.clone(),
                kind,
                level,
            });
            // A trivially moved SST keeps that mark across a crash (H2Zone
            // replays `SetLevel`, whose `UpdateLevel` sets it).
            if f.trivially_moved {
                if let FileKind::Sst { level } = f.kind {
                    out.push(Record::SetLevel {
                        file,
                        level: level as i32,
                    });
                }
            }
            for e in &f.extents {
                out.push(Record::Extent {
                    file,
                    extent: extent_record(e),
                });
            }
            if !f.writing {
                out.push(Record::Close { file });
            }
        }
        out.push(Record::SnapshotEnd { seq });
        out
    }

    /// Writes a snapshot to the next log zone and resets the old one.
    pub(super) fn journal_roll(&mut self, now: Ns) -> Result<Ns, StorageError> {
        let j = self.journal.as_mut().expect("journal");
        j.pending.clear();
        let (old, new) = (j.active, (j.active + 1) % j.zone_lbas.len());
        j.seq += 1;
        let seq = j.seq;
        let (old_lba, new_lba) = (j.zone_lbas[old], j.zone_lbas[new]);
        let (old_written, new_written, cap) = (j.written[old], j.written[new], j.capacity_bytes);
        let mut done = now;
        let zone = |action, zone_lba| Command::Zone { action, zone_lba };
        if old_written > 0 && old_written < cap {
            done = done.max(self.raw_submit(
                now,
                zone(ZoneAction::Finish, old_lba),
                Payload::SizeOnly,
            )?);
        }
        if new_written > 0 {
            done = done.max(self.raw_submit(
                now,
                zone(ZoneAction::Reset, new_lba),
                Payload::SizeOnly,
            )?);
        }
        let block = self.devices[0].block_bytes as usize;
        let mut buf = Vec::new();
        for r in self.snapshot_records(seq) {
            r.encode(&mut buf);
        }
        buf.resize(buf.len().div_ceil(block) * block, 0);
        if buf.len() as u64 > cap {
            return Err(StorageError(format!(
                "metadata snapshot of {} bytes does not fit a {cap}-byte log zone; use larger SSD zones",
                buf.len()
            )));
        }
        let j = self.journal.as_mut().expect("journal");
        j.active = new;
        j.written[new] = 0;
        done = done.max(self.log_write(now, &buf)?);
        done = done.max(self.raw_submit(now, Command::Flush, Payload::SizeOnly)?);
        if old != new && old_written > 0 {
            done = done.max(self.raw_submit(
                now,
                zone(ZoneAction::Reset, old_lba),
                Payload::SizeOnly,
            )?);
        }
        let j = self.journal.as_mut().expect("journal");
        if old != new {
            j.written[old] = 0;
        }
        j.stats.snapshots += 1;
        j.stats.commits += 1;
        Ok(done)
    }
}

fn dev_flush_error(name: &str, e: impl std::fmt::Display) -> StorageError {
    StorageError(format!("{name}: flush: {e}"))
}
