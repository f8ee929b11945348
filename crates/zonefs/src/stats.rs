//! `zl_fs_stats_json`: hint and cache counters, files with their level and
//! device, per-device space and traffic, the policy, migration, journal and
//! recovery — one JSON object (docs/c-api.md lists the fields).

use crate::fs::ZoneFs;
use crate::hints::HintCounters;
use serde::Serialize;
use zonelab_systems::hhzs::journal::JournalStats;
use zonelab_systems::hhzs::migration::MigrationStats;
use zonelab_systems::hhzs::recovery::RecoveryReport;
use zonelab_systems::lsm::FileKind;

#[derive(Debug, Serialize)]
pub struct FileStats {
    pub name: String,
    pub kind: &'static str,
    /// `null` while an SST's level is unknown.
    pub level: Option<u32>,
    pub size: u64,
    /// The device holding most of the file's bytes.
    pub device: String,
    /// Moved to its level by a trivial move (ranks below unmoved SSTs of the
    /// level for migration, as in H2Zone).
    pub trivially_moved: bool,
}

#[derive(Debug, Serialize)]
pub struct DeviceStats {
    pub name: String,
    pub files: u64,
    pub live_bytes: u64,
    pub zones_in_use: u32,
    pub bytes_written: u64,
    pub bytes_read: u64,
    pub zone_resets: u64,
    pub migrated_in_bytes: u64,
}

/// H2Zone's migration daemon timing in force (scaled by the SSD's zone scale)
/// and its planning rounds so far.
#[derive(Debug, Serialize)]
pub struct MigrationDaemonStats {
    pub planning_window_ns: u64,
    pub capacity_delay_ns: u64,
    pub planning_rounds_granted: u64,
    pub planning_rounds_refused: u64,
}

#[derive(Debug, Serialize)]
pub struct FsStats {
    pub policy: String,
    pub hints: HintCounters,
    pub files: Vec<FileStats>,
    pub devices: Vec<DeviceStats>,
    pub migration: MigrationStats,
    pub migration_daemon: MigrationDaemonStats,
    pub journal: Option<JournalStats>,
    pub recovery: Option<RecoveryReport>,
}

impl ZoneFs {
    /// The store's statistics.
    pub fn stats(&self) -> FsStats {
        self.with_inner(|g| {
            let s = &g.store.0;
            let traffic = s.traffic();
            let mut per_dev = vec![0u64; traffic.len()];
            let files = g
                .files
                .iter()
                .map(|(&no, m)| {
                    let d = s.device_of(no).unwrap_or(0);
                    per_dev[d] += 1;
                    let (kind, level) = match s.kind_of(no) {
                        Some(FileKind::Sst { level }) => ("sst", m.level_known.then_some(level)),
                        _ => ("wal", None),
                    };
                    FileStats {
                        name: m.name.clone(),
                        kind,
                        level,
                        size: s.file_size(no).unwrap_or(0),
                        device: traffic[d].name.clone(),
                        trivially_moved: s.trivially_moved(no),
                    }
                })
                .collect();
            let devices = traffic
                .iter()
                .zip(per_dev)
                .map(|(t, files)| DeviceStats {
                    name: t.name.clone(),
                    files,
                    live_bytes: t.live_bytes,
                    zones_in_use: t.zones_in_use,
                    bytes_written: t.written_bytes,
                    bytes_read: t.read_bytes,
                    zone_resets: t.zone_resets,
                    migrated_in_bytes: t.migrated_in_bytes,
                })
                .collect();
            FsStats {
                policy: s.policy_name(),
                hints: g.counters,
                files,
                devices,
                migration: s.migration_stats(),
                migration_daemon: {
                    let (window, delay) = s.migration_gate_ns();
                    let (granted, refused) = s.planning_rounds();
                    MigrationDaemonStats {
                        planning_window_ns: window,
                        capacity_delay_ns: delay,
                        planning_rounds_granted: granted,
                        planning_rounds_refused: refused,
                    }
                },
                journal: s.journal_stats(),
                recovery: g.recovery.clone(),
            }
        })
    }

    /// [`ZoneFs::stats`] as JSON.
    pub fn stats_json(&self) -> String {
        serde_json::to_string(&self.stats()).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}
