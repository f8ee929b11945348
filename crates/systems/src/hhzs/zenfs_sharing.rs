//! ZenFS's zone allocation for the basic schemes (HHZS `papers/hhzs.txt` §2.3: B1–B4
//! run RocksDB 6.22.1 on the authors' ZenFS with `enable_trivial_data_placement`,
//! and B3+M of Exp#2 on the same allocator). The paper's own schemes (§3.2: "HHZS
//! does not use the write lifetime hint … as it always assigns a new SST to one …
//! or multiple … empty zones") keep the store's WAL/cache pool and are not
//! affected.
//!
//! What the authors' allocator does (H2Zone `src/zenfs/fs/fzbd_zenfs.cc`,
//! `HybridBlockDevice::AllocateZone`, `TryAlreadyOpenZone`, `TryResetAndFinish`,
//! `TryFinishVictim`; `zbd_zenfs.cc` `GetLifeTimeDiff`), and how the store follows it:
//!
//! - **A zone remembers its first file.** When an empty zone is allocated it takes
//!   the file's write-lifetime hint, type and level (`SetFileLifetime`,
//!   `SetFileType`, `SetLevel` when `allocated == 1`) → [`Zone::opener`].
//!   RocksDB 6.22 gives WAL files `WLTH_SHORT` (`DBImpl::CalculateWALWriteHint`) and
//!   an SST of level 0 `WLTH_MEDIUM`, L1 `WLTH_MEDIUM`, L2 `WLTH_LONG`, deeper
//!   `WLTH_EXTREME` (`ColumnFamilyData::CalculateSSTWriteHint`, base level 1).
//! - **A file leaves a zone open for others.** Closing a file only closes its zone
//!   (`Zone::CloseWR` → `Close()`): the zone stays *active* and "not open for
//!   write" → [`Zone::resting`]. It is finished at the next allocation on its device
//!   when less than `finish_threshold` % of its capacity is left (the authors'
//!   `ycsb_load.sh`: `zenfs mkfs … --finish_threshold=7`) or 1 GiB has been written
//!   (`TryResetAndFinish`), else only when an empty zone must be opened at the
//!   active-zone limit: the active zone with the least capacity left is finished
//!   (`TryFinishVictim`).
//! - **Which files may join a resting zone** (`TryAlreadyOpenZone`): never an SST of
//!   level > 0 ("Only allocate an empty zone for a non-L0 SST"), never a zone holding
//!   a non-L0 SST, and only where the zone's lifetime is *strictly longer* than the
//!   file's (`GetLifeTimeDiff`: `zone_lifetime > file_lifetime`, otherwise
//!   `LIFETIME_DIFF_NOT_GOOD`; the best is the smallest difference, the first zone on
//!   a tie). So a WAL file (SHORT) may be appended into a zone an L0 SST (MEDIUM)
//!   opened, and nothing else can share: an L0 SST cannot join an L0 zone (equal)
//!   nor a WAL zone (shorter), and a WAL file cannot join another WAL file's zone
//!   (equal) — each WAL file takes zones of its own.
//! - **Order per device**: the basic schemes send the WAL to the SSD first
//!   (`CheckRotationalTrivial` is false for it); on each device a matching resting
//!   zone first, then an empty zone; then the other device (`use_rotational =
//!   !use_rotational`). SSTs take empty zones as before (one device per SST, issue 14).
//! - **Reset only when every file in a zone is gone** (`TryResetAndFinish`: "An not
//!   empty but not used zone, reset"): a zone an L0 SST shares with WAL files is
//!   reset when the last of them is deleted; [`ZenfsSharingStats`] counts how long
//!   shared zones were held after their first file was deleted.
//!
//! Scale: the experiments scale every size but keep the devices' zones (one SST per
//! zone). ZenFS's rules depend on how much of a zone a file leaves, so with sharing
//! on, a WAL file sees a zone of `capacity × capacity_scale` (rounded down to a
//! block) and the finish rules use that capacity too; at scale 1 it is the zone's
//! capacity. SSTs keep the physical zone (their size is scaled already).
//!
//! Simulation only: the metadata journal of the real-time store does not record
//! zone states, so a store with a journal refuses sharing. Measurements and the
//! ablation (`HybridSetup::zenfs = None`): docs/hhzs.md, "ZenFS's zone allocation in
//! the basic schemes".

use super::zone_store::{FileClass, ZoneFileStore};
use crate::lsm::{FileKind, FileNo, StorageError};
use serde::Serialize;
use zonelab_devices::ZoneAction;
use zonelab_engine::Ns;

/// `zenfs mkfs --finish_threshold=7` in the authors' `scripts/ycsb_load.sh`.
pub const AUTHORS_FINISH_THRESHOLD_PCT: u64 = 7;
/// `TryResetAndFinish`: a closed zone with 1 GiB written is finished.
pub const FINISH_WRITTEN_BYTES: u64 = 1 << 30;

/// ZenFS's zone sharing for the basic schemes (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ZenfsSharing {
    /// The experiment's scale: the share of a zone's capacity ZenFS's rules see.
    pub capacity_scale: f64,
    /// A closed zone with less than this % of its capacity left is finished
    /// ([`AUTHORS_FINISH_THRESHOLD_PCT`]; ZenFS's own default is 0).
    pub finish_threshold_pct: u64,
}

impl ZenfsSharing {
    /// The authors' set-up at `capacity_scale`.
    pub fn authors(capacity_scale: f64) -> Self {
        Self {
            capacity_scale,
            finish_threshold_pct: AUTHORS_FINISH_THRESHOLD_PCT,
        }
    }
}

/// What ZenFS's allocation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ZenfsSharingStats {
    /// WAL zone allocations that joined a resting zone an L0 SST opened.
    pub wal_joins: u64,
    /// WAL bytes written into zones an L0 SST opened.
    pub wal_bytes_in_l0_zones: u64,
    /// Zones left active when a file closed in them.
    pub rested: u64,
    /// Resting zones finished to open an empty one at the active-zone limit.
    pub victims_finished: u64,
    /// Resets of zones that held files of two classes.
    pub shared_zone_resets: u64,
    /// Virtual time shared zones stayed allocated after the first of their files
    /// was deleted (zone-nanoseconds).
    pub shared_zone_hold_ns: u128,
}

impl ZoneFileStore {
    /// Allocates zones as the authors' ZenFS does for the basic schemes (module
    /// docs), with a WAL file seeing `capacity_scale` of each zone. Call before any
    /// file exists, on a store without a WAL/cache pool.
    pub fn configure_zenfs_sharing(&mut self, capacity_scale: f64) -> Result<(), StorageError> {
        self.configure_zenfs_sharing_with(ZenfsSharing::authors(capacity_scale))
    }

    /// [`ZoneFileStore::configure_zenfs_sharing`] with every setting given.
    pub fn configure_zenfs_sharing_with(
        &mut self,
        sharing: ZenfsSharing,
    ) -> Result<(), StorageError> {
        let capacity_scale = sharing.capacity_scale;
        if !self.files.is_empty() {
            return Err(StorageError(
                "configure ZenFS zone sharing before creating files".into(),
            ));
        }
        if !(capacity_scale > 0.0 && capacity_scale <= 1.0) {
            return Err(StorageError(format!(
                "ZenFS zone sharing: capacity scale {capacity_scale} is not in (0, 1]"
            )));
        }
        if self.devices[0].reserve > 0 {
            return Err(StorageError(
                "ZenFS zone sharing models the basic schemes, which have no WAL/cache pool".into(),
            ));
        }
        if self.journal.is_some() {
            return Err(StorageError(
                "ZenFS zone sharing is simulation-only: its zone states are not journaled".into(),
            ));
        }
        if sharing.finish_threshold_pct >= 100 {
            return Err(StorageError(format!(
                "ZenFS zone sharing: finish threshold {} % is not below 100",
                sharing.finish_threshold_pct
            )));
        }
        self.zenfs = Some(sharing);
        Ok(())
    }

    /// ZenFS's zone sharing, if on.
    pub fn zenfs_sharing(&self) -> Option<ZenfsSharing> {
        self.zenfs
    }

    /// What ZenFS's allocation did (all zero with sharing off).
    pub fn zenfs_sharing_stats(&self) -> ZenfsSharingStats {
        self.zenfs_stats
    }

    /// The capacity ZenFS's rules see in a zone of device `d` (the zone's capacity
    /// with sharing off).
    pub fn zenfs_zone_limit_bytes(&self, d: usize) -> u64 {
        let dev = &self.devices[d];
        let cap = dev.zones.first().map_or(0, |z| z.capacity_bytes);
        match self.zenfs {
            None => cap,
            Some(s) => {
                let b = dev.block_bytes;
                (((cap as f64 * s.capacity_scale) as u64) / b * b).clamp(b, cap)
            }
        }
    }

    /// Whether zone `z` of device `d`, left by a file before it is full, stays
    /// active for other files (ZenFS) instead of being finished.
    pub(super) fn zenfs_keeps_active(&self, d: usize, z: u32) -> bool {
        let Some(s) = self.zenfs else {
            return false;
        };
        let zone = &self.devices[d].zones[z as usize];
        let limit = self.zenfs_zone_limit_bytes(d);
        let left = limit.saturating_sub(zone.written_bytes);
        let finish_written = (FINISH_WRITTEN_BYTES as f64 * s.capacity_scale) as u64;
        !zone.cache
            && left * 100 >= limit * s.finish_threshold_pct
            && zone.written_bytes < finish_written
    }

    /// Whether device `d` may open an empty zone now: below its active-zone limit,
    /// or with a resting zone to finish.
    pub(super) fn can_open(&self, d: usize) -> bool {
        let dev = &self.devices[d];
        dev.active < dev.max_active || self.finish_victim(d).is_some()
    }

    /// The resting zone of `d` with the least capacity left (`TryResetAndFinish`'s
    /// `finish_victim`; the lowest zone on a tie).
    fn finish_victim(&self, d: usize) -> Option<u32> {
        if self.zenfs.is_none() {
            return None;
        }
        let dev = &self.devices[d];
        (0..dev.zones.len() as u32)
            .filter(|&z| dev.zones[z as usize].resting)
            .min_by_key(|&z| {
                let zone = &dev.zones[z as usize];
                (zone.capacity_bytes - zone.written_bytes, z)
            })
    }

    /// At the active-zone limit of `d`, finishes the victim (`TryFinishVictim`).
    pub(super) fn make_active_room(&mut self, d: usize, now: Ns) -> Result<(), StorageError> {
        let dev = &self.devices[d];
        if dev.active < dev.max_active {
            return Ok(());
        }
        if let Some(z) = self.finish_victim(d) {
            self.finish_resting(d, z, now)?;
            self.zenfs_stats.victims_finished += 1;
        }
        Ok(())
    }

    /// Finishes a resting zone: it is no longer active.
    fn finish_resting(&mut self, d: usize, z: u32, now: Ns) -> Result<(), StorageError> {
        self.zone_command(d, z, ZoneAction::Finish, now)?;
        let dev = &mut self.devices[d];
        dev.zones[z as usize].resting = false;
        dev.active -= 1;
        Ok(())
    }

    /// Leaves zone `z` of `d` active with no file appending (`Zone::CloseWR`).
    pub(super) fn rest_zone(&mut self, d: usize, z: u32, now: Ns) -> Result<Ns, StorageError> {
        let done = self.zone_command(d, z, ZoneAction::Close, now)?;
        let zone = &mut self.devices[d].zones[z as usize];
        zone.open = false;
        zone.resting = true;
        self.zenfs_stats.rested += 1;
        Ok(done)
    }

    /// A zone for WAL file `file` (`AllocateZone` for a WAL under trivial
    /// placement): per device in the policy's order, the first resting zone an L0
    /// SST opened with room below the limit, else an empty zone.
    pub(super) fn allocate_wal_zone_zenfs(
        &mut self,
        now: Ns,
        file: FileNo,
    ) -> Result<(usize, u32), StorageError> {
        let order = self.device_order(now, file, FileKind::Wal);
        for d in order {
            if d >= self.devices.len() {
                continue;
            }
            let limit = self.zenfs_zone_limit_bytes(d);
            let dev = &self.devices[d];
            let joinable = (0..dev.zones.len() as u32).find(|&z| {
                let zone = &dev.zones[z as usize];
                zone.resting
                    && zone.opener == Some(FileClass::Level(0))
                    && zone.written_bytes < limit
            });
            if let Some(z) = joinable {
                let zone = &mut self.devices[d].zones[z as usize];
                zone.resting = false;
                zone.open = true;
                zone.shared = true;
                self.zenfs_stats.wal_joins += 1;
                return Ok((d, z));
            }
            if self.can_open(d) && !self.devices[d].free.is_empty() {
                return Ok((d, self.open_free_zone(d, now, FileKind::Wal)?));
            }
        }
        Err(StorageError(format!(
            "no zone for a WAL file on any device the {} policy allows",
            self.policy.name()
        )))
    }

    /// Bookkeeping of a zone's reset under sharing.
    pub(super) fn zenfs_note_reset(&mut self, d: usize, z: u32, now: Ns) {
        let zone = &self.devices[d].zones[z as usize];
        if zone.shared {
            self.zenfs_stats.shared_zone_resets += 1;
            if let Some(since) = zone.first_delete_ns {
                self.zenfs_stats.shared_zone_hold_ns += (now - since) as u128;
            }
        }
    }
}
