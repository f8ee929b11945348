//! Zone allocation of the zone file store (HHZS §3.2): WAL files take zones from
//! the WAL/cache pool first, then from the devices the policy names; an SST gets
//! its zones on **one** device, chosen when its first zone is assigned — "one (for
//! the SSD) or multiple (for the HDD) empty zones". When the LSM-tree announced the
//! SST's size (flush and compaction hints carry it), the store assigns every zone
//! it needs at once, on the first device in the policy's order that has that many
//! empty zones; the zones not yet written are reserved for it (off the free list)
//! and go back when the file is closed or deleted. Continuation zones come only from
//! the SST's device. If that device runs out anyway (an unannounced or larger
//! size), the SST is copied whole to another device the policy allows and goes on
//! there ([`RelocationStats`] counts it), so no SST ever has bytes on two devices.

use super::zone_store::ZoneFileStore;
use crate::lsm::{FileKind, FileNo, StorageError};
use serde::Serialize;
use zonelab_engine::Ns;

/// Bytes copied per read/write step of a relocation.
const RELOCATION_CHUNK_BYTES: u64 = 2 * 1024 * 1024;

/// Where new SSTs went, per level: the SSD, the HDD because the policy's rule
/// excluded the SSD although it had every zone the SST needs, or the HDD because
/// the SSD had no room (a diagnostic of write-guided placement, §3.3 step 4).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct PlacementCounts {
    pub ssd: u64,
    pub hdd_by_rule: u64,
    pub hdd_ssd_full: u64,
}

/// SSTs that outgrew their device and were copied whole to another.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct RelocationStats {
    pub ssts: u64,
    pub copied_bytes: u64,
}

impl ZoneFileStore {
    /// SSTs relocated because their device ran out of zones.
    pub fn relocations(&self) -> RelocationStats {
        self.relocations
    }

    /// New SSTs per level by where they went and why ([`PlacementCounts`]).
    pub fn placement_counts(&self) -> &std::collections::BTreeMap<u32, PlacementCounts> {
        &self.placement_counts
    }

    /// Zones of device `d` an SST of `bytes` needs (at least one).
    pub(super) fn zones_needed(&self, d: usize, bytes: u64) -> u32 {
        let dev = &self.devices[d];
        let cap = dev.zones.first().map_or(1, |z| z.capacity_bytes).max(1);
        let physical = bytes.div_ceil(dev.block_bytes) * dev.block_bytes;
        physical.div_ceil(cap).max(1) as u32
    }

    /// Whether device `d` can open a zone and has `zones` empty ones.
    fn has_room(&self, d: usize, zones: u32) -> bool {
        self.can_open(d) && self.devices[d].free.len() as u64 >= zones as u64
    }

    /// Takes an empty zone for `file` (of `kind`); returns (device, zone, the time
    /// the zone is ready — later than `now` only after a relocation).
    pub(super) fn allocate_zone(
        &mut self,
        now: Ns,
        file: FileNo,
        kind: FileKind,
    ) -> Result<(usize, u32, Ns), StorageError> {
        if kind == FileKind::Wal {
            if self.zenfs.is_some() {
                return self
                    .allocate_wal_zone_zenfs(now, file)
                    .map(|(d, z)| (d, z, now));
            }
            return self.allocate_wal_zone(now, file).map(|(d, z)| (d, z, now));
        }
        let f = &self.files[&file];
        match f.device {
            Some(d) => self.continue_sst(now, file, d),
            None => self.place_sst(now, file, kind).map(|(d, z)| (d, z, now)),
        }
    }

    fn allocate_wal_zone(&mut self, now: Ns, file: FileNo) -> Result<(usize, u32), StorageError> {
        if self.devices[0].reserve > 0 {
            if let Some(z) = self.take_reserve_zone(now)? {
                return Ok((0, z));
            }
        }
        let order = self.device_order(now, file, FileKind::Wal);
        for d in order {
            if d < self.devices.len() && self.has_room(d, 1) {
                return Ok((d, self.open_free_zone(d, now, FileKind::Wal)?));
            }
        }
        Err(self.no_zone(FileKind::Wal))
    }

    /// The first zone of a new SST: on the first device in the policy's order
    /// with every zone its announced size needs (else with one zone).
    fn place_sst(
        &mut self,
        now: Ns,
        file: FileNo,
        kind: FileKind,
    ) -> Result<(usize, u32), StorageError> {
        let order = self.device_order(now, file, kind);
        let expected = self.files[&file].expected_bytes;
        let fits =
            |s: &Self, d: usize| d < s.devices.len() && s.has_room(d, s.zones_needed(d, expected));
        let d = match order.iter().copied().find(|&d| fits(self, d)) {
            Some(d) => d,
            None => order
                .iter()
                .copied()
                .find(|&d| d < self.devices.len() && self.has_room(d, 1))
                .ok_or_else(|| self.no_zone(kind))?,
        };
        if let (FileKind::Sst { level }, None) = (kind, self.files[&file].forced_device) {
            let ssd_had_room = self.devices.len() > 1 && fits(self, 0);
            let c = self.placement_counts.entry(level).or_default();
            match (d, ssd_had_room) {
                (0, _) => c.ssd += 1,
                (_, true) => c.hdd_by_rule += 1,
                (_, false) => c.hdd_ssd_full += 1,
            }
        }
        let need = self.zones_needed(d, expected);
        let z = self.open_free_zone(d, now, kind)?;
        let dev = &mut self.devices[d];
        let mut reserved = std::collections::VecDeque::new();
        while (reserved.len() as u32) + 1 < need {
            match dev.free.pop_front() {
                Some(r) => reserved.push_back(r),
                None => break,
            }
        }
        let f = self.files.get_mut(&file).expect("file");
        f.device = Some(d);
        f.reserved = reserved;
        Ok((d, z))
    }

    /// The next zone of an SST on its device `d`: a reserved one, an empty one, or
    /// — when `d` has none — a zone on the device the SST is relocated to.
    fn continue_sst(
        &mut self,
        now: Ns,
        file: FileNo,
        d: usize,
    ) -> Result<(usize, u32, Ns), StorageError> {
        if self.can_open(d) {
            let kind = self.files[&file].kind;
            if let Some(z) = self
                .files
                .get_mut(&file)
                .expect("file")
                .reserved
                .pop_front()
            {
                self.make_active_room(d, now)?;
                let dev = &mut self.devices[d];
                let zone = &mut dev.zones[z as usize];
                zone.open = true;
                zone.opener = Some(kind.into());
                dev.active += 1;
                return Ok((d, z, now));
            }
            if !self.devices[d].free.is_empty() {
                return Ok((d, self.open_free_zone(d, now, kind)?, now));
            }
        }
        self.relocate_sst(now, file, d)
    }

    /// Opens the next empty zone of `d` for a file of `kind` (finishing a resting
    /// zone first at the active-zone limit, ZenFS's `TryFinishVictim`).
    pub(super) fn open_free_zone(
        &mut self,
        d: usize,
        now: Ns,
        kind: FileKind,
    ) -> Result<u32, StorageError> {
        self.make_active_room(d, now)?;
        let dev = &mut self.devices[d];
        let z = dev.free.pop_front().expect("a free zone");
        let zone = &mut dev.zones[z as usize];
        zone.open = true;
        zone.opener = Some(kind.into());
        dev.active += 1;
        Ok(z)
    }

    /// Devices in the policy's order for a new zone of `file` (a migration copy's
    /// device when it has one).
    pub(super) fn device_order(&mut self, now: Ns, file: FileNo, kind: FileKind) -> Vec<usize> {
        match self.files.get(&file).and_then(|f| f.forced_device) {
            Some(d) => vec![d],
            None => {
                let view = self.view(now);
                self.policy.devices_for(kind, &view)
            }
        }
    }

    fn no_zone(&self, kind: FileKind) -> StorageError {
        StorageError(format!(
            "no empty zone for a {kind:?} file on any device the {} policy allows",
            self.policy.name()
        ))
    }

    /// Gives `file`'s reserved zones back to its device's free list.
    pub(super) fn release_reserved(&mut self, file: FileNo) {
        let Some(f) = self.files.get_mut(&file) else {
            return;
        };
        let reserved = std::mem::take(&mut f.reserved);
        if let Some(d) = f.device {
            self.devices[d].free.extend(reserved);
        }
    }

    /// Copies the bytes `file` has written on device `from` (which has no zone
    /// left for it) to another device the policy allows, switches the file to the
    /// copy and returns the zone its appends continue in.
    fn relocate_sst(
        &mut self,
        now: Ns,
        file: FileNo,
        from: usize,
    ) -> Result<(usize, u32, Ns), StorageError> {
        let f = &self.files[&file];
        if f.forced_device.is_some() {
            // A migration copy: the migration gives up instead.
            return Err(StorageError(format!(
                "no zone left on {} for migration copy {file}",
                self.devices[from].name
            )));
        }
        let (kind, size) = (f.kind, f.size);
        let want = f.expected_bytes.max(size + 1);
        let order = self.device_order(now, file, kind);
        let to = order
            .into_iter()
            .chain(0..self.devices.len())
            .find(|&d| {
                d != from && d < self.devices.len() && self.has_room(d, self.zones_needed(d, want))
            })
            .ok_or_else(|| {
                StorageError(format!(
                    "SST {file} outgrew {} and no other device has room for its {want} bytes",
                    self.devices[from].name
                ))
            })?;
        self.migration.next_shadow += 1;
        let shadow = u64::MAX - self.migration.next_shadow;
        self.insert_file(now, shadow, kind, Some(to));
        self.files.get_mut(&shadow).expect("copy").expected_bytes = want;
        let mut done = now;
        let mut copied = 0;
        while copied < size {
            let len = RELOCATION_CHUNK_BYTES.min(size - copied);
            let chunk = match self.data.is_some() {
                false => {
                    done = done.max(self.read_internal(now, file, copied, len)?);
                    None
                }
                true => {
                    let mut buf = vec![0u8; len as usize];
                    let (_, d) = self.read_bytes_internal(now, file, copied, &mut buf)?;
                    done = done.max(d);
                    Some(buf)
                }
            };
            done = done.max(self.append_internal(done, shadow, len, chunk.as_deref())?);
            copied += len;
        }
        let mut copy = self.files.remove(&shadow).expect("copy");
        let old = self.files.get_mut(&file).expect("relocated file");
        let old_extents = old.set_extents(std::mem::take(&mut copy.extents));
        old.device = Some(to);
        old.reserved = std::mem::take(&mut copy.reserved);
        old.open_zone = copy.open_zone;
        self.journal_push_extents_replaced(file);
        for e in old_extents {
            let zone = &mut self.devices[e.device].zones[e.zone as usize];
            zone.live_bytes -= e.physical;
            if zone.live_bytes == 0 && !zone.open && zone.written_bytes > 0 {
                self.reset_zone(e.device, e.zone, now)?;
            }
        }
        self.relocations.ssts += 1;
        self.relocations.copied_bytes += size;
        let (d, z) = match self.files[&file].open_zone {
            Some((d, z))
                if self.devices[d].zones[z as usize].written_bytes
                    < self.devices[d].zones[z as usize].capacity_bytes =>
            {
                (d, z)
            }
            _ => {
                let (d, z, _) = self.continue_sst(done, file, to)?;
                (d, z)
            }
        };
        Ok((d, z, done))
    }

    /// No SST has extents on two devices; an SST's reserved zones are on its
    /// device, empty, closed and on no free list.
    pub(super) fn check_ssts_on_one_device(&self) -> Result<(), String> {
        for (no, f) in &self.files {
            if f.kind == FileKind::Wal {
                continue;
            }
            let mut devices = f.extents.iter().map(|e| e.device);
            if let Some(first) = devices.next() {
                if let Some(other) = devices.find(|&d| d != first) {
                    return Err(format!(
                        "SST {no} has extents on devices {first} and {other}"
                    ));
                }
                if f.device != Some(first) {
                    return Err(format!(
                        "SST {no} is on device {first} but recorded on {:?}",
                        f.device
                    ));
                }
            }
            let Some(d) = f.device.filter(|_| !f.reserved.is_empty()) else {
                continue;
            };
            let dev = &self.devices[d];
            for &z in &f.reserved {
                let zone = &dev.zones[z as usize];
                if zone.written_bytes != 0 || zone.open || dev.free.contains(&z) {
                    return Err(format!(
                        "SST {no}: reserved zone {z} of {} is written, open or free",
                        dev.name
                    ));
                }
            }
        }
        for (d, dev) in self.devices.iter().enumerate() {
            let mut wal = std::collections::BTreeSet::new();
            for f in self.files.values().filter(|f| f.kind == FileKind::Wal) {
                wal.extend(f.extents.iter().filter(|e| e.device == d).map(|e| e.zone));
            }
            if !wal.is_subset(&dev.wal_zones) {
                return Err(format!(
                    "{}: WAL extents in zones {wal:?}, marked {:?}",
                    dev.name, dev.wal_zones
                ));
            }
        }
        Ok(())
    }
}
