//! §3.1/§3.2 of BCW/MIOS: the "Profiling" run and the buffered-write model's
//! parameters derived from it.
//!
//! **The run** ([`record_trace`]): a sync (`Command::Flush`, which empties the
//! disk's write buffer), then `total / size` sequential writes of one size at queue
//! depth 1, each submitted the moment the previous one completes (or after an
//! optional host turnaround), from a start LBA.
//! Every write's submit time and latency is recorded ([`LatencyTrace`]).
//!
//! **The analysis** ([`analyse`]) uses the latencies alone — never a model's
//! internals — in two steps:
//!
//! 1. *Three latency levels* ([`find_levels`]), in log space (the levels are
//!    ratios apart: 66 µs / 135 µs / 12 ms in the paper's 16 KB example):
//!    - **Slow vs buffered.** Sort the log-latencies and look at the jumps between
//!      neighbours at or above the median (slow writes are a minority of a
//!      staircase, so the jump to them lies above the median; a gap test does not
//!      depend on how rare they are, where a variance criterion such as 2-means
//!      would rather split F from M when S writes are 0.1%). A jump counts if it
//!      is at least [`SLOW_GAP_MIN`]×; the slow level is everything above the
//!      *topmost* such jump. Topmost rather than largest: mid writes that also
//!      wait for a head switch (~1 ms, 4–5× a 64 KiB mid write) form a small
//!      intermediate level, and the jump to them can be larger than the one from
//!      them to a slow write. Fewer than [`MIN_SLOW_WRITES`] writes above it is
//!      too little to tell a slow level from one stalled write:
//!      [`MiosError::TooShort`] (never a guess one level lower, which would take
//!      the head-switch writes for slow ones). No jump means one level (an SSD, a
//!      write-through disk): no staircase.
//!    - **Hiccups.** Among the buffered writes, those above the first jump of
//!      [`HICCUP_GAP_MIN`]× at or above the buffered median, if at most
//!      [`HICCUP_MAX_FRACTION`] of them, are set aside for the next step (the
//!      intermediate level above); they classify as M.
//!    - **Fast vs mid**, among the remaining buffered writes: the exact
//!      two-cluster split of their log-latencies (Otsu's threshold, i.e. optimal
//!      1-D 2-means). It is accepted as two levels only if the mid level's median
//!      is at least [`MID_RATIO_MIN`]× the fast one's *and* the two clusters are
//!      well separated: a robust Ashman's D = √2·|m₁−m₂| / √(s₁²+s₂²) ≥
//!      [`MID_SEPARATION_MIN`], with medians m and s = 1.4826 × the median
//!      absolute deviation (so stray hiccups do not widen a level). A single
//!      Gaussian or uniform level split in two gives D ≈ 2.3 or 2.7, so noise
//!      within one level is not mistaken for two.
//!      Otherwise the buffered writes are one level and the device has no
//!      three-level staircase (a disk whose "fast" writes all run at media speed
//!      is a write-through disk).
//!
//!    Each boundary is the geometric mean of the two latencies either side of the
//!    split ([`LatencyThresholds`]), so any later write is classified by its
//!    latency alone: `≥ slow_min` → S, `≥ mid_min` → M, else F.
//! 2. *Stages* (Fig. 4): the **Fast stage** is everything before the first S
//!    write; an **S stage** is a maximal run of S writes; a **Mid stage** is what
//!    lies between two S stages (a complete one; the writes after the last S stage
//!    are cut off by the end of the run and not measured).
//!    - L_f, L_m, L_s: median latency of the writes classified F, M, S.
//!    - W_f: bytes of the F writes before the first S write; T_f: from the first
//!      write's submission to the completion of the last write before the first S.
//!    - W_m, T_m: mean over complete Mid stages of the bytes of their writes and
//!      of the stage's duration (first submission to last completion). A Mid
//!      stage is M writes, possibly followed by writes at F latency: a stream
//!      slower than the platter finds room again once the flush batch is done
//!      and runs at F latency until the buffer is full (docs of the device's
//!      write cache). Fig. 5 has no edge into F but Sync, so those writes are
//!      M/A writes of the stage (as the node's predictor counts them) and their
//!      bytes are part of W_m: the next S comes W_m after the last.
//!    - W_s, T_s: the same over the S stages.
//!    - `stray_writes`: M writes inside the Fast stage plus, in a Mid stage, M
//!      writes after an F-latency one (0 on a clean staircase: F and M do not
//!      interleave).
//!
//! A profile needs a Fast stage (an F write before the first S), at most
//! [`STRAY_MAX_FRACTION`] stray writes and at least two S stages (one complete Mid
//! stage); otherwise [`MiosError::NoStaircase`] or [`MiosError::TooShort`] says
//! why.

use super::{MiosError, WriteState};
use serde::Serialize;
use zonelab_devices::{Command, Device, DeviceError, DeviceInfo, Payload};
use zonelab_engine::{Ns, MIB};

/// Default amount a profile writes: 64 MiB is a 16 MiB Fast stage and about six
/// Slow/Mid cycles of 8 MiB on the paper's WD 10 TB disk.
pub const DEFAULT_PROFILE_TOTAL_BYTES: u64 = 64 * MIB;

/// Smallest jump (ratio of neighbouring sorted latencies) that separates the slow
/// level from the buffered ones. The paper's disks show 40–180× (12 ms against
/// 66–280 µs); 3× leaves room for slower buffered writes of large requests while a
/// continuous single-level distribution rarely has such a hole above its median.
pub const SLOW_GAP_MIN: f64 = 3.0;

/// Fewest writes above the slow jump for them to be a level: one stalled write is
/// not a level, and a profile needs two slow stages anyway.
pub const MIN_SLOW_WRITES: usize = 2;

/// Smallest jump above the buffered writes' median to hiccups: a mid write that
/// also waits for a head switch (~1 ms) is 2.8× a 128 KiB mid write, 4.6× a
/// 64 KiB one.
pub const HICCUP_GAP_MIN: f64 = 2.0;

/// Largest share of the buffered writes that may sit above a [`HICCUP_GAP_MIN`]×
/// jump over their median and still be set aside as hiccups rather than be a
/// level of their own (mid writes are at least a third of the buffered writes of
/// any profile long enough to measure a Mid stage).
pub const HICCUP_MAX_FRACTION: f64 = 0.1;

/// Smallest ratio of the mid level's median to the fast level's (the paper's
/// drives: 1.5–2×).
pub const MID_RATIO_MIN: f64 = 1.15;

/// Smallest (robust) Ashman's D between the fast and mid clusters for them to
/// count as two levels (one level split in two gives about 2.3 for a Gaussian,
/// 2.7 for a uniform spread).
pub const MID_SEPARATION_MIN: f64 = 4.0;

/// Largest share of the fast and mid writes that may be "stray" (F after the
/// first S, M before it) in a staircase; more means the two levels are not the
/// Fast and Mid stages of a write buffer.
pub const STRAY_MAX_FRACTION: f64 = 0.05;

/// What to profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ProfileConfig {
    /// Size of every write; a positive multiple of the device's block size.
    pub write_bytes: u64,
    /// Bytes to write; rounded down to whole writes (at least one).
    pub total_bytes: u64,
    /// LBA of the first write.
    pub start_lba: u64,
    /// Virtual time at which the sync is submitted.
    pub start_ns: Ns,
    /// Host turnaround: time between a write's completion and the next write's
    /// submission (0: the next write is submitted at the completion, as in the
    /// paper's continuous writes; a real host adds its system-call path).
    pub turnaround_ns: Ns,
}

impl ProfileConfig {
    /// `write_bytes` writes, [`DEFAULT_PROFILE_TOTAL_BYTES`] in all, from LBA 0 at
    /// time 0.
    pub fn new(write_bytes: u64) -> Self {
        Self {
            write_bytes,
            total_bytes: DEFAULT_PROFILE_TOTAL_BYTES,
            start_lba: 0,
            start_ns: 0,
            turnaround_ns: 0,
        }
    }

    pub fn with_total(mut self, total_bytes: u64) -> Self {
        self.total_bytes = total_bytes;
        self
    }

    pub fn with_turnaround(mut self, turnaround_ns: Ns) -> Self {
        self.turnaround_ns = turnaround_ns;
        self
    }
}

/// One write of the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WriteSample {
    pub submit_ns: Ns,
    pub latency_ns: Ns,
}

impl WriteSample {
    pub fn done_ns(&self) -> Ns {
        self.submit_ns + self.latency_ns
    }
}

/// What the profiling run observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LatencyTrace {
    pub device: String,
    pub block_bytes: u32,
    pub write_bytes: u64,
    pub start_lba: u64,
    /// Completion of the sync before the first write (its submission time).
    pub sync_done_ns: Ns,
    pub samples: Vec<WriteSample>,
}

impl LatencyTrace {
    pub fn writes(&self) -> u64 {
        self.samples.len() as u64
    }

    /// When the last write completed (the sync's completion if there were none).
    pub fn end_ns(&self) -> Ns {
        self.samples
            .last()
            .map_or(self.sync_done_ns, |s| s.done_ns())
    }

    /// The LBA after the last write.
    pub fn next_lba(&self) -> u64 {
        self.start_lba + self.writes() * (self.write_bytes / self.block_bytes as u64)
    }
}

/// The boundaries between the three latency levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LatencyThresholds {
    /// Writes at least this slow are M (or S).
    pub mid_min_ns: Ns,
    /// Writes at least this slow are S.
    pub slow_min_ns: Ns,
}

impl LatencyThresholds {
    /// The state a write's measured latency shows.
    pub fn classify(&self, latency_ns: Ns) -> WriteState {
        if latency_ns >= self.slow_min_ns {
            WriteState::S
        } else if latency_ns >= self.mid_min_ns {
            WriteState::M
        } else {
            WriteState::F
        }
    }
}

/// The buffered-write model's parameters (Table 2) for one write size, as the
/// predictor and the schedulers use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ProfiledParams {
    /// The write size they were measured with.
    pub write_bytes: u64,
    pub l_f_ns: Ns,
    pub l_m_ns: Ns,
    pub l_s_ns: Ns,
    pub w_f_bytes: u64,
    pub w_m_bytes: u64,
    pub w_s_bytes: u64,
    pub t_f_ns: Ns,
    pub t_m_ns: Ns,
    pub t_s_ns: Ns,
    /// How to tell the states apart by latency.
    pub thresholds: LatencyThresholds,
}

impl ProfiledParams {
    /// The state a completed write of `size_bytes` showed, from its service time
    /// and its size (§4.1: the predictor "identifies what the current write state
    /// is ... by monitoring the IO request size and latency"). The thresholds were
    /// measured with `write_bytes`; a larger write takes longer in every state, so
    /// for it the F/M boundary scales with the size (an F write is an interface
    /// transfer) and the S boundary is the profiled one plus the extra bytes at the
    /// M rate (an S write is a flush spike on top of its transfer). Without this a
    /// 1 MiB write accepted at once (2.5 ms on the WD 10 TB) reads as M or S and
    /// ends the Fast stage (issue #21, third pass). Writes up to `write_bytes` use
    /// the thresholds as profiled.
    pub fn classify_write(&self, latency_ns: Ns, size_bytes: u64) -> WriteState {
        let ratio = size_bytes as f64 / self.write_bytes.max(1) as f64;
        if ratio <= 1.0 {
            return self.thresholds.classify(latency_ns);
        }
        let t = latency_ns as f64;
        let slow_min = self.thresholds.slow_min_ns as f64 + (ratio - 1.0) * self.l_m_ns as f64;
        if t >= slow_min {
            WriteState::S
        } else if t >= self.thresholds.mid_min_ns as f64 * ratio {
            WriteState::M
        } else {
            WriteState::F
        }
    }
}

/// Writes per state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StateCounts {
    pub f: u64,
    pub m: u64,
    pub s: u64,
}

impl StateCounts {
    pub fn get(&self, state: WriteState) -> u64 {
        match state {
            WriteState::F => self.f,
            WriteState::M => self.m,
            WriteState::S => self.s,
        }
    }

    fn add(&mut self, state: WriteState) {
        match state {
            WriteState::F => self.f += 1,
            WriteState::M => self.m += 1,
            WriteState::S => self.s += 1,
        }
    }
}

/// A complete profile: the parameters, how they were counted, and the per-write
/// trace and states behind them (not serialised: `latency.csv` holds those).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HddProfile {
    pub device: String,
    pub write_bytes: u64,
    pub writes: u64,
    pub total_bytes: u64,
    /// From the first write's submission to the last one's completion.
    pub duration_ns: Ns,
    pub params: ProfiledParams,
    pub counts: StateCounts,
    /// S stages (maximal runs of S writes).
    pub slow_stages: u64,
    /// Mid stages between two S stages (those W_m and T_m average over).
    pub complete_mid_stages: u64,
    /// F writes after the Fast stage plus M writes inside it.
    pub stray_writes: u64,
    #[serde(skip)]
    pub states: Vec<WriteState>,
    #[serde(skip)]
    pub trace: LatencyTrace,
}

/// Checks a run of `total_bytes / write_bytes` sequential writes from `start_lba`:
/// returns (blocks per write, number of writes).
pub(crate) fn check_sequential_run(
    info: &DeviceInfo,
    write_bytes: u64,
    total_bytes: u64,
    start_lba: u64,
) -> Result<(u32, u64), MiosError> {
    let block = info.block_bytes as u64;
    if write_bytes == 0
        || !write_bytes.is_multiple_of(block)
        || write_bytes / block > u32::MAX as u64
    {
        return Err(MiosError::BadConfig {
            what: "write size",
            value: format!("{write_bytes} B"),
            allowed: format!(
                "a positive multiple of {}'s {block}-byte block, at most {} B",
                info.name,
                u32::MAX as u64 * block
            ),
        });
    }
    let blocks = (write_bytes / block) as u32;
    let writes = total_bytes / write_bytes;
    if writes == 0 {
        return Err(MiosError::BadConfig {
            what: "total",
            value: format!("{total_bytes} B"),
            allowed: format!("at least one write of {write_bytes} B"),
        });
    }
    let end = writes
        .checked_mul(blocks as u64)
        .and_then(|b| b.checked_add(start_lba));
    if end.is_none_or(|e| e > info.capacity_blocks) {
        return Err(MiosError::BadConfig {
            what: "total",
            value: format!("{total_bytes} B"),
            allowed: format!(
                "the writes must fit {}'s {} B from LBA {start_lba}",
                info.name,
                info.capacity_bytes()
            ),
        });
    }
    Ok((blocks, writes))
}

pub(crate) fn device_error(
    info: &DeviceInfo,
    command: &'static str,
    source: DeviceError,
) -> MiosError {
    MiosError::Device {
        device: info.name.clone(),
        command,
        source,
    }
}

/// The profiling run: sync, then sequential QD1 writes (see the module docs).
pub fn record_trace(dev: &mut dyn Device, cfg: &ProfileConfig) -> Result<LatencyTrace, MiosError> {
    let (blocks, writes) =
        check_sequential_run(dev.info(), cfg.write_bytes, cfg.total_bytes, cfg.start_lba)?;
    let sync = dev
        .submit(cfg.start_ns, &Command::Flush, Payload::SizeOnly)
        .map_err(|e| device_error(dev.info(), "flush", e))?;
    let sync_done_ns = sync.done_ns.max(cfg.start_ns);
    let mut now = sync_done_ns;
    let mut lba = cfg.start_lba;
    let mut samples = Vec::with_capacity(writes as usize);
    for _ in 0..writes {
        let c = dev
            .submit(now, &Command::Write { lba, blocks }, Payload::SizeOnly)
            .map_err(|e| device_error(dev.info(), "write", e))?;
        let done = c.done_ns.max(now);
        samples.push(WriteSample {
            submit_ns: now,
            latency_ns: done - now,
        });
        now = done.saturating_add(cfg.turnaround_ns);
        lba += blocks as u64;
    }
    let info = dev.info();
    Ok(LatencyTrace {
        device: info.name.clone(),
        block_bytes: info.block_bytes,
        write_bytes: cfg.write_bytes,
        start_lba: cfg.start_lba,
        sync_done_ns,
        samples,
    })
}

/// Profiles `dev`: [`record_trace`] then [`analyse`].
pub fn profile(dev: &mut dyn Device, cfg: &ProfileConfig) -> Result<HddProfile, MiosError> {
    analyse(&record_trace(dev, cfg)?)
}

/// Human-readable duration for messages.
pub(crate) fn fmt_ns(ns: Ns) -> String {
    match ns {
        0..=999 => format!("{ns} ns"),
        1_000..=999_999 => format!("{:.1} us", ns as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.2} ms", ns as f64 / 1e6),
        _ => format!("{:.2} s", ns as f64 / 1e9),
    }
}

/// Geometric mean of `lo < hi`, kept inside `(lo, hi]` so that `lo` classifies
/// below the boundary and `hi` at or above it.
fn boundary(lo: Ns, hi: Ns) -> Ns {
    let g = ((lo as f64) * (hi as f64)).sqrt().round() as Ns;
    g.max(lo + 1).min(hi)
}

/// Median and robust standard deviation (1.4826 × the median absolute
/// deviation) of sorted, non-empty values: a few hiccups do not widen a level.
fn robust_centre_spread(sorted: &[f64]) -> (f64, f64) {
    let median = sorted[(sorted.len() - 1) / 2];
    let mut dev: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
    dev.sort_by(f64::total_cmp);
    (median, 1.4826 * dev[(dev.len() - 1) / 2])
}

/// Otsu's threshold on sorted values: the `k` in `1..len` that splits `v` into
/// `v[..k]` and `v[k..]` with the largest between-class variance (the exact 1-D
/// 2-means split; only between distinct values). `None` if all values are equal.
fn otsu_split(v: &[f64]) -> Option<usize> {
    let n = v.len();
    let total: f64 = v.iter().sum();
    let mut left = 0.0;
    let mut best: Option<(usize, f64)> = None;
    for k in 1..n {
        left += v[k - 1];
        if v[k - 1] == v[k] {
            continue;
        }
        let (w0, w1) = (k as f64, (n - k) as f64);
        let d = left / w0 - (total - left) / w1;
        let between = w0 * w1 * d * d;
        if best.is_none_or(|(_, b)| between > b) {
            best = Some((k, between));
        }
    }
    best.map(|(k, _)| k)
}

/// Why [`find_levels`] found no three levels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoLevels {
    pub reason: String,
    /// The latencies might show a staircase with more writes (e.g. a single write
    /// stands out where a slow level needs two).
    pub too_short: bool,
}

/// Finds the three latency levels (module docs, step 1).
pub fn find_levels(latencies_ns: &[Ns]) -> Result<LatencyThresholds, NoLevels> {
    let n = latencies_ns.len();
    let fail = |reason: String| NoLevels {
        reason,
        too_short: false,
    };
    if n < 3 {
        return Err(NoLevels {
            reason: format!("{n} writes cannot show three latency levels"),
            too_short: true,
        });
    }
    let mut sorted: Vec<Ns> = latencies_ns.to_vec();
    sorted.sort_unstable();
    let logs: Vec<f64> = sorted.iter().map(|&l| (l.max(1) as f64).ln()).collect();
    let jump = SLOW_GAP_MIN.ln();
    let is_jump = |i: usize| logs[i + 1] - logs[i] >= jump;

    // Slow level: above the topmost jump at or above the median.
    let (median, max) = (fmt_ns(sorted[(n - 1) / 2]), fmt_ns(sorted[n - 1]));
    let Some(slow_at) = ((n - 1) / 2..n - 1).rev().find(|&i| is_jump(i)) else {
        return Err(fail(format!("one latency level (median {median}, max {max}; no jump of {SLOW_GAP_MIN}x or more to slow writes)")));
    };
    let above = n - 1 - slow_at;
    if above < MIN_SLOW_WRITES {
        return Err(NoLevels {
            reason: format!(
                "only {above} write(s) (up to {max}) stand {SLOW_GAP_MIN}x or more above the rest (median {median}); a slow level needs {MIN_SLOW_WRITES} (write more in all if the device buffers writes)"
            ),
            too_short: true,
        });
    }
    let slow_min_ns = boundary(sorted[slow_at], sorted[slow_at + 1]);

    // Buffered writes; hiccups above a jump over their median are left out of the
    // fast/mid split (and classify as M).
    let nb = slow_at + 1;
    let core_len = ((nb - 1) / 2..nb - 1)
        .find(|&i| logs[i + 1] - logs[i] >= HICCUP_GAP_MIN.ln())
        .filter(|&i| (nb - 1 - i) as f64 <= HICCUP_MAX_FRACTION * nb as f64)
        .map_or(nb, |i| i + 1);
    let core = &logs[..core_len];
    let one_level = || {
        format!(
            "the buffered writes form one latency level (median {}), slow writes {}: a staircase has distinct fast and mid levels",
            fmt_ns(sorted[(core_len - 1) / 2]),
            fmt_ns(sorted[(slow_at + n) / 2])
        )
    };
    let k = otsu_split(core).ok_or_else(|| fail(one_level()))?;
    let (lo, hi) = (&core[..k], &core[k..]);
    let ((m0, s0), (m1, s1)) = (robust_centre_spread(lo), robust_centre_spread(hi));
    let ratio = (m1 - m0).exp();
    let spread = (s0 * s0 + s1 * s1).sqrt();
    let separation = if spread > 0.0 {
        std::f64::consts::SQRT_2 * (m1 - m0) / spread
    } else {
        f64::INFINITY
    };
    if ratio < MID_RATIO_MIN || separation < MID_SEPARATION_MIN {
        return Err(fail(one_level()));
    }
    Ok(LatencyThresholds {
        mid_min_ns: boundary(sorted[k - 1], sorted[k]),
        slow_min_ns,
    })
}

/// Lower median of the latencies of the writes in `state`.
fn median_latency(trace: &LatencyTrace, states: &[WriteState], state: WriteState) -> Ns {
    let mut v: Vec<Ns> = trace
        .samples
        .iter()
        .zip(states)
        .filter(|(_, &s)| s == state)
        .map(|(w, _)| w.latency_ns)
        .collect();
    if v.is_empty() {
        return 0;
    }
    v.sort_unstable();
    v[(v.len() - 1) / 2]
}

fn mean_round(sum: u128, n: u64) -> u64 {
    if n == 0 {
        0
    } else {
        ((sum + n as u128 / 2) / n as u128) as u64
    }
}

/// Derives the model's parameters from a trace (module docs, steps 1 and 2).
pub fn analyse(trace: &LatencyTrace) -> Result<HddProfile, MiosError> {
    let s = &trace.samples;
    let wb = trace.write_bytes;
    let no_staircase = |reason: String| MiosError::NoStaircase {
        device: trace.device.clone(),
        writes: trace.writes(),
        write_bytes: wb,
        reason,
    };
    let latencies: Vec<Ns> = s.iter().map(|w| w.latency_ns).collect();
    let thresholds = find_levels(&latencies).map_err(|e| match e.too_short {
        true => MiosError::TooShort {
            device: trace.device.clone(),
            reason: e.reason,
        },
        false => no_staircase(e.reason),
    })?;
    let states: Vec<WriteState> = latencies.iter().map(|&l| thresholds.classify(l)).collect();

    let mut counts = StateCounts::default();
    states.iter().for_each(|&st| counts.add(st));
    // find_levels puts the slowest write at or above slow_min, so an S write exists.
    let first_s = states
        .iter()
        .position(|&st| st == WriteState::S)
        .ok_or_else(|| no_staircase("no slow write".into()))?;
    let f_in_fast_stage = states[..first_s]
        .iter()
        .filter(|&&st| st == WriteState::F)
        .count() as u64;
    if f_in_fast_stage == 0 {
        return Err(no_staircase(format!(
            "write {first_s} ({}) is slow before any fast write: there is no fast stage",
            fmt_ns(s[first_s].latency_ns)
        )));
    }

    // S stages: maximal runs of S writes, as half-open index ranges.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = first_s;
    while i < states.len() {
        if states[i] == WriteState::S {
            let start = i;
            while i < states.len() && states[i] == WriteState::S {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    if runs.len() < 2 {
        return Err(MiosError::TooShort {
            device: trace.device.clone(),
            reason: format!(
                "{} writes of {wb} B show one slow stage; a complete mid stage lies between two, so write more in all",
                trace.writes()
            ),
        });
    }
    let span = |a: usize, b: usize| s[b - 1].done_ns() - s[a].submit_ns;

    let (mut m_bytes, mut m_ns, mut m_writes) = (0u128, 0u128, 0u64);
    for w in runs.windows(2) {
        let (a, b) = (w[0].1, w[1].0);
        m_writes += states[a..b]
            .iter()
            .filter(|&&st| st == WriteState::M)
            .count() as u64;
        m_bytes += ((b - a) as u128) * wb as u128;
        m_ns += span(a, b) as u128;
    }
    let mid_stages = runs.len() as u64 - 1;
    if m_writes == 0 {
        return Err(no_staircase("no mid writes between the slow stages".into()));
    }
    let (mut s_bytes, mut s_ns) = (0u128, 0u128);
    for &(a, b) in &runs {
        s_bytes += ((b - a) as u128) * wb as u128;
        s_ns += span(a, b) as u128;
    }
    // M writes after an F-latency write of the same Mid stage (the run after
    // the last S stage included: it is cut off, not exempt).
    let mut interleaved = 0u64;
    let mut seen_f = false;
    for &st in &states[first_s..] {
        match st {
            WriteState::S => seen_f = false,
            WriteState::F => seen_f = true,
            WriteState::M => interleaved += seen_f as u64,
        }
    }
    let stray_writes = states[..first_s]
        .iter()
        .filter(|&&st| st == WriteState::M)
        .count() as u64
        + interleaved;
    if stray_writes as f64 > STRAY_MAX_FRACTION * (counts.f + counts.m) as f64 {
        return Err(no_staircase(format!(
            "fast and mid writes interleave ({stray_writes} of {} are M before the first slow write or after an F write of the same mid stage): not a staircase",
            counts.f + counts.m
        )));
    }

    let params = ProfiledParams {
        write_bytes: wb,
        l_f_ns: median_latency(trace, &states, WriteState::F),
        l_m_ns: median_latency(trace, &states, WriteState::M),
        l_s_ns: median_latency(trace, &states, WriteState::S),
        w_f_bytes: f_in_fast_stage * wb,
        w_m_bytes: mean_round(m_bytes, mid_stages),
        w_s_bytes: mean_round(s_bytes, runs.len() as u64),
        t_f_ns: span(0, first_s),
        t_m_ns: mean_round(m_ns, mid_stages),
        t_s_ns: mean_round(s_ns, runs.len() as u64),
        thresholds,
    };
    let first = s[0].submit_ns;
    Ok(HddProfile {
        device: trace.device.clone(),
        write_bytes: wb,
        writes: trace.writes(),
        total_bytes: trace.writes() * wb,
        duration_ns: trace.end_ns() - first,
        params,
        counts,
        slow_stages: runs.len() as u64,
        complete_mid_stages: mid_stages,
        stray_writes,
        states,
        trace: trace.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn staircase(f: Ns, m: Ns, s: Ns, n_f: usize, n_m: usize, cycles: usize) -> Vec<Ns> {
        let mut v = vec![f; n_f];
        for _ in 0..cycles {
            v.push(s);
            v.extend(std::iter::repeat_n(m, n_m));
        }
        v
    }

    #[test]
    fn three_levels_are_found_with_boundaries_between_them() {
        let t = find_levels(&staircase(180_000, 280_000, 12_000_000, 256, 128, 6)).unwrap();
        assert_eq!(t.classify(180_000), WriteState::F);
        assert_eq!(t.classify(280_000), WriteState::M);
        assert_eq!(t.classify(12_000_000), WriteState::S);
        assert!(t.mid_min_ns > 180_000 && t.mid_min_ns <= 280_000, "{t:?}");
        assert!(
            t.slow_min_ns > 280_000 && t.slow_min_ns <= 12_000_000,
            "{t:?}"
        );
    }

    #[test]
    fn rare_slow_writes_are_still_the_slow_level() {
        // 0.05% slow writes: a variance split would separate F from M first.
        let t = find_levels(&staircase(66_000, 135_000, 12_000_000, 1200, 4000, 2)).unwrap();
        assert_eq!(t.classify(135_000), WriteState::M);
        assert_eq!(t.classify(12_000_000), WriteState::S);
    }

    #[test]
    fn one_level_and_two_levels_are_no_staircase() {
        // An SSD: one level with a little spread.
        let ssd: Vec<Ns> = (0..1000).map(|i| 20_000 + (i * 37 % 101) * 10).collect();
        let e = find_levels(&ssd).unwrap_err().reason;
        assert!(e.contains("one latency level"), "{e}");
        // A write-through disk: media-rate writes and head switches 4.6x slower.
        let mut wt = vec![279_000; 1000];
        for i in (0..1000).step_by(90) {
            wt[i] = 1_279_000;
        }
        let e = find_levels(&wt).unwrap_err().reason;
        assert!(e.contains("buffered writes form one latency level"), "{e}");
        // Unimodal noise in the buffered writes is not two levels.
        let mut noisy: Vec<Ns> = (0..2000)
            .map(|i| 200_000 + (i * 7919 % 2000) * 20)
            .collect();
        noisy.extend([12_000_000; 5]);
        let e = find_levels(&noisy).unwrap_err().reason;
        assert!(e.contains("buffered writes form one latency level"), "{e}");
        assert!(find_levels(&[1, 2]).is_err());
        // The same with one slow first write (a seek) above everything.
        wt[0] = 8_600_000;
        let e = find_levels(&wt).unwrap_err();
        assert!(e.too_short && e.reason.contains("only 1 write(s)"), "{e:?}");
    }

    #[test]
    fn a_single_write_above_everything_is_too_little_for_a_level() {
        // One spike: the run is too short, and no lower level is taken for slow.
        let mut v = staircase(180_000, 280_000, 4_300_000, 256, 60, 1);
        v[280] = 1_280_000;
        v[300] = 1_280_000;
        let e = find_levels(&v).unwrap_err();
        assert!(
            e.too_short && e.reason.contains("only 1 write(s) (up to 4.30 ms)"),
            "{e:?}"
        );
        // A stall above a real staircase: an error rather than a guess.
        let mut v = staircase(180_000, 280_000, 12_000_000, 256, 128, 6);
        v.push(200_000_000);
        assert!(find_levels(&v).unwrap_err().too_short);
    }

    fn trace_of(latencies: &[Ns]) -> LatencyTrace {
        let mut t = 0;
        let samples = latencies
            .iter()
            .map(|&l| {
                let w = WriteSample {
                    submit_ns: t,
                    latency_ns: l,
                };
                t += l;
                w
            })
            .collect();
        LatencyTrace {
            device: "t".into(),
            block_bytes: 512,
            write_bytes: 65536,
            start_lba: 0,
            sync_done_ns: 0,
            samples,
        }
    }

    #[test]
    fn interleaved_fast_and_mid_writes_are_no_staircase() {
        let v: Vec<Ns> = (0..1000)
            .map(|i| {
                if i % 100 == 99 {
                    12_000_000
                } else if i % 2 == 0 {
                    180_000
                } else {
                    280_000
                }
            })
            .collect();
        let e = analyse(&trace_of(&v)).unwrap_err();
        assert!(
            e.to_string().contains("fast and mid writes interleave"),
            "{e}"
        );
        let ok = analyse(&trace_of(&staircase(
            180_000, 280_000, 12_000_000, 256, 128, 3,
        )))
        .unwrap();
        assert_eq!(
            (
                ok.counts.f,
                ok.counts.m,
                ok.counts.s,
                ok.complete_mid_stages
            ),
            (256, 384, 3, 2)
        );
    }

    /// A stream slower than the platter (4 KiB writes on the WD 10 TB): each
    /// Mid stage is M writes while the batch flushes, then F-latency writes until
    /// the buffer is full. They are M/A writes of the stage (Fig. 5 has no edge
    /// into F but Sync), not strays, and W_m counts all of the stage's bytes.
    #[test]
    fn a_mid_stage_may_end_with_fast_latency_writes() {
        let mut v = vec![37_500; 256];
        for _ in 0..3 {
            v.push(9_000_000);
            v.extend(std::iter::repeat_n(55_000, 100));
            v.extend(std::iter::repeat_n(37_500, 28));
        }
        let p = analyse(&trace_of(&v)).unwrap();
        assert_eq!(p.stray_writes, 0);
        assert_eq!(p.complete_mid_stages, 2);
        assert_eq!(p.params.w_m_bytes, 128 * 65536);
        assert_eq!((p.params.l_f_ns, p.params.l_m_ns), (37_500, 55_000));
        assert_eq!(p.params.w_f_bytes, 256 * 65536);
    }

    #[test]
    fn otsu_splits_between_the_clusters() {
        let v = [1.0, 1.1, 1.0, 5.0, 5.2, 5.1];
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        assert_eq!(otsu_split(&s), Some(3));
        assert_eq!(otsu_split(&[2.0, 2.0, 2.0]), None);
    }
}
