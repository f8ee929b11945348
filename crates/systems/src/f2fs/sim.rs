//! Runs the file system in virtual time: workload jobs, the GC thread and the
//! checkpoint thread are actors, each executing a queue of steps; a step runs at
//! its time, submits its I/O then, and the actor's next step starts when that
//! I/O completes. Steps of all actors run in time order (ties by insertion), so
//! devices see commands in non-decreasing time and a zoned device sees each log's
//! writes at its write pointer.
//!
//! Locks follow F2FS: a checkpoint stops every other file-system step
//! (`cp_rwsem`); one GC round runs at a time (`gc_lock`), a writer that must
//! clean waits for a background round in progress.

use super::config::FsConfig;
use super::error::FsError;
use super::fs::{F2fs, Writeback};
use super::invariants::CheckpointImage;
use super::policy::{BgDecision, CleaningPolicy, GcRound, SpaceView, VictimRule};
use super::stats::FsStats;
use super::storage::FsStorage;
use std::collections::VecDeque;
use zonelab_engine::{EventQueue, LatencyHistogram, Ns};
use zonelab_workloads::files::{FileOp, FileWorkload, WriteHint};

/// Free sections below which a foreground GC also takes a checkpoint
/// (`NR_CURSEG_PERSIST_TYPE`, gc.c `f2fs_gc`).
const FG_CP_FREE_SECTIONS: u32 = 6;

/// Steps the actors may run without virtual time advancing before the run is
/// declared stuck (an error, not a spin). Every write, GC round and checkpoint
/// takes device time, so a healthy run stays far below this.
const MAX_STEPS_AT_ONE_INSTANT: u64 = 1_000_000;

#[derive(Debug, Clone)]
enum Step {
    Create(u32, WriteHint),
    Delete(u32),
    Buffered {
        file: u32,
        offset: u64,
        len: u64,
    },
    Direct {
        file: u32,
        offset: u64,
        len: u64,
    },
    Think(Ns),
    /// A writer checks whether it must clean first (`f2fs_balance_fs`).
    Balance,
    FsyncData(u32),
    /// Writes the file's nodes, or takes a checkpoint if it must.
    FsyncSync(u32),
    FsyncNodes(u32),
    Flush {
        meta: bool,
    },
    Done,
    GcStart {
        round: GcRound,
        foreground: bool,
    },
    GcRead,
    GcMove,
    GcEnd {
        foreground: bool,
    },
    /// The GC thread decides what to do and sleeps.
    GcWake,
    CpBegin,
    CpNodes,
    CpTables,
    CpPack,
    CpCommit,
    /// The checkpoint thread's periodic check.
    CpTimer,
}

enum Role {
    Job(Box<dyn FileWorkload>),
    GcThread,
    CpThread,
}

struct Actor {
    role: Role,
    steps: VecDeque<Step>,
    parked: bool,
    /// Generation of the actor's one live wake-up; older queued wake-ups are
    /// stale (the actor was rescheduled earlier).
    gen: u64,
    /// Job bookkeeping.
    done_units: u64,
    start_ns: Ns,
    end_ns: Option<Ns>,
    op_start_ns: Ns,
}

/// What one job did.
#[derive(Debug, Clone)]
pub struct JobResult {
    pub name: String,
    /// Units the workload counted (transactions, writes).
    pub units: u64,
    pub start_ns: Ns,
    pub end_ns: Ns,
    /// Latency of each counted unit.
    pub latency: LatencyHistogram,
}

impl JobResult {
    /// Units per second.
    pub fn rate_per_s(&self) -> f64 {
        let d = self.end_ns.saturating_sub(self.start_ns).max(1);
        self.units as f64 * 1e9 / d as f64
    }
}

/// A sample of counters over time (for write-volume dynamics, Fig. 11(b)).
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub t_ns: Ns,
    pub stats: FsStats,
}

/// Host time of the file-system calls (syscall and kernel path, outside the
/// device), spent by the calling job before the call's I/O.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostCosts {
    /// A buffered `write()` of up to 4 KiB into the page cache.
    pub buffered_write_ns: Ns,
    /// The `fsync()` call itself.
    pub fsync_ns: Ns,
    /// The kernel path of a direct write (block layer, driver, completion),
    /// beyond `buffered_write_ns`.
    pub direct_io_ns: Ns,
}

impl HostCosts {
    /// Measured on this machine (2026-11-25, `cargo run --release -p
    /// zonelab-experiments --example fs_syscall_cost`, tmpfs, medians): 4 KiB
    /// `pwrite` 0.75 us, `fsync` 0.14 us. The direct-I/O kernel path cannot be
    /// measured here (no device to take O_DIRECT without its own latency): 0.
    pub fn measured() -> Self {
        Self {
            buffered_write_ns: 750,
            fsync_ns: 140,
            direct_io_ns: 0,
        }
    }
}

impl Default for HostCosts {
    fn default() -> Self {
        Self::measured()
    }
}

/// Runner options.
#[derive(Debug, Clone)]
pub struct SimOptions {
    /// Check the invariants after steps (tests), every
    /// [`check_every_steps`](Self::check_every_steps)-th one, and when `run` ends.
    pub check_invariants: bool,
    /// With `check_invariants`: check after every n-th step (1, and 0, mean every
    /// step). A check reads every live block, so long runs check a sample of steps;
    /// short ones (the property tests) check them all.
    pub check_every_steps: u64,
    /// Sample the file system's counters this often (0: never).
    pub sample_every_ns: Ns,
    /// Stop when every job is done (true) or also drain background work.
    pub stop_with_jobs: bool,
    pub host: HostCosts,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            check_invariants: false,
            check_every_steps: 1,
            sample_every_ns: 0,
            stop_with_jobs: true,
            host: HostCosts::default(),
        }
    }
}

/// The runner.
pub struct FsSim<'a> {
    pub fs: F2fs,
    pub st: &'a mut dyn FsStorage,
    policy: Box<dyn CleaningPolicy>,
    actors: Vec<Actor>,
    queue: EventQueue<(usize, u64)>,
    cp_owner: Option<usize>,
    gc_owner: Option<usize>,
    /// The GC round in progress: victim section and its blocks.
    gc_round: Option<(u32, Vec<u32>)>,
    /// Whether that round is a writer's foreground round.
    gc_round_foreground: bool,
    cp_thread: usize,
    cp_running: bool,
    opts: SimOptions,
    pub samples: Vec<Sample>,
    next_sample_ns: Ns,
    ckpt_image: CheckpointImage,
    pub now_ns: Ns,
    /// Foreground GC rounds a writer has run since it last found enough free
    /// space; bounded so a file system full of valid data fails with `NoSpace`
    /// (as F2FS's writes get ENOSPC) instead of cleaning forever.
    fg_rounds_in_a_row: u64,
    /// Steps run at `stuck_at_ns` so far (see [`MAX_STEPS_AT_ONE_INSTANT`]).
    steps_at_instant: u64,
    stuck_at_ns: Ns,
    /// Steps run so far (for [`SimOptions::check_every_steps`]).
    steps_run: u64,
}

impl<'a> FsSim<'a> {
    /// Formats `st` and prepares the GC and checkpoint threads.
    pub fn new(
        cfg: FsConfig,
        st: &'a mut dyn FsStorage,
        policy: Box<dyn CleaningPolicy>,
        opts: SimOptions,
    ) -> Result<Self, FsError> {
        let fs = F2fs::format(cfg, st)?;
        let mut s = Self {
            fs,
            st,
            policy,
            actors: Vec::new(),
            queue: EventQueue::new(),
            cp_owner: None,
            gc_owner: None,
            gc_round: None,
            gc_round_foreground: false,
            cp_thread: 0,
            cp_running: false,
            opts,
            samples: Vec::new(),
            next_sample_ns: 0,
            ckpt_image: CheckpointImage::default(),
            now_ns: 0,
            fg_rounds_in_a_row: 0,
            steps_at_instant: 0,
            stuck_at_ns: 0,
            steps_run: 0,
        };
        let gc = s.add_actor(Role::GcThread, 0);
        s.actors[gc].steps.push_back(Step::GcWake);
        s.cp_thread = s.add_actor(Role::CpThread, 0);
        s.actors[s.cp_thread].steps.push_back(Step::CpTimer);
        s.wake(gc, 0);
        let cp_first = s.fs.cfg.cp_interval_ns;
        s.wake(s.cp_thread, cp_first);
        Ok(s)
    }

    fn add_actor(&mut self, role: Role, at: Ns) -> usize {
        self.actors.push(Actor {
            role,
            steps: VecDeque::new(),
            parked: false,
            gen: 0,
            done_units: 0,
            start_ns: at,
            end_ns: None,
            op_start_ns: at,
        });
        self.actors.len() - 1
    }

    /// Adds a job starting at `at`.
    pub fn add_job(&mut self, w: Box<dyn FileWorkload>, at: Ns) -> usize {
        let a = self.add_actor(Role::Job(w), at);
        self.wake(a, at.max(self.queue.now_ns()));
        a
    }

    /// (Re)schedules actor `a` at `t`; an earlier scheduled wake-up is dropped.
    fn wake(&mut self, a: usize, t: Ns) {
        self.actors[a].gen += 1;
        self.queue.schedule(t, (a, self.actors[a].gen));
    }

    fn jobs_running(&self) -> bool {
        self.actors
            .iter()
            .any(|a| matches!(a.role, Role::Job(_)) && a.end_ns.is_none())
    }

    /// Runs until every job is done; returns their results.
    pub fn run(&mut self) -> Result<Vec<JobResult>, FsError> {
        let mut hists: Vec<LatencyHistogram> = (0..self.actors.len())
            .map(|_| LatencyHistogram::new())
            .collect();
        loop {
            if self.opts.stop_with_jobs && !self.jobs_running() {
                break;
            }
            let Some((t, (a, gen))) = self.queue.pop() else {
                break;
            };
            if gen != self.actors[a].gen {
                continue;
            }
            self.now_ns = t;
            if hists.len() < self.actors.len() {
                hists.resize_with(self.actors.len(), LatencyHistogram::new);
            }
            self.sample(t);
            if !matches!(self.actors[a].role, Role::Job(_)) {
                self.check_jobs_can_run()?;
            }
            self.run_actor(a, t, &mut hists)?;
        }
        if self.opts.check_invariants {
            self.check(&"at the end of the run")?;
        }
        Ok(self
            .actors
            .iter()
            .zip(hists)
            .filter_map(|(a, h)| match &a.role {
                Role::Job(w) => Some(JobResult {
                    name: w.name().to_string(),
                    units: a.done_units,
                    start_ns: a.start_ns,
                    end_ns: a.end_ns.unwrap_or(self.now_ns),
                    latency: h,
                }),
                _ => None,
            })
            .collect())
    }

    fn sample(&mut self, t: Ns) {
        if self.opts.sample_every_ns == 0 {
            return;
        }
        while t >= self.next_sample_ns {
            self.samples.push(Sample {
                t_ns: self.next_sample_ns,
                stats: self.fs.stats,
            });
            self.next_sample_ns += self.opts.sample_every_ns;
        }
    }

    fn space(&self, now: Ns) -> SpaceView {
        SpaceView {
            free_sections: self.fs.sit.free_sections(),
            total_sections: self.fs.sit.sections(),
            reserved_sections: self.fs.reserved_sections(),
            user_blocks: self.fs.user_blocks,
            valid_blocks: self.fs.sit.valid_blocks(),
            free_user_blocks: self.fs.free_user_blocks(),
            idle_ns: now.saturating_sub(self.fs.last_user_op_ns),
        }
    }

    /// Runs actor `a`'s steps from `t` until one takes time or it must wait.
    fn run_actor(
        &mut self,
        a: usize,
        t: Ns,
        hists: &mut [LatencyHistogram],
    ) -> Result<(), FsError> {
        let mut t = t;
        loop {
            if self.actors[a].steps.is_empty() && !self.refill(a, t, hists) {
                return Ok(());
            }
            let step = self.actors[a].steps.front().cloned().expect("a step");
            if self.must_wait(a, &step) {
                self.actors[a].parked = true;
                return Ok(());
            }
            self.actors[a].steps.pop_front();
            self.count_step(a, &step, t)?;
            let done = self.execute(a, step, t)?;
            self.steps_run += 1;
            if self.opts.check_invariants
                && self.steps_run % self.opts.check_every_steps.max(1) == 0
            {
                self.check(&format_args!("after a step of actor {a}"))?;
            }
            if done > t {
                self.wake(a, done);
                return Ok(());
            }
            t = done;
        }
    }

    /// Counts a step at `t`; too many at one instant means no actor makes
    /// progress (a livelock), which is reported instead of spinning.
    fn count_step(&mut self, a: usize, step: &Step, t: Ns) -> Result<(), FsError> {
        if t != self.stuck_at_ns {
            self.stuck_at_ns = t;
            self.steps_at_instant = 0;
        }
        self.steps_at_instant += 1;
        if self.steps_at_instant > MAX_STEPS_AT_ONE_INSTANT {
            return Err(FsError::Invariant(format!(
                "no progress: {MAX_STEPS_AT_ONE_INSTANT} steps at {t} ns without time advancing (actor {a} at {step:?}, {} free sections)",
                self.fs.sit.free_sections()
            )));
        }
        Ok(())
    }

    /// A job parked on a lock nobody holds would wait forever while the GC and
    /// checkpoint threads keep time moving: report it as a deadlock.
    fn check_jobs_can_run(&self) -> Result<(), FsError> {
        if self.cp_owner.is_some() || self.gc_owner.is_some() {
            return Ok(());
        }
        let mut jobs = self
            .actors
            .iter()
            .filter(|x| matches!(x.role, Role::Job(_)) && x.end_ns.is_none())
            .peekable();
        if jobs.peek().is_some() && jobs.all(|x| x.parked) {
            return Err(FsError::Invariant(
                "deadlock: every running job waits for a lock nobody holds".into(),
            ));
        }
        Ok(())
    }

    /// Whether `step` of actor `a` must wait for a lock another actor holds.
    fn must_wait(&self, a: usize, step: &Step) -> bool {
        if let Some(o) = self.cp_owner {
            if o != a && !matches!(step, Step::Think(_) | Step::GcWake | Step::CpTimer) {
                return true;
            }
        }
        match step {
            Step::GcStart { .. } | Step::Balance => self.gc_owner.is_some_and(|o| o != a),
            Step::CpBegin => self.gc_owner.is_some_and(|o| o != a),
            _ => false,
        }
    }

    /// Wakes parked actors at `t` (a lock was released).
    fn wake_parked(&mut self, t: Ns) {
        for i in 0..self.actors.len() {
            if self.actors[i].parked {
                self.actors[i].parked = false;
                self.wake(i, t);
            }
        }
    }

    /// A job's next operation becomes steps; false if the job is over.
    fn refill(&mut self, a: usize, t: Ns, hists: &mut [LatencyHistogram]) -> bool {
        let Role::Job(w) = &mut self.actors[a].role else {
            return false;
        };
        let Some(op) = w.next_op() else {
            if self.actors[a].end_ns.is_none() {
                self.actors[a].end_ns = Some(t);
            }
            return false;
        };
        let host = self.opts.host;
        let actor = &mut self.actors[a];
        let steps = &mut actor.steps;
        let per_4k = |len: u64| host.buffered_write_ns * len.div_ceil(4096).max(1);
        match op {
            FileOp::Create { file, hint } => steps.push_back(Step::Create(file, hint)),
            FileOp::Delete { file } => steps.push_back(Step::Delete(file)),
            FileOp::Write {
                file,
                offset,
                len,
                direct: false,
            } => {
                steps.push_back(Step::Think(per_4k(len)));
                steps.push_back(Step::Buffered { file, offset, len });
            }
            FileOp::Write {
                file,
                offset,
                len,
                direct: true,
            } => {
                steps.push_back(Step::Think(per_4k(len) + host.direct_io_ns));
                steps.push_back(Step::Balance);
                steps.push_back(Step::Direct { file, offset, len });
            }
            FileOp::Fsync { file } => {
                steps.push_back(Step::Think(host.fsync_ns));
                steps.push_back(Step::Balance);
                steps.push_back(Step::FsyncData(file));
                steps.push_back(Step::FsyncSync(file));
            }
            FileOp::Think { ns } => steps.push_back(Step::Think(ns)),
            FileOp::Done => {
                hists[a].record(t.saturating_sub(actor.op_start_ns));
                actor.done_units += 1;
                actor.op_start_ns = t;
                steps.push_back(Step::Done);
            }
        }
        true
    }

    fn execute(&mut self, a: usize, step: Step, t: Ns) -> Result<Ns, FsError> {
        let st = &mut *self.st;
        let is_job = matches!(self.actors[a].role, Role::Job(_));
        if is_job {
            self.fs.last_user_op_ns = t;
        }
        Ok(match step {
            Step::Create(f, h) => {
                self.fs.create(f, h)?;
                t
            }
            Step::Delete(f) => {
                self.fs.delete(f)?;
                self.kick_checkpoint(t);
                t
            }
            Step::Buffered { file, offset, len } => {
                self.fs.buffered_write(file, offset, len)?;
                t
            }
            Step::Direct { file, offset, len } => {
                let d = self.fs.direct_write(st, file, offset, len, t)?;
                self.kick_checkpoint(t);
                d
            }
            Step::Think(ns) => t + ns,
            Step::Done => t,
            Step::Balance => {
                let mut v = self.space(t);
                // Sections a foreground GC emptied count as freed (f2fs_gc's
                // `sec_freed`) until the checkpoint turns them free.
                v.free_sections += self.fs.sit.prefree_segments() / self.fs.geo.usable_segs_per_sec;
                let must_clean = self.policy.needs_foreground(&v)
                    && self.fs.select_victim(VictimRule::Greedy, None).is_some();
                if !must_clean {
                    self.fg_rounds_in_a_row = 0;
                } else {
                    self.fg_rounds_in_a_row += 1;
                    // Every section cleaned twice over without reaching the free
                    // target: the valid data leaves no room.
                    if self.fg_rounds_in_a_row > 2 * v.total_sections as u64 {
                        return Err(FsError::NoSpace(format!(
                            "foreground GC ran {} rounds without freeing enough sections ({} free of {}, {} reserved)",
                            self.fg_rounds_in_a_row - 1,
                            v.free_sections,
                            v.total_sections,
                            v.reserved_sections
                        )));
                    }
                }
                if must_clean {
                    let round = GcRound {
                        rule: VictimRule::Greedy,
                        segments: None,
                        max_valid_ratio: None,
                    };
                    let s = &mut self.actors[a].steps;
                    s.push_front(Step::Balance);
                    s.push_front(Step::GcEnd { foreground: true });
                    s.push_front(Step::GcMove);
                    s.push_front(Step::GcRead);
                    s.push_front(Step::GcStart {
                        round,
                        foreground: true,
                    });
                } else if self.fs.sit.free_sections() < FG_CP_FREE_SECTIONS
                    && self.fs.sit.prefree_segments() > 0
                {
                    self.push_checkpoint(a);
                }
                t
            }
            Step::FsyncData(f) => {
                self.fs.stats.fsyncs += 1;
                let d = self.fs.write_back(st, f, Writeback::Fsync, t)?;
                self.kick_checkpoint(t);
                d
            }
            Step::FsyncSync(f) => {
                let s = &mut self.actors[a].steps;
                if self.fs.fsync_needs_checkpoint(f) {
                    self.fs.stats.fsync_checkpoints += 1;
                    // CP steps, then the fsync is complete.
                    for step in Self::cp_steps().into_iter().rev() {
                        s.push_front(step);
                    }
                } else {
                    s.push_front(Step::Flush { meta: false });
                    s.push_front(Step::FsyncNodes(f));
                }
                t
            }
            Step::FsyncNodes(f) => {
                let fi = f + 1;
                if self.fs.has_dirty_nodes(fi) {
                    let d = self.fs.write_nodes(st, Some(fi), t)?;
                    self.kick_checkpoint(t);
                    d
                } else {
                    t
                }
            }
            Step::Flush { meta } => self.fs.flush(st, meta, t)?,
            Step::GcStart { round, foreground } => {
                self.gc_owner = Some(a);
                self.gc_round_foreground = foreground;
                match self.fs.gc_begin_round(&round) {
                    Some((sec, blks)) => {
                        self.fs.sit.set_current(sec, true);
                        self.gc_round = Some((sec, blks));
                        if foreground {
                            self.fs.stats.fg_gc_rounds += 1;
                        } else {
                            self.fs.stats.bg_gc_rounds += 1;
                        }
                    }
                    None => {
                        // No victim: skip the round's steps.
                        let s = &mut self.actors[a].steps;
                        while matches!(s.front(), Some(Step::GcRead | Step::GcMove)) {
                            s.pop_front();
                        }
                    }
                }
                t
            }
            Step::GcRead => {
                let blks = self
                    .gc_round
                    .as_ref()
                    .map(|r| r.1.clone())
                    .unwrap_or_default();
                self.fs.gc_read(st, &blks, t)?
            }
            Step::GcMove => {
                let blks = self
                    .gc_round
                    .as_ref()
                    .map(|r| r.1.clone())
                    .unwrap_or_default();
                let before = self.fs.stats.gc_data_blocks + self.fs.stats.gc_node_blocks;
                let done = self.fs.gc_move(st, &blks, t)?;
                if self.gc_round_foreground {
                    self.fs.stats.fg_gc_blocks +=
                        self.fs.stats.gc_data_blocks + self.fs.stats.gc_node_blocks - before;
                }
                done
            }
            Step::GcEnd { foreground } => {
                let found = self.gc_round.is_some();
                if let Some((sec, _)) = self.gc_round.take() {
                    self.fs.sit.set_current(sec, false);
                    self.fs.gc_end_round(sec);
                }
                if !foreground {
                    self.policy.after_round(found);
                }
                self.gc_owner = None;
                self.wake_parked(t);
                if foreground
                    && self.fs.sit.free_sections() < FG_CP_FREE_SECTIONS
                    && self.fs.sit.prefree_segments() > 0
                {
                    self.push_checkpoint(a);
                }
                self.kick_checkpoint(t);
                t
            }
            Step::GcWake => {
                let v = self.space(t);
                match self.policy.on_wake(&v) {
                    BgDecision::Sleep => {}
                    BgDecision::Clean(round) => {
                        let s = &mut self.actors[a].steps;
                        s.push_back(Step::GcStart {
                            round,
                            foreground: false,
                        });
                        s.push_back(Step::GcRead);
                        s.push_back(Step::GcMove);
                        s.push_back(Step::GcEnd { foreground: false });
                    }
                }
                // Wakes again `sleep` after this round (or now) ends.
                self.actors[a]
                    .steps
                    .push_back(Step::Think(self.policy.sleep_ns()));
                self.actors[a].steps.push_back(Step::GcWake);
                t
            }
            Step::CpBegin => {
                self.cp_owner = Some(a);
                t
            }
            Step::CpNodes => self.fs.cp_write_nodes(st, t)?,
            Step::CpTables => {
                let d = self.fs.cp_write_tables(st, t)?;
                // Both devices are flushed before the pack is written.
                self.fs.flush(st, true, d)?
            }
            Step::CpPack => {
                let d = self.fs.cp_write_pack(st, t)?;
                self.fs.flush(st, true, d)?
            }
            Step::CpCommit => {
                self.fs.cp_commit(st, t)?;
                self.cp_owner = None;
                self.cp_running = false;
                if self.opts.check_invariants {
                    self.ckpt_image = self.fs.checkpoint_image();
                }
                self.wake_parked(t);
                t
            }
            Step::CpTimer => {
                if !self.cp_running && t >= self.fs.last_cp_ns + self.fs.cfg.cp_interval_ns {
                    self.push_checkpoint_back(a);
                }
                let next = (self.fs.last_cp_ns + self.fs.cfg.cp_interval_ns).max(t + 1);
                self.actors[a].steps.push_back(Step::Think(next - t));
                self.actors[a].steps.push_back(Step::CpTimer);
                t
            }
        })
    }

    fn cp_steps() -> Vec<Step> {
        vec![
            Step::CpBegin,
            Step::CpNodes,
            Step::CpTables,
            Step::CpPack,
            Step::CpCommit,
        ]
    }

    /// Actor `a` takes a checkpoint before its next step.
    fn push_checkpoint(&mut self, a: usize) {
        if self.cp_running {
            return;
        }
        self.cp_running = true;
        let s = &mut self.actors[a].steps;
        for step in Self::cp_steps().into_iter().rev() {
            s.push_front(step);
        }
    }

    fn push_checkpoint_back(&mut self, a: usize) {
        if self.cp_running {
            return;
        }
        self.cp_running = true;
        for step in Self::cp_steps() {
            self.actors[a].steps.push_back(step);
        }
    }

    /// The checkpoint thread takes a checkpoint now if prefree segments exceed
    /// their limit (`f2fs_balance_fs_bg`: `excess_prefree_segs`).
    fn kick_checkpoint(&mut self, t: Ns) {
        if self.cp_running || !self.fs.excess_prefree() {
            return;
        }
        let c = self.cp_thread;
        self.cp_running = true;
        let s = &mut self.actors[c].steps;
        for step in Self::cp_steps().into_iter().rev() {
            s.push_front(step);
        }
        if !self.actors[c].parked {
            self.wake(c, t);
        }
    }

    fn check(&self, when: &dyn std::fmt::Display) -> Result<(), FsError> {
        self.fs
            .check_live_blocks()
            .and_then(|_| self.fs.check_checkpoint(&self.ckpt_image))
            .map_err(|e| FsError::Invariant(format!("{when}: {e}")))
    }
}
