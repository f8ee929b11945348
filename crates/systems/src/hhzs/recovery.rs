//! Recovery of a persistent zone file store from its metadata journal (issue 9
//! part 3; ZenFS's recovery: newest valid snapshot, then the records after it).
//!
//! On open, with the devices restored to their last flushed zone states:
//! 1. Each log zone is read up to its write pointer and decoded; a zone counts if
//!    it starts with a complete snapshot. The one with the highest sequence number
//!    wins, and its records are replayed up to the first torn or corrupt frame.
//! 2. Every extent is checked against its zone's write pointer: an extent beyond
//!    it (data that was not flushed) is dropped with the rest of its file, so a
//!    file is always a prefix of what was written.
//! 3. Zones are rebuilt: empty ones are free, zones holding no live extent are
//!    reset (unjournalled data: migration copies, cache blocks, unsynced appends),
//!    and partly written zones with live data are finished, so no zone stays open
//!    and every file continues in fresh zones.
//! 4. A new snapshot is written to the other log zone (compacting the log).
//!
//! SST levels recorded in the journal are kept; files recorded without a level
//! keep "unknown". The SSD cache restarts empty.

use super::journal::Label;
use super::journal_codec::{decode_all, ExtentRecord, Record, KIND_WAL};
use super::zone_store::{Extent, StoreDevice, StoredFile, ZoneFileStore};
use crate::lsm::{FileKind, FileNo, StorageError};
use std::collections::BTreeMap;
use zonelab_devices::zoned::ZoneState;
use zonelab_devices::{Command, Payload, ZoneAction};
use zonelab_engine::Ns;

/// Bytes read per command while scanning a log zone.
const LOG_READ_CHUNK_BYTES: u64 = 1 << 20;

/// What recovery found and did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct RecoveryReport {
    /// Sequence number of the snapshot recovery started from (`None`: new store).
    pub snapshot_seq: Option<u64>,
    pub records: usize,
    /// A torn or corrupt frame ended the log (normal after a crash mid-commit).
    pub torn_tail: bool,
    pub files: usize,
    pub dropped_extents: u64,
    pub reset_zones: u32,
    pub finished_zones: u32,
}

struct MetaFile {
    label: Label,
    kind: FileKind,
    extents: Vec<ExtentRecord>,
    writing: bool,
    /// A `SetLevel` record names it: only trivial moves write one.
    trivially_moved: bool,
}

fn apply(meta: &mut BTreeMap<FileNo, MetaFile>, r: Record) {
    match r {
        Record::SnapshotBegin { .. } | Record::SnapshotEnd { .. } | Record::Sync { .. } => {}
        Record::Create {
            file,
            name,
            kind,
            level,
        } => {
            let kind = if kind == KIND_WAL {
                FileKind::Wal
            } else {
                FileKind::Sst {
                    level: level.max(0) as u32,
                }
            };
            meta.insert(
                file,
                MetaFile {
                    label: Label {
                        name,
                        level_known: kind == FileKind::Wal || level >= 0,
                    },
                    kind,
                    extents: Vec::new(),
                    writing: true,
                    trivially_moved: false,
                },
            );
        }
        Record::SetLevel { file, level } => {
            if let Some(m) = meta.get_mut(&file) {
                if level >= 0 && m.kind != FileKind::Wal {
                    m.kind = FileKind::Sst {
                        level: level as u32,
                    };
                    m.label.level_known = true;
                    m.trivially_moved = true;
                }
            }
        }
        Record::Extent { file, extent } => {
            if let Some(m) = meta.get_mut(&file) {
                m.extents.push(extent);
            }
        }
        Record::ClearExtents { file } => {
            if let Some(m) = meta.get_mut(&file) {
                m.extents.clear();
            }
        }
        Record::Close { file } => {
            if let Some(m) = meta.get_mut(&file) {
                m.writing = false;
            }
        }
        Record::Delete { file } => {
            meta.remove(&file);
        }
        Record::Rename { file, name } => {
            if let Some(m) = meta.get_mut(&file) {
                m.label.name = name;
            }
        }
    }
}

impl ZoneFileStore {
    fn device_err(&self, d: usize, e: impl std::fmt::Display) -> StorageError {
        StorageError(format!("{}: recovery: {e}", self.devices[d].name))
    }

    /// Reads log zone `i` up to its write pointer (a full zone up to the first
    /// all-zero chunk); returns its bytes and the bytes written in it.
    fn read_log_zone(&mut self, now: Ns, i: usize) -> Result<(Vec<u8>, u64), StorageError> {
        let j = self.journal.as_ref().expect("journal");
        let (idx, lba0, cap) = (j.zone_indices[i], j.zone_lbas[i], j.capacity_bytes);
        let block = self.devices[0].block_bytes;
        let desc = self.devices[0]
            .device
            .report_zones(idx, 1)
            .map_err(|e| self.device_err(0, e))?;
        let Some(desc) = desc.first().copied() else {
            return Err(self.device_err(0, format!("log zone {idx} is missing")));
        };
        let full = desc.state == ZoneState::Full;
        let written = if full {
            cap
        } else {
            (desc.write_pointer - lba0) * block
        };
        let mut data = Vec::new();
        let mut pos = 0;
        while pos < written {
            let n = LOG_READ_CHUNK_BYTES.min(written - pos);
            let mut buf = vec![0u8; n as usize];
            let cmd = Command::Read {
                lba: lba0 + pos / block,
                blocks: (n / block) as u32,
            };
            self.devices[0]
                .device
                .submit(now, &cmd, Payload::Read(&mut buf))
                .map_err(|e| self.device_err(0, e))?;
            let zeros = buf.iter().all(|&b| b == 0);
            data.extend_from_slice(&buf);
            pos += n;
            if full && zeros {
                break;
            }
        }
        Ok((data, written))
    }

    /// Rebuilds the store from its journal (see the module docs). Call once, on a
    /// new store with [`ZoneFileStore::enable_journal`] done and no files.
    pub fn recover_journal(&mut self, now: Ns) -> Result<RecoveryReport, StorageError> {
        if self.journal.is_none() || !self.files.is_empty() {
            return Err(StorageError(
                "recovery needs a journalled store without files".into(),
            ));
        }
        let mut report = RecoveryReport::default();
        let zones = self.journal.as_ref().expect("journal").zone_lbas.len();
        let block = self.devices[0].block_bytes as usize;
        let mut best: Option<(u64, usize, Vec<Record>, bool)> = None;
        let mut any_written = false;
        for i in 0..zones {
            let (data, written) = self.read_log_zone(now, i)?;
            self.journal.as_mut().expect("journal").written[i] = written;
            any_written |= written > 0;
            let (recs, clean) = decode_all(&data, block);
            let Some(Record::SnapshotBegin { seq }) = recs.first().cloned() else {
                continue;
            };
            if !recs.contains(&Record::SnapshotEnd { seq }) {
                continue;
            }
            if best.as_ref().is_none_or(|b| seq > b.0) {
                best = Some((seq, i, recs, clean));
            }
        }
        let mut meta = BTreeMap::new();
        match best {
            Some((seq, i, recs, clean)) => {
                report.snapshot_seq = Some(seq);
                report.records = recs.len();
                report.torn_tail = !clean;
                for r in recs {
                    apply(&mut meta, r);
                }
                let j = self.journal.as_mut().expect("journal");
                j.active = i;
                j.seq = seq;
            }
            None if any_written => {
                return Err(StorageError(
                    "metadata log: no log zone holds a complete snapshot (corrupt metadata)".into(),
                ))
            }
            None => {}
        }
        self.install(now, meta, &mut report)?;
        self.journal_roll(now)?;
        Ok(report)
    }

    /// Sets files and zones from the replayed metadata and the devices' zones.
    fn install(
        &mut self,
        now: Ns,
        meta: BTreeMap<FileNo, MetaFile>,
        report: &mut RecoveryReport,
    ) -> Result<(), StorageError> {
        let mut states: Vec<Vec<ZoneState>> = Vec::new();
        for d in 0..self.devices.len() {
            let descs = self.devices[d]
                .store_zone_descriptors()
                .map_err(|e| self.device_err(d, e))?;
            let dev = &mut self.devices[d];
            dev.wal_zones.clear();
            let block = dev.block_bytes;
            let mut st = Vec::new();
            for (zone, desc) in dev.zones.iter_mut().zip(&descs) {
                zone.written_bytes = if desc.state == ZoneState::Full {
                    zone.capacity_bytes
                } else {
                    (desc.write_pointer - zone.start_lba) * block
                };
                zone.live_bytes = 0;
                zone.open = false;
                zone.cache = false;
                st.push(desc.state);
            }
            states.push(st);
        }
        let labels = &mut self.journal.as_mut().expect("journal").labels;
        labels.clear();
        for (no, m) in meta {
            let mut extents = Vec::new();
            let mut size = 0;
            for (k, e) in m.extents.iter().enumerate() {
                let ok = self
                    .devices
                    .get(e.device as usize)
                    .and_then(|d| d.zones.get(e.zone as usize))
                    .is_some_and(|z| {
                        e.zone_offset + e.physical <= z.written_bytes
                            && e.len <= e.physical
                            && e.file_offset == size
                    });
                if !ok {
                    report.dropped_extents += (m.extents.len() - k) as u64;
                    break;
                }
                self.devices[e.device as usize].zones[e.zone as usize].live_bytes += e.physical;
                size += e.len;
                extents.push(Extent {
                    device: e.device as usize,
                    zone: e.zone,
                    zone_offset: e.zone_offset,
                    file_offset: e.file_offset,
                    len: e.len,
                    physical: e.physical,
                });
            }
            labels.insert(no, m.label);
            let mut file = StoredFile::new(m.kind, self.devices.len(), now, None);
            file.size = size;
            file.writing = m.writing;
            file.trivially_moved = m.trivially_moved;
            if m.kind == FileKind::Wal {
                for e in &extents {
                    self.devices[e.device].wal_zones.insert(e.zone);
                }
            }
            file.set_extents(extents);
            self.files.insert(no, file);
        }
        report.files = self.files.len();
        for (d, st) in states.iter().enumerate() {
            for (z, &state) in st.iter().enumerate() {
                let zone = &self.devices[d].zones[z];
                let (lba, written, live) = (zone.start_lba, zone.written_bytes, zone.live_bytes);
                let action = match (written, live) {
                    (0, _) => None,
                    (_, 0) => Some(ZoneAction::Reset),
                    _ if state != ZoneState::Full => Some(ZoneAction::Finish),
                    _ => None,
                };
                if let Some(action) = action {
                    self.submit(
                        d,
                        now,
                        Command::Zone {
                            action,
                            zone_lba: lba,
                        },
                    )?;
                    if action == ZoneAction::Reset {
                        self.devices[d].zones[z].written_bytes = 0;
                        report.reset_zones += 1;
                    } else {
                        report.finished_zones += 1;
                    }
                }
            }
            let dev = &mut self.devices[d];
            let empty: Vec<bool> = dev.zones.iter().map(|z| z.written_bytes == 0).collect();
            dev.free = (dev.reserve..dev.zones.len() as u32)
                .filter(|&z| empty[z as usize])
                .collect();
            dev.reserve_free = (0..dev.reserve).filter(|&z| empty[z as usize]).collect();
            dev.active = 0;
            dev.wal_zone = None;
        }
        Ok(())
    }

    /// [`ZoneFileStore::check`] plus: no SST shares a zone with another file, no
    /// file data in cache zones, and the store's zones against the devices' own
    /// zone states: written zones' write pointers match (finished zones: any
    /// pointer within capacity), free zones are empty, log zones match the journal.
    pub fn check_with_devices(&self) -> Result<(), String> {
        self.check()?;
        // An SST's zones are its own (HHZS §3.2); no file data in cache zones.
        let mut owners: BTreeMap<(usize, u32), (FileNo, bool)> = BTreeMap::new();
        for (&no, f) in &self.files {
            let sst = matches!(f.kind, FileKind::Sst { .. });
            for e in &f.extents {
                if self.devices[e.device].zones[e.zone as usize].cache {
                    return Err(format!("file {no} has data in cache zone {}", e.zone));
                }
                match owners.insert((e.device, e.zone), (no, sst)) {
                    Some((other, other_sst)) if other != no && (sst || other_sst) => {
                        return Err(format!(
                            "zone {} of {} is shared by files {other} and {no}, one of them an SST",
                            e.zone, self.devices[e.device].name
                        ))
                    }
                    _ => {}
                }
            }
        }
        for (d, dev) in self.devices.iter().enumerate() {
            let descs = dev
                .store_zone_descriptors()
                .map_err(|e| format!("{}: report zones: {e}", dev.name))?;
            for (z, (zone, desc)) in dev.zones.iter().zip(&descs).enumerate() {
                let wp_bytes = (desc.write_pointer - zone.start_lba) * dev.block_bytes;
                if desc.state == ZoneState::Full {
                    if zone.written_bytes > zone.capacity_bytes {
                        return Err(format!("{}: zone {z} written past its capacity", dev.name));
                    }
                } else if wp_bytes != zone.written_bytes {
                    return Err(format!(
                        "{}: zone {z}: the store has {} bytes written but the device's write pointer is at {wp_bytes}",
                        dev.name, zone.written_bytes
                    ));
                }
            }
            if d == 0 {
                if let Some(j) = &self.journal {
                    for (i, &idx) in j.zone_indices.iter().enumerate() {
                        let desc = dev
                            .device
                            .report_zones(idx, 1)
                            .map_err(|e| format!("{}: report zones: {e}", dev.name))?;
                        let Some(desc) = desc.first() else { continue };
                        let wp = (desc.write_pointer - j.zone_lbas[i]) * dev.block_bytes;
                        if desc.state != ZoneState::Full && wp != j.written[i] {
                            return Err(format!(
                                "{}: log zone {idx}: journal has {} bytes, device write pointer at {wp}",
                                dev.name, j.written[i]
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

impl StoreDevice {
    /// The device's own descriptors of the store's zones (the sequential zones
    /// after any conventional ones, in the store's zone order).
    fn store_zone_descriptors(
        &self,
    ) -> Result<Vec<zonelab_devices::zoned::ZoneDescriptor>, zonelab_devices::DeviceError> {
        let conventional = self
            .device
            .info()
            .zoned
            .as_ref()
            .map_or(0, |z| z.conventional_zones);
        self.device
            .report_zones(conventional, self.zones.len() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hhzs::{BasicPlacement, StoreDeviceSpec};
    use crate::lsm::LsmStorage;

    fn store() -> ZoneFileStore {
        let dev = |p| StoreDeviceSpec {
            device: zonelab_devices::open_device(p).unwrap(),
            zone_budget: Some(4),
        };
        let mut s = ZoneFileStore::new(
            vec![dev("zn540"), dev("st14000nm0007")],
            Box::new(BasicPlacement { h: 1 }),
        )
        .unwrap();
        s.enable_payloads();
        for (no, level) in [(1, 0), (2, 0)] {
            s.create(0, no, FileKind::Sst { level }).unwrap();
            s.append_bytes(0, no, &[no as u8; 10_000]).unwrap();
            s.close_bytes(0, no).unwrap();
        }
        s
    }

    #[test]
    fn check_names_an_extent_beyond_the_write_pointer_and_a_shared_sst_zone() {
        let mut s = store();
        s.check_with_devices().unwrap();
        s.files.get_mut(&1).unwrap().extents[0].physical += 1 << 20;
        let e = s.check_with_devices().unwrap_err();
        assert!(e.contains("beyond the write pointer"), "{e}");
        // Give file 2 the last block of file 1's zone (split file 1's extent) and
        // drop file 2's own extent: everything else stays consistent.
        let mut s = store();
        let mut a = s.files[&1].extents[0];
        let mut b = a;
        (a.len, a.physical) = (8192, 8192);
        b.zone_offset = 8192;
        (b.file_offset, b.len, b.physical) = (0, 10_000 - 8192, 4096);
        s.files.get_mut(&1).unwrap().set_extents(vec![a]);
        let own = s.files[&2].extents[0];
        s.devices[own.device].zones[own.zone as usize].live_bytes = 0;
        s.files.get_mut(&2).unwrap().set_extents(vec![b]);
        s.check().unwrap();
        let e = s.check_with_devices().unwrap_err();
        assert!(e.contains("shared by files 1 and 2"), "{e}");
    }
}
