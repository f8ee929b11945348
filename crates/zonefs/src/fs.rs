//! [`ZoneFs`]: the HHZS zone file store (`zonelab_systems::hhzs`) with real bytes,
//! named files, a metadata journal and crash recovery, run in real time — the Rust
//! side of libzonelab's `zl_fs_*` calls (issue 9 parts 2–3).
//!
//! One mutex guards the store. Each call takes the virtual `now` from the wall
//! clock ([`Clock`], time dilation as in emulation), runs the store operation,
//! releases the lock, then waits ([`Pacer`]) until the operation's modelled
//! completion time, so threads overlap their waits as they would on the devices.
//!
//! Files are named (RocksDB's base names); names map to the store's file numbers
//! here and are journalled with the file. Durability: see [`ZoneFs::sync`].

use crate::clock::Clock;
use crate::config::FsConfig;
use crate::devices::open_devices;
use crate::error::{FsError, FsErrorKind};
use crate::hints::HintCounters;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use zonelab_devices::Device;
use zonelab_emulation::Pacer;
use zonelab_engine::time::MIB;
use zonelab_engine::Ns;
use zonelab_systems::hhzs::recovery::RecoveryReport;
use zonelab_systems::hhzs::{
    h2zone_daemon_times_ns, PlacementPolicy, StoreDeviceSpec, ZoneFileStore,
};
use zonelab_systems::lsm::{FileKind, FileNo, LsmStorage};

/// File kinds of the C API.
pub const KIND_WAL: i32 = 1;
pub const KIND_SST: i32 = 2;
/// Highest SST level accepted (RocksDB's default `num_levels` is 7).
pub const MAX_LEVEL: i32 = 63;

/// The store, movable between threads.
pub(crate) struct SendStore(pub(crate) ZoneFileStore);

// SAFETY: the store owns boxed devices and a policy behind non-`Send` trait
// objects. `ZoneFs::open_config` builds them only from `Send` values (devices
// from `open_send_source`/`BackedDevice`, policies as `Box<dyn PlacementPolicy +
// Send>` from `Scheme::policy`), and nothing else is put into this store.
unsafe impl Send for SendStore {}

/// A named file's C-API metadata.
#[derive(Debug, Clone)]
pub(crate) struct FileMeta {
    pub(crate) name: String,
    pub(crate) level_known: bool,
}

pub(crate) struct Inner {
    pub(crate) store: SendStore,
    pub(crate) names: BTreeMap<String, FileNo>,
    pub(crate) files: BTreeMap<FileNo, FileMeta>,
    pub(crate) next_no: FileNo,
    pub(crate) counters: HintCounters,
    /// Running compactions: job → output level.
    pub(crate) jobs: BTreeMap<u64, u32>,
    last_now: Ns,
    pub(crate) recovery: Option<RecoveryReport>,
}

impl Inner {
    pub(crate) fn file(&self, name: &str) -> Result<FileNo, FsError> {
        self.names
            .get(name)
            .copied()
            .ok_or_else(|| FsError::not_found(name))
    }
}

/// A zone file store opened from a config.
pub struct ZoneFs {
    inner: Mutex<Inner>,
    clock: Clock,
    pacer: Pacer,
    persistent: bool,
}

/// -1 → `None` (unknown), 0..=[`MAX_LEVEL`] → the level, else an error.
pub(crate) fn level_arg(level: i32) -> Result<Option<u32>, FsError> {
    match level {
        -1 => Ok(None),
        0..=MAX_LEVEL => Ok(Some(level as u32)),
        _ => Err(FsError::new(
            FsErrorKind::Invalid,
            format!("level {level} is out of range (allowed: -1 for unknown, 0..={MAX_LEVEL})"),
        )),
    }
}

impl ZoneFs {
    /// Opens (creating or recovering) the store a TOML config file describes.
    pub fn open(config_path: &Path) -> Result<Self, FsError> {
        Self::open_config(&FsConfig::load(config_path)?)
    }

    /// Opens the store `cfg` describes. With `dir`, the devices' backing files are
    /// reopened and the metadata journal recovered.
    pub fn open_config(cfg: &FsConfig) -> Result<Self, FsError> {
        let scheme = cfg
            .scheme()
            .map_err(|e| FsError::new(FsErrorKind::Config, e))?;
        let setup = scheme.store();
        let opened = open_devices(cfg)?;
        let budgets = [Some(cfg.ssd_zone_budget), None];
        let specs = opened
            .devices
            .into_iter()
            .zip(budgets)
            .map(|(d, zone_budget)| StoreDeviceSpec {
                device: d as Box<dyn Device>,
                zone_budget,
            })
            .collect();
        let policy: Box<dyn PlacementPolicy> = scheme.policy();
        let mut store = ZoneFileStore::new(specs, policy)
            .map_err(|e| FsError::new(FsErrorKind::Config, e.0))?;
        if setup.wal_cache_pool || setup.caching || setup.migration {
            let rate = if setup.migration {
                (cfg.migration_rate_mib_s * MIB as f64) as u64
            } else {
                0
            };
            let pool = if setup.wal_cache_pool {
                cfg.wal_cache_zones
            } else {
                0
            };
            store
                .configure_hhzs(pool, setup.caching, rate)
                .map_err(|e| FsError::new(FsErrorKind::Config, e.0))?;
        }
        store.enable_payloads();
        // H2Zone's migration daemon as in the experiments (`HybridSetup::paper`):
        // one planning round per 16 s and no capacity migration in the first
        // 32 s after a mount, both scaled by the zones' scale (SSTs, and so each
        // move at the unscaled rate, are that much shorter).
        let (window_ns, delay_ns) = h2zone_daemon_times_ns(opened.ssd_zone_scale);
        store.set_migration_planning_window_ns(window_ns);
        store.set_capacity_migration_delay_ns(delay_ns);
        let base_ns = opened.restored_at_ns;
        store.set_mounted_at_ns(base_ns);
        let mut recovery = None;
        let persistent = cfg.dir.is_some();
        if persistent {
            store
                .enable_journal(cfg.log_zones)
                .map_err(|e| FsError::new(FsErrorKind::Config, e.0))?;
            recovery = Some(
                store
                    .recover_journal(base_ns)
                    .map_err(|e| FsError::new(FsErrorKind::Corrupt, e.0))?,
            );
        }
        let mut names = BTreeMap::new();
        let mut files = BTreeMap::new();
        for (no, label) in store.journal_labels() {
            names.insert(label.name.clone(), no);
            files.insert(
                no,
                FileMeta {
                    name: label.name,
                    level_known: label.level_known,
                },
            );
        }
        let next_no = files.keys().next_back().map_or(1, |n| n + 1);
        Ok(ZoneFs {
            inner: Mutex::new(Inner {
                store: SendStore(store),
                names,
                files,
                next_no,
                counters: HintCounters::default(),
                jobs: BTreeMap::new(),
                last_now: base_ns,
                recovery,
            }),
            clock: Clock::new(base_ns, cfg.time_dilation),
            pacer: Pacer::default(),
            persistent,
        })
    }

    /// Whether the store persists (has backing files and a journal).
    pub fn persistent(&self) -> bool {
        self.persistent
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic inside an operation is reported to the caller (the C API
        // catches it); later calls keep using the store.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` at the current virtual time under the lock, then waits outside
    /// the lock until the completion time `f` returns.
    pub(crate) fn run<T>(
        &self,
        f: impl FnOnce(&mut Inner, Ns) -> Result<(T, Ns), FsError>,
    ) -> Result<T, FsError> {
        let mut g = self.lock();
        let now = self.clock.now_ns().max(g.last_now);
        g.last_now = now;
        let (v, done) = f(&mut g, now)?;
        drop(g);
        self.pacer.wait_until(self.clock.wall_of(done));
        Ok(v)
    }

    /// Creates an empty file. `kind`: [`KIND_WAL`] or [`KIND_SST`]; `level`: -1
    /// when not known yet.
    pub fn create(&self, name: &str, kind: i32, level: i32) -> Result<(), FsError> {
        let level = level_arg(level)?;
        let fkind = match kind {
            KIND_WAL => FileKind::Wal,
            KIND_SST => FileKind::Sst {
                level: level.unwrap_or(0),
            },
            _ => {
                return Err(FsError::new(
                    FsErrorKind::Invalid,
                    format!("file kind {kind} is unknown (allowed: 1 = WAL, 2 = SST)"),
                ))
            }
        };
        if name.is_empty() {
            return Err(FsError::new(FsErrorKind::Invalid, "file name is empty"));
        }
        self.run(|g, now| {
            if g.names.contains_key(name) {
                return Err(FsError::new(
                    FsErrorKind::Exists,
                    format!("a file named `{name}` exists already"),
                ));
            }
            let no = g.next_no;
            g.next_no += 1;
            g.store.0.create(now, no, fkind)?;
            let level_known = fkind == FileKind::Wal || level.is_some();
            g.store.0.journal_create(no, name, level_known);
            g.names.insert(name.to_string(), no);
            g.files.insert(
                no,
                FileMeta {
                    name: name.to_string(),
                    level_known,
                },
            );
            Ok(((), now))
        })
    }

    /// Appends `data` (see `zonelab_systems::hhzs::data_path` for unaligned
    /// appends). An SST of unknown level gets, at its first append, the output
    /// level of the only running compaction, or level 0.
    pub fn append(&self, name: &str, data: &[u8]) -> Result<(), FsError> {
        self.run(|g, now| {
            let no = g.file(name)?;
            let unknown = !g.files[&no].level_known;
            if unknown && g.store.0.file_size(no) == Some(0) {
                let level = match g.jobs.len() {
                    1 => *g.jobs.values().next().expect("one job"),
                    _ => 0,
                };
                g.store.0.set_kind_before_data(no, FileKind::Sst { level });
            }
            let done = g.store.0.append_bytes(now, no, data)?;
            Ok(((), done))
        })
    }

    /// Makes the file's appended bytes (its partial last block padded) and all
    /// metadata durable: data devices flushed, journal records appended, log
    /// flushed. After it returns, a crash keeps every byte appended before.
    pub fn sync(&self, name: &str) -> Result<(), FsError> {
        self.run(|g, now| {
            let no = g.file(name)?;
            Ok(((), g.store.0.sync_file(now, no)?))
        })
    }

    /// No more appends: writes the tail and finishes the file's zones.
    pub fn close_file(&self, name: &str) -> Result<(), FsError> {
        self.run(|g, now| {
            let no = g.file(name)?;
            Ok(((), g.store.0.close_bytes(now, no)?))
        })
    }

    /// Reads up to `buf.len()` bytes at `offset`; returns the count (short at
    /// the end of the file, 0 at or past it).
    pub fn read(&self, name: &str, offset: u64, buf: &mut [u8]) -> Result<u64, FsError> {
        self.run(|g, now| {
            let no = g.file(name)?;
            Ok(g.store.0.read_bytes(now, no, offset, buf)?)
        })
    }

    pub fn size(&self, name: &str) -> Result<u64, FsError> {
        let g = self.lock();
        let no = g.file(name)?;
        Ok(g.store.0.file_size(no).unwrap_or(0))
    }

    pub fn delete(&self, name: &str) -> Result<(), FsError> {
        self.run(|g, now| {
            let no = g.file(name)?;
            g.store.0.delete(now, no)?;
            g.names.remove(name);
            g.files.remove(&no);
            Ok(((), now))
        })
    }

    /// Renames `from` to `to`, replacing `to` if it exists; durable on return
    /// (RocksDB installs CURRENT by renaming).
    pub fn rename(&self, from: &str, to: &str) -> Result<(), FsError> {
        if to.is_empty() {
            return Err(FsError::new(FsErrorKind::Invalid, "file name is empty"));
        }
        self.run(|g, now| {
            let no = g.file(from)?;
            if from == to {
                return Ok(((), now));
            }
            if let Some(&old) = g.names.get(to) {
                g.store.0.delete(now, old)?;
                g.files.remove(&old);
            }
            g.store.0.journal_rename(no, to);
            g.names.remove(from);
            g.names.insert(to.to_string(), no);
            if let Some(m) = g.files.get_mut(&no) {
                m.name = to.to_string();
            }
            Ok(((), g.store.0.journal_commit(now)?))
        })
    }

    /// All file names, sorted.
    pub fn list(&self) -> Vec<String> {
        self.lock().names.keys().cloned().collect()
    }

    /// Checks the store's invariants and its zones against the devices.
    pub fn check(&self) -> Result<(), FsError> {
        let g = self.lock();
        g.store
            .0
            .check_with_devices()
            .map_err(|e| FsError::new(FsErrorKind::Corrupt, e))?;
        for (name, no) in &g.names {
            if g.store.0.file_size(*no).is_none() {
                return Err(FsError::new(
                    FsErrorKind::Corrupt,
                    format!("file `{name}` is named but not in the store"),
                ));
            }
        }
        Ok(())
    }

    /// Runs `f` on the state under the lock (no pacing).
    pub(crate) fn with_inner<T>(&self, f: impl FnOnce(&Inner) -> T) -> T {
        f(&self.lock())
    }

    /// What recovery found when the store was opened (persistent stores).
    pub fn recovery_report(&self) -> Option<RecoveryReport> {
        self.lock().recovery.clone()
    }

    /// Syncs every file (tails written) and the journal, then closes the store.
    pub fn close(self) -> Result<(), FsError> {
        let r = self.run(|g, now| {
            let nos: Vec<FileNo> = g.files.keys().copied().collect();
            let mut done = now;
            for no in nos {
                done = done.max(g.store.0.sync_tail(now, no)?);
            }
            Ok(((), done.max(g.store.0.journal_commit(now)?)))
        });
        // Dropping the store drops the devices: backed devices save their zone
        // states.
        drop(self);
        r
    }
}
