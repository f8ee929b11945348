//! Workload-aware migration (HHZS §3.4), the mechanism: copying one SST to the
//! other device in 2 MiB chunks through a rate limit (4 MiB/s by default; H2Zone
//! migrates 2 MiB chunks through a token bucket), reading the old copy and writing
//! the new one through the same device models as foreground I/O, then switching
//! the file to the new extents and freeing the old zones. Chunks are issued when
//! the store is next called at or after their due time, so the store needs no
//! events of its own. A migration is cancelled if its SST is deleted. Which SST
//! moves is the policy's choice ([`super::PlacementPolicy::plan_migration`]);
//! the policy is also ticked here about once a second.

use super::view::MigrationPlan;
use super::zone_store::ZoneFileStore;
use crate::lsm::{FileKind, FileNo, StorageError};
use serde::Serialize;
use zonelab_engine::{time::MIB, Ns, NS_PER_S};

/// Bytes copied per migration step.
pub const MIGRATION_CHUNK_BYTES: u64 = 2 * MIB;
/// Policy tick interval, and the interval at which the planning gate is asked
/// (H2Zone's daemon: 0.5 s sleep, every other round).
pub const POLICY_TICK_NS: Ns = NS_PER_S;
/// H2Zone's planning window: `ZenFS::Mount` builds `tb_ = new TokenBucket(16, 1)`
/// (`src/zenfs/fs/fs_zenfs.cc`) and `ZenFS::MigrationDaemonRun`
/// (`src/zenfs/fs/fs_mig_zenfs.cc`) plans (popularity, then capacity migration)
/// only `if (tb_->AcquireToken())`: one round per 16 s, the first at mount. An
/// experiment at scale S sets S × this
/// ([`ZoneFileStore::set_migration_planning_window_ns`]).
pub const H2ZONE_PLANNING_WINDOW_NS: Ns = 16 * NS_PER_S;
/// H2Zone's start delay of capacity migration: `ZenFS::MaybeCapacityCalibration`
/// (`src/zenfs/fs/fs_mig_zenfs.cc`, line 137) returns at once while
/// `hbd_->elapsed_time_double() < 32.0`, the seconds since `HybridBlockDevice::Open`
/// set `start_time_double` (`src/zenfs/fs/fzbd_zenfs.cc`, line 246) — at every
/// mount. Popularity migration has no such delay. Daemon wall-clock time like the
/// planning window, so an experiment at scale S sets S × this
/// ([`ZoneFileStore::set_capacity_migration_delay_ns`]).
pub const H2ZONE_CAPACITY_MIGRATION_DELAY_NS: Ns = 32 * NS_PER_S;

/// H2Zone's daemon times at `scale`: (planning window, capacity migration's start
/// delay). Both are wall-clock times of the migration daemon, so a run whose
/// SSTs (and so each move at the unscaled migration rate) are `scale` times
/// shorter scales them alike (docs/hhzs.md, "Scaling").
pub fn h2zone_daemon_times_ns(scale: f64) -> (Ns, Ns) {
    let scaled = |ns: Ns| (ns as f64 * scale).round() as Ns;
    (
        scaled(H2ZONE_PLANNING_WINDOW_NS),
        scaled(H2ZONE_CAPACITY_MIGRATION_DELAY_NS),
    )
}

/// A copy in progress.
#[derive(Debug, Clone, Copy)]
pub struct MigrationTask {
    pub file: FileNo,
    pub to: usize,
    /// The new copy, written under a temporary file number.
    pub shadow: FileNo,
    pub total_bytes: u64,
    pub copied_bytes: u64,
    pub next_due_ns: Ns,
    /// Start of the current one-second token window and the chunks it has
    /// left ([`MigrationLimiter::H2ZoneWindow`]).
    pub window_start_ns: Ns,
    pub window_chunks_left: u64,
    /// The second leg of a swap (HDD → SSD), started when this one ends.
    pub then_up: Option<FileNo>,
}

/// Migration state and counters.
#[derive(Debug, Clone, Default)]
pub struct MigrationState {
    pub rate_bytes_per_s: u64,
    pub limiter: MigrationLimiter,
    pub task: Option<MigrationTask>,
    pub next_shadow: u64,
    pub stats: MigrationStats,
    /// Per device, when the last migration chunk issued to it completes (for
    /// splitting foreground reads by whether they met migration I/O).
    pub busy_until_ns: [Ns; 2],
    pub planning: MigrationPlanning,
    pub gate: PlanningGate,
    /// The gate's window: 0 (a round every tick) until an experiment sets it
    /// (`HybridSetup::paper`: [`H2ZONE_PLANNING_WINDOW_NS`] × scale); stores built
    /// directly (unit tests, the zonefs emulation) keep planning every tick.
    pub planning_window_ns: Ns,
    /// No capacity migration until this long after the mount
    /// ([`H2ZONE_CAPACITY_MIGRATION_DELAY_NS`] × scale in experiments; 0 in stores
    /// built directly, as for the planning window).
    pub capacity_delay_ns: Ns,
    /// When the store was built or last mounted (H2Zone's device open).
    pub mounted_at_ns: Ns,
}

/// When the store asks the policy for a migration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MigrationPlanning {
    /// H2Zone's daemon: a planning round only when its `TokenBucket(16, 1)` grants
    /// a token ([`PlanningGate`]); the migration it starts runs to its end before
    /// the next round (`PerformMigration` is synchronous in the daemon thread).
    #[default]
    H2ZoneWindow,
    /// Every policy tick with no migration running (the model before issue 14's
    /// seventh session; an ablation).
    EveryTick,
}

/// H2Zone's `TokenBucket(16, 1)` (`src/zenfs/fs/util.cc`, `AcquireToken`): one
/// token at construction; afterwards a token only when 16 s have passed since
/// the window last restarted, which restarts it. A round that finds nothing to
/// move still spends its token.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlanningGate {
    pub window_start_ns: Ns,
    pub spent_first: bool,
    /// Rounds granted and rounds refused (counters for the load diagnostics).
    pub granted: u64,
    pub refused: u64,
}

impl PlanningGate {
    /// `TokenBucket::AcquireToken` with one token per `window_ns`.
    pub fn acquire(&mut self, now: Ns, window_ns: Ns) -> bool {
        let granted = if !self.spent_first {
            self.spent_first = true;
            true
        } else if now.saturating_sub(self.window_start_ns) >= window_ns {
            self.window_start_ns = now;
            true
        } else {
            false
        };
        match granted {
            true => self.granted += 1,
            false => self.refused += 1,
        }
        granted
    }
}

/// How the rate limit spaces a migration's chunks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MigrationLimiter {
    /// H2Zone's: `PerformMigration` builds `TokenBucket tb(1, rate / 2 MiB)`, and
    /// `TokenBucket::AcquireToken` (`src/zenfs/fs/util.cc`) grants all of a
    /// second's tokens at once, so `ZoneFile::Move` copies that many chunks back
    /// to back (each read then written before the next), then waits for the
    /// second to end. At 64 MiB/s that is 32 chunks in a burst.
    #[default]
    H2ZoneWindow,
    /// Chunks spaced evenly, one per chunk ÷ rate (the model before issue 14's
    /// sixth session; an ablation).
    Paced,
}

#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct MigrationStats {
    pub to_ssd: u64,
    pub to_hdd: u64,
    pub copied_bytes: u64,
    pub cancelled: u64,
    /// Swaps planned by popularity migration (§3.4), and how many of them ended
    /// with the SSD SST moved down but the HDD SST not moved up (no room left).
    pub swaps: u64,
    pub swap_up_skipped: u64,
    /// Finished moves by the SST's level at the switch (L0..L7; deeper levels
    /// count in the last slot): up to the SSD, down to the HDD.
    pub to_ssd_by_level: [u64; 8],
    pub to_hdd_by_level: [u64; 8],
    /// Time migration chunks kept a device busy (issue to completion), ns.
    pub chunk_busy_ns: u64,
}

impl ZoneFileStore {
    pub fn migration_stats(&self) -> MigrationStats {
        self.migration.stats
    }

    /// Chooses how chunks are spaced ([`MigrationLimiter`]).
    pub fn set_migration_limiter(&mut self, limiter: MigrationLimiter) {
        self.migration.limiter = limiter;
    }

    /// Chooses when migrations are planned ([`MigrationPlanning`]).
    pub fn set_migration_planning(&mut self, planning: MigrationPlanning) {
        self.migration.planning = planning;
    }

    /// The planning gate's window. H2Zone's is 16 s at paper scale; an experiment
    /// at scale S runs S times shorter loads and runs while the migration rate is
    /// not scaled (so as many SSTs move per run), and scales this window by S to
    /// keep the gate's share of each move (`HybridSetup::paper`).
    pub fn set_migration_planning_window_ns(&mut self, window_ns: Ns) {
        self.migration.planning_window_ns = window_ns;
    }

    /// H2Zone's start delay of capacity migration after a mount (32 s at paper
    /// scale; an experiment at scale S sets S × that, as for the planning window).
    pub fn set_capacity_migration_delay_ns(&mut self, delay_ns: Ns) {
        self.migration.capacity_delay_ns = delay_ns;
    }

    /// The planning window and capacity migration's start delay in force.
    pub fn migration_gate_ns(&self) -> (Ns, Ns) {
        (
            self.migration.planning_window_ns,
            self.migration.capacity_delay_ns,
        )
    }

    /// The file system was mounted at `now` (a remount, or a store opened over
    /// devices whose clock does not start at 0, as the emulation's restored
    /// devices): a new migration daemon — H2Zone builds its planning bucket at
    /// mount, with its first token — and `HybridBlockDevice::Open` restarts the
    /// clock capacity migration's start delay counts from.
    pub fn set_mounted_at_ns(&mut self, now: Ns) {
        self.migration.gate.window_start_ns = now;
        self.migration.gate.spent_first = false;
        self.migration.mounted_at_ns = now;
    }

    /// Planning rounds granted and refused by H2Zone's 16-s gate.
    pub fn planning_rounds(&self) -> (u64, u64) {
        (self.migration.gate.granted, self.migration.gate.refused)
    }

    /// Changes the migration rate (0 stops starting new migrations).
    pub fn set_migration_rate(&mut self, bytes_per_s: u64) {
        self.migration.rate_bytes_per_s = bytes_per_s;
    }

    /// Background work due by `now`: occupancy samples, the policy tick and
    /// migration planning, and migration chunks.
    pub(super) fn background(&mut self, now: Ns) -> Result<(), StorageError> {
        if now >= self.next_policy_tick_ns {
            self.next_policy_tick_ns = now + POLICY_TICK_NS;
            let mut view = self.view(now);
            let (t0, hdd0, ssd0) = self.tick_baseline;
            let hdd = self.traffic.get(1).map_or(0, |t| t.point_reads);
            let ssd = self.ssd_io_bytes();
            let secs = (now.saturating_sub(t0)) as f64 / 1e9;
            if secs > 0.0 {
                view.hdd_point_reads_per_s = (hdd - hdd0) as f64 / secs;
                view.ssd_io_bytes_per_s = (ssd - ssd0) as f64 / secs;
            }
            self.tick_baseline = (now, hdd, ssd);
            view.capacity_migration_held =
                now.saturating_sub(self.migration.mounted_at_ns) < self.migration.capacity_delay_ns;
            self.policy.tick(&view);
            let may_plan = self.migration.task.is_none()
                && self.migration.rate_bytes_per_s > 0
                && match self.migration.planning {
                    MigrationPlanning::H2ZoneWindow => {
                        let window_ns = self.migration.planning_window_ns;
                        self.migration.gate.acquire(now, window_ns)
                    }
                    MigrationPlanning::EveryTick => true,
                };
            if may_plan {
                if let Some(plan) = self.policy.plan_migration(&view) {
                    self.start_migration(now, plan)?;
                }
            }
        }
        while let Some(task) = self.migration.task {
            if task.next_due_ns > now {
                break;
            }
            self.migration_step(now, task)?;
        }
        Ok(())
    }

    fn start_migration(&mut self, now: Ns, plan: MigrationPlan) -> Result<(), StorageError> {
        let (file, to, then_up) = match plan {
            MigrationPlan::Move { file, to } => (file, to, None),
            MigrationPlan::Swap { up, down } => {
                self.migration.stats.swaps += 1;
                (down, 1, Some(up))
            }
        };
        self.start_move(now, file, to, then_up)
    }

    fn start_move(
        &mut self,
        now: Ns,
        file: FileNo,
        to: usize,
        then_up: Option<FileNo>,
    ) -> Result<(), StorageError> {
        let Some(f) = self.files.get(&file) else {
            return Ok(());
        };
        if f.compacting || f.writing || to >= self.devices.len() || self.device_of(file) == Some(to)
        {
            return Ok(());
        }
        let (kind, total) = (f.kind, f.size);
        // The copy takes all its zones on the target at once (it must not land on
        // two devices); without that many empty zones the SST stays where it is.
        let need = self.zones_needed(to, total);
        let dev = &self.devices[to];
        if (dev.free.len() as u64) < need as u64 || !self.can_open(to) {
            return Ok(());
        }
        self.migration.next_shadow += 1;
        let shadow = u64::MAX - self.migration.next_shadow;
        self.insert_file(now, shadow, kind, Some(to));
        self.files.get_mut(&shadow).expect("copy").expected_bytes = total;
        self.migration.task = Some(MigrationTask {
            file,
            to,
            shadow,
            total_bytes: total,
            copied_bytes: 0,
            next_due_ns: now,
            window_start_ns: now,
            window_chunks_left: 0,
            then_up,
        });
        Ok(())
    }

    fn migration_step(&mut self, now: Ns, mut task: MigrationTask) -> Result<(), StorageError> {
        let rate = self.migration.rate_bytes_per_s.max(1);
        let windowed = self.migration.limiter == MigrationLimiter::H2ZoneWindow;
        // H2Zone moves `rate` bytes per token when the rate is below one chunk.
        let chunk_bytes = match windowed {
            true => MIGRATION_CHUNK_BYTES.min(rate),
            false => MIGRATION_CHUNK_BYTES,
        };
        if windowed && task.window_chunks_left == 0 {
            task.window_start_ns = now;
            task.window_chunks_left = (rate / chunk_bytes).max(1);
        }
        let len = chunk_bytes.min(task.total_bytes - task.copied_bytes);
        let mut done = now;
        if len > 0 {
            // With payloads the chunk's bytes are read and written to the copy.
            let chunk = match self.data.is_some() {
                false => {
                    done = self.read_internal(now, task.file, task.copied_bytes, len)?;
                    None
                }
                true => {
                    let mut buf = vec![0u8; len as usize];
                    let (_, read_done) =
                        self.read_bytes_internal(now, task.file, task.copied_bytes, &mut buf)?;
                    done = read_done;
                    Some(buf)
                }
            };
            match self.append_internal(now, task.shadow, len, chunk.as_deref()) {
                Ok(write_done) => done = done.max(write_done),
                Err(_) => {
                    // No room on the target any more: give the copy up.
                    self.migration.stats.cancelled += 1;
                    self.delete_internal(now, task.shadow)?;
                    self.migration.task = None;
                    return Ok(());
                }
            }
            task.copied_bytes += len;
            self.migration.stats.copied_bytes += len;
            self.migration.stats.chunk_busy_ns += done - now;
            self.traffic[task.to].migrated_in_bytes += len;
            let from = self.device_of(task.file).unwrap_or(0);
            for d in [from, task.to] {
                if let Some(b) = self.migration.busy_until_ns.get_mut(d) {
                    *b = (*b).max(done);
                }
            }
        }
        if windowed {
            // The next chunk starts when this one is done while the window has
            // tokens, else when done and the second is over (`AcquireToken`).
            task.window_chunks_left -= 1;
            task.next_due_ns = match task.window_chunks_left > 0 {
                true => done,
                false => done.max(task.window_start_ns + NS_PER_S),
            };
        } else {
            task.next_due_ns += (len as u128 * NS_PER_S as u128 / rate as u128) as Ns;
        }
        if task.copied_bytes < task.total_bytes {
            self.migration.task = Some(task);
            return Ok(());
        }
        // Switch the file to its new copy and free the old one.
        self.close_internal(now, task.shadow)?;
        let shadow = self.files.remove(&task.shadow).expect("shadow copy");
        let old = self.files.get_mut(&task.file).expect("migrated file");
        let level = match old.kind {
            FileKind::Sst { level } => (level as usize).min(7),
            FileKind::Wal => 0,
        };
        let old_extents = old.set_extents(shadow.extents);
        self.journal_push_extents_replaced(task.file);
        for e in old_extents {
            let zone = &mut self.devices[e.device].zones[e.zone as usize];
            zone.live_bytes -= e.physical;
            if zone.live_bytes == 0 && !zone.open && zone.written_bytes > 0 {
                self.reset_zone(e.device, e.zone, now)?;
            }
        }
        if task.to == 0 {
            self.migration.stats.to_ssd += 1;
            self.migration.stats.to_ssd_by_level[level] += 1;
            if let Some(c) = self.cache.as_mut() {
                c.invalidate_file(task.file);
            }
        } else {
            self.migration.stats.to_hdd += 1;
            self.migration.stats.to_hdd_by_level[level] += 1;
        }
        self.migration.task = None;
        if let Some(up) = task.then_up {
            self.start_move(now, up, 0, None)?;
            if self.migration.task.is_none() {
                self.migration.stats.swap_up_skipped += 1;
            }
        }
        Ok(())
    }

    /// Cancels the migration of `file` (it is being deleted).
    pub(super) fn cancel_migration_of(
        &mut self,
        now: Ns,
        file: FileNo,
    ) -> Result<(), StorageError> {
        if let Some(task) = self.migration.task {
            if task.file == file {
                self.migration.task = None;
                self.migration.stats.cancelled += 1;
                self.delete_internal(now, task.shadow)?;
            }
        }
        Ok(())
    }
}
