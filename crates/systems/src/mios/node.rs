//! An SSD-HDD hybrid node (MIOS §4.3, Fig. 6): one SSD and one HDD with a scheduler
//! deciding where each user write goes, Buffer-Controlled Writes (§4.2, Algorithm 2)
//! driving the HDD, and the HDD's append-only log with its garbage collection.
//!
//! The run is a discrete-event simulation in virtual time:
//! - **User requests** arrive at their trace times. Writes are steered by the
//!   [`Policy`]: SSD-only (the paper's Baseline), SWR (large writes to an idle HDD
//!   when the SSD queue is long), MIOS_D or MIOS_E (Algorithm 3). Reads go where the
//!   data is: the HDD log, the HDD's home area (after GC) or the SSD. Trims
//!   (deleted data) go to the SSD and drop the range from the HDD log.
//! - **SSD queue length** l(t) is the number of SSD requests submitted and not yet
//!   completed at t (the device model computes each completion when submitted).
//! - **BCW** writes the HDD one request at a time (QD1), sequentially at the log's
//!   tail (Algorithm 2): queued user writes first; only when none waits, padding —
//!   a 4 KiB PF when the predictor says M, 64 KiB PS writes with `flagHDD` off when it
//!   says S, until an S write is observed (the S stage is "skipped" with non-user
//!   data), then ADW restarts; in F nothing (§4.2: padding the Fast stage is
//!   unnecessary). A sequence is 1 fast stage + `loop_max` mid/slow pairs, then a
//!   sync (with `flagHDD` off). Each completed write's state comes from its measured
//!   latency (the profile's thresholds) and updates the predictor.
//! - **User writes never wait behind padding, a sync or a read.** Steering
//!   (Algorithm 3) sends a write only while `flagHDD` is on and it is predicted F or
//!   M after the writes ahead of it, and padding or a sync start only when no user
//!   write waits (a write may wait for the one PF or PS in flight). MIOS_E's
//!   l(t) ≤ L branch (line 4) takes a write predicted F after the writes queued
//!   ahead (§4.3: "we only redirect user requests to leverage the F write state");
//!   `line4_only_to_idle_hdd` (the third pass) is an ablation.
//! - **Write states** of completed writes come from their size and latency
//!   (`ProfiledParams::classify_write`), and only a sync leads the predictor into
//!   the Fast stage (Fig. 5): a sequence is one Fast stage of user writes, then
//!   `loop_max` M/S pairs (PF padding through each Mid stage when idle, PS through
//!   each Slow phase), then a sync. Inside a Mid stage a write that showed F
//!   latency makes the next predicted F while it fits the stage's W_m (Algorithm 1
//!   predicts from the last write's state; `predictor.rs`, issue #21's fifth
//!   pass), so line 4 also takes writes arriving then; PF fills the Mid stage in
//!   its F and M states alike (§4.2). Should the head of the HDD queue still be predicted S when its turn
//!   comes (the buffer filled earlier than predicted), the queue goes back to the SSD
//!   and BCW pads through the S stage (§4.2: "all incoming user requests have to be
//!   steered to other storage devices"). A read of data in the HDD log suspends BCW
//!   (§4.3: "MIOS immediately suspends BCW and serves this read. It will try to
//!   redirect all writes to other idle disks at this time"): `flagHDD` goes off, the
//!   queued writes go to the SSD, the read is served after the operation under way,
//!   and BCW recalibrates with PS paddings until it sees an S write (§4.2) before it
//!   takes user writes again. A write sent back to the SSD counts its time in the HDD
//!   queue in its latency (`NodeResult::writes_sent_back`).
//! - **HDD GC**: when the log is more than `gc_threshold` full and no user write
//!   waits, live chunks are written back to their home location (one HDD write per
//!   chunk), the log is recycled and BCW restarts with a sync.
//!
//! The scheduler uses only the profiled parameters ([`ProfiledParams`]) and what it
//! measures, never the device models' internals.

use super::predictor::WritePredictor;
use super::profiler::ProfiledParams;
use super::ssd_dispatch::{SsdDispatch, PAPER_SSD_DISPATCH_DEPTH};
use super::WriteState;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use zonelab_devices::{Command, Device, DeviceError, Payload};
use zonelab_engine::{
    ArrivalLane, EventQueue, InFlight, LatencyHistogram, LatencySummary, Ns, Popped, KIB,
};

/// Where user writes go (§4.3, §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Baseline: every write to the SSD.
    SsdOnly,
    /// Selective write redirection: writes of at least `large_bytes` go to the HDD
    /// when the SSD queue exceeds L and the HDD is idle (plain writes, no BCW).
    Swr { large_bytes: u64 },
    /// Algorithm 3 with BCW only when l(t) > L.
    MiosD,
    /// Algorithm 3, also sending writes predicted F to the HDD when l(t) ≤ L.
    MiosE,
    /// The "F write state only" strategy of §5.2 / Fig. 12: like MIOS_D (redirect
    /// only when l(t) > L) but the HDD is only ever used in its Fast state — when the
    /// accumulated data written reaches W_f (the next write would be predicted M),
    /// BCW issues a sync instead of padding through the mid/slow stages. No padding.
    MiosFOnly,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::SsdOnly => "baseline",
            Policy::Swr { .. } => "swr",
            Policy::MiosD => "mios_d",
            Policy::MiosE => "mios_e",
            Policy::MiosFOnly => "mios_f_only",
        }
    }

    fn uses_bcw(self) -> bool {
        matches!(self, Policy::MiosD | Policy::MiosE | Policy::MiosFOnly)
    }
}

/// A node's configuration.
#[derive(Debug, Clone, Serialize)]
pub struct NodeConfig {
    pub policy: Policy,
    /// L: the SSD queue length above which writes are redirected.
    pub ssd_queue_threshold: u32,
    /// The HDD's profiled buffered-write parameters.
    pub params: ProfiledParams,
    /// PF padding size (4 KiB in the paper).
    pub pf_bytes: u64,
    /// PS padding size (64 KiB in the paper).
    pub ps_bytes: u64,
    /// Mid/slow stage pairs per buffered-write sequence before a sync (10).
    pub loop_max: u32,
    /// Size of the HDD log area (from LBA 0); the home area follows it.
    pub log_bytes: u64,
    /// Log fill fraction that triggers GC (0.7 in the paper).
    pub gc_threshold: f64,
    /// Requests MIOS keeps on the SSD at once; the rest wait in its queue
    /// (`ssd_dispatch`: 1, synchronous direct-IO writes, §4.3.1; `None`: no limit).
    pub ssd_dispatch_depth: Option<u32>,
    /// Ablation, not the paper: MIOS_E's Algorithm 3 line 4 redirects only to an
    /// idle HDD (issue #21's third pass). `false` (the paper): line 4 as written,
    /// every write predicted F after the writes queued ahead of it.
    pub line4_only_to_idle_hdd: bool,
    /// The write-state predictor predicts F after a write that showed F latency
    /// inside a Mid stage, within the stage's W_m (`predictor.rs`, issue #21's
    /// fifth pass). `false`: the fourth pass's predictor (M there), the ablation.
    pub predict_fast_after_mid: bool,
    /// Ablation, not a calibrated cost: host-side time added to every sync()
    /// after the HDD's buffer flush completes (ns; 0, the default: a sync is the
    /// device flush alone, 40-100 ms on the WD 10 TB model). The paper measured
    /// "several hundred milliseconds, during which the HDD cannot accept any
    /// writes" (§4.2, §5.2) and gives no breakdown; docs/mios.md, sixth session.
    pub sync_extra_ns: Ns,
    /// Writes arriving during a sync wait behind it (Algorithm 2 as written: line 1's
    /// sync() leaves `flagHDD` on, and Fig. 5's Sync event takes the predictor to
    /// F/A, so Algorithm 3 sends writes predicted F/M to the HDD queue, where they
    /// wait for the sync to finish). `false`, the default since issue #21's sixth
    /// pass: a sync turns `flagHDD` off and writes arriving meanwhile go to the SSD.
    pub writes_wait_behind_sync: bool,
    /// Ablation (`None`, the default, in every `reproduce` run): the HDD's own
    /// traffic in a hybrid node, which MIOS does not schedule — see [`HddTierLoad`].
    pub hdd_tier_load: Option<HddTierLoad>,
}

/// The HDD tier's own writes in a hybrid node: the SSD tier's data "flushed to the
/// HDD tier at a later time" (§2.2; §2.3: "most of the HDD utilization is used in
/// dumping SSD data"), which keep the Baseline's HDD 4–10 % busy (Table 1, and
/// Table 5's Baseline column, measured while all user writes went to the SSD).
/// One write of `request_bytes` every `interval_ns` (from the first user request to
/// the last), at a pseudo-random place of the HDD's home area. They go to the drive
/// outside BCW (the predictor's ADW does not see them), ahead of user writes
/// waiting for the HDD, behind reads. An ablation: the paper does not say how its
/// runs replayed the HDD's side, nor its request sizes (docs/mios.md).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct HddTierLoad {
    pub interval_ns: Ns,
    pub request_bytes: u64,
}

impl NodeConfig {
    /// The paper's settings (§4.2, §5.1) with the given policy, threshold and profile.
    pub fn paper(
        policy: Policy,
        ssd_queue_threshold: u32,
        params: ProfiledParams,
        log_bytes: u64,
    ) -> Self {
        Self {
            policy,
            ssd_queue_threshold,
            params,
            pf_bytes: 4 * KIB,
            ps_bytes: 64 * KIB,
            loop_max: 10,
            log_bytes,
            gc_threshold: 0.7,
            ssd_dispatch_depth: Some(PAPER_SSD_DISPATCH_DEPTH),
            line4_only_to_idle_hdd: false,
            predict_fast_after_mid: true,
            sync_extra_ns: 0,
            writes_wait_behind_sync: false,
            hdd_tier_load: None,
        }
    }
}

/// What a user request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserOp {
    Read,
    Write,
    /// The range's data is deleted (a Pangu chunk flushed to the HDD tier and
    /// removed from the SSD, `zonelab_workloads::pangu`): the SSD is told (Trim)
    /// and any copy in the HDD log is dropped.
    Trim,
}

/// One user request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UserRequest {
    pub arrival_ns: Ns,
    pub op: UserOp,
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

/// Request-size groups of Fig. 9: < 4 KiB, 4–16, 16–64, 64–256, 256 KiB–1 MiB, ≥ 1 MiB.
pub const SIZE_GROUP_BOUNDS: [u64; 5] = [4 * KIB, 16 * KIB, 64 * KIB, 256 * KIB, 1024 * KIB];

fn size_group(size: u64) -> usize {
    SIZE_GROUP_BOUNDS
        .iter()
        .position(|&b| size < b)
        .unwrap_or(SIZE_GROUP_BOUNDS.len())
}

/// What a node run measured.
#[derive(Debug, Clone, Serialize)]
pub struct NodeResult {
    pub policy: Policy,
    pub writes: u64,
    pub reads: u64,
    /// Trims (deleted ranges) passed to the SSD.
    pub trims: u64,
    pub write_latency: LatencySummary,
    pub read_latency: LatencySummary,
    /// Mean write latency per Fig. 9 size group (ns; 0 when a group is empty).
    pub write_latency_by_size_ns: Vec<f64>,
    pub writes_by_size: Vec<u64>,
    /// User data written to the HDD (redirected) per Fig. 9 size group (Fig. 11(b)).
    pub hdd_user_write_bytes_by_size: Vec<u64>,
    /// SSD queue length seen by each arriving user request: counts per length
    /// (the last bucket holds everything longer).
    pub ssd_queue_length_counts: Vec<u64>,
    /// User writes that took more than 100 ms (Fig. 14(a): "more than 7% of the
    /// requests are severely affected by long queuing delay").
    pub writes_over_100ms: u64,
    /// The longest SSD queue an arriving request saw (not capped).
    pub max_ssd_queue_length: u64,
    /// Sum over arriving requests of the SSD queue length they saw (mean = this /
    /// the number of requests).
    pub ssd_queue_length_sum: u64,
    pub ssd_write_bytes: u64,
    pub ssd_write_requests: u64,
    pub hdd_user_write_bytes: u64,
    pub hdd_user_write_requests: u64,
    /// User writes on the HDD whose measured latency showed an S state.
    pub hdd_user_writes_observed_s: u64,
    pub hdd_padding_bytes: u64,
    pub hdd_syncs: u64,
    /// How long each sync kept the HDD (from its issue to its completion): the
    /// time no user write can be sent to the HDD (§4.2, §5.2 / Fig. 12).
    pub hdd_sync_duration: LatencySummary,
    /// Bytes the syncs found in the HDD's buffer (the drive's `cache_sync_bytes`):
    /// summed, and the most one sync had to write. Their cost emerges from these
    /// (a full buffer of BCW's sequential log ≈ 80 ms on the WD 10 TB).
    pub hdd_sync_bytes: u64,
    pub hdd_sync_bytes_max: u64,
    /// User writes that arrived while a sync was under way (they go to the SSD).
    pub writes_arriving_during_sync: u64,
    /// The HDD tier's own writes (`NodeConfig::hdd_tier_load`) and their bytes.
    pub hdd_tier_writes: u64,
    pub hdd_tier_bytes: u64,
    /// User writes the HDD took inside a Mid stage (the predictor past the Fast
    /// stage): what BCW's mid/slow stages add over an F-only HDD (Fig. 12).
    pub hdd_user_writes_in_mid_stages: u64,
    pub hdd_reads: u64,
    pub hdd_gc_runs: u64,
    pub hdd_gc_bytes: u64,
    /// HDD busy time on anything (gross) and on user requests only (net), over the
    /// run's duration (Table 5).
    pub hdd_gross_utilisation: f64,
    pub hdd_net_utilisation: f64,
    /// Predicted vs observed state of BCW's HDD writes: [predicted][observed].
    pub bcw_confusion: [[u64; 3]; 3],
    /// Latency (arrival to completion) of the user writes the HDD served, by the
    /// state predicted when each was issued (F, M, S).
    pub hdd_user_write_latency_by_state: [LatencySummary; 3],
    /// The same writes by the state their measured service time showed (F, M, S):
    /// where MIOS_E's HDD latency comes from.
    pub hdd_user_write_latency_by_observed_state: [LatencySummary; 3],
    /// Predicted vs observed state of the user writes alone: [predicted][observed].
    pub hdd_user_write_confusion: [[u64; 3]; 3],
    /// Latency of the user writes the SSD served (sent-back ones included) and of
    /// those the HDD served: which device sets the node's tail (Fig. 11's p99.9).
    pub ssd_served_write_latency: LatencySummary,
    pub hdd_served_write_latency: LatencySummary,
    /// Time BCW spent (from one HDD completion to the next) with the predictor in
    /// the Fast stage, the Mid stage, the Slow phase (PS padding, `flagHDD` off) and
    /// in syncs: MIOS_E's line 4 can redirect only in the first.
    pub bcw_stage_time_ns: [Ns; 4],
    /// Time each user write on the HDD waited (arrival to the HDD starting it):
    /// behind other user writes, since nothing else is started while one waits.
    pub hdd_user_write_wait: LatencySummary,
    /// Writes steered to the HDD that went back to the SSD because BCW suspended
    /// (a read) or the buffer filled earlier than predicted.
    pub writes_sent_back: u64,
    /// MIOS_D / MIOS_E writes that arrived with l(t) > L and stayed on the SSD, by
    /// why: [a sync pending or running, a Slow phase (PS padding, `flagHDD` off),
    /// predicted S after the writes queued ahead, other (read or GC)]. Where
    /// Table 4's per-HDD differences come from (docs/mios.md, sixth session).
    pub congested_writes_kept_on_ssd: [u64; 4],
    /// User writes that arrived while BCW was in a Fast stage taking user writes
    /// (flagHDD on, predictor in F): the most line 4 of Algorithm 3 can redirect.
    pub writes_arriving_in_fast_stage: u64,
    /// User writes that arrived in a Mid stage right after a write that showed F
    /// latency (flagHDD on): line 4 may redirect these too (`predictor.rs`,
    /// issue #21's fifth pass).
    pub writes_arriving_fast_in_mid_stage: u64,
    /// Per SSD queue length at arrival (as `ssd_queue_length_counts`): the SSD
    /// writes that saw it and their summed latency (ns), for the threshold L
    /// (`ssd_threshold::threshold_from_run`).
    pub ssd_writes_by_queue_length: Vec<u64>,
    pub ssd_write_latency_sum_by_queue_length_ns: Vec<f64>,
    /// From the first request's arrival to the last completion.
    pub duration_ns: Ns,
    /// Time with at least one request on the SSD (iostat's %util = this / duration).
    pub ssd_busy_ns: Ns,
}

const QUEUE_BUCKETS: usize = 257;

#[derive(Debug, Clone, Copy)]
enum Event {
    HddDone,
    /// The HDD tier's k-th own write (`NodeConfig::hdd_tier_load`).
    TierWrite(u64),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum HddOp {
    /// A user write (index into the requests) at a log position.
    UserWrite {
        req: usize,
        log_pos: u64,
    },
    Padding {
        bytes: u64,
    },
    Read {
        req: usize,
    },
    Sync,
    GcCopy {
        bytes: u64,
    },
    /// One of the HDD tier's own writes (outside BCW).
    Tier {
        bytes: u64,
    },
}

/// Where a 4 KiB block of user data lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loc {
    Log(u64),
    Home,
}

/// Runs `requests` (sorted by arrival) on `ssd` and `hdd` under `cfg`.
pub fn run_node(
    ssd: &mut dyn Device,
    hdd: &mut dyn Device,
    requests: &[UserRequest],
    cfg: &NodeConfig,
) -> Result<NodeResult, DeviceError> {
    run_node_with_histogram(ssd, hdd, requests, cfg).map(|(r, _)| r)
}

/// [`run_node`], also returning the full write-latency histogram (so that several
/// pairs' latencies can be merged, `multi_pair.rs`).
pub fn run_node_with_histogram(
    ssd: &mut dyn Device,
    hdd: &mut dyn Device,
    requests: &[UserRequest],
    cfg: &NodeConfig,
) -> Result<(NodeResult, LatencyHistogram), DeviceError> {
    Node::new(ssd, hdd, requests, cfg).run()
}

struct Node<'a> {
    ssd: &'a mut dyn Device,
    hdd: &'a mut dyn Device,
    reqs: &'a [UserRequest],
    cfg: &'a NodeConfig,
    events: EventQueue<Event>,
    /// The user requests' arrivals, popped with `events` (a trace's millions of
    /// arrivals kept out of the event heap).
    arrivals: ArrivalLane<'a, UserRequest>,
    /// Completion times of the SSD requests submitted: l(t) is those after t.
    ssd_outstanding: InFlight,
    ssd_dispatch: SsdDispatch,
    ssd_bb: u64,
    hdd_bb: u64,
    ssd_blocks: u64,
    home_blocks: u64,
    // HDD / BCW state.
    predictor: WritePredictor,
    flag_hdd: bool,
    hdd_queue: VecDeque<usize>,
    /// Bytes of the user writes waiting in `hdd_queue` (kept with it, so the
    /// scheduler need not sum the queue on every arrival).
    hdd_queued_bytes: u64,
    hdd_reads: VecDeque<usize>,
    /// The HDD tier's own writes waiting for the drive (their indices).
    hdd_tier_queue: VecDeque<u64>,
    hdd_busy: Option<(Ns, Ns, HddOp, WriteState)>,
    /// Bytes of the user write the HDD is serving (not yet in the predictor's ADW).
    hdd_in_flight_user_bytes: u64,
    hdd_state_hist: [LatencyHistogram; 3],
    hdd_observed_state_hist: [LatencyHistogram; 3],
    hdd_wait_hist: LatencyHistogram,
    hdd_sync_hist: LatencyHistogram,
    /// The last HDD completion (or BCW's start), for `bcw_stage_time_ns`.
    stage_clock_ns: Ns,
    ssd_queue_writes: Vec<u64>,
    ssd_queue_latency_ns: Vec<f64>,
    slow_phase: bool,
    loops: u32,
    sync_pending: bool,
    log_tail: u64,
    log_live: u64,
    location: HashMap<u64, Loc>,
    gc_pending: bool,
    /// F-only strategy: a write was kept off the HDD because ADW reached W_f, so
    /// the buffer should be emptied with a sync as soon as the HDD is idle.
    f_only_sync_wanted: bool,
    // Results.
    write_hist: LatencyHistogram,
    ssd_served_hist: LatencyHistogram,
    hdd_served_hist: LatencyHistogram,
    read_hist: LatencyHistogram,
    size_sum_ns: Vec<f64>,
    size_count: Vec<u64>,
    queue_counts: Vec<u64>,
    r: NodeResult,
    hdd_gross_ns: Ns,
    hdd_net_ns: Ns,
}

impl<'a> Node<'a> {
    fn new(
        ssd: &'a mut dyn Device,
        hdd: &'a mut dyn Device,
        reqs: &'a [UserRequest],
        cfg: &'a NodeConfig,
    ) -> Self {
        let ssd_bb = ssd.info().block_bytes as u64;
        let hdd_bb = hdd.info().block_bytes as u64;
        let ssd_blocks = ssd.info().capacity_blocks;
        let home_blocks = hdd
            .info()
            .capacity_blocks
            .saturating_sub(cfg.log_bytes / hdd_bb)
            .max(1);
        Self {
            ssd,
            hdd,
            reqs,
            cfg,
            events: EventQueue::new(),
            arrivals: ArrivalLane::new(reqs, |q| q.arrival_ns),
            ssd_outstanding: InFlight::new(),
            ssd_dispatch: SsdDispatch::new(cfg.ssd_dispatch_depth),
            ssd_bb,
            hdd_bb,
            ssd_blocks,
            home_blocks,
            predictor: WritePredictor::from_params(&cfg.params)
                .with_fast_after_mid(cfg.predict_fast_after_mid),
            flag_hdd: cfg.policy.uses_bcw() || matches!(cfg.policy, Policy::Swr { .. }),
            hdd_queue: VecDeque::new(),
            hdd_queued_bytes: 0,
            hdd_reads: VecDeque::new(),
            hdd_tier_queue: VecDeque::new(),
            hdd_busy: None,
            hdd_in_flight_user_bytes: 0,
            hdd_state_hist: [
                LatencyHistogram::new(),
                LatencyHistogram::new(),
                LatencyHistogram::new(),
            ],
            hdd_observed_state_hist: [
                LatencyHistogram::new(),
                LatencyHistogram::new(),
                LatencyHistogram::new(),
            ],
            hdd_wait_hist: LatencyHistogram::new(),
            hdd_sync_hist: LatencyHistogram::new(),
            stage_clock_ns: 0,
            ssd_queue_writes: vec![0; QUEUE_BUCKETS],
            ssd_queue_latency_ns: vec![0.0; QUEUE_BUCKETS],
            slow_phase: false,
            loops: 0,
            sync_pending: cfg.policy.uses_bcw(),
            log_tail: 0,
            log_live: 0,
            location: HashMap::new(),
            gc_pending: false,
            f_only_sync_wanted: false,
            write_hist: LatencyHistogram::new(),
            ssd_served_hist: LatencyHistogram::new(),
            hdd_served_hist: LatencyHistogram::new(),
            read_hist: LatencyHistogram::new(),
            size_sum_ns: vec![0.0; SIZE_GROUP_BOUNDS.len() + 1],
            size_count: vec![0; SIZE_GROUP_BOUNDS.len() + 1],
            queue_counts: vec![0; QUEUE_BUCKETS],
            r: NodeResult {
                policy: cfg.policy,
                writes: 0,
                reads: 0,
                trims: 0,
                write_latency: LatencySummary::default(),
                read_latency: LatencySummary::default(),
                write_latency_by_size_ns: Vec::new(),
                writes_by_size: Vec::new(),
                hdd_user_write_bytes_by_size: vec![0; SIZE_GROUP_BOUNDS.len() + 1],
                ssd_queue_length_counts: Vec::new(),
                writes_over_100ms: 0,
                max_ssd_queue_length: 0,
                ssd_queue_length_sum: 0,
                ssd_write_bytes: 0,
                ssd_write_requests: 0,
                hdd_user_write_bytes: 0,
                hdd_user_write_requests: 0,
                hdd_user_writes_observed_s: 0,
                hdd_padding_bytes: 0,
                hdd_syncs: 0,
                hdd_sync_duration: LatencySummary::default(),
                hdd_sync_bytes: 0,
                hdd_sync_bytes_max: 0,
                hdd_tier_writes: 0,
                hdd_tier_bytes: 0,
                writes_arriving_during_sync: 0,
                hdd_user_writes_in_mid_stages: 0,
                hdd_reads: 0,
                hdd_gc_runs: 0,
                hdd_gc_bytes: 0,
                hdd_gross_utilisation: 0.0,
                hdd_net_utilisation: 0.0,
                bcw_confusion: [[0; 3]; 3],
                hdd_user_write_latency_by_state: Default::default(),
                hdd_user_write_latency_by_observed_state: Default::default(),
                hdd_user_write_confusion: [[0; 3]; 3],
                ssd_served_write_latency: Default::default(),
                hdd_served_write_latency: Default::default(),
                hdd_user_write_wait: LatencySummary::default(),
                bcw_stage_time_ns: [0; 4],
                writes_sent_back: 0,
                congested_writes_kept_on_ssd: [0; 4],
                writes_arriving_in_fast_stage: 0,
                writes_arriving_fast_in_mid_stage: 0,
                ssd_writes_by_queue_length: Vec::new(),
                ssd_write_latency_sum_by_queue_length_ns: Vec::new(),
                duration_ns: 0,
                ssd_busy_ns: 0,
            },
            hdd_gross_ns: 0,
            hdd_net_ns: 0,
        }
    }

    fn run(mut self) -> Result<(NodeResult, LatencyHistogram), DeviceError> {
        if self.cfg.policy.uses_bcw() {
            // BCW starts (with its sync) when the workload does.
            let t0 = self.reqs.first().map_or(0, |r| r.arrival_ns);
            self.stage_clock_ns = t0;
            self.hdd_next(t0)?;
        }
        if self.cfg.hdd_tier_load.is_some() {
            let t0 = self.reqs.first().map_or(0, |r| r.arrival_ns);
            self.events.schedule(t0, Event::TierWrite(0));
        }
        let mut end = 0;
        // Arrivals pop as if all were scheduled before any other event.
        while let Some((now, popped)) = self.events.pop_with_lane(&mut self.arrivals) {
            end = end.max(now);
            match popped {
                Popped::Arrival(i) => self.arrive(now, i)?,
                Popped::Event(Event::HddDone) => self.hdd_done(now)?,
                Popped::Event(Event::TierWrite(k)) => self.tier_write_arrives(now, k)?,
            }
        }
        let end = end.max(self.ssd_outstanding.last_done_ns().unwrap_or(0));
        let mut r = self.r;
        r.write_latency = self.write_hist.summary();
        r.ssd_served_write_latency = self.ssd_served_hist.summary();
        r.hdd_served_write_latency = self.hdd_served_hist.summary();
        r.read_latency = self.read_hist.summary();
        r.write_latency_by_size_ns = self
            .size_sum_ns
            .iter()
            .zip(&self.size_count)
            .map(|(s, c)| if *c > 0 { (s / *c as f64).round() } else { 0.0 })
            .collect();
        r.writes_by_size = self.size_count;
        r.ssd_queue_length_counts = self.queue_counts;
        r.hdd_user_write_latency_by_state = [
            self.hdd_state_hist[0].summary(),
            self.hdd_state_hist[1].summary(),
            self.hdd_state_hist[2].summary(),
        ];
        r.hdd_user_write_latency_by_observed_state = [
            self.hdd_observed_state_hist[0].summary(),
            self.hdd_observed_state_hist[1].summary(),
            self.hdd_observed_state_hist[2].summary(),
        ];
        r.hdd_user_write_wait = self.hdd_wait_hist.summary();
        r.hdd_sync_duration = self.hdd_sync_hist.summary();
        r.ssd_writes_by_queue_length = self.ssd_queue_writes;
        r.ssd_write_latency_sum_by_queue_length_ns = self.ssd_queue_latency_ns;
        // The run spans the workload: from its first arrival (an aged drive's clock
        // starts after its preconditioning) to the last completion.
        let span = end.saturating_sub(self.reqs.first().map_or(0, |q| q.arrival_ns));
        r.duration_ns = span;
        r.ssd_busy_ns = self.ssd_dispatch.busy_ns();
        if span > 0 {
            r.hdd_gross_utilisation =
                ((self.hdd_gross_ns as f64 / span as f64) * 1e6).round() / 1e6;
            r.hdd_net_utilisation = ((self.hdd_net_ns as f64 / span as f64) * 1e6).round() / 1e6;
        }
        Ok((r, self.write_hist))
    }

    /// SSD queue length at `now`: submitted and not completed.
    fn ssd_queue_len(&mut self, now: Ns) -> usize {
        self.ssd_outstanding.outstanding_at(now)
    }

    fn blocks_of(&self, offset: u64, size: u64) -> (u64, u64) {
        let first = offset / 4096;
        let last = (offset + size).div_ceil(4096);
        (first, last)
    }

    fn arrive(&mut self, now: Ns, i: usize) -> Result<(), DeviceError> {
        let q = self.reqs[i];
        if q.op == UserOp::Trim {
            return self.trim(now, q);
        }
        let l = self.ssd_queue_len(now);
        self.queue_counts[l.min(QUEUE_BUCKETS - 1)] += 1;
        self.r.max_ssd_queue_length = self.r.max_ssd_queue_length.max(l as u64);
        self.r.ssd_queue_length_sum += l as u64;
        if q.op == UserOp::Read {
            self.r.reads += 1;
            let (first, last) = self.blocks_of(q.offset_bytes, q.size_bytes);
            let on_hdd = (first..last).any(|b| self.location.contains_key(&b));
            if on_hdd {
                self.hdd_reads.push_back(i);
                self.hdd_next(now)?;
            } else {
                let done = self.ssd_submit(now, q, false)?;
                self.read_hist.record(done - now);
            }
            return Ok(());
        }
        self.r.writes += 1;
        if matches!(self.hdd_busy, Some((_, _, HddOp::Sync, _))) {
            self.r.writes_arriving_during_sync += 1;
        }
        if self.cfg.policy.uses_bcw()
            && self.flag_hdd
            && !self.slow_phase
            && self.predictor.state() == WriteState::F
        {
            self.r.writes_arriving_in_fast_stage += 1;
        }
        if self.cfg.policy.uses_bcw()
            && self.flag_hdd
            && !self.slow_phase
            && self.predictor.fast_in_mid_stage()
        {
            self.r.writes_arriving_fast_in_mid_stage += 1;
        }
        if self.steer_to_hdd(l, q.size_bytes) {
            self.hdd_queue.push_back(i);
            self.hdd_queued_bytes += q.size_bytes;
            self.hdd_next(now)?;
        } else {
            if matches!(self.cfg.policy, Policy::MiosD | Policy::MiosE)
                && l > self.cfg.ssd_queue_threshold as usize
            {
                let why = self.why_kept_on_ssd();
                self.r.congested_writes_kept_on_ssd[why] += 1;
            }
            if self.cfg.policy == Policy::MiosFOnly
                && self.flag_hdd
                && l > self.cfg.ssd_queue_threshold as usize
            {
                // Kept off the HDD only because it would not be an F write: ADW has
                // reached W_f, so empty the buffer (§5.2, Fig. 12).
                self.f_only_sync_wanted = true;
                self.hdd_next(now)?;
            }
            let done = self.write_to_ssd(now, i)?;
            let lat = done - q.arrival_ns;
            let b = l.min(QUEUE_BUCKETS - 1);
            self.ssd_queue_writes[b] += 1;
            self.ssd_queue_latency_ns[b] += lat as f64;
        }
        Ok(())
    }

    /// Why a write arriving with l(t) > L stays on the SSD (index into
    /// `NodeResult::congested_writes_kept_on_ssd`): 0 a sync is pending or running,
    /// 1 BCW pads through a Slow phase (`flagHDD` off), 2 it would not be F or M
    /// after the writes queued ahead (predicted S), 3 anything else (a read or GC
    /// suspended BCW).
    fn why_kept_on_ssd(&self) -> usize {
        let syncing = self.sync_pending || matches!(self.hdd_busy, Some((_, _, HddOp::Sync, _)));
        if syncing {
            0
        } else if self.slow_phase {
            1
        } else if self.flag_hdd && !self.gc_pending {
            2
        } else {
            3
        }
    }

    /// Deletes `q`'s range: a Trim to the SSD (it takes a command slot, so it
    /// counts in l(t) while outstanding) and the range's blocks leave the HDD log.
    fn trim(&mut self, now: Ns, q: UserRequest) -> Result<(), DeviceError> {
        self.r.trims += 1;
        let blocks = q.size_bytes.div_ceil(self.ssd_bb).max(1);
        let lba = (q.offset_bytes / self.ssd_bb) % (self.ssd_blocks - blocks + 1);
        let cmd = Command::Trim {
            lba,
            blocks: blocks as u32,
        };
        let start = self.ssd_dispatch.start_at(now);
        let done = self.ssd.submit(start, &cmd, Payload::SizeOnly)?.done_ns;
        self.ssd_dispatch.dispatched(start, done);
        self.ssd_outstanding.push(done);
        if !self.location.is_empty() {
            let (first, last) = self.blocks_of(q.offset_bytes, q.size_bytes);
            for b in first..last {
                if let Some(Loc::Log(_)) = self.location.remove(&b) {
                    self.log_live = self.log_live.saturating_sub(4096);
                }
            }
        }
        Ok(())
    }

    /// Writes user request `i` to the SSD at `now`; returns its completion.
    fn write_to_ssd(&mut self, now: Ns, i: usize) -> Result<Ns, DeviceError> {
        let q = self.reqs[i];
        let done = self.ssd_submit(now, q, true)?;
        self.record_write(q, done);
        self.ssd_served_hist.record(done - q.arrival_ns);
        let (first, last) = self.blocks_of(q.offset_bytes, q.size_bytes);
        for b in first..last {
            if let Some(Loc::Log(_)) = self.location.remove(&b) {
                self.log_live = self.log_live.saturating_sub(4096);
            }
        }
        Ok(done)
    }

    /// BCW stops taking user writes (`flagHDD` off): the writes waiting for the
    /// HDD go to the SSD now (module docs).
    fn send_queue_back(&mut self, now: Ns) -> Result<(), DeviceError> {
        self.flag_hdd = false;
        while let Some(i) = self.hdd_queue.pop_front() {
            self.hdd_queued_bytes -= self.reqs[i].size_bytes;
            self.r.writes_sent_back += 1;
            self.write_to_ssd(now, i)?;
        }
        Ok(())
    }

    /// Algorithm 3 (and the SWR baseline).
    ///
    /// Line 2 (l(t) > L, predicted F or M): the SSD is congested; the write may
    /// queue behind other redirected writes as long as it is still predicted F or M
    /// after them. Line 4 (MIOS_E, l(t) ≤ L, predicted F): §4.3 "when the l(t) is
    /// lower than L, we only redirect user requests to leverage the F write state of
    /// HDD" — as written: the write goes to the HDD queue when it is predicted F
    /// after the writes already queued (so it never meets M or S), and it may wait
    /// behind them (BCW "writes them serially", §4.2). Neither line bounds the HDD
    /// queue otherwise: Algorithm 3 has no such condition, and §4.3's "monitors all
    /// request queues" names none (issue #21, fourth pass).
    /// `line4_only_to_idle_hdd` is the third pass's stricter line 4, kept as an
    /// ablation.
    fn steer_to_hdd(&self, ssd_queue_len: usize, size: u64) -> bool {
        if !self.flag_hdd || self.gc_pending {
            return false;
        }
        let long = ssd_queue_len > self.cfg.ssd_queue_threshold as usize;
        match self.cfg.policy {
            Policy::SsdOnly => false,
            Policy::Swr { large_bytes } => {
                long && size >= large_bytes && self.hdd_busy.is_none() && self.hdd_queue.is_empty()
            }
            Policy::MiosD | Policy::MiosE => {
                let p = self.predict_after_queue(self.hdd_ahead_bytes(), size);
                (long && matches!(p, WriteState::F | WriteState::M))
                    || (self.cfg.policy == Policy::MiosE
                        && p == WriteState::F
                        && (!self.cfg.line4_only_to_idle_hdd || self.hdd_starts_at_once()))
            }
            Policy::MiosFOnly => {
                long && self.predict_after_queue(self.hdd_ahead_bytes(), size) == WriteState::F
            }
        }
    }

    /// The HDD is idle and nothing waits for it: a write sent now starts now.
    fn hdd_starts_at_once(&self) -> bool {
        self.hdd_busy.is_none() && self.hdd_queue.is_empty() && self.hdd_reads.is_empty()
    }

    /// User bytes the HDD will write before a new one: queued and in flight.
    fn hdd_ahead_bytes(&self) -> u64 {
        self.hdd_queued_bytes + self.hdd_in_flight_user_bytes
    }

    /// The predicted state of a write of `size` after the `queued` bytes ahead of it.
    fn predict_after_queue(&self, queued: u64, size: u64) -> WriteState {
        let mut p = self.predictor.clone();
        if queued > 0 {
            let s = p.predict(queued);
            p.observe(s, queued);
        }
        p.predict(size)
    }

    fn ssd_submit(&mut self, now: Ns, q: UserRequest, write: bool) -> Result<Ns, DeviceError> {
        let blocks = q.size_bytes.div_ceil(self.ssd_bb).max(1);
        let lba = (q.offset_bytes / self.ssd_bb) % (self.ssd_blocks - blocks + 1);
        let cmd = if write {
            Command::Write {
                lba,
                blocks: blocks as u32,
            }
        } else {
            Command::Read {
                lba,
                blocks: blocks as u32,
            }
        };
        let start = self.ssd_dispatch.start_at(now);
        let done = self.ssd.submit(start, &cmd, Payload::SizeOnly)?.done_ns;
        self.ssd_dispatch.dispatched(start, done);
        self.ssd_outstanding.push(done);
        if write {
            self.r.ssd_write_bytes += q.size_bytes;
            self.r.ssd_write_requests += 1;
        }
        Ok(done)
    }

    fn record_write(&mut self, q: UserRequest, done: Ns) {
        let lat = done - q.arrival_ns;
        self.write_hist.record(lat);
        self.r.writes_over_100ms += (lat > 100_000_000) as u64;
        let g = size_group(q.size_bytes);
        self.size_sum_ns[g] += lat as f64;
        self.size_count[g] += 1;
    }

    /// The HDD tier's k-th own write arrives: queue it, schedule the next one
    /// while user requests still arrive.
    fn tier_write_arrives(&mut self, now: Ns, k: u64) -> Result<(), DeviceError> {
        let Some(load) = self.cfg.hdd_tier_load else {
            return Ok(());
        };
        let last = self.reqs.last().map_or(0, |r| r.arrival_ns);
        let next = now + load.interval_ns.max(1);
        if next <= last {
            self.events.schedule(next, Event::TierWrite(k + 1));
        }
        self.hdd_tier_queue.push_back(k);
        self.hdd_next(now)
    }

    /// Issues the HDD tier's next own write at a pseudo-random place of the home
    /// area (a fixed hash of its index: deterministic, no RNG stream consumed).
    fn issue_tier_write(&mut self, now: Ns, k: u64) -> Result<(), DeviceError> {
        let bytes = self.cfg.hdd_tier_load.map_or(0, |l| l.request_bytes);
        let blocks = bytes.div_ceil(self.hdd_bb).max(1);
        let mut x = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        let home = self.home_blocks.saturating_sub(blocks).max(1);
        let lba = self.cfg.log_bytes / self.hdd_bb + x % home;
        let lba = lba.min(self.hdd.info().capacity_blocks - blocks);
        self.hdd_issue(
            now,
            &Command::Write {
                lba,
                blocks: blocks as u32,
            },
            HddOp::Tier { bytes },
            WriteState::F,
        )
    }

    /// Issues the HDD's next operation if it is idle (Algorithm 2's loop body).
    fn hdd_next(&mut self, now: Ns) -> Result<(), DeviceError> {
        if self.hdd_busy.is_some() {
            return Ok(());
        }
        // The HDD tier's own writes (an ablation, `hdd_tier_load`) after reads,
        // before MIOS's: MIOS does not schedule them.
        if self.hdd_reads.is_empty() {
            if let Some(k) = self.hdd_tier_queue.pop_front() {
                return self.issue_tier_write(now, k);
            }
        }
        // Reads first: MIOS suspends BCW to serve them and sends the writes that
        // wait for the HDD to the SSD (§4.3).
        if let Some(i) = self.hdd_reads.pop_front() {
            if self.cfg.policy == Policy::MiosFOnly {
                // F-only never pads: it re-establishes a known (empty) buffer with
                // a sync after the disruption.
                self.sync_pending = true;
                self.send_queue_back(now)?;
            } else if self.cfg.policy.uses_bcw() {
                self.slow_phase = true; // recalibrate after the disruption
                self.send_queue_back(now)?;
            }
            let q = self.reqs[i];
            let (first, _) = self.blocks_of(q.offset_bytes, q.size_bytes);
            let lba = match self.location.get(&first) {
                Some(Loc::Log(pos)) => pos / self.hdd_bb,
                _ => self.cfg.log_bytes / self.hdd_bb + first % self.home_blocks,
            };
            let blocks = q.size_bytes.div_ceil(self.hdd_bb).max(1);
            let lba = lba.min(self.hdd.info().capacity_blocks - blocks);
            return self.hdd_issue(
                now,
                &Command::Read {
                    lba,
                    blocks: blocks as u32,
                },
                HddOp::Read { req: i },
                WriteState::F,
            );
        }
        if self.sync_pending {
            self.sync_pending = false;
            return self.issue_sync(now);
        }
        if self.gc_pending && self.hdd_queue.is_empty() {
            return self.gc_step(now);
        }
        if self.cfg.policy == Policy::MiosFOnly {
            return self.f_only_next(now);
        }
        if let Some(&i) = self.hdd_queue.front() {
            let size = self.reqs[i].size_bytes;
            let predicted = self.predictor.predict(size);
            if predicted != WriteState::S || !self.cfg.policy.uses_bcw() {
                self.hdd_queue.pop_front();
                self.hdd_queued_bytes -= size;
                if self.cfg.policy.uses_bcw() && self.predictor.state() != WriteState::F {
                    self.r.hdd_user_writes_in_mid_stages += 1;
                }
                let pos = self.log_tail;
                return self.hdd_log_write(
                    now,
                    size,
                    HddOp::UserWrite {
                        req: i,
                        log_pos: pos,
                    },
                    predicted,
                );
            }
            // The buffer filled earlier than predicted: no user write waits through
            // the S stage; the queue goes to the SSD and BCW pads through it.
            self.slow_phase = true;
            self.send_queue_back(now)?;
        }
        if !self.cfg.policy.uses_bcw() {
            return Ok(());
        }
        // Idle: padding per Algorithm 2. The S stage is triggered with PS once the
        // stage is close to its end (§4.2: "When ADW is close to W_f or W_m ... BCW
        // ... proactively triggers the Slow write with PS"): in F, when less than a
        // PS of room is left (F has no PF padding, and a user write that no longer
        // fits goes to the SSD, so BCW would otherwise wait forever); in M, when no
        // PF fits.
        let ps = self.cfg.ps_bytes;
        let pf = self.cfg.pf_bytes;
        let stage_ending = match self.predictor.state() {
            WriteState::F => self.predictor.predict(ps) == WriteState::S,
            _ => self.predictor.predict(pf) == WriteState::S,
        };
        if self.slow_phase || stage_ending {
            self.slow_phase = true;
            self.flag_hdd = false;
            let predicted = self.predictor.predict(ps);
            return self.hdd_log_write(now, ps, HddOp::Padding { bytes: ps }, predicted);
        }
        // PF fills the Mid stage, in its M and its F states alike (§4.2: PF "is used
        // to fill the F and M states"), never the Fast stage ("unnecessary to
        // proactively fill padded writes in the Fast state before ADW exceeds W_f").
        let mid_stage = self.predictor.state() != WriteState::F;
        if mid_stage && self.predictor.predict(pf) != WriteState::S {
            let predicted = self.predictor.predict(pf);
            return self.hdd_log_write(now, pf, HddOp::Padding { bytes: pf }, predicted);
        }
        Ok(()) // F: no padding needed (§4.2)
    }

    /// The F-only strategy's HDD step (§5.2, Fig. 12): user writes while they are
    /// predicted F; once the next one (or a write kept on the SSD) would not be F,
    /// a sync empties the buffer. The HDD is idle otherwise (no padding).
    fn f_only_next(&mut self, now: Ns) -> Result<(), DeviceError> {
        if let Some(&i) = self.hdd_queue.front() {
            let size = self.reqs[i].size_bytes;
            let predicted = self.predictor.predict(size);
            if predicted == WriteState::F {
                self.hdd_queue.pop_front();
                self.hdd_queued_bytes -= size;
                let pos = self.log_tail;
                return self.hdd_log_write(
                    now,
                    size,
                    HddOp::UserWrite {
                        req: i,
                        log_pos: pos,
                    },
                    predicted,
                );
            }
            self.f_only_sync_wanted = true;
        }
        if self.f_only_sync_wanted {
            self.f_only_sync_wanted = false;
            return self.issue_sync(now);
        }
        Ok(())
    }

    /// A sync starts a new buffered-write sequence (Fig. 5: F/A; Algorithm 2's loop
    /// count from 0) and BCW takes user writes again.
    fn restart_sequence(&mut self) {
        self.predictor.sync();
        self.loops = 0;
        self.slow_phase = false;
        self.flag_hdd = true;
    }

    /// Algorithm 2 line 1: sync() empties the HDD's buffer. By default a sync takes
    /// no writes (§4.2: "the HDD cannot accept any writes"): `flagHDD` goes off and
    /// the queue goes to the SSD, so nothing waits behind it. With
    /// `writes_wait_behind_sync` (Algorithm 2/3 as written) `flagHDD` stays on, the
    /// Sync event takes the predictor to F/A at once (Fig. 5), and the queued and
    /// arriving writes wait in the HDD queue until the sync completes.
    fn issue_sync(&mut self, now: Ns) -> Result<(), DeviceError> {
        if self.cfg.writes_wait_behind_sync {
            self.restart_sequence();
        } else {
            self.send_queue_back(now)?;
        }
        self.hdd_issue(now, &Command::Flush, HddOp::Sync, WriteState::F)
    }

    /// Appends `bytes` at the log tail.
    fn hdd_log_write(
        &mut self,
        now: Ns,
        bytes: u64,
        op: HddOp,
        predicted: WriteState,
    ) -> Result<(), DeviceError> {
        let blocks = bytes.div_ceil(self.hdd_bb).max(1);
        if self.log_tail + blocks * self.hdd_bb > self.cfg.log_bytes {
            // The log is full: collect it before writing on; no user write waits
            // behind the collection.
            self.gc_pending = true;
            if let HddOp::UserWrite { req, .. } = op {
                self.hdd_queue.push_front(req);
                self.hdd_queued_bytes += self.reqs[req].size_bytes;
            }
            self.send_queue_back(now)?;
            return self.gc_step(now);
        }
        let lba = self.log_tail / self.hdd_bb;
        self.log_tail += blocks * self.hdd_bb;
        self.hdd_issue(
            now,
            &Command::Write {
                lba,
                blocks: blocks as u32,
            },
            op,
            predicted,
        )
    }

    fn hdd_issue(
        &mut self,
        now: Ns,
        cmd: &Command,
        op: HddOp,
        predicted: WriteState,
    ) -> Result<(), DeviceError> {
        let mut done = self.hdd.submit(now, cmd, Payload::SizeOnly)?.done_ns;
        if op == HddOp::Sync {
            done += self.cfg.sync_extra_ns;
            // What this sync had to write (the drive's cumulative counter; none
            // without a write cache).
            let total = self
                .hdd
                .stats(now)
                .counters
                .get("cache_sync_bytes")
                .copied()
                .unwrap_or(0);
            let bytes = total - self.r.hdd_sync_bytes;
            self.r.hdd_sync_bytes = total;
            self.r.hdd_sync_bytes_max = self.r.hdd_sync_bytes_max.max(bytes);
        }
        self.hdd_in_flight_user_bytes = match op {
            HddOp::UserWrite { req, .. } => self.reqs[req].size_bytes,
            _ => 0,
        };
        self.hdd_busy = Some((now, done, op, predicted));
        self.events.schedule(done, Event::HddDone);
        Ok(())
    }

    /// GC: write live log chunks home, then recycle the log and resync.
    fn gc_step(&mut self, now: Ns) -> Result<(), DeviceError> {
        self.flag_hdd = false;
        let live = self.log_live;
        self.r.hdd_gc_runs += 1;
        self.r.hdd_gc_bytes += live;
        // Every block in the log goes home: one sequential read of the log, then
        // the writes home (modelled as one write per MiB of live data).
        let log_blocks = (self.log_tail / self.hdd_bb).max(1);
        let read_done = self
            .hdd
            .submit(
                now,
                &Command::Read {
                    lba: 0,
                    blocks: log_blocks.min(u32::MAX as u64) as u32,
                },
                Payload::SizeOnly,
            )?
            .done_ns;
        let mut t = read_done;
        let per = (1 << 20) / self.hdd_bb;
        let mut left = live / self.hdd_bb;
        let mut home = self.cfg.log_bytes / self.hdd_bb;
        while left > 0 {
            let n = left.min(per);
            t = self
                .hdd
                .submit(
                    t,
                    &Command::Write {
                        lba: home,
                        blocks: n as u32,
                    },
                    Payload::SizeOnly,
                )?
                .done_ns;
            home += n;
            left -= n;
        }
        for loc in self.location.values_mut() {
            *loc = Loc::Home;
        }
        self.log_tail = 0;
        self.log_live = 0;
        self.gc_pending = false;
        self.sync_pending = true;
        self.hdd_busy = Some((now, t, HddOp::GcCopy { bytes: live }, WriteState::F));
        self.events.schedule(t, Event::HddDone);
        Ok(())
    }

    fn hdd_done(&mut self, now: Ns) -> Result<(), DeviceError> {
        let Some((start, done, op, predicted)) = self.hdd_busy.take() else {
            return Ok(());
        };
        debug_assert_eq!(done, now);
        if self.cfg.policy.uses_bcw() {
            let stage = match op {
                HddOp::Sync => 3,
                _ if self.slow_phase => 2,
                _ => self.predictor.state().index(),
            };
            self.r.bcw_stage_time_ns[stage] += now.saturating_sub(self.stage_clock_ns);
            self.stage_clock_ns = now;
        }
        let busy = done - start;
        self.hdd_gross_ns += busy;
        self.hdd_in_flight_user_bytes = 0;
        let observed = match op {
            HddOp::UserWrite { req, .. } => self
                .cfg
                .params
                .classify_write(busy, self.reqs[req].size_bytes),
            HddOp::Padding { bytes } => self.cfg.params.classify_write(busy, bytes),
            _ => self.cfg.params.thresholds.classify(busy),
        };
        match op {
            HddOp::UserWrite { req, log_pos } => {
                self.hdd_net_ns += busy;
                let q = self.reqs[req];
                self.record_write(q, now);
                self.hdd_served_hist.record(now - q.arrival_ns);
                self.hdd_state_hist[predicted.index()].record(now - q.arrival_ns);
                self.hdd_observed_state_hist[observed.index()].record(now - q.arrival_ns);
                self.hdd_wait_hist.record(start - q.arrival_ns);
                self.r.hdd_user_write_confusion[predicted.index()][observed.index()] += 1;
                self.r.hdd_user_write_bytes += q.size_bytes;
                self.r.hdd_user_write_bytes_by_size[size_group(q.size_bytes)] += q.size_bytes;
                self.r.hdd_user_write_requests += 1;
                self.r.hdd_user_writes_observed_s += (observed == WriteState::S) as u64;
                let (first, last) = self.blocks_of(q.offset_bytes, q.size_bytes);
                for (k, b) in (first..last).enumerate() {
                    if self
                        .location
                        .insert(b, Loc::Log(log_pos + k as u64 * 4096))
                        .is_none()
                    {
                        self.log_live += 4096;
                    }
                }
                self.observe(predicted, observed, q.size_bytes);
            }
            HddOp::Padding { bytes } => {
                self.r.hdd_padding_bytes += bytes;
                self.observe(predicted, observed, bytes);
                if self.slow_phase && observed == WriteState::S {
                    // The S stage was taken by padding: accept user writes again.
                    self.slow_phase = false;
                    self.flag_hdd = true;
                    self.loops += 1;
                    if self.loops >= self.cfg.loop_max {
                        self.sync_pending = true;
                    }
                }
            }
            HddOp::Read { req } => {
                self.hdd_net_ns += busy;
                self.r.hdd_reads += 1;
                self.read_hist.record(now - self.reqs[req].arrival_ns);
            }
            HddOp::Sync => {
                self.r.hdd_syncs += 1;
                self.hdd_sync_hist.record(busy);
                self.restart_sequence();
            }
            HddOp::GcCopy { .. } => {}
            HddOp::Tier { bytes } => {
                self.r.hdd_tier_writes += 1;
                self.r.hdd_tier_bytes += bytes;
            }
        }
        if self.cfg.policy.uses_bcw()
            && !self.gc_pending
            && self.log_tail as f64 > self.cfg.gc_threshold * self.cfg.log_bytes as f64
            && self.hdd_queue.is_empty()
        {
            self.gc_pending = true;
        }
        self.hdd_next(now)
    }

    fn observe(&mut self, predicted: WriteState, observed: WriteState, bytes: u64) {
        if self.cfg.policy.uses_bcw() {
            self.r.bcw_confusion[predicted.index()][observed.index()] += 1;
            self.predictor.observe(observed, bytes);
        }
    }
}
