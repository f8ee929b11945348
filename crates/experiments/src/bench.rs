//! `zonelab bench`: runs a fio-like job on a device in virtual time. Each job keeps
//! `iodepth` requests in flight (closed loop): a completion frees a slot and the next
//! request is issued at that instant. Requests are submitted to the device in
//! virtual-time order, ties broken by issue order, so runs are deterministic.

use crate::run_result::{OpClass, Recorder, RunResult};
use thiserror::Error;
use zonelab_devices::{Command, Device, DeviceError, Payload};
use zonelab_engine::{EventQueue, Ns, RngStreams, NS_PER_MS};
use zonelab_workloads::job::{reset_command, JobError, JobSpec, JobStream};

#[derive(Debug, Error)]
pub enum BenchError {
    #[error(transparent)]
    Job(#[from] JobError),
    #[error("end-of-run drain (flush) failed on the device: {0}")]
    Drain(DeviceError),
    #[error("job {job}: {command} at LBA {lba} failed: {source}")]
    Device {
        job: u32,
        command: &'static str,
        lba: u64,
        source: DeviceError,
    },
}

/// Most placement identifiers a bench run takes (one per job, cycling).
pub const MAX_PLACEMENT_IDS: usize = 16;

/// NVMe FDP placement identifiers a bench run's writes carry (`--fdp-pid`): job
/// `j` writes with the `j`-th, cycling through the list. (fio's `fdp_pli` picks
/// one per write within a job instead; per-job handles model tenants.)
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlacementIds {
    ids: [u16; MAX_PLACEMENT_IDS],
    len: u8,
}

impl PlacementIds {
    /// A list of 1 to [`MAX_PLACEMENT_IDS`] identifiers.
    pub fn new(ids: &[u16]) -> Result<Self, String> {
        if ids.is_empty() || ids.len() > MAX_PLACEMENT_IDS {
            return Err(format!(
                "{} placement identifiers given; 1 to {MAX_PLACEMENT_IDS} are allowed",
                ids.len()
            ));
        }
        let mut p = Self::default();
        p.ids[..ids.len()].copy_from_slice(ids);
        p.len = ids.len() as u8;
        Ok(p)
    }

    pub fn as_slice(&self) -> &[u16] {
        &self.ids[..self.len as usize]
    }

    /// The identifier job `job` writes with, if any were given.
    pub fn for_job(&self, job: u32) -> Option<u16> {
        (self.len > 0).then(|| self.ids[job as usize % self.len as usize])
    }
}

/// Options of a bench run besides the job itself.
#[derive(Debug, Clone, Copy)]
pub struct BenchOptions {
    pub seed: u64,
    /// Interval of the throughput time series.
    pub series_interval_ns: Ns,
    /// Virtual time to start at: the `end_ns` of an earlier run on the same device
    /// (e.g. a preconditioning job), so the device's resources are not in the future.
    pub start_ns: Ns,
    /// Flush the device's write buffers after the last completion, so device
    /// statistics describe data on the media (the CLI's default; `--no-drain`).
    pub drain_at_end: bool,
    /// FDP placement identifiers the jobs' writes carry (none: plain writes).
    pub placement_ids: PlacementIds,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            series_interval_ns: 100 * NS_PER_MS,
            start_ns: 0,
            drain_at_end: false,
            placement_ids: PlacementIds::default(),
        }
    }
}

/// Progress callback: (bytes done, bytes planned or 0 if unknown).
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// Runs `spec` on `device` and returns the results.
pub fn run_bench(
    device: &mut dyn Device,
    spec: &JobSpec,
    opts: &BenchOptions,
    progress: Option<Progress<'_>>,
) -> Result<RunResult, BenchError> {
    let rngs = RngStreams::new(opts.seed);
    let mut streams = spec.streams(device, &rngs)?;
    let mut rec = Recorder::new(opts.series_interval_ns, opts.start_ns);
    let block_bytes = device.info().block_bytes as u64;
    // What the streams will issue (on a zoned device one pass is the zones'
    // capacity); unknown (0) when only a runtime stops them.
    let planned: u64 = if streams.iter().any(|s| s.bytes_left() == u64::MAX) {
        0
    } else {
        streams
            .iter()
            .fold(0u64, |sum, s| sum.saturating_add(s.bytes_left()))
    };
    let mut progress = progress;
    let deadline = spec
        .runtime_ns
        .map_or(Ns::MAX, |r| opts.start_ns.saturating_add(r));
    // Event: a slot of job `j` completed a request issued at `submit_ns`.
    let mut queue: EventQueue<(u32, Ns, OpClass, u64)> =
        EventQueue::with_capacity((spec.iodepth * spec.numjobs) as usize);
    queue.advance_to(opts.start_ns);
    for j in 0..streams.len() as u32 {
        for _ in 0..spec.iodepth {
            issue(
                device,
                &mut streams[j as usize],
                j,
                opts.start_ns,
                &mut queue,
                &mut rec,
                block_bytes,
                opts.placement_ids.for_job(j),
            )?;
        }
    }
    let mut done_bytes = 0u64;
    let mut next_report = 0u64;
    while let Some((now, (j, submit_ns, class, bytes))) = queue.pop() {
        rec.record(class, bytes, submit_ns, now);
        done_bytes += bytes;
        if let Some(p) = progress.as_mut() {
            if done_bytes >= next_report {
                p(done_bytes, planned);
                next_report = done_bytes + (planned / 200).max(1 << 20);
            }
        }
        if now < deadline {
            issue(
                device,
                &mut streams[j as usize],
                j,
                now,
                &mut queue,
                &mut rec,
                block_bytes,
                opts.placement_ids.for_job(j),
            )?;
        }
    }
    if let Some(p) = progress.as_mut() {
        p(done_bytes, planned);
    }
    let mut config = serde_json::to_value(spec).expect("job spec serialises");
    if !opts.placement_ids.as_slice().is_empty() {
        config["fdp_pids"] = serde_json::json!(opts.placement_ids.as_slice());
    }
    let drained_ns = if opts.drain_at_end {
        Some(crate::run_result::drain(device, rec.last_done_ns).map_err(BenchError::Drain)?)
    } else {
        None
    };
    Ok(rec.finish_drained("bench", opts.seed, config, device, drained_ns))
}

/// Issues the job's next step at `now` (a zone reset first if the step needs one);
/// writes carry `placement_id` when given.
#[allow(clippy::too_many_arguments)]
fn issue(
    device: &mut dyn Device,
    stream: &mut JobStream,
    job: u32,
    now: Ns,
    queue: &mut EventQueue<(u32, Ns, OpClass, u64)>,
    rec: &mut Recorder,
    block_bytes: u64,
    placement_id: Option<u16>,
) -> Result<(), BenchError> {
    let Some(step) = stream.next_step() else {
        return Ok(());
    };
    let mut at = now;
    if let Some(zone_lba) = step.reset_zone_first {
        let c = submit(device, job, at, &reset_command(zone_lba), None)?;
        rec.job_zone_resets += 1;
        at = c;
    }
    let done = submit(device, job, at, &step.cmd, placement_id)?;
    let class = match step.cmd {
        Command::Read { .. } => OpClass::Read,
        Command::Write { .. } | Command::Append { .. } => OpClass::Write,
        Command::Trim { .. } => OpClass::Trim,
        _ => OpClass::Other,
    };
    let bytes = step.cmd.data_blocks() as u64 * block_bytes;
    // Latency is measured from the job's issue time, so a reset it had to do first counts.
    queue.schedule(done, (job, now, class, bytes));
    Ok(())
}

fn submit(
    device: &mut dyn Device,
    job: u32,
    at: Ns,
    cmd: &Command,
    placement_id: Option<u16>,
) -> Result<Ns, BenchError> {
    let lba = match *cmd {
        Command::Read { lba, .. } | Command::Write { lba, .. } | Command::Trim { lba, .. } => lba,
        Command::Append { zone_lba, .. } | Command::Zone { zone_lba, .. } => zone_lba,
        Command::Flush => 0,
    };
    match (cmd, placement_id) {
        (Command::Write { .. }, Some(pid)) => device.submit_placed(at, cmd, pid, Payload::SizeOnly),
        _ => device.submit(at, cmd, Payload::SizeOnly),
    }
    .map(|c| c.done_ns)
    .map_err(|source| BenchError::Device {
        job,
        command: cmd.name(),
        lba,
        source,
    })
}

/// Idle time between preconditioning and the measured run, as between two fio runs:
/// long enough for write buffers to drain so the measurement starts in steady state.
pub const PRECONDITION_IDLE_NS: Ns = zonelab_engine::NS_PER_S;

/// Preconditions the region of `spec` as fio users do before a read test: one
/// sequential pass of 1 MiB writes (zone-aware on zoned devices) over the job's
/// whole region. Returns the virtual time to start the measured run at: the end of
/// the pass plus [`PRECONDITION_IDLE_NS`].
pub fn precondition(
    device: &mut dyn Device,
    spec: &JobSpec,
    opts: &BenchOptions,
) -> Result<Ns, BenchError> {
    let bb = device.info().block_bytes as u64;
    let bs = (zonelab_engine::MIB / bb).max(1) * bb;
    let fill = JobSpec {
        rw: zonelab_workloads::job::RwMode::Write,
        block_size_bytes: bs,
        iodepth: 4,
        numjobs: spec.numjobs,
        offset_bytes: spec.offset_bytes,
        size_bytes: spec.size_bytes,
        io_size_bytes: None,
        runtime_ns: None,
        rwmixread_percent: 0,
        max_open_zones: None,
    };
    let fill_opts = BenchOptions {
        drain_at_end: false,
        ..*opts
    };
    let r = run_bench(device, &fill, &fill_opts, None)?;
    Ok(r.end_ns + PRECONDITION_IDLE_NS)
}
