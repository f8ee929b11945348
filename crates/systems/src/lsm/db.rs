//! The LSM-tree database in virtual time: one client thread issuing operations
//! (YCSB's default of one thread, as in the HHZS setup), a flush pool and a
//! compaction pool, MemTables with their WAL files, write stalls, and the block
//! cache — all driven by one event queue. The client runs inline while it is the
//! earliest actor, so a load of hundreds of millions of puts costs few heap
//! operations; every storage call still happens in time order.

use super::block_cache::{BlockCache, Evicted};
use super::hints::{FileKind, FileNo, Hint, LsmStorage, StorageError};
use super::jobs::{CompactionJob, FlushJob, JobPhase};
use super::layout::SstLayout;
use super::memtable::{MemTable, ENTRY_OVERHEAD_BYTES};
use super::merge::{merge_runs, split_into_files};
use super::options::{LsmOptionError, LsmOptions};
use super::picker::{self, Pick, Running};
use super::read_plan::{plan_get, plan_scan, FilterCounts, Probe};
use super::scan_readahead::{BlockSource, ScanReadahead};
use super::stall::{StallInputs, StallState, WriteController};
use super::stats::{LevelSamples, LsmCounters, LsmSummary};
use super::version::{Sst, Version};
mod reopen;

use std::sync::Arc;
use thiserror::Error;
use zonelab_engine::{EventQueue, Ns};

/// One key-value operation; keys are ordered key codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvOp {
    Put { key: u64 },
    Get { key: u64 },
    Scan { key: u64, len: u64 },
    ReadModifyWrite { key: u64 },
}

/// Where operations come from (e.g. a YCSB phase).
pub trait OpSource {
    fn next_op(&mut self) -> Option<KvOp>;
}

impl<I: Iterator<Item = KvOp>> OpSource for I {
    fn next_op(&mut self) -> Option<KvOp> {
        self.next()
    }
}

#[derive(Debug, Error)]
pub enum LsmError {
    #[error(transparent)]
    Options(#[from] LsmOptionError),
    #[error("storage: {0}")]
    Storage(#[from] StorageError),
    #[error("simulation stuck: {0}")]
    Stuck(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ev {
    Client,
    Flush(usize),
    Compaction(usize),
    Sample,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    NextOp,
    PutStart,
    PutWal,
    Probe(usize),
    OpDone,
    WaitingStall,
    Finished,
}

#[derive(Debug, Clone)]
struct Client {
    time: Ns,
    step: Step,
    in_queue: bool,
    op: Option<KvOp>,
    op_start: Ns,
    probes: Vec<Probe>,
    found: bool,
    /// Slowest storage tier this operation read from.
    slowest_tier: usize,
    rmw_put_done: bool,
    phase_start: Ns,
    ops_issued: u64,
    interval_ns: Option<Ns>,
    stall_since: Ns,
}

/// An SST a compaction removed from the Version that is still on storage because a
/// job that started before its removal may still use it
/// (`LsmOptions::defer_obsolete_deletion`).
#[derive(Debug, Clone, Copy)]
struct ObsoleteSst {
    no: FileNo,
    level: u32,
    file_bytes: u64,
    /// Version sequence at which it left the Version.
    obsolete_seq: u64,
}

#[derive(Debug, Clone)]
struct Immutable {
    mem: MemTable,
    flushing: bool,
}

/// The simulated RocksDB instance on storage `S`.
pub struct LsmDb<S: LsmStorage> {
    o: LsmOptions,
    layout: SstLayout,
    storage: S,
    version: Version,
    active: MemTable,
    imm: Vec<Immutable>,
    next_file_no: FileNo,
    next_job: u64,
    wal_buffer_bytes: u64,
    /// Live WAL files and their bytes.
    wal_files: Vec<(FileNo, u64)>,
    cache: BlockCache,
    wc: WriteController,
    flushes: Vec<Option<FlushJob>>,
    compactions: Vec<Option<CompactionJob>>,
    queue: EventQueue<Ev>,
    client: Client,
    counters: LsmCounters,
    samples: Option<LevelSamples>,
    sample_interval_ns: Ns,
    evicted: Vec<Evicted>,
    filter_counts: FilterCounts,
    /// The running scan's iterator readahead (RocksDB's implicit auto-readahead).
    scan_readahead: ScanReadahead,
    /// A flush was requested for the immutable MemTables regardless of
    /// `min_write_buffer_number_to_merge` (`MemTableList::FlushRequested`).
    flush_requested: bool,
    /// The oldest WAL file when the live WAL last exceeded `max_total_wal_size`
    /// (RocksDB's `getting_flushed` mark): no second switch until it is gone.
    wal_getting_flushed: Option<FileNo>,
    /// Obsolete SSTs not yet deleted, oldest first.
    obsolete: Vec<ObsoleteSst>,
    /// Counts job starts and Version installs, so a job knows which obsolete
    /// files it pins (those that became obsolete after it started).
    version_seq: u64,
}

impl<S: LsmStorage> LsmDb<S> {
    /// Opens an empty database on `storage` (creates the first WAL file at time 0).
    pub fn new(o: LsmOptions, mut storage: S) -> Result<Self, LsmError> {
        o.validate()?;
        let layout = SstLayout::new(&o);
        let wal = 1;
        storage.create(0, wal, FileKind::Wal)?;
        let levels = o.num_levels as usize;
        Ok(Self {
            cache: BlockCache::new(o.block_cache_bytes, o.block_cache_shard_bits),
            wc: WriteController::new(&o),
            version: Version::new(levels),
            active: MemTable::new(wal, o.arena_block_bytes_effective()),
            imm: Vec::new(),
            next_file_no: 2,
            next_job: 1,
            wal_buffer_bytes: 0,
            wal_files: vec![(wal, 0)],
            flushes: Vec::new(),
            compactions: Vec::new(),
            queue: EventQueue::new(),
            client: Client {
                time: 0,
                step: Step::Finished,
                in_queue: false,
                op: None,
                op_start: 0,
                probes: Vec::new(),
                found: false,
                slowest_tier: 0,
                rmw_put_done: false,
                phase_start: 0,
                ops_issued: 0,
                interval_ns: None,
                stall_since: 0,
            },
            counters: LsmCounters {
                level_write_bytes: vec![0; levels],
                ..Default::default()
            },
            samples: None,
            sample_interval_ns: 0,
            evicted: Vec::new(),
            filter_counts: FilterCounts::default(),
            scan_readahead: ScanReadahead::new(o.max_auto_readahead_bytes),
            flush_requested: false,
            wal_getting_flushed: None,
            obsolete: Vec::new(),
            version_seq: 0,
            layout,
            storage,
            o,
        })
    }

    /// A copy of the database's state on `storage` (a copy of this one's storage):
    /// the snapshot the HHZS experiments take after a load.
    pub fn fork_with<T: LsmStorage>(&self, storage: T) -> LsmDb<T> {
        LsmDb {
            o: self.o.clone(),
            layout: self.layout,
            storage,
            version: self.version.clone(),
            active: self.active.clone(),
            imm: self.imm.clone(),
            next_file_no: self.next_file_no,
            next_job: self.next_job,
            wal_buffer_bytes: self.wal_buffer_bytes,
            wal_files: self.wal_files.clone(),
            cache: self.cache.clone(),
            wc: self.wc.clone(),
            flushes: self.flushes.clone(),
            compactions: self.compactions.clone(),
            queue: self.queue.clone(),
            client: self.client.clone(),
            counters: self.counters.clone(),
            samples: self.samples.clone(),
            sample_interval_ns: self.sample_interval_ns,
            evicted: Vec::new(),
            filter_counts: self.filter_counts,
            scan_readahead: self.scan_readahead.clone(),
            flush_requested: self.flush_requested,
            wal_getting_flushed: self.wal_getting_flushed,
            obsolete: self.obsolete.clone(),
            version_seq: self.version_seq,
        }
    }

    pub fn options(&self) -> &LsmOptions {
        &self.o
    }

    /// Seeds the per-job CPU factors of the jobs from now on
    /// (`CpuCosts::job_jitter_ppm`; no effect without jitter): one draw of a load.
    pub fn set_job_cpu_jitter_seed(&mut self, seed: u64) {
        self.o.cpu.job_jitter_seed = seed;
    }
    pub fn layout(&self) -> &SstLayout {
        &self.layout
    }
    pub fn version(&self) -> &Version {
        &self.version
    }
    pub fn storage(&self) -> &S {
        &self.storage
    }
    pub fn storage_mut(&mut self) -> &mut S {
        &mut self.storage
    }
    pub fn into_storage(self) -> S {
        self.storage
    }
    /// Virtual time now.
    pub fn now_ns(&self) -> Ns {
        self.queue.now_ns().max(self.client.time)
    }
    /// Block cache (hits, misses).
    pub fn cache_hits_misses(&self) -> (u64, u64) {
        (self.cache.hits, self.cache.misses)
    }
    /// Live WAL bytes.
    pub fn wal_bytes(&self) -> u64 {
        self.wal_files.iter().map(|w| w.1).sum::<u64>()
    }
    pub fn stall_state(&self) -> StallState {
        self.wc.state
    }
    /// The write controller (stall state, cause, delayed write rate).
    pub fn write_controller(&self) -> &WriteController {
        &self.wc
    }
    /// RocksDB's estimate of the bytes compactions still have to rewrite.
    pub fn pending_compaction_bytes(&self) -> u64 {
        picker::estimated_pending_compaction_bytes(&self.version, &self.o)
    }
    /// Bytes per level of the SSTs compactions made obsolete that are still on
    /// storage (pinned by running jobs; `LsmOptions::defer_obsolete_deletion`).
    pub fn obsolete_level_bytes(&self) -> Vec<u64> {
        let mut out = vec![0; self.version.num_levels()];
        for o in &self.obsolete {
            out[o.level as usize] += o.file_bytes;
        }
        out
    }
    /// Bytes per level that running flushes and compactions have written so far
    /// into their output files: on storage, not yet in the Version.
    pub fn unfinished_level_bytes(&self) -> Vec<u64> {
        let mut out = vec![0; self.version.num_levels()];
        for f in self.flushes.iter().flatten() {
            out[0] += f.written_bytes;
        }
        for c in self.compactions.iter().flatten() {
            out[c.output_level as usize] += c.written_total_bytes;
        }
        out
    }
    /// Bytes per level on storage, as a file system that sizes a level by its files
    /// counts them: the Version's SSTs, pinned obsolete SSTs and the outputs running
    /// jobs are writing (what [`LevelSamples::stored_level_bytes`] samples).
    pub fn stored_level_bytes(&self) -> Vec<u64> {
        let obsolete = self.obsolete_level_bytes();
        let unfinished = self.unfinished_level_bytes();
        (0..self.version.num_levels())
            .map(|l| self.version.level_bytes(l) + obsolete[l] + unfinished[l])
            .collect()
    }
    /// The SSTs compactions made obsolete that are still on storage.
    pub fn obsolete_files(&self) -> Vec<FileNo> {
        self.obsolete.iter().map(|o| o.no).collect()
    }
    /// Age of the oldest running compaction: how far back obsolete SSTs are pinned.
    pub fn oldest_compaction_age_ns(&self) -> Ns {
        let now = self.now_ns();
        self.compactions
            .iter()
            .flatten()
            .map(|c| now.saturating_sub(c.started_ns))
            .max()
            .unwrap_or(0)
    }
    /// (start level, output level) of each running compaction.
    pub fn running_compactions(&self) -> Vec<(u32, u32)> {
        self.compactions
            .iter()
            .flatten()
            .map(|c| (c.start_level, c.output_level))
            .collect()
    }

    /// Samples WAL and level sizes every `interval_ns` while operations run.
    pub fn sample_levels_every(&mut self, interval_ns: Ns) {
        self.sample_interval_ns = interval_ns.max(1);
        self.samples = Some(LevelSamples {
            interval_s: interval_ns as f64 / 1e9,
            level_bytes: vec![Vec::new(); self.o.num_levels as usize],
            obsolete_level_bytes: vec![Vec::new(); self.o.num_levels as usize],
            unfinished_level_bytes: vec![Vec::new(); self.o.num_levels as usize],
            ..Default::default()
        });
    }

    pub fn level_samples(&self) -> Option<&LevelSamples> {
        self.samples.as_ref()
    }

    /// Whether `key` is in the database (MemTables or any SST), without I/O.
    pub fn contains(&mut self, key: u64) -> bool {
        if self.active.contains(key) || self.imm.iter_mut().any(|m| m.mem.contains(key)) {
            return true;
        }
        let mut fc = FilterCounts::default();
        // Bloom filters never hide a present key, so the plan ends at its block.
        plan_get(&self.version, &self.layout, key, &mut fc)
            .last()
            .is_some_and(|p| p.hit)
    }

    fn new_file_no(&mut self) -> FileNo {
        let n = self.next_file_no;
        self.next_file_no += 1;
        n
    }

    fn new_job(&mut self) -> u64 {
        let j = self.next_job;
        self.next_job += 1;
        j
    }

    /// Runs `ops` to the end (one client thread; `target_ops_per_s` > 0 throttles
    /// like YCSB's `-target`) and returns the phase's statistics. Background work
    /// still pending when the last operation completes keeps running in later calls.
    pub fn run_ops(
        &mut self,
        ops: &mut dyn OpSource,
        target_ops_per_s: u64,
    ) -> Result<LsmSummary, LsmError> {
        let start = self.now_ns();
        self.queue.advance_to(start);
        self.counters = LsmCounters {
            level_write_bytes: vec![0; self.o.num_levels as usize],
            ..Default::default()
        };
        self.filter_counts = FilterCounts::default();
        self.client.time = start;
        self.client.step = Step::NextOp;
        self.client.phase_start = start;
        self.client.ops_issued = 0;
        self.client.interval_ns =
            (target_ops_per_s > 0).then(|| (1_000_000_000 / target_ops_per_s).max(1));
        if self.samples.is_some() {
            self.queue.schedule(start, Ev::Sample);
        }
        self.drive(ops)
    }

    /// Goes on with the current phase for `ops` more operations, keeping its
    /// counters and start, so the summary covers the whole phase: a load stopped at
    /// several end points is the same simulation as one load to the last of them.
    pub fn continue_ops(&mut self, ops: &mut dyn OpSource) -> Result<LsmSummary, LsmError> {
        self.client.step = Step::NextOp;
        self.drive(ops)
    }

    fn drive(&mut self, ops: &mut dyn OpSource) -> Result<LsmSummary, LsmError> {
        loop {
            if self.client_runnable() {
                let t = self.client.time;
                if self.queue.peek_time_ns().is_none_or(|next| t <= next) {
                    self.queue.advance_to(t);
                    self.step_client(ops)?;
                    continue;
                }
                self.queue.schedule(t, Ev::Client);
                self.client.in_queue = true;
            }
            if self.client.step == Step::Finished {
                break;
            }
            let Some((t, ev)) = self.queue.pop() else {
                return Err(LsmError::Stuck(format!(
                    "client waits ({:?}) with no background work pending",
                    self.client.step
                )));
            };
            self.handle(t, ev)?;
        }
        let end = self.client.time;
        self.counters.bloom_useful = self.filter_counts.useful;
        self.counters.bloom_false_positives = self.filter_counts.false_positives;
        Ok(self.counters.summarize(end - self.client.phase_start))
    }

    /// Runs background work until no flush or compaction is pending; returns the
    /// time it ends.
    pub fn wait_for_compactions(&mut self) -> Result<Ns, LsmError> {
        self.maybe_schedule(self.now_ns())?;
        while self.background_busy() {
            let Some((t, ev)) = self.queue.pop() else {
                break;
            };
            if ev != Ev::Sample {
                self.handle(t, ev)?;
            }
        }
        Ok(self.queue.now_ns())
    }

    /// The counters of the current (or last) phase.
    pub fn counters(&self) -> &LsmCounters {
        &self.counters
    }

    fn background_busy(&self) -> bool {
        self.flushes.iter().any(|j| j.is_some()) || self.compactions.iter().any(|j| j.is_some())
    }

    fn client_runnable(&self) -> bool {
        !self.client.in_queue && !matches!(self.client.step, Step::WaitingStall | Step::Finished)
    }

    fn handle(&mut self, t: Ns, ev: Ev) -> Result<(), LsmError> {
        match ev {
            Ev::Client => self.client.in_queue = false,
            Ev::Flush(slot) => self.flush_step(slot, t)?,
            Ev::Compaction(slot) => self.compaction_step(slot, t)?,
            Ev::Sample => self.sample(t),
        }
        Ok(())
    }

    fn sample(&mut self, t: Ns) {
        let wal = self.wal_bytes();
        let levels: Vec<u64> = (0..self.version.num_levels())
            .map(|l| self.version.level_bytes(l))
            .collect();
        let obsolete = self.obsolete_level_bytes();
        let unfinished = self.unfinished_level_bytes();
        if let Some(s) = &mut self.samples {
            s.time_s.push(t as f64 / 1e9);
            s.wal_bytes.push(wal);
            for (l, b) in levels.into_iter().enumerate() {
                s.level_bytes[l].push(b);
            }
            for (l, b) in obsolete.into_iter().enumerate() {
                s.obsolete_level_bytes[l].push(b);
            }
            for (l, b) in unfinished.into_iter().enumerate() {
                s.unfinished_level_bytes[l].push(b);
            }
        }
        if self.client.step != Step::Finished {
            self.queue.schedule(t + self.sample_interval_ns, Ev::Sample);
        }
    }

    // ---------------------------------------------------------------- client

    fn wal_record_bytes(&self) -> u64 {
        // WriteBatch header (12 B) + type, key and value with varint lengths + the
        // log record header (7 B).
        let (k, v) = (self.o.key_bytes, self.o.value_bytes);
        12 + 1 + 1 + k + 2 + v + 7
    }

    fn step_client(&mut self, ops: &mut dyn OpSource) -> Result<(), LsmError> {
        let now = self.client.time;
        match self.client.step {
            Step::NextOp => {
                if let Some(iv) = self.client.interval_ns {
                    let deadline = self.client.phase_start + self.client.ops_issued * iv;
                    if now < deadline {
                        self.client.time = deadline;
                        return Ok(());
                    }
                }
                let Some(op) = ops.next_op() else {
                    self.client.step = Step::Finished;
                    return Ok(());
                };
                self.client.ops_issued += 1;
                self.client.op = Some(op);
                self.client.op_start = now;
                self.client.found = false;
                self.client.slowest_tier = 0;
                self.client.rmw_put_done = false;
                match op {
                    KvOp::Put { .. } => self.client.step = Step::PutStart,
                    KvOp::Get { key } | KvOp::ReadModifyWrite { key } => self.start_get(now, key),
                    KvOp::Scan { key, len } => {
                        self.client.probes = plan_scan(&self.version, &self.layout, key, len);
                        self.scan_readahead.reset();
                        self.client.time = now + self.o.cpu.get_ns + len * self.o.cpu.scan_entry_ns;
                        self.client.step = Step::Probe(0);
                    }
                }
            }
            Step::PutStart => {
                self.maybe_switch_wal(now)?;
                if self.wc.state == StallState::Stopped {
                    self.client.step = Step::WaitingStall;
                    self.client.stall_since = now;
                    return Ok(());
                }
                let go = self.wc.delay_write(now, self.wal_record_bytes());
                self.counters.delayed_ns += go - now;
                self.client.time = go;
                self.client.step = Step::PutWal;
            }
            Step::PutWal => self.put_wal(now)?,
            Step::Probe(i) => self.probe(now, i)?,
            Step::OpDone => self.op_done(now),
            Step::WaitingStall | Step::Finished => {}
        }
        Ok(())
    }

    fn start_get(&mut self, now: Ns, key: u64) {
        let t = now + self.o.cpu.get_ns;
        if self.active.contains(key) || self.imm.iter_mut().any(|m| m.mem.contains(key)) {
            self.counters.memtable_gets += 1;
            self.client.found = true;
            self.client.time = t;
            self.client.step = Step::OpDone;
            return;
        }
        self.client.probes = plan_get(&self.version, &self.layout, key, &mut self.filter_counts);
        self.client.time = t;
        self.client.step = Step::Probe(0);
    }

    fn put_wal(&mut self, now: Ns) -> Result<(), LsmError> {
        let key = match self.client.op {
            Some(KvOp::Put { key }) | Some(KvOp::ReadModifyWrite { key }) => key,
            _ => unreachable!("put step without a put"),
        };
        let rec = self.wal_record_bytes();
        self.wal_buffer_bytes += rec;
        let mut done = now;
        if self.wal_buffer_bytes >= self.o.wal_write_chunk_bytes {
            let chunk = self.o.wal_write_chunk_bytes;
            self.wal_buffer_bytes -= chunk;
            done = self.wal_append(now, chunk)?;
        }
        self.active.insert(
            key,
            self.o.key_bytes + self.o.value_bytes + ENTRY_OVERHEAD_BYTES,
        );
        // `MemTable::UpdateFlushState` → `ShouldFlushNow` after each insert; the
        // switch follows at the next write (`ScheduleFlushes` in `PreprocessWrite`).
        if self.active.should_switch(self.o.write_buffer_bytes) {
            done = done.max(self.switch_memtable(now)?);
        }
        self.client.time = done + self.o.cpu.put_ns;
        self.client.step = Step::OpDone;
        if matches!(self.client.op, Some(KvOp::ReadModifyWrite { .. })) {
            self.client.rmw_put_done = true;
        }
        Ok(())
    }

    /// `DBImpl::PreprocessWrite` → `SwitchWAL`: when the live WAL exceeds
    /// `max_total_wal_size` and its oldest file is not already being flushed, the
    /// active MemTable is switched and a flush is requested even below
    /// `min_write_buffer_number_to_merge`, so the oldest WAL files can be deleted.
    fn maybe_switch_wal(&mut self, now: Ns) -> Result<(), LsmError> {
        let live = self.wal_bytes() + self.wal_buffer_bytes;
        if live <= self.o.max_total_wal_bytes_effective() {
            return Ok(());
        }
        let oldest = self.wal_files.first().map(|w| w.0);
        if oldest.is_none() || self.wal_getting_flushed == oldest {
            return Ok(());
        }
        self.wal_getting_flushed = oldest;
        self.counters.wal_full_flushes += 1;
        if self.active.entries() > 0 {
            self.switch_memtable(now)?;
        }
        self.flush_requested = true;
        self.maybe_schedule(now)
    }

    fn wal_append(&mut self, now: Ns, bytes: u64) -> Result<Ns, LsmError> {
        let wal = self.active.wal;
        let done = self.storage.append(now, wal, bytes)?;
        self.counters.wal_bytes += bytes;
        if let Some(w) = self.wal_files.iter_mut().find(|w| w.0 == wal) {
            w.1 += bytes;
        }
        Ok(done)
    }

    fn probe(&mut self, now: Ns, i: usize) -> Result<(), LsmError> {
        let Some(&p) = self.client.probes.get(i) else {
            self.client.step = Step::OpDone;
            return Ok(());
        };
        let Some(sst) = self.version.get(p.sst) else {
            // A compaction replaced the file since the plan: look again in the
            // current version (RocksDB would still read the old file it pinned).
            if let Some(KvOp::Get { key }) | Some(KvOp::ReadModifyWrite { key }) = self.client.op {
                self.client.probes =
                    plan_get(&self.version, &self.layout, key, &mut self.filter_counts);
                self.client.step = Step::Probe(0);
            } else {
                self.client.step = Step::Probe(i + 1);
            }
            return Ok(());
        };
        let entries = sst.keys.len() as u64;
        let file_bytes = sst.file_bytes;
        let mut t = now;
        let in_block_cache = self.cache.lookup(p.sst, p.block);
        let (offset, bytes) = self.layout.block_extent(p.block, entries);
        let source = if matches!(self.client.op, Some(KvOp::Scan { .. })) {
            self.scan_readahead
                .read_block(p.sst, offset, bytes, file_bytes, in_block_cache)
        } else if in_block_cache {
            BlockSource::BlockCache
        } else {
            // A point lookup reads the block's own pages, with no readahead.
            BlockSource::own_pages(offset, bytes)
        };
        if source != BlockSource::BlockCache {
            let done = match source {
                BlockSource::PrefetchBuffer => {
                    self.counters.prefetch_buffer_blocks += 1;
                    now
                }
                BlockSource::Device {
                    offset: read_offset,
                    bytes: read_bytes,
                    prefetch,
                } => {
                    // A block read on its own may come from HHZS's SSD cache; a
                    // readahead read covers other bytes too and goes to the file.
                    let cached = if prefetch {
                        None
                    } else {
                        self.storage.cached_read(now, p.sst, offset, bytes)
                    };
                    let done = match cached {
                        Some(d) => d,
                        None => {
                            let tier = self.storage.tier_of(p.sst);
                            self.client.slowest_tier = self.client.slowest_tier.max(tier);
                            self.storage.read(now, p.sst, read_offset, read_bytes)?
                        }
                    };
                    self.counters.data_block_reads += 1;
                    self.counters.data_block_read_bytes += read_bytes;
                    self.counters.readahead_reads += prefetch as u64;
                    done
                }
                BlockSource::BlockCache => unreachable!("handled above"),
            };
            self.evicted.clear();
            self.cache.insert(p.sst, p.block, bytes, &mut self.evicted);
            for k in 0..self.evicted.len() {
                let e = self.evicted[k];
                self.counters.cache_evictions += 1;
                let (off, b) = match self.version.get(e.sst) {
                    Some(s) => self.layout.block_extent(e.block, s.keys.len() as u64),
                    None => (e.block * self.layout.full_block_bytes, e.bytes),
                };
                self.storage.hint(
                    now,
                    &Hint::BlockEvicted {
                        sst: e.sst,
                        offset: off,
                        bytes: b,
                    },
                )?;
            }
            t = done;
        }
        self.client.time = t + self.o.cpu.block_search_ns;
        if p.hit {
            self.client.found = true;
            self.client.step = Step::OpDone;
        } else {
            self.client.step = Step::Probe(i + 1);
        }
        Ok(())
    }

    fn count_read_tier(&mut self) {
        let t = self.client.slowest_tier;
        let v = &mut self.counters.gets_by_slowest_tier;
        if v.len() <= t {
            v.resize(t + 1, 0);
        }
        v[t] += 1;
    }

    fn op_done(&mut self, now: Ns) {
        let lat = now - self.client.op_start;
        match self.client.op {
            Some(KvOp::Put { .. }) => {
                self.counters.puts += 1;
                self.counters.put_latency.record(lat);
            }
            Some(KvOp::Get { .. }) => {
                self.counters.gets += 1;
                self.counters.gets_found += self.client.found as u64;
                self.counters.get_latency.record(lat);
                self.count_read_tier();
            }
            Some(KvOp::Scan { .. }) => {
                self.counters.scans += 1;
                self.counters.scan_latency.record(lat);
            }
            Some(KvOp::ReadModifyWrite { .. }) => {
                if !self.client.rmw_put_done {
                    self.client.step = Step::PutStart;
                    return;
                }
                self.counters.rmws += 1;
                self.counters.rmw_latency.record(lat);
                self.count_read_tier();
            }
            None => {}
        }
        self.client.op = None;
        self.client.step = Step::NextOp;
    }

    fn switch_memtable(&mut self, now: Ns) -> Result<Ns, LsmError> {
        let mut done = now;
        if self.wal_buffer_bytes > 0 {
            let rest = self.wal_buffer_bytes;
            self.wal_buffer_bytes = 0;
            done = self.wal_append(now, rest)?;
        }
        let old_wal = self.active.wal;
        done = done.max(self.storage.close(now, old_wal)?);
        let wal = self.new_file_no();
        self.storage.create(now, wal, FileKind::Wal)?;
        self.wal_files.push((wal, 0));
        let full = std::mem::replace(
            &mut self.active,
            MemTable::new(wal, self.o.arena_block_bytes_effective()),
        );
        self.imm.push(Immutable {
            mem: full,
            flushing: false,
        });
        self.after_change(now)?;
        Ok(done)
    }

    // ------------------------------------------------------------ background

    fn stall_inputs(&self) -> StallInputs {
        StallInputs {
            unflushed_memtables: self.imm.len() as u32,
            l0_files: self.version.levels[0].len() as u32,
            pending_compaction_bytes: picker::estimated_pending_compaction_bytes(
                &self.version,
                &self.o,
            ),
        }
    }

    /// After a MemTable switch or an installed job: re-evaluate stalls, start
    /// background work, and release a stopped writer.
    fn after_change(&mut self, now: Ns) -> Result<(), LsmError> {
        let x = self.stall_inputs();
        self.wc.recalculate(&self.o, x);
        self.maybe_schedule(now)?;
        if self.client.step == Step::WaitingStall && self.wc.state != StallState::Stopped {
            self.counters.stopped_ns += now - self.client.stall_since;
            self.client.time = now;
            self.client.step = Step::PutStart;
        }
        Ok(())
    }

    fn free_slot<T>(slots: &mut Vec<Option<T>>) -> usize {
        match slots.iter().position(|s| s.is_none()) {
            Some(i) => i,
            None => {
                slots.push(None);
                slots.len() - 1
            }
        }
    }

    fn maybe_schedule(&mut self, now: Ns) -> Result<(), LsmError> {
        let flushing = self.flushes.iter().filter(|j| j.is_some()).count() as u32;
        let waiting = self.imm.iter().filter(|m| !m.flushing).count() as u32;
        let requested = self.flush_requested && waiting > 0;
        if flushing < self.o.flush_threads
            && (waiting >= self.o.min_write_buffers_to_merge || requested)
        {
            self.flush_requested = false;
            self.start_flush(now)?;
        }
        let limit = if self.wc.speedup_compaction {
            self.o.compaction_threads
        } else {
            1
        };
        loop {
            let running: Vec<Running> = self
                .compactions
                .iter()
                .flatten()
                .map(|c| Running {
                    start_level: c.start_level,
                    output_level: c.output_level,
                    lo: c.lo,
                    hi: c.hi,
                })
                .collect();
            if running.len() as u32 >= limit {
                break;
            }
            match picker::pick(&self.version, &self.o, &running) {
                None => break,
                Some(Pick::TrivialMove { file, from_level }) => {
                    self.version.move_down(file, from_level + 1);
                    self.counters.trivial_moves += 1;
                    self.storage.hint(
                        now,
                        &Hint::TrivialMove {
                            sst: file,
                            from_level,
                            to_level: from_level + 1,
                        },
                    )?;
                }
                Some(Pick::Compact {
                    start_level,
                    output_level,
                    start_inputs,
                    output_inputs,
                }) => self.start_compaction(
                    now,
                    start_level,
                    output_level,
                    start_inputs,
                    output_inputs,
                )?,
            }
        }
        Ok(())
    }

    fn start_flush(&mut self, now: Ns) -> Result<(), LsmError> {
        let mut runs = Vec::new();
        let mut wals = Vec::new();
        for m in self.imm.iter_mut().filter(|m| !m.flushing) {
            m.flushing = true;
            runs.push(m.mem.sorted_keys());
            wals.push(m.mem.wal);
        }
        let keys: Arc<[u64]> = merge_runs(&runs).into();
        let sst = self.new_file_no();
        let job = self.new_job();
        self.storage.create(now, sst, FileKind::Sst { level: 0 })?;
        let file_bytes = self.layout.file_bytes(keys.len() as u64);
        self.storage.hint(
            now,
            &Hint::FlushStarted {
                job,
                sst,
                expected_bytes: file_bytes,
            },
        )?;
        let slot = Self::free_slot(&mut self.flushes);
        let start_seq = self.next_version_seq();
        self.flushes[slot] = Some(FlushJob {
            job,
            sst,
            keys,
            memtable_wals: wals,
            file_bytes,
            written_bytes: 0,
            start_seq,
            phase: JobPhase::Step,
        });
        self.queue.schedule(now, Ev::Flush(slot));
        Ok(())
    }

    fn flush_step(&mut self, slot: usize, now: Ns) -> Result<(), LsmError> {
        let mut j = self.flushes[slot].take().expect("flush job");
        match j.phase {
            JobPhase::Step => {
                let chunk = self
                    .o
                    .file_write_chunk_bytes
                    .min(j.file_bytes - j.written_bytes);
                let mut done = self.storage.append(now, j.sst, chunk)?;
                j.written_bytes += chunk;
                self.counters.flush_bytes += chunk;
                self.counters.level_write_bytes[0] += chunk;
                if j.written_bytes == j.file_bytes {
                    done = done.max(self.storage.close(now, j.sst)?);
                    j.phase = JobPhase::Write;
                }
                // Keys written with this chunk, pro rata (cumulative, so no drift).
                let n = j.keys.len() as u64;
                let keys = pro_rata(n, j.written_bytes, j.file_bytes)
                    - pro_rata(n, j.written_bytes - chunk, j.file_bytes);
                let cpu = self
                    .o
                    .cpu
                    .jittered_ns(j.job, self.o.cpu.flush_ns(keys, chunk));
                self.queue.schedule(done + cpu, Ev::Flush(slot));
                self.flushes[slot] = Some(j);
            }
            JobPhase::Write => {
                // Opening the new table reads its index, filter and footer.
                let n = j.keys.len() as u64;
                let tail = self.layout.tail_bytes(n);
                let done = self
                    .storage
                    .read(now, j.sst, self.layout.data_bytes(n), tail)?;
                self.counters.table_open_read_bytes += tail;
                j.phase = JobPhase::Install;
                self.queue.schedule(done, Ev::Flush(slot));
                self.flushes[slot] = Some(j);
            }
            JobPhase::Install => {
                self.version.add(Sst::new(j.sst, 0, j.keys, j.file_bytes));
                self.imm.retain(|m| !j.memtable_wals.contains(&m.mem.wal));
                for wal in j.memtable_wals {
                    self.storage.delete(now, wal)?;
                    self.wal_files.retain(|w| w.0 != wal);
                }
                self.counters.flushes += 1;
                self.next_version_seq();
                self.purge_obsolete(now)?;
                self.after_change(now)?;
            }
        }
        Ok(())
    }

    fn start_compaction(
        &mut self,
        now: Ns,
        start_level: u32,
        output_level: u32,
        start_inputs: Vec<FileNo>,
        output_inputs: Vec<FileNo>,
    ) -> Result<(), LsmError> {
        // Each start-level file is a run of its own (L0 files overlap); the
        // output level's files are one sorted run, concatenated in key order. Key
        // arrays are shared (an `Arc` clone, not a copy).
        let mut start_runs: Vec<Arc<[u64]>> = Vec::new();
        for &f in &start_inputs {
            let s = self.version.sst_mut(f);
            s.being_compacted = true;
            start_runs.push(Arc::clone(&s.keys));
        }
        let mut output_run: Vec<u64> = Vec::new();
        for &f in &output_inputs {
            let s = self.version.sst_mut(f);
            s.being_compacted = true;
            output_run.extend_from_slice(&s.keys);
        }
        let mut inputs = start_inputs;
        inputs.extend(output_inputs);
        let mut runs: Vec<&[u64]> = start_runs.iter().map(|r| &r[..]).collect();
        runs.push(&output_run);
        let lo = inputs
            .iter()
            .map(|&f| self.version.sst(f).smallest())
            .min()
            .unwrap_or(0);
        let hi = inputs
            .iter()
            .map(|&f| self.version.sst(f).largest())
            .max()
            .unwrap_or(0);
        let merged = merge_runs(&runs);
        // RocksDB cuts compaction outputs at the target file size only when the
        // output level is not L0 (`CompactionJob::ProcessKeyValueCompaction`:
        // `output_level() != 0 && current_output_file_size >= max_output_file_size`),
        // so an intra-L0 compaction writes one file.
        let max_entries = if output_level == 0 {
            merged.len().max(1) as u64
        } else {
            self.layout.max_entries_per_file
        };
        let outputs: Vec<(Arc<[u64]>, u64)> = split_into_files(&merged, max_entries)
            .into_iter()
            .map(|k| {
                let b = self.layout.file_bytes(k.len() as u64);
                (k, b)
            })
            .collect();
        let input_data_bytes: Vec<u64> = inputs
            .iter()
            .map(|&f| {
                self.layout
                    .data_bytes(self.version.sst(f).keys.len() as u64)
            })
            .collect();
        let total_input_keys: u64 = inputs
            .iter()
            .map(|&f| self.version.sst(f).keys.len() as u64)
            .sum();
        let job = self.new_job();
        self.storage.hint(
            now,
            &Hint::CompactionStarted {
                job,
                inputs: inputs.clone(),
                output_level,
                planned_outputs: outputs.len() as u32,
            },
        )?;
        if start_level == 0 && output_level == 0 {
            self.counters.intra_l0_compactions += 1;
        }
        let slot = Self::free_slot(&mut self.compactions);
        let start_seq = self.next_version_seq();
        self.compactions[slot] = Some(CompactionJob {
            job,
            start_level,
            output_level,
            fetched_bytes: vec![0; inputs.len()],
            total_input_bytes: input_data_bytes.iter().sum(),
            total_input_keys,
            input_data_bytes,
            inputs,
            total_output_bytes: outputs.iter().map(|o| o.1).sum(),
            outputs,
            output_nos: Vec::new(),
            written_total_bytes: 0,
            current_output: 0,
            current_written_bytes: 0,
            pending_chunk_bytes: 0,
            consumed_input_bytes: 0,
            lo,
            hi,
            start_seq,
            started_ns: now,
            phase: JobPhase::Step,
        });
        self.queue.schedule(now, Ev::Compaction(slot));
        Ok(())
    }

    fn compaction_step(&mut self, slot: usize, now: Ns) -> Result<(), LsmError> {
        let mut j = self.compactions[slot].take().expect("compaction job");
        match j.phase {
            JobPhase::Step if j.current_output >= j.outputs.len() => {
                // Open the new tables.
                let mut done = now;
                for (k, &no) in j.output_nos.iter().enumerate() {
                    let n = j.outputs[k].0.len() as u64;
                    let tail = self.layout.tail_bytes(n);
                    let d = self
                        .storage
                        .read(now, no, self.layout.data_bytes(n), tail)?;
                    self.counters.table_open_read_bytes += tail;
                    done = done.max(d);
                }
                j.phase = JobPhase::Install;
                self.queue.schedule(done, Ev::Compaction(slot));
            }
            JobPhase::Step => {
                let out_bytes = j.outputs[j.current_output].1;
                let chunk = self
                    .o
                    .file_write_chunk_bytes
                    .min(out_bytes - j.current_written_bytes);
                j.pending_chunk_bytes = chunk;
                let need = ((j.written_total_bytes + chunk) as u128 * j.total_input_bytes as u128
                    / j.total_output_bytes.max(1) as u128) as u64;
                let consumed = need.saturating_sub(j.consumed_input_bytes);
                j.consumed_input_bytes = need.max(j.consumed_input_bytes);
                let mut done = now;
                for i in 0..j.inputs.len() {
                    let size = j.input_data_bytes[i];
                    let target =
                        (need as u128 * size as u128 / j.total_input_bytes.max(1) as u128) as u64;
                    while j.fetched_bytes[i] < target.min(size) {
                        let len = self
                            .o
                            .compaction_readahead_bytes
                            .min(size - j.fetched_bytes[i]);
                        let d = self
                            .storage
                            .read(now, j.inputs[i], j.fetched_bytes[i], len)?;
                        j.fetched_bytes[i] += len;
                        self.counters.compaction_read_bytes += len;
                        done = done.max(d);
                    }
                }
                let (k, total) = (j.total_input_keys, j.total_input_bytes);
                let keys = pro_rata(k, j.consumed_input_bytes, total)
                    - pro_rata(k, j.consumed_input_bytes - consumed, total);
                let cpu = self
                    .o
                    .cpu
                    .jittered_ns(j.job, self.o.cpu.compaction_ns(keys, consumed));
                j.phase = JobPhase::Write;
                self.queue.schedule(done + cpu, Ev::Compaction(slot));
            }
            JobPhase::Write => {
                if j.current_written_bytes == 0 {
                    let no = self.new_file_no();
                    let level = j.output_level;
                    self.storage.create(now, no, FileKind::Sst { level })?;
                    self.storage.hint(
                        now,
                        &Hint::SstGenerated {
                            job: j.job,
                            sst: no,
                            level,
                            expected_bytes: j.outputs[j.current_output].1,
                        },
                    )?;
                    j.output_nos.push(no);
                }
                let no = *j.output_nos.last().expect("output file");
                let chunk = j.pending_chunk_bytes;
                let mut done = self.storage.append(now, no, chunk)?;
                j.current_written_bytes += chunk;
                j.written_total_bytes += chunk;
                self.counters.compaction_write_bytes += chunk;
                self.counters.level_write_bytes[j.output_level as usize] += chunk;
                if j.current_written_bytes == j.outputs[j.current_output].1 {
                    done = done.max(self.storage.close(now, no)?);
                    j.current_output += 1;
                    j.current_written_bytes = 0;
                }
                j.phase = JobPhase::Step;
                self.queue.schedule(done, Ev::Compaction(slot));
            }
            JobPhase::Install => {
                self.install_compaction(now, j)?;
                return Ok(());
            }
        }
        self.compactions[slot] = Some(j);
        Ok(())
    }

    fn install_compaction(&mut self, now: Ns, j: CompactionJob) -> Result<(), LsmError> {
        // Intra-L0 outputs take the place of their inputs among L0's files.
        let l0_pos = if j.output_level == 0 {
            self.version.levels[0]
                .iter()
                .position(|f| j.inputs.contains(f))
        } else {
            None
        };
        let obsolete_seq = self.next_version_seq();
        let obsolete: Vec<ObsoleteSst> = j
            .inputs
            .iter()
            .map(|&f| {
                let s = self.version.sst(f);
                ObsoleteSst {
                    no: f,
                    level: s.level,
                    file_bytes: s.file_bytes,
                    obsolete_seq,
                }
            })
            .collect();
        for &f in &j.inputs {
            self.version.remove(f);
        }
        let mut outputs = Vec::new();
        for (k, (keys, bytes)) in j.outputs.into_iter().enumerate() {
            let no = j.output_nos[k];
            outputs.push(no);
            let sst = Sst::new(no, j.output_level, keys, bytes);
            match l0_pos {
                Some(pos) => self.version.add_l0_at(pos, sst),
                None => self.version.add(sst),
            }
        }
        if self.o.defer_obsolete_deletion {
            self.obsolete.extend(obsolete);
        } else {
            for o in obsolete {
                self.storage.delete(now, o.no)?;
            }
        }
        self.counters.compactions += 1;
        self.storage.hint(
            now,
            &Hint::CompactionFinished {
                job: j.job,
                outputs,
                output_level: j.output_level,
            },
        )?;
        self.purge_obsolete(now)?;
        self.after_change(now)
    }

    fn next_version_seq(&mut self) -> u64 {
        self.version_seq += 1;
        self.version_seq
    }

    /// `FindObsoleteFiles` + `PurgeObsoleteFiles` at the end of a background job:
    /// deletes the obsolete SSTs no running job pins, i.e. those that became
    /// obsolete before every running job started.
    pub(super) fn purge_obsolete(&mut self, now: Ns) -> Result<(), LsmError> {
        if self.obsolete.is_empty() {
            return Ok(());
        }
        let oldest_start = self
            .flushes
            .iter()
            .flatten()
            .map(|j| j.start_seq)
            .chain(self.compactions.iter().flatten().map(|j| j.start_seq))
            .min();
        let pinned = |o: &ObsoleteSst| oldest_start.is_some_and(|s| s < o.obsolete_seq);
        let (keep, gone): (Vec<ObsoleteSst>, Vec<ObsoleteSst>) =
            self.obsolete.iter().partition(|o| pinned(o));
        self.obsolete = keep;
        for o in gone {
            self.counters.obsolete_deleted_bytes += o.file_bytes;
            self.storage.delete(now, o.no)?;
        }
        Ok(())
    }
}

/// `total × part ÷ whole`, rounded down (0 when `whole` is 0).
fn pro_rata(total: u64, part: u64, whole: u64) -> u64 {
    if whole == 0 {
        return 0;
    }
    (total as u128 * part as u128 / whole as u128) as u64
}
