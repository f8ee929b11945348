//! The zone file store under the LSM-tree (the mechanism of HHZS, `papers/hhzs.txt`
//! §3.2, and of ZenFS extended to several devices): files are lists of extents in
//! zones of two or more zoned devices. An SST gets empty zones of its own (one SSD
//! zone, or several smaller HDD zones when it spans them); WAL files share a
//! per-device stream of zones; a zone is finished when its file is complete and
//! reset as soon as none of its data is live. Under the basic schemes the store can
//! allocate as the authors' ZenFS does instead ([`super::zenfs_sharing`]: WAL files
//! get zones of their own and may join zones L0 SSTs left open; closed zones stay
//! active until finished). Reads go to the device holding the extent. Which device a
//! new zone comes from is a [`PlacementPolicy`].
//!
//! Devices are the zoned models of layer 3 driven through their command interface,
//! so zone rules (write pointer, active-zone limits) and device timing are real.
//! A per-device zone budget restricts the zones the store may use (the paper limits
//! the SSD to 20 zones).

use super::allocation::RelocationStats;
use super::migration::MigrationState;
use super::placement::PlacementPolicy;
use super::ssd_cache::SsdCache;
use super::view::{DeviceView, SstView, StoreView};
use crate::lsm::{FileKind, FileNo, Hint, LsmStorage, StorageError};
use crate::search::partition_point_from;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use zonelab_devices::{Command, Device, Payload, ZoneAction};
use zonelab_engine::Ns;

#[derive(Debug, Clone)]
pub(super) struct Zone {
    pub(super) start_lba: u64,
    pub(super) capacity_bytes: u64,
    /// Bytes up to the write pointer (block-aligned).
    pub(super) written_bytes: u64,
    /// Bytes of live extents in the zone (block-aligned).
    pub(super) live_bytes: u64,
    /// Open for appends (implicitly open on the device, counts as active).
    pub(super) open: bool,
    /// Holds cached blocks (HHZS §3.5), not file extents.
    pub(super) cache: bool,
    /// Held by RocksDB's metadata files for the whole run, not by file extents
    /// ([`super::metadata_zones`]).
    pub(super) metadata_files: bool,
    /// The class of the file that opened the zone while it was empty: ZenFS's
    /// zone lifetime, type and level ([`super::zenfs_sharing`]).
    pub(super) opener: Option<FileClass>,
    /// ZenFS sharing: active on the device with no file appending (a file closed
    /// in it before it was full); files of a longer-lived class may join it.
    pub(super) resting: bool,
    /// Files of two classes were written to it (ZenFS sharing).
    pub(super) shared: bool,
    /// When the first file with data in it was deleted (ZenFS sharing statistics).
    pub(super) first_delete_ns: Option<Ns>,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Extent {
    pub(super) device: usize,
    pub(super) zone: u32,
    pub(super) zone_offset: u64,
    pub(super) file_offset: u64,
    pub(super) len: u64,
    /// Bytes the extent occupies in its zone (its length rounded up to blocks).
    pub(super) physical: u64,
}

#[derive(Debug, Clone)]
pub(super) struct StoredFile {
    pub(super) kind: FileKind,
    /// In file order (`file_offset` non-decreasing). Change them only through
    /// [`StoredFile::push_extent`] / [`StoredFile::set_extents`], which keep
    /// `device_bytes` in step.
    pub(super) extents: Vec<Extent>,
    /// Extent bytes per device: answers [`ZoneFileStore::device_of`] without a
    /// walk over the extents (an SST has thousands; the policy's view asks for
    /// every SST once a simulated second).
    pub(super) device_bytes: Vec<u64>,
    pub(super) size: u64,
    /// (device, zone) an exclusive file appends to.
    pub(super) open_zone: Option<(usize, u32)>,
    pub(super) created_ns: Ns,
    /// Selected by a running compaction.
    pub(super) compacting: bool,
    /// Consumed by a finished compaction (its hint (iii)) but not deleted yet:
    /// RocksDB keeps it while a job that started before pins it. It belongs to no
    /// level any more (§3.4: selected SSTs "will be deleted at the end of
    /// compaction"), yet holds its zones.
    pub(super) obsolete: bool,
    /// Still being appended to (not closed).
    pub(super) writing: bool,
    /// A migration copy must land on this device.
    pub(super) forced_device: Option<usize>,
    /// The device of an SST, fixed when its first zone is assigned (HHZS §3.2:
    /// an SST gets one SSD zone or several HDD zones; migration moves it whole).
    pub(super) device: Option<usize>,
    /// Empty zones of `device` assigned to the SST for the bytes it will still
    /// write (off the free list, not yet open).
    pub(super) reserved: VecDeque<u32>,
    /// The file's size as the LSM-tree announced it (0: unknown).
    pub(super) expected_bytes: u64,
    /// Distinct zones its extents occupy (an exclusive file's extents are
    /// contiguous per zone, so counting changes of zone is exact for SSTs).
    pub(super) zone_count: u32,
    /// Moved to another level by RocksDB without a rewrite (a trivial move):
    /// H2Zone's `ZoneFile::UpdateLevel` sets `fh_.is_trivial_moved`
    /// (`src/zenfs/fs/io_compaction_hint.cc`, line 58), and `ZenFS::ComparePriority`
    /// ranks such an SST below an unmoved one of its level.
    pub(super) trivially_moved: bool,
}

impl StoredFile {
    pub(super) fn push_extent(&mut self, e: Extent) {
        if self.device_bytes.len() <= e.device {
            self.device_bytes.resize(e.device + 1, 0);
        }
        self.device_bytes[e.device] += e.len;
        if self
            .extents
            .last()
            .is_none_or(|l| (l.device, l.zone) != (e.device, e.zone))
        {
            self.zone_count += 1;
        }
        self.extents.push(e);
    }

    /// A new file of `kind` created at `now`.
    pub(super) fn new(kind: FileKind, devices: usize, now: Ns, forced: Option<usize>) -> Self {
        StoredFile {
            kind,
            extents: Vec::new(),
            device_bytes: vec![0; devices],
            size: 0,
            open_zone: None,
            created_ns: now,
            compacting: false,
            obsolete: false,
            writing: true,
            forced_device: forced,
            device: None,
            reserved: VecDeque::new(),
            expected_bytes: 0,
            zone_count: 0,
            trivially_moved: false,
        }
    }

    /// Zones the file holds: those with its extents and those reserved for it.
    pub(super) fn zones_held(&self) -> u32 {
        self.zone_count + self.reserved.len() as u32
    }

    /// Replaces the extents (a migration's switch); returns the old ones.
    pub(super) fn set_extents(&mut self, extents: Vec<Extent>) -> Vec<Extent> {
        let old = std::mem::take(&mut self.extents);
        self.device_bytes.clear();
        self.zone_count = 0;
        for e in extents {
            self.push_extent(e);
        }
        if let (FileKind::Sst { .. }, Some(e)) = (self.kind, self.extents.first()) {
            self.device = Some(e.device);
        }
        old
    }

    /// The device holding most of the file's bytes (a tie goes to the lower,
    /// faster device; an empty file counts as on device 0).
    pub(super) fn home_device(&self) -> usize {
        let mut best = (0u64, 0usize);
        for (d, &bytes) in self.device_bytes.iter().enumerate() {
            if bytes > best.0 {
                best = (bytes, d);
            }
        }
        best.1
    }

    /// Index of the first extent that can overlap file bytes at or after
    /// `offset`. Extent j covers `[file_offset, file_offset + physical)` with
    /// `physical < len + block` and the next extent starting at or after
    /// `file_offset + len - block` (a rewritten tail block at most), so an extent
    /// whose successor starts `2 × block` or more before `offset` ends before it.
    pub(super) fn first_extent_near(&self, offset: u64, max_block_bytes: u64) -> usize {
        let margin = 2 * max_block_bytes;
        // Extents are mostly one write chunk each, so the offset's share of the
        // file predicts the index; the search's answer does not depend on it.
        let guess = (offset as u128 * self.extents.len() as u128 / self.size.max(1) as u128)
            .min(self.extents.len() as u128) as usize;
        partition_point_from(&self.extents, guess, |e| e.file_offset + margin <= offset)
            .saturating_sub(1)
    }
}

/// A device of the store (cloned through [`Device::boxed_clone`]).
pub(super) struct StoreDevice {
    pub(super) name: String,
    pub(super) device: Box<dyn Device>,
    pub(super) block_bytes: u64,
    pub(super) zones: Vec<Zone>,
    pub(super) free: VecDeque<u32>,
    pub(super) max_active: u32,
    pub(super) active: u32,
    /// The zone WAL files append to.
    pub(super) wal_zone: Option<u32>,
    /// Zones `0..reserve` form the WAL/cache pool (HHZS §3.2); `reserve_free`
    /// lists its empty ones.
    pub(super) reserve: u32,
    pub(super) reserve_free: VecDeque<u32>,
    /// Zones holding WAL data (HHZS's storage demand of L0 counts them wherever
    /// the WAL landed, §3.3 step 1).
    pub(super) wal_zones: BTreeSet<u32>,
}

/// Per-device traffic and space, as results report them.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct DeviceTraffic {
    pub name: String,
    pub zones_usable: u32,
    pub zone_capacity_bytes: u64,
    pub written_bytes: u64,
    pub read_bytes: u64,
    pub reads: u64,
    /// Reads under 64 KiB: the data-block reads of point lookups and scans (not
    /// compaction readahead or table opening).
    pub point_reads: u64,
    pub zone_resets: u64,
    pub zone_finishes: u64,
    /// Bytes migration wrote to this device.
    pub migrated_in_bytes: u64,
    pub live_bytes: u64,
    pub zones_in_use: u32,
}

/// Traffic class of a file: the WAL, or the level of an SST.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum FileClass {
    Wal,
    Level(u32),
}

impl From<FileKind> for FileClass {
    fn from(k: FileKind) -> Self {
        match k {
            FileKind::Wal => FileClass::Wal,
            FileKind::Sst { level } => FileClass::Level(level),
        }
    }
}

/// A device of the store: a zoned device model and how many of its sequential
/// zones the store may use (`None`: all).
pub struct StoreDeviceSpec {
    pub device: Box<dyn Device>,
    pub zone_budget: Option<u32>,
}

/// Files in zones across zoned devices.
pub struct ZoneFileStore {
    pub(super) devices: Vec<StoreDevice>,
    pub(super) files: BTreeMap<FileNo, StoredFile>,
    pub(super) policy: Box<dyn PlacementPolicy>,
    /// Bytes written per (class, device).
    pub(super) written: BTreeMap<FileClass, Vec<u64>>,
    /// Data reads per (file) and device, for read-popularity studies.
    pub(super) file_reads: BTreeMap<FileNo, u64>,
    pub(super) traffic: Vec<DeviceTraffic>,
    occupancy_samples: Option<OccupancySamples>,
    pub(super) cache: Option<SsdCache>,
    pub(super) migration: MigrationState,
    /// Last time the policy was asked to tick / plan (about once a second).
    pub(super) next_policy_tick_ns: Ns,
    pub(super) tick_baseline: (Ns, u64, u64),
    /// Real bytes (emulation): the unaligned tails of files being written.
    /// `None` in simulation, which moves sizes only.
    pub(super) data: Option<super::data_path::DataState>,
    /// The metadata journal (emulation with persistence), if any.
    pub(super) journal: Option<super::journal::Journal>,
    /// SSTs copied whole to another device because theirs ran out of zones.
    pub(super) relocations: RelocationStats,
    /// WAL bytes written outside the WAL/cache pool while it exists (§3.2 wants
    /// none).
    pub(super) wal_outside_pool_bytes: u64,
    /// New SSTs per level by where they went and why.
    pub(super) placement_counts: BTreeMap<u32, super::allocation::PlacementCounts>,
    /// The SSTs each running compaction selected (compaction hint (i)); they
    /// become obsolete when its hint (iii) says it finished.
    pub(super) compaction_inputs: BTreeMap<u64, Vec<FileNo>>,
    /// ZenFS's zone allocation for the basic schemes (`None`: the store's own).
    pub(super) zenfs: Option<super::zenfs_sharing::ZenfsSharing>,
    pub(super) zenfs_stats: super::zenfs_sharing::ZenfsSharingStats,
    /// Foreground point reads: latency per device, counts per (device, level).
    pub(super) read_stats: super::read_stats::ReadStats,
}

/// Live bytes per (class, device), sampled at a fixed virtual-time interval.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct OccupancySamples {
    pub interval_ns: Ns,
    pub next_ns: Ns,
    /// (time, live bytes per class and device).
    pub samples: Vec<(Ns, BTreeMap<FileClass, Vec<u64>>)>,
}

fn dev_err(dev: &str, what: &str, e: impl std::fmt::Display) -> StorageError {
    StorageError(format!("{dev}: {what}: {e}"))
}

impl ZoneFileStore {
    /// A store over `devices` (fastest first); every device must be zoned.
    pub fn new(
        devices: Vec<StoreDeviceSpec>,
        policy: Box<dyn PlacementPolicy>,
    ) -> Result<Self, StorageError> {
        if devices.is_empty() {
            return Err(StorageError(
                "the zone file store needs at least one device".into(),
            ));
        }
        let mut out = Vec::new();
        let mut traffic = Vec::new();
        for spec in devices {
            let info = spec.device.info().clone();
            let Some(z) = info.zoned.clone() else {
                return Err(StorageError(format!(
                    "device {} is not zoned; the zone file store needs zoned devices",
                    info.name
                )));
            };
            let block = info.block_bytes as u64;
            let sequential = z.zone_count - z.conventional_zones;
            let usable = match spec.zone_budget {
                Some(0) => {
                    return Err(StorageError(format!(
                        "zone budget of {} is 0; give at least 1 zone",
                        info.name
                    )))
                }
                Some(b) if b > sequential => {
                    return Err(StorageError(format!(
                        "zone budget {b} of {} exceeds its {sequential} sequential zones",
                        info.name
                    )))
                }
                Some(b) => b,
                None => sequential,
            };
            let zones: Vec<Zone> = (0..usable)
                .map(|i| Zone {
                    start_lba: (z.conventional_zones + i) as u64 * z.zone_size_blocks,
                    capacity_bytes: z.zone_capacity_blocks * block,
                    written_bytes: 0,
                    live_bytes: 0,
                    open: false,
                    cache: false,
                    metadata_files: false,
                    opener: None,
                    resting: false,
                    shared: false,
                    first_delete_ns: None,
                })
                .collect();
            traffic.push(DeviceTraffic {
                name: info.name.clone(),
                zones_usable: usable,
                zone_capacity_bytes: z.zone_capacity_blocks * block,
                ..Default::default()
            });
            out.push(StoreDevice {
                name: info.name.clone(),
                device: spec.device,
                block_bytes: block,
                free: (0..usable).collect(),
                zones,
                max_active: if z.max_active_zones == 0 {
                    u32::MAX
                } else {
                    z.max_active_zones
                },
                active: 0,
                wal_zone: None,
                reserve: 0,
                reserve_free: VecDeque::new(),
                wal_zones: BTreeSet::new(),
            });
        }
        Ok(Self {
            devices: out,
            files: BTreeMap::new(),
            policy,
            written: BTreeMap::new(),
            file_reads: BTreeMap::new(),
            traffic,
            occupancy_samples: None,
            cache: None,
            migration: MigrationState::default(),
            next_policy_tick_ns: 0,
            tick_baseline: (0, 0, 0),
            data: None,
            journal: None,
            relocations: RelocationStats::default(),
            wal_outside_pool_bytes: 0,
            placement_counts: BTreeMap::new(),
            compaction_inputs: BTreeMap::new(),
            zenfs: None,
            zenfs_stats: Default::default(),
            read_stats: Default::default(),
        })
    }

    /// Sets HHZS's zone organisation on the SSD (device 0): `wal_cache_zones` zones
    /// shared by WAL files and, with `caching`, cached blocks (§3.2, §3.5); and the
    /// migration rate (§3.4; 0 disables migration). Call before any file exists.
    pub fn configure_hhzs(
        &mut self,
        wal_cache_zones: u32,
        caching: bool,
        migration_bytes_per_s: u64,
    ) -> Result<(), StorageError> {
        if !self.files.is_empty() {
            return Err(StorageError(
                "configure the store before creating files".into(),
            ));
        }
        let dev = &mut self.devices[0];
        if wal_cache_zones as usize >= dev.zones.len() {
            return Err(StorageError(format!(
                "{wal_cache_zones} WAL/cache zones leave no SST zone of the {} usable on {}",
                dev.zones.len(),
                dev.name
            )));
        }
        dev.reserve = wal_cache_zones;
        dev.free = (wal_cache_zones..dev.zones.len() as u32).collect();
        dev.reserve_free = (0..wal_cache_zones).collect();
        self.cache = caching.then(SsdCache::default);
        self.migration.rate_bytes_per_s = migration_bytes_per_s;
        Ok(())
    }

    /// The file system mounted again with its files (a new process): what HHZS
    /// keeps only in memory is gone — the SSD cache's mapping (so its zones are
    /// reset, §3.5), a migration in progress, which SSTs running compactions hold,
    /// the policy's storage demands, and the SSTs' read counts (§3.4; read rates
    /// count from the mount). Files, zones and devices stay.
    pub fn remount(&mut self, now: Ns) -> Result<(), StorageError> {
        if let Some(task) = self.migration.task.take() {
            self.migration.stats.cancelled += 1;
            self.delete_internal(now, task.shadow)?;
        }
        let zones: Vec<u32> = self
            .cache
            .as_ref()
            .map(|c| c.fifo.iter().map(|z| z.0).collect())
            .unwrap_or_default();
        for _ in &zones {
            self.evict_oldest_cache_zone(now)?;
        }
        // Opening the database deleted every file no Version references, so
        // what is left is live; no compaction runs.
        for f in self.files.values_mut() {
            f.compacting = false;
            f.obsolete = false;
            f.created_ns = now;
        }
        self.compaction_inputs.clear();
        self.file_reads.clear();
        self.policy.remount();
        let hdd = self.traffic.get(1).map_or(0, |t| t.point_reads);
        self.tick_baseline = (now, hdd, self.ssd_io_bytes());
        self.next_policy_tick_ns = now;
        self.set_mounted_at_ns(now);
        Ok(())
    }

    /// WAL bytes written outside the WAL/cache pool (0 without a pool).
    pub fn wal_outside_pool_bytes(&self) -> u64 {
        self.wal_outside_pool_bytes
    }

    /// RocksDB's `max_total_wal_size` for the WAL/cache pool: the paper's
    /// "pre-configured maximum size of the WAL", of which the pool is that size
    /// divided by the SSD zone capacity (§3.2), set to 2.1 GiB = 2 zones (§4.1) —
    /// so P × C for P pool zones of capacity C. (Issue 14 first used (P − 1) × C,
    /// the largest live WAL that never touches a third zone of the shared WAL
    /// stream; that forced flushes the paper's set-up does not have — the
    /// authors' YCSB binding leaves RocksDB's default, H2Zone
    /// `RocksDBClient.initRocksDB` — 109 of them in P's paper-scale load,
    /// docs/hhzs.md "The WAL cap".) A live WAL run that starts mid-zone can still
    /// touch a zone outside the pool; it counts in L0's demand and in
    /// [`ZoneFileStore::wal_outside_pool_bytes`]. `None` without a pool.
    pub fn wal_limit_for_pool_bytes(&self) -> Option<u64> {
        let dev = &self.devices[0];
        let cap = dev.zones.first()?.capacity_bytes;
        (dev.reserve >= 1).then(|| dev.reserve as u64 * cap)
    }

    /// A copy of the store in its current state — devices, files, zones, cache,
    /// migration and policy — so a loaded system can run several workloads.
    pub fn try_clone(&self) -> Result<Self, StorageError> {
        let mut devices = Vec::new();
        for d in &self.devices {
            let device = d
                .device
                .boxed_clone()
                .ok_or_else(|| StorageError(format!("device {} cannot be snapshotted", d.name)))?;
            devices.push(StoreDevice {
                name: d.name.clone(),
                device,
                block_bytes: d.block_bytes,
                zones: d.zones.clone(),
                free: d.free.clone(),
                max_active: d.max_active,
                active: d.active,
                wal_zone: d.wal_zone,
                reserve: d.reserve,
                reserve_free: d.reserve_free.clone(),
                wal_zones: d.wal_zones.clone(),
            });
        }
        Ok(Self {
            devices,
            files: self.files.clone(),
            policy: self.policy.boxed_clone(),
            written: self.written.clone(),
            file_reads: self.file_reads.clone(),
            traffic: self.traffic.clone(),
            occupancy_samples: self.occupancy_samples.clone(),
            cache: self.cache.clone(),
            migration: self.migration.clone(),
            next_policy_tick_ns: self.next_policy_tick_ns,
            tick_baseline: self.tick_baseline,
            data: self.data.clone(),
            journal: None,
            relocations: self.relocations,
            wal_outside_pool_bytes: self.wal_outside_pool_bytes,
            placement_counts: self.placement_counts.clone(),
            compaction_inputs: self.compaction_inputs.clone(),
            zenfs: self.zenfs,
            zenfs_stats: self.zenfs_stats,
            read_stats: self.read_stats.clone(),
        })
    }

    /// The policies' view at `now` (without the rate fields, which `tick` fills).
    pub fn view(&self, now: Ns) -> StoreView {
        let ssts = self
            .files
            .iter()
            .filter_map(|(&no, f)| match f.kind {
                FileKind::Sst { level } if f.forced_device.is_none() => Some(SstView {
                    file: no,
                    level,
                    device: f.device.unwrap_or_else(|| f.home_device()),
                    zones: match f.device {
                        Some(0) => f.zones_held(),
                        _ => self.zones_needed(0, f.size.max(f.expected_bytes)),
                    },
                    reads: self.file_reads.get(&no).copied().unwrap_or(0),
                    age_ns: now.saturating_sub(f.created_ns),
                    compacting: f.compacting,
                    obsolete: f.obsolete,
                    open: f.writing,
                    trivially_moved: f.trivially_moved,
                }),
                _ => None,
            })
            .collect();
        let wal_zones = self.devices.iter().map(|d| d.wal_zones.len() as u32).sum();
        StoreView {
            now,
            devices: self.views(),
            ssts,
            wal_zones,
            hdd_point_reads_per_s: 0.0,
            ssd_io_bytes_per_s: 0.0,
            capacity_migration_held: false,
        }
    }

    /// Records the occupancy per level and device every `interval_ns` of virtual
    /// time (checked whenever the store is called).
    pub fn sample_occupancy_every(&mut self, interval_ns: Ns) {
        self.occupancy_samples = Some(OccupancySamples {
            interval_ns: interval_ns.max(1),
            ..Default::default()
        });
    }

    pub fn occupancy_samples(&self) -> Option<&OccupancySamples> {
        self.occupancy_samples.as_ref()
    }

    fn maybe_sample(&mut self, now: Ns) {
        let due = match &self.occupancy_samples {
            Some(s) => now >= s.next_ns,
            None => false,
        };
        if due {
            let occ = self.occupancy();
            let s = self.occupancy_samples.as_mut().expect("sampling");
            s.samples.push((now, occ));
            s.next_ns = (now / s.interval_ns + 1) * s.interval_ns;
        }
    }

    /// Replaces the placement policy (ablations on a forked store; call
    /// [`ZoneFileStore::remount`] or reopen the database after it).
    pub fn set_policy(&mut self, policy: Box<dyn PlacementPolicy>) {
        self.policy = policy;
    }

    /// The policy's state at `now` in a line (diagnostics).
    pub fn describe_policy(&self, now: Ns) -> String {
        self.policy.describe(&self.view(now))
    }

    pub fn policy_name(&self) -> String {
        self.policy.name()
    }

    fn views(&self) -> Vec<DeviceView> {
        self.devices
            .iter()
            .enumerate()
            .map(|(i, d)| DeviceView {
                free_zones: if self.can_open(i) {
                    d.free.len() as u32
                } else {
                    0
                },
                empty_zones: d.free.len() as u32,
                sst_zones: d.zones.len() as u32 - d.reserve,
                zone_capacity_bytes: d.zones.first().map_or(0, |z| z.capacity_bytes),
            })
            .collect()
    }

    /// Takes an empty zone from the WAL/cache pool of the SSD, evicting the oldest
    /// cache zone if the pool is full of cached blocks.
    pub(super) fn take_reserve_zone(&mut self, now: Ns) -> Result<Option<u32>, StorageError> {
        if self.devices[0].reserve_free.is_empty() {
            self.evict_oldest_cache_zone(now)?;
        }
        let dev = &mut self.devices[0];
        if dev.active >= dev.max_active {
            return Ok(None);
        }
        Ok(dev.reserve_free.pop_front().inspect(|&z| {
            dev.zones[z as usize].open = true;
            dev.active += 1;
        }))
    }

    /// Submits `cmd` with `payload` (emulation) and returns its completion time.
    pub(super) fn submit_payload(
        &mut self,
        d: usize,
        now: Ns,
        cmd: Command,
        payload: Payload<'_>,
    ) -> Result<Ns, StorageError> {
        let dev = &mut self.devices[d];
        let c = dev
            .device
            .submit(now, &cmd, payload)
            .map_err(|e| dev_err(&dev.name, cmd.name(), e))?;
        if let Some(j) = self.journal.as_mut() {
            j.note_write(d, &cmd);
        }
        Ok(c.done_ns)
    }

    /// Writes `piece` with `cmd`, zero-padded to `physical` bytes if shorter.
    pub(super) fn submit_write(
        &mut self,
        d: usize,
        now: Ns,
        cmd: Command,
        piece: &[u8],
        physical: u64,
    ) -> Result<Ns, StorageError> {
        if piece.len() as u64 == physical {
            return self.submit_payload(d, now, cmd, Payload::Write(piece));
        }
        let mut padded = vec![0u8; physical as usize];
        padded[..piece.len()].copy_from_slice(piece);
        self.submit_payload(d, now, cmd, Payload::Write(&padded))
    }

    pub(super) fn submit(&mut self, d: usize, now: Ns, cmd: Command) -> Result<Ns, StorageError> {
        self.submit_payload(d, now, cmd, Payload::SizeOnly)
    }

    /// Ends appends to a zone: finish it on the device unless it is full.
    pub(super) fn close_zone(&mut self, d: usize, z: u32, now: Ns) -> Result<Ns, StorageError> {
        let zone = &self.devices[d].zones[z as usize];
        if !zone.open {
            return Ok(now);
        }
        let full = zone.written_bytes >= zone.capacity_bytes;
        let written = zone.written_bytes;
        let mut done = now;
        if !full && written > 0 && self.zenfs_keeps_active(d, z) {
            // ZenFS: the zone stays active for other files (`Zone::CloseWR`).
            done = self.rest_zone(d, z, now)?;
            if self.devices[d].zones[z as usize].live_bytes == 0 {
                self.reset_zone(d, z, now)?;
            }
            return Ok(done);
        }
        if !full && written > 0 {
            done = self.zone_command(d, z, ZoneAction::Finish, now)?;
        }
        let dev = &mut self.devices[d];
        dev.zones[z as usize].open = false;
        dev.active -= 1;
        if dev.zones[z as usize].live_bytes == 0 {
            self.reset_zone(d, z, now)?;
        }
        Ok(done)
    }

    /// Submits a zone `action` for zone `z` of device `d` (a finish is counted).
    pub(super) fn zone_command(
        &mut self,
        d: usize,
        z: u32,
        action: ZoneAction,
        now: Ns,
    ) -> Result<Ns, StorageError> {
        let zone_lba = self.devices[d].zones[z as usize].start_lba;
        let done = self.submit(d, now, Command::Zone { action, zone_lba })?;
        if action == ZoneAction::Finish {
            self.traffic[d].zone_finishes += 1;
        }
        Ok(done)
    }

    pub(super) fn reset_zone(&mut self, d: usize, z: u32, now: Ns) -> Result<(), StorageError> {
        // With a journal, the change that freed the zone (a delete, a migration's
        // switch) is made durable before the zone can be reused.
        if self.journal_has_pending() && !self.devices[d].zones[z as usize].cache {
            self.journal_commit(now)?;
        }
        self.zenfs_note_reset(d, z, now);
        let lba = self.devices[d].zones[z as usize].start_lba;
        if self.devices[d].zones[z as usize].written_bytes > 0 {
            self.submit(
                d,
                now,
                Command::Zone {
                    action: ZoneAction::Reset,
                    zone_lba: lba,
                },
            )?;
            self.traffic[d].zone_resets += 1;
        }
        let dev = &mut self.devices[d];
        dev.wal_zones.remove(&z);
        let zone = &mut dev.zones[z as usize];
        if zone.resting {
            // An active zone without files (ZenFS: "not empty but not used, reset").
            zone.resting = false;
            dev.active -= 1;
        }
        let zone = &mut dev.zones[z as usize];
        zone.written_bytes = 0;
        zone.live_bytes = 0;
        zone.cache = false;
        zone.opener = None;
        zone.shared = false;
        zone.first_delete_ns = None;
        // Reused zones go to the back: wear spreads and reuse order is deterministic.
        if z < dev.reserve {
            dev.reserve_free.push_back(z);
        } else {
            dev.free.push_back(z);
        }
        Ok(())
    }

    /// Live and written bytes per device (in zones), and zones in use.
    pub fn traffic(&self) -> Vec<DeviceTraffic> {
        let mut t = self.traffic.clone();
        for (i, d) in self.devices.iter().enumerate() {
            t[i].live_bytes = d.zones.iter().map(|z| z.live_bytes).sum();
            t[i].zones_in_use =
                d.zones.len() as u32 - d.free.len() as u32 - d.reserve_free.len() as u32;
        }
        t
    }

    /// Bytes written per file class and device.
    pub fn written_by_class(&self) -> &BTreeMap<FileClass, Vec<u64>> {
        &self.written
    }

    /// Live bytes per (class, device) now — occupancy per level per device.
    pub fn occupancy(&self) -> BTreeMap<FileClass, Vec<u64>> {
        let mut out: BTreeMap<FileClass, Vec<u64>> = BTreeMap::new();
        for f in self.files.values() {
            let row = out
                .entry(f.kind.into())
                .or_insert_with(|| vec![0; self.devices.len()]);
            for e in &f.extents {
                row[e.device] += e.physical;
            }
        }
        out
    }

    /// The device holding most of `file`'s bytes, if it exists.
    pub fn device_of(&self, file: FileNo) -> Option<usize> {
        self.files.get(&file).map(StoredFile::home_device)
    }

    /// Data reads each file received.
    pub fn file_reads(&self) -> &BTreeMap<FileNo, u64> {
        &self.file_reads
    }

    /// Bytes read from and written to the SSD so far (AUTO's throughput, §4.1).
    pub(super) fn ssd_io_bytes(&self) -> u64 {
        self.traffic[0].written_bytes + self.traffic[0].read_bytes
    }

    /// Foreground point-read latencies and counts ([`super::read_stats`]).
    pub fn read_stats(&self) -> &super::read_stats::ReadStats {
        &self.read_stats
    }

    /// Starts the point-read statistics afresh (e.g. after a load).
    pub fn reset_read_stats(&mut self) {
        self.read_stats = Default::default();
    }

    /// Device statistics of device `d` at `elapsed_ns`.
    pub fn device_stats(&self, d: usize, elapsed_ns: Ns) -> zonelab_devices::DeviceStats {
        self.devices[d].device.stats(elapsed_ns)
    }

    /// Sets the spindle phase of every rotating device of the store
    /// (`Device::set_spindle_phase_ns`); returns how many have a spindle.
    pub fn set_spindle_phases_ns(&mut self, phase_ns: Ns) -> usize {
        self.devices
            .iter_mut()
            .map(|d| d.device.set_spindle_phase_ns(phase_ns))
            .filter(|&spins| spins)
            .count()
    }

    pub fn device_count(&self) -> usize {
        self.devices.len()
    }

    /// Checks the store's invariants: extents never overlap and are in file order,
    /// live bytes and per-device byte counts match the extents, zones on the free
    /// list are empty, every SST lives on one device (with the zones reserved for
    /// it, which are empty and on no free list), and the WAL zone marks match the
    /// WAL's extents. Returns the first violation.
    pub fn check(&self) -> Result<(), String> {
        self.check_ssts_on_one_device()?;
        let mut live: Vec<Vec<u64>> = self
            .devices
            .iter()
            .map(|d| vec![0; d.zones.len()])
            .collect();
        let mut spans: Vec<(usize, u32, u64, u64)> = Vec::new();
        for (no, f) in &self.files {
            let mut per_device = vec![0u64; self.devices.len()];
            for e in &f.extents {
                per_device[e.device] += e.len;
            }
            if f.extents
                .windows(2)
                .any(|w| w[0].file_offset > w[1].file_offset)
            {
                return Err(format!("file {no}: extents out of file order"));
            }
            let counted = |d: usize| f.device_bytes.get(d).copied().unwrap_or(0);
            if per_device.iter().enumerate().any(|(d, &b)| counted(d) != b) {
                return Err(format!(
                    "file {no}: per-device byte counts {:?} do not match its extents {per_device:?}",
                    f.device_bytes
                ));
            }
            for e in &f.extents {
                live[e.device][e.zone as usize] += e.physical;
                let z = &self.devices[e.device].zones[e.zone as usize];
                if e.zone_offset + e.physical > z.written_bytes {
                    return Err(format!("file {no}: extent beyond the write pointer"));
                }
                spans.push((e.device, e.zone, e.zone_offset, e.zone_offset + e.physical));
            }
        }
        spans.sort_unstable();
        for w in spans.windows(2) {
            if w[0].0 == w[1].0 && w[0].1 == w[1].1 && w[0].3 > w[1].2 {
                return Err(format!(
                    "extents overlap in zone {} of device {}",
                    w[0].1, w[0].0
                ));
            }
        }
        if let Some(cache) = &self.cache {
            for ((file, offset), b) in cache.map.sorted() {
                if self.device_of(file).is_none_or(|d| d == 0) {
                    return Err(format!(
                        "cache holds block {offset} of SST {file}, which is deleted or on the SSD"
                    ));
                }
                if !self.devices[0].zones[b.zone as usize].cache {
                    return Err(format!("cached block of SST {file} in a non-cache zone"));
                }
            }
        }
        for (d, dev) in self.devices.iter().enumerate() {
            for (z, zone) in dev.zones.iter().enumerate() {
                if zone.metadata_files {
                    if !zone.open || live[d][z] != 0 || zone.live_bytes != dev.block_bytes {
                        return Err(format!(
                            "{}: metadata-file zone {z} is closed or holds file extents",
                            dev.name
                        ));
                    }
                } else if !zone.cache && zone.live_bytes != live[d][z] {
                    return Err(format!("{}: zone {z} live bytes disagree", dev.name));
                }
            }
            for &z in dev.free.iter().chain(dev.reserve_free.iter()) {
                let zone = &dev.zones[z as usize];
                if zone.written_bytes != 0 || zone.live_bytes != 0 || zone.open || zone.resting {
                    return Err(format!("{}: free zone {z} is not empty", dev.name));
                }
            }
            // The pool's empty zones are empty on the device too: WAL files and
            // cached blocks write there without a reset first.
            for &z in &dev.reserve_free {
                if let Some(state) = self.device_zone_state(d, z) {
                    if state != zonelab_devices::zoned::ZoneState::Empty {
                        return Err(format!(
                            "{}: pool zone {z} is free but {state:?} on the device",
                            dev.name
                        ));
                    }
                }
            }
            // Active zones: those a file or the cache appends to, and (ZenFS
            // sharing) resting ones, which hold data, have room and no file open.
            let mut active = 0;
            for (z, zone) in dev.zones.iter().enumerate() {
                if zone.resting
                    && (zone.open
                        || zone.written_bytes == 0
                        || zone.written_bytes >= zone.capacity_bytes
                        || zone.live_bytes == 0)
                {
                    return Err(format!(
                        "{}: resting zone {z} is open, empty, full or without live data",
                        dev.name
                    ));
                }
                active += u32::from(zone.open || zone.resting);
            }
            if active != dev.active {
                return Err(format!(
                    "{}: {active} zones open or resting, {} counted active",
                    dev.name, dev.active
                ));
            }
        }
        Ok(())
    }
}

impl ZoneFileStore {
    /// The device's state of zone `z` of device `d` (None if it cannot report zones).
    fn device_zone_state(&self, d: usize, z: u32) -> Option<zonelab_devices::zoned::ZoneState> {
        let dev = &self.devices[d];
        let size_blocks = dev.device.info().zoned.as_ref()?.zone_size_blocks;
        let index = (dev.zones[z as usize].start_lba / size_blocks) as u32;
        let zones = dev.device.report_zones(index, 1).ok()?;
        zones.first().map(|zd| zd.state)
    }
}

impl LsmStorage for ZoneFileStore {
    fn create(&mut self, now: Ns, file: FileNo, kind: FileKind) -> Result<(), StorageError> {
        self.background(now)?;
        if self.files.contains_key(&file) {
            return Err(StorageError(format!("file {file} already exists")));
        }
        self.insert_file(now, file, kind, None);
        Ok(())
    }

    fn append(&mut self, now: Ns, file: FileNo, bytes: u64) -> Result<Ns, StorageError> {
        self.background(now)?;
        self.append_internal(now, file, bytes, None)
    }

    fn close(&mut self, now: Ns, file: FileNo) -> Result<Ns, StorageError> {
        self.background(now)?;
        self.close_internal(now, file)
    }

    fn read(&mut self, now: Ns, file: FileNo, offset: u64, bytes: u64) -> Result<Ns, StorageError> {
        self.background(now)?;
        let done = self.read_internal(now, file, offset, bytes)?;
        if bytes < 64 * 1024 {
            *self.file_reads.entry(file).or_insert(0) += 1;
            if let Some(d) = self.device_of(file) {
                self.traffic[d].point_reads += 1;
                let kind = self.files[&file].kind;
                let met = self
                    .migration
                    .busy_until_ns
                    .get(d)
                    .is_some_and(|&b| b > now);
                self.read_stats.record_device(d, kind, done - now, met);
            }
        }
        Ok(done)
    }

    fn delete(&mut self, now: Ns, file: FileNo) -> Result<(), StorageError> {
        self.background(now)?;
        self.journal_push_delete(file);
        if let Some(d) = self.data.as_mut() {
            d.tails.remove(&file);
        }
        self.cancel_migration_of(now, file)?;
        if let Some(c) = self.cache.as_mut() {
            c.invalidate_file(file);
        }
        self.delete_internal(now, file)?;
        self.file_reads.remove(&file);
        Ok(())
    }

    fn cached_read(&mut self, now: Ns, file: FileNo, offset: u64, bytes: u64) -> Option<Ns> {
        self.cache_lookup(now, file, offset, bytes)
    }

    fn tier_of(&self, file: FileNo) -> usize {
        self.device_of(file).unwrap_or(0)
    }

    fn reopened(&mut self, now: Ns) {
        // A device error while dropping the cache only leaves zones to be reset
        // later; the files are intact.
        let _ = self.remount(now);
    }

    fn hint(&mut self, now: Ns, hint: &Hint) -> Result<(), StorageError> {
        match hint {
            Hint::TrivialMove { sst, to_level, .. } => {
                if let Some(f) = self.files.get_mut(sst) {
                    f.kind = FileKind::Sst { level: *to_level };
                    f.trivially_moved = true;
                    self.journal_level(*sst);
                }
            }
            Hint::CompactionStarted { job, inputs, .. } => {
                for i in inputs {
                    if let Some(f) = self.files.get_mut(i) {
                        f.compacting = true;
                    }
                }
                self.compaction_inputs.insert(*job, inputs.clone());
            }
            Hint::CompactionFinished { job, outputs, .. } => {
                // A compaction stopped by a close writes no outputs and consumes
                // nothing (`LsmDb::reopen`); a finished one consumed its inputs.
                let inputs = self.compaction_inputs.remove(job).unwrap_or_default();
                if !outputs.is_empty() {
                    for i in inputs {
                        if let Some(f) = self.files.get_mut(&i) {
                            f.obsolete = true;
                        }
                    }
                }
            }
            Hint::FlushStarted {
                sst,
                expected_bytes,
                ..
            }
            | Hint::SstGenerated {
                sst,
                expected_bytes,
                ..
            } => {
                if let Some(f) = self.files.get_mut(sst) {
                    if f.extents.is_empty() {
                        f.expected_bytes = *expected_bytes;
                    }
                }
            }
            Hint::BlockEvicted { sst, offset, bytes } => {
                // No cache zone to take is a normal "not admitted"
                // (`CacheStats::rejected_no_zone`); a device error is an error.
                self.cache_admit(now, *sst, *offset, *bytes)?;
            }
        }
        self.policy.on_hint(now, hint);
        Ok(())
    }
}

impl ZoneFileStore {
    pub(super) fn insert_file(
        &mut self,
        now: Ns,
        file: FileNo,
        kind: FileKind,
        forced: Option<usize>,
    ) {
        self.maybe_sample(now);
        let f = StoredFile::new(kind, self.devices.len(), now, forced);
        self.files.insert(file, f);
    }

    /// Appends `bytes` to `file`. With `data` (emulation), `data.len() == bytes`
    /// and the bytes are written; a piece that does not end on a block boundary
    /// is padded with zeros to the block (its extent's `physical` > `len`).
    pub(super) fn append_internal(
        &mut self,
        now: Ns,
        file: FileNo,
        bytes: u64,
        data: Option<&[u8]>,
    ) -> Result<Ns, StorageError> {
        let kind = self
            .files
            .get(&file)
            .ok_or_else(|| StorageError(format!("append to file {file}, which does not exist")))?
            .kind;
        // Under ZenFS sharing a WAL file has zones of its own, as an SST, and sees
        // the scaled zone capacity (`zenfs_sharing`); else WAL files share a stream.
        let own_zone = matches!(kind, FileKind::Sst { .. }) || self.zenfs.is_some();
        let limit = |s: &Self, d: usize| match (kind, s.zenfs) {
            (FileKind::Wal, Some(_)) => s.zenfs_zone_limit_bytes(d),
            _ => s.devices[d].zones.first().map_or(0, |z| z.capacity_bytes),
        };
        let mut left = bytes;
        let mut done = now;
        while left > 0 {
            // The zone this file appends to: its own, or the WAL stream's.
            let current = match own_zone {
                false => self.wal_zone_with_room(),
                true => self.files[&file].open_zone.filter(|&(d, z)| {
                    let zone = &self.devices[d].zones[z as usize];
                    zone.written_bytes < limit(self, d)
                }),
            };
            let (d, z) = match current {
                Some(dz) => dz,
                None => {
                    if let Some((d, z)) = self.files[&file].open_zone {
                        done = done.max(self.close_zone(d, z, now)?);
                    }
                    let (d, z, ready) = self.allocate_zone(now, file, kind)?;
                    done = done.max(ready);
                    match own_zone {
                        false => self.devices[d].wal_zone = Some(z),
                        true => self.files.get_mut(&file).expect("file").open_zone = Some((d, z)),
                    }
                    (d, z)
                }
            };
            let block = self.devices[d].block_bytes;
            let zone_limit = limit(self, d);
            let zone = &self.devices[d].zones[z as usize];
            let room = zone_limit.min(zone.capacity_bytes) - zone.written_bytes;
            let len = left.min(room);
            let physical = len.div_ceil(block) * block;
            let lba = zone.start_lba + zone.written_bytes / block;
            let zone_offset = zone.written_bytes;
            let cmd = Command::Write {
                lba,
                blocks: (physical / block) as u32,
            };
            let c = match data {
                None => self.submit(d, now, cmd)?,
                Some(all) => {
                    let from = (bytes - left) as usize;
                    let piece = &all[from..from + len as usize];
                    self.submit_write(d, now, cmd, piece, physical)?
                }
            };
            done = done.max(c);
            let zone = &mut self.devices[d].zones[z as usize];
            zone.written_bytes += physical;
            zone.live_bytes += physical;
            let f = self.files.get_mut(&file).expect("file");
            f.push_extent(Extent {
                device: d,
                zone: z,
                zone_offset,
                file_offset: f.size,
                len,
                physical,
            });
            f.size += len;
            if self.journal.is_some() {
                let e = *f.extents.last().expect("extent");
                self.journal_push_extent(file, &e);
            }
            if kind == FileKind::Wal {
                if self.devices[d].zones[z as usize].opener == Some(FileClass::Level(0)) {
                    self.zenfs_stats.wal_bytes_in_l0_zones += physical;
                }
                self.devices[d].wal_zones.insert(z);
                if self.devices[0].reserve > 0 && (d != 0 || z >= self.devices[0].reserve) {
                    self.wal_outside_pool_bytes += physical;
                }
            }
            self.traffic[d].written_bytes += physical;
            self.written
                .entry(kind.into())
                .or_insert_with(|| vec![0; self.devices.len()])[d] += physical;
            left -= len;
            // A full zone is no longer active on the device.
            let zone = &self.devices[d].zones[z as usize];
            if zone.written_bytes >= zone.capacity_bytes {
                let dev = &mut self.devices[d];
                dev.zones[z as usize].open = false;
                dev.active -= 1;
                if dev.wal_zone == Some(z) {
                    dev.wal_zone = None;
                }
                if let Some(f) = self.files.get_mut(&file) {
                    if f.open_zone == Some((d, z)) {
                        f.open_zone = None;
                    }
                }
            }
        }
        Ok(done)
    }
}

impl ZoneFileStore {
    pub(super) fn close_internal(&mut self, now: Ns, file: FileNo) -> Result<Ns, StorageError> {
        let f = self
            .files
            .get_mut(&file)
            .ok_or_else(|| StorageError(format!("close of file {file}, which does not exist")))?;
        f.writing = false;
        let open = f.open_zone.take();
        self.release_reserved(file);
        match open {
            Some((d, z)) => self.close_zone(d, z, now),
            None => Ok(now),
        }
    }

    pub(super) fn read_internal(
        &mut self,
        now: Ns,
        file: FileNo,
        offset: u64,
        bytes: u64,
    ) -> Result<Ns, StorageError> {
        let f = self
            .files
            .get(&file)
            .ok_or_else(|| StorageError(format!("read of file {file}, which does not exist")))?;
        if offset + bytes > f.size.div_ceil(4096) * 4096 || bytes == 0 {
            return Err(StorageError(format!(
                "read of file {file} at {offset}+{bytes} outside its {} bytes",
                f.size
            )));
        }
        let end = offset + bytes;
        let mut pieces: Vec<(usize, u64, u32)> = Vec::new();
        let first = f.first_extent_near(offset, self.max_block_bytes());
        for e in &f.extents[first..] {
            let (s, t) = (e.file_offset, e.file_offset + e.physical);
            if s >= end {
                break;
            }
            if t <= offset {
                continue;
            }
            let lo = offset.max(s) - s + e.zone_offset;
            let hi = end.min(t) - s + e.zone_offset;
            let dev = &self.devices[e.device];
            let block = dev.block_bytes;
            let zone = &dev.zones[e.zone as usize];
            let lba = zone.start_lba + lo / block;
            let blocks = (hi.div_ceil(block) - lo / block) as u32;
            pieces.push((e.device, lba, blocks));
        }
        let mut done = now;
        for (d, lba, blocks) in pieces {
            done = done.max(self.submit(d, now, Command::Read { lba, blocks })?);
            self.traffic[d].read_bytes += blocks as u64 * self.devices[d].block_bytes;
            self.traffic[d].reads += 1;
        }
        Ok(done)
    }

    /// The largest block size of the store's devices.
    pub(super) fn max_block_bytes(&self) -> u64 {
        self.devices
            .iter()
            .map(|d| d.block_bytes)
            .max()
            .unwrap_or(1)
    }

    pub(super) fn delete_internal(&mut self, now: Ns, file: FileNo) -> Result<(), StorageError> {
        self.maybe_sample(now);
        self.release_reserved(file);
        let f = self
            .files
            .remove(&file)
            .ok_or_else(|| StorageError(format!("delete of file {file}, which does not exist")))?;
        if let Some((d, z)) = f.open_zone {
            self.close_zone(d, z, now)?;
        }
        for e in f.extents {
            let zone = &mut self.devices[e.device].zones[e.zone as usize];
            zone.live_bytes -= e.physical;
            zone.first_delete_ns.get_or_insert(now);
            if zone.live_bytes == 0 && !zone.open && zone.written_bytes > 0 {
                self.reset_zone(e.device, e.zone, now)?;
            }
        }
        Ok(())
    }
}

impl ZoneFileStore {
    fn wal_zone_with_room(&self) -> Option<(usize, u32)> {
        self.devices.iter().enumerate().find_map(|(d, dev)| {
            let z = dev.wal_zone?;
            let zone = &dev.zones[z as usize];
            (zone.written_bytes < zone.capacity_bytes).then_some((d, z))
        })
    }
}
