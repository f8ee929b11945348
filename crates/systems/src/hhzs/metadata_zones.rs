//! Zones the file system and RocksDB's metadata files take from the devices, as in
//! the authors' hybrid ZenFS (H2Zone, `src/zenfs/fs/`). The LSM-tree model writes
//! only WAL files and SSTs, so what these files hold is modelled as zones taken
//! before the first file, not as files:
//!
//! - **ZenFS's metadata zones** (superblock and metadata log): `ZENFS_META_ZONES`
//!   (3, `zbd_zenfs.h`) of the first device's zones are not I/O zones
//!   (`ZonedBlockDevice::ZonedAddZones` lists them first;
//!   `HybridBlockDevice::Open` keeps the first device's as `meta_zones_`), and the
//!   device gives one active-zone token to them ("Use only one active metazone",
//!   `zbd->max_nr_active_io_zones_ --`). The zone limit the experiments set
//!   (`constrained_ssd_space / zone_sz_` zones, `ZonedBlockDevice::Open`) counts
//!   them, so a 20-zone SSD has 17 I/O zones.
//! - **RocksDB's metadata files** (MANIFEST, CURRENT, IDENTITY, OPTIONS): ZenFS
//!   stores every file RocksDB creates in I/O zones (`ZenFS::NewWritableFile`), on
//!   the device the placement picks ([`super::PlacementPolicy::metadata_files_device`]).
//!   They carry no lifetime hint, and `TryAlreadyOpenZone` lets a file join only a
//!   zone no file is writing whose lifetime matches (`GetLifeTimeDiff`: an unset
//!   hint matches only an unset one). At `DB::Open` the new MANIFEST joins the zone
//!   `NewDB` left (IDENTITY, the first MANIFEST, CURRENT) and stays open for
//!   writing all run; the OPTIONS file and the new CURRENT then need a second zone.
//!   Both zones stay in use and active for the run (the second could be finished
//!   as `TryFinishVictim`'s victim only after every zone with less room left).
//!   Their few KiB of writes are one block per zone here.
//!
//! Positions do not matter to the device models' timing, so the metadata zones
//! come from the end of the store's zones and the metadata files' zones from the
//! front of its empty ones.

use super::zone_store::ZoneFileStore;
use crate::lsm::StorageError;
use zonelab_devices::Command;
use zonelab_engine::Ns;

/// Zones ZenFS keeps for its metadata on its first device (H2Zone
/// `src/zenfs/fs/zbd_zenfs.h`: `#define ZENFS_META_ZONES (3)`).
pub const ZENFS_META_ZONES: u32 = 3;
/// Zones RocksDB's metadata files hold for the whole run: the open MANIFEST's and
/// the small files' (module docs).
pub const METADATA_FILE_ZONES: u32 = 2;

impl ZoneFileStore {
    /// Takes `zones` of device `d`'s usable zones for the file system's metadata
    /// (ZenFS's meta zones): they hold no files and one of them is active, so the
    /// device's active-zone limit for files drops by one. Call before any file
    /// exists and before [`ZoneFileStore::configure_hhzs`].
    pub fn reserve_filesystem_metadata_zones(
        &mut self,
        d: usize,
        zones: u32,
    ) -> Result<(), StorageError> {
        self.check_no_files("reserve file-system metadata zones")?;
        let Some(dev) = self.devices.get_mut(d) else {
            return Err(StorageError(format!("no device {d} for metadata zones")));
        };
        if dev.reserve > 0 {
            return Err(StorageError(
                "reserve file-system metadata zones before the WAL/cache pool".into(),
            ));
        }
        let usable = dev.zones.len() as u32;
        if zones >= usable {
            return Err(StorageError(format!(
                "{zones} file-system metadata zones leave no zone of the {usable} usable on {}",
                dev.name
            )));
        }
        if zones == 0 {
            return Ok(());
        }
        let kept = usable - zones;
        dev.zones.truncate(kept as usize);
        dev.free.retain(|&z| z < kept);
        if dev.max_active != u32::MAX {
            if dev.max_active <= 1 {
                return Err(StorageError(format!(
                    "{} has no active zone left for files after its metadata zone",
                    dev.name
                )));
            }
            dev.max_active -= 1;
        }
        self.traffic[d].zones_usable = kept;
        Ok(())
    }

    /// Holds `zones` empty zones of device `d` for RocksDB's metadata files from
    /// `now` on: each gets one block written, stays open (active) and is never
    /// reset. Call before any file exists, after the WAL/cache pool is set.
    pub fn hold_metadata_file_zones(
        &mut self,
        d: usize,
        zones: u32,
        now: Ns,
    ) -> Result<Ns, StorageError> {
        self.check_no_files("hold metadata-file zones")?;
        let Some(dev) = self.devices.get(d) else {
            return Err(StorageError(format!("no device {d} for metadata files")));
        };
        if (dev.free.len() as u32) <= zones {
            return Err(StorageError(format!(
                "{zones} metadata-file zones leave no empty zone of the {} on {}",
                dev.free.len(),
                dev.name
            )));
        }
        if dev.active + zones > dev.max_active {
            return Err(StorageError(format!(
                "{zones} metadata-file zones exceed the {} active zones of {}",
                dev.max_active, dev.name
            )));
        }
        let mut done = now;
        for _ in 0..zones {
            let dev = &mut self.devices[d];
            let z = dev.free.pop_front().expect("checked above");
            let block = dev.block_bytes;
            let lba = dev.zones[z as usize].start_lba;
            done = done.max(self.submit(d, now, Command::Write { lba, blocks: 1 })?);
            self.traffic[d].written_bytes += block;
            let dev = &mut self.devices[d];
            dev.active += 1;
            let zone = &mut dev.zones[z as usize];
            zone.written_bytes = block;
            zone.live_bytes = block;
            zone.open = true;
            zone.metadata_files = true;
        }
        Ok(done)
    }

    fn check_no_files(&self, what: &str) -> Result<(), StorageError> {
        if self.files.is_empty() {
            Ok(())
        } else {
            Err(StorageError(format!("{what} before creating files")))
        }
    }
}
