//! [`EmulatedDevice`]: a device model driven by the wall clock.

use crate::backed::submit_with_backing;
use crate::backing::Backing;
use crate::pacer::{Pacer, DEFAULT_SPIN_WINDOW};
use crate::report::{EmulationReport, OpRecorder};
use crate::restore;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};
use zonelab_devices::models::{cmr_hdd, conzone, ftl_ssd, hm_smr_hdd, zns_ssd};
use zonelab_devices::profile::{find_profile, model_of, ProfileSource};
use zonelab_devices::zoned::ZoneDescriptor;
use zonelab_devices::{
    Command, Device, DeviceError, DeviceInfo, DeviceStats, Lba, Payload, ProfileError,
};

/// How virtual time maps to wall time, and where payload bytes live.
#[derive(Debug, Clone, PartialEq)]
pub struct EmulationConfig {
    /// Wall-clock nanoseconds per virtual nanosecond; `>= 1`.
    ///
    /// Virtual time runs *slower* than the wall clock by this factor:
    /// `virtual_ns = wall_ns_since_start / time_dilation`, so a request the model
    /// says takes 1 ms takes `time_dilation` ms of wall time. `1.0` is real time;
    /// `10.0` makes every modelled latency 10× longer on the wall clock (useful when
    /// the host code or the payload copies cannot keep up with the modelled device).
    pub time_dilation: f64,
    /// The pacer sleeps until this long before a completion, then spins.
    pub spin_window: Duration,
    /// `None` (the default): payload bytes live in the model's in-memory store and
    /// nothing persists. `Some(path)`: bytes live in a sparse backing file at
    /// `path` (created with the device's capacity if missing) and the zone states
    /// in `<path>.zones`; reopening the same file resumes where the last flush,
    /// [`EmulatedDevice::sync`] or drop left it (see [`crate::backing`]).
    pub backing_path: Option<PathBuf>,
}

impl Default for EmulationConfig {
    fn default() -> Self {
        EmulationConfig {
            time_dilation: 1.0,
            spin_window: DEFAULT_SPIN_WINDOW,
            backing_path: None,
        }
    }
}

/// Errors building an emulator (never from `submit`, which returns [`DeviceError`]).
#[derive(Debug, thiserror::Error)]
pub enum EmulationError {
    #[error("time_dilation must be a finite number >= 1 (got {0})")]
    InvalidDilation(f64),
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error("model `{model}` cannot be shared between threads; wrap `zonelab_devices::open_device` with `EmulatedDevice::new` and use it from one thread")]
    NotSend { model: String },
    #[error("backing file `{path}`: {message}")]
    Backing { path: String, message: String },
    #[error("backing file `{path}`: saved {field} is {saved} but the device's is {device}; use the profile the file was made with, or another file")]
    BackingMismatch {
        path: String,
        field: &'static str,
        saved: u64,
        device: u64,
    },
    #[error("zone-state file `{path}` line {line}: {reason}")]
    BadSidecar {
        path: String,
        line: usize,
        reason: String,
    },
    #[error("restoring zone {zone} from the backing file: {source}")]
    Restore { zone: u32, source: DeviceError },
    #[error("profile `{profile}`: {message}")]
    ZoneScaling { profile: String, message: String },
}

/// A completion as the emulator's caller sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmulatedCompletion {
    /// Virtual time the request reached the model.
    pub submit_ns: u64,
    /// Virtual time the model completed it.
    pub done_ns: u64,
    /// First LBA touched; for a zone append, where the data landed.
    pub lba: Lba,
    /// The wall-clock instant `submit` waited for (it returned at or after it).
    pub deadline: Instant,
}

impl EmulatedCompletion {
    /// Modelled (virtual) latency in nanoseconds.
    pub fn latency_ns(&self) -> u64 {
        self.done_ns - self.submit_ns
    }
}

struct Inner<D: ?Sized> {
    /// Virtual time of the last request handed to the model (requests reach the
    /// model in non-decreasing virtual time).
    last_now_ns: u64,
    /// The sparse backing file, when payloads are not kept in memory.
    backing: Option<Backing>,
    /// What was submitted, for [`EmulatedDevice::report`].
    ops: OpRecorder,
    device: Box<D>,
}

/// Any device model, paced against the wall clock and storing the caller's bytes.
///
/// `D` is `dyn Device + Send` by default, which makes the emulator `Sync`: share it
/// in an `Arc` and submit from several threads (build one with
/// [`EmulatedDevice::open`]). An `EmulatedDevice<dyn Device>` (from
/// [`zonelab_devices::open_device`]) works the same from one thread.
///
/// Submission is blocking: [`EmulatedDevice::submit`] takes the current virtual
/// time and hands the request to the model under a mutex, releases the mutex, then
/// waits on the caller's thread until the modelled completion time is reached on the
/// wall clock. Requests from other threads reach the model meanwhile, so queueing
/// inside the model (channels, dies, actuators) is what the threads see.
pub struct EmulatedDevice<D: ?Sized + Device = dyn Device + Send> {
    inner: Mutex<Inner<D>>,
    info: DeviceInfo,
    start: Instant,
    /// Virtual time at `start`: 0, or after a restore the time the replayed zone
    /// state completed in the model.
    base_ns: u64,
    dilation: f64,
    pacer: Pacer,
}

impl EmulatedDevice<dyn Device + Send> {
    /// Builds a built-in profile (e.g. `"zn540"`) or a profile file as a `Send`
    /// device and wraps it.
    pub fn open(name_or_path: &str, config: EmulationConfig) -> Result<Self, EmulationError> {
        Self::new(open_send(name_or_path)?, config)
    }
}

/// Like [`zonelab_devices::open_device`], but the box is `Send`, so the emulator
/// can be shared between threads. Every model except `ef-smr` is `Send` (its
/// pluggable translation layer is a non-`Send` trait object); for `ef-smr`, and for
/// models added to the devices crate after this function, it returns
/// [`EmulationError::NotSend`]. Use those single-threaded via
/// `EmulatedDevice::new(zonelab_devices::open_device(..)?, ..)`.
pub fn open_send(name_or_path: &str) -> Result<Box<dyn Device + Send>, EmulationError> {
    open_send_source(&find_profile(name_or_path)?)
}

/// [`open_send`] for a profile already loaded (e.g. with edited fields).
pub fn open_send_source(src: &ProfileSource) -> Result<Box<dyn Device + Send>, EmulationError> {
    let src = src.clone();
    let model = model_of(&src)?;
    Ok(match model.as_str() {
        "zns-ssd" => Box::new(zns_ssd::ZnsSsd::from_profile(&src)?),
        "hm-smr-hdd" => Box::new(hm_smr_hdd::HmSmrHdd::from_profile(&src)?),
        "cmr-hdd" => Box::new(cmr_hdd::CmrHdd::from_profile(&src)?),
        "ftl-ssd" => Box::new(ftl_ssd::FtlSsd::from_profile(&src)?),
        "conzone" => Box::new(conzone::ConZone::from_profile(&src)?),
        "conzone-block" => Box::new(conzone::ConZoneBlock::from_profile(&src)?),
        "conzone-plus" => Box::new(conzone::ConZonePlus::from_profile(&src)?),
        _ => {
            // Let the devices crate report unknown models and bad profiles.
            zonelab_devices::models::build(&src)?;
            return Err(EmulationError::NotSend { model });
        }
    })
}

impl<D: ?Sized + Device> EmulatedDevice<D> {
    /// Wraps `device`; virtual time 0 is now. With a backing file, the saved zone
    /// states are first replayed into the (fresh) model, and virtual time starts
    /// where that replay completed.
    pub fn new(mut device: Box<D>, config: EmulationConfig) -> Result<Self, EmulationError> {
        let d = config.time_dilation;
        if !(d.is_finite() && d >= 1.0) {
            return Err(EmulationError::InvalidDilation(d));
        }
        let info = device.info().clone();
        let (backing, base_ns) = match &config.backing_path {
            None => (None, 0),
            Some(path) => {
                let (mut backing, saved) = Backing::open(path, &info)?;
                let base_ns = restore::replay(&mut *device, &info, &saved)?;
                restore::clear_above_write_pointers(&mut backing, &*device, &info)?;
                (Some(backing), base_ns)
            }
        };
        Ok(EmulatedDevice {
            inner: Mutex::new(Inner {
                last_now_ns: base_ns,
                backing,
                ops: OpRecorder::new(),
                device,
            }),
            info,
            start: Instant::now(),
            base_ns,
            dilation: d,
            pacer: Pacer::new(config.spin_window),
        })
    }

    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    pub fn time_dilation(&self) -> f64 {
        self.dilation
    }

    /// The wall-clock instant virtual time 0 maps to.
    pub fn start(&self) -> Instant {
        self.start
    }

    /// Virtual nanoseconds at wall instant `t` (the base time, 0 unless zone state
    /// was restored, before the start).
    pub fn virtual_at(&self, t: Instant) -> u64 {
        let wall = t.saturating_duration_since(self.start).as_nanos() as f64;
        self.base_ns.saturating_add((wall / self.dilation) as u64)
    }

    /// Virtual nanoseconds now.
    pub fn virtual_now(&self) -> u64 {
        self.virtual_at(Instant::now())
    }

    /// The wall instant virtual time `ns` maps to (rounded up, saturating far in the
    /// future).
    pub fn wall_of(&self, ns: u64) -> Instant {
        let far = Duration::from_secs(100 * 365 * 86_400);
        self.start
            .checked_add(dilate(ns.saturating_sub(self.base_ns), self.dilation))
            .or_else(|| self.start.checked_add(far))
            .unwrap_or(self.start)
    }

    fn lock(&self) -> MutexGuard<'_, Inner<D>> {
        // A panic in another thread while holding the lock leaves the model as it
        // was before or after one request (models change state only on success);
        // keep going rather than propagate the panic.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Submits `cmd` with the caller's bytes (`Payload::Write` / `Payload::Read`;
    /// `Payload::SizeOnly` also works) at the current virtual time, then blocks
    /// until the completion's virtual time is reached on the wall clock. Rule
    /// violations come back as the model's [`DeviceError`], at once.
    pub fn submit(
        &self,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<EmulatedCompletion, DeviceError> {
        let c = self.submit_nowait(cmd, payload)?;
        self.pacer.wait_until(c.deadline);
        Ok(c)
    }

    /// Like [`submit`](Self::submit) but returns without waiting: the caller should
    /// wait for `deadline` itself (for example with a [`Pacer`]) before it treats
    /// the request as complete.
    pub fn submit_nowait(
        &self,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<EmulatedCompletion, DeviceError> {
        self.submit_nowait_placed(cmd, payload, None)
    }

    /// Like [`submit`](Self::submit) for a write carrying NVMe FDP placement
    /// identifier `placement_id` ([`Device::submit_placed`]).
    pub fn submit_placed(
        &self,
        cmd: &Command,
        placement_id: u16,
        payload: Payload<'_>,
    ) -> Result<EmulatedCompletion, DeviceError> {
        let c = self.submit_nowait_placed(cmd, payload, Some(placement_id))?;
        self.pacer.wait_until(c.deadline);
        Ok(c)
    }

    /// [`submit_nowait`](Self::submit_nowait), with a placement directive when
    /// `placement_id` is given.
    fn submit_nowait_placed(
        &self,
        cmd: &Command,
        payload: Payload<'_>,
        placement_id: Option<u16>,
    ) -> Result<EmulatedCompletion, DeviceError> {
        let mut inner = self.lock();
        // Take the virtual `now` inside the lock, so requests reach the model in
        // non-decreasing virtual time.
        let wall_now = Instant::now();
        let now_ns = self.virtual_at(wall_now).max(inner.last_now_ns);
        inner.last_now_ns = now_ns;
        let result = match (inner.backing.is_some(), placement_id) {
            (false, None) => inner.device.submit(now_ns, cmd, payload),
            (false, Some(pid)) => inner.device.submit_placed(now_ns, cmd, pid, payload),
            (true, _) => self.submit_backed(&mut inner, now_ns, cmd, payload, placement_id),
        };
        let completion = match result {
            Ok(c) => c,
            Err(e) => {
                inner.ops.refused(cmd, &e);
                return Err(e);
            }
        };
        let done_ns = completion.done_ns.max(now_ns);
        inner
            .ops
            .completed(cmd, self.info.block_bytes, now_ns, done_ns);
        drop(inner);
        // Not before the virtual completion on the wall clock, and not before the
        // modelled latency (dilated) has passed since the request was taken: the
        // virtual `now` is rounded down, so the second can be a few ns later.
        let after_latency = wall_now
            .checked_add(dilate(done_ns - now_ns, self.dilation))
            .unwrap_or(wall_now);
        let deadline = self.wall_of(done_ns).max(after_latency);
        Ok(EmulatedCompletion {
            submit_ns: now_ns,
            done_ns,
            lba: completion.lba,
            deadline,
        })
    }

    /// Backing-file path of `submit_nowait`: the model sees a size-only request;
    /// on success the bytes move to or from the file and the zone mirror is
    /// updated.
    fn submit_backed(
        &self,
        inner: &mut Inner<D>,
        now_ns: u64,
        cmd: &Command,
        payload: Payload<'_>,
        placement_id: Option<u16>,
    ) -> Result<zonelab_devices::Completion, DeviceError> {
        let Inner {
            backing, device, ..
        } = inner;
        match backing.as_mut() {
            Some(b) => submit_with_backing(
                b,
                &mut **device,
                &self.info,
                now_ns,
                cmd,
                payload,
                placement_id,
            ),
            None => device.submit(now_ns, cmd, payload),
        }
    }

    /// With a backing file: makes written data durable and saves the zone states
    /// (as a Flush command does, without its modelled time). Without one: nothing.
    pub fn sync(&self) -> Result<(), DeviceError> {
        let inner = self.lock();
        match inner.backing.as_ref() {
            Some(b) => b.save().map_err(|e| DeviceError::Io {
                command: "sync",
                message: format!("{}: {e}", b.path().display()),
            }),
            None => Ok(()),
        }
    }

    /// The backing file, if payloads are stored in one.
    pub fn backing_path(&self) -> Option<PathBuf> {
        self.lock().backing.as_ref().map(|b| b.path().to_path_buf())
    }

    /// Report zones (see [`Device::report_zones`]).
    pub fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        self.lock().device.report_zones(first, max)
    }

    /// Device statistics over the virtual time elapsed so far.
    pub fn stats(&self) -> DeviceStats {
        let elapsed = self.virtual_now();
        self.lock().device.stats(elapsed)
    }

    /// What the device did since it was opened: requests, modelled latencies,
    /// refusals and the model's statistics ([`EmulationReport`]). `kind` names
    /// the tool that drove it ("fio", "nbd", …).
    pub fn report(&self, kind: &str) -> EmulationReport {
        let elapsed = self.virtual_now();
        let wall_s = self.start.elapsed().as_secs_f64();
        let inner = self.lock();
        let stats = inner.device.stats(elapsed);
        let backing = inner
            .backing
            .as_ref()
            .map(|b| b.path().display().to_string());
        inner.ops.report(
            kind,
            self.info.clone(),
            self.dilation,
            backing,
            wall_s,
            stats,
        )
    }

    /// Blocks until the wall clock reaches `deadline` (sleeps, then spins the
    /// last [`EmulationConfig::spin_window`]), as [`submit`](Self::submit) does
    /// after [`submit_nowait`](Self::submit_nowait).
    pub fn wait_until(&self, deadline: Instant) -> Instant {
        self.pacer.wait_until(deadline)
    }

    /// Unwraps the model (for inspection after a run).
    pub fn into_device(self) -> Box<D> {
        self.inner
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
            .device
    }
}

/// `ns × dilation` as a wall duration, rounded up; saturates at ~292 years.
fn dilate(ns: u64, dilation: f64) -> Duration {
    let wall = (ns as f64 * dilation).ceil();
    if wall >= u64::MAX as f64 {
        Duration::from_nanos(u64::MAX)
    } else {
        Duration::from_nanos(wall as u64)
    }
}
