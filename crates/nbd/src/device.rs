//! The emulated device behind the server, reachable from every connection.
//!
//! Models that can move between threads are shared in an `Arc` (the emulator is
//! `Sync`; requests reach the model in non-decreasing virtual time). A model
//! that cannot (`ef-smr`: its translation layer is a non-`Send` trait object) is
//! built and driven on a thread of its own, and connections send it requests
//! over a channel. Either way a request is handed to the model at once and
//! comes back with the wall-clock deadline of its modelled completion: the
//! connection replies at that deadline, so a client with many requests in flight
//! keeps many inside the model.

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;
use zonelab_devices::{Command, DeviceError, DeviceInfo, Payload};
use zonelab_emulation::{
    open_send, EmulatedDevice, EmulationConfig, EmulationError, EmulationReport,
};

/// How the device is opened.
#[derive(Debug, Clone)]
pub struct DeviceConfig {
    /// Built-in profile name or profile `.toml` path.
    pub device: String,
    /// Sparse backing file (created if missing); `None` keeps bytes in memory.
    pub backing: Option<PathBuf>,
    pub time_dilation: f64,
}

/// A request's outcome: the wall-clock instant it completes at, and for a read
/// the bytes.
pub type Outcome = Result<(Instant, Vec<u8>), DeviceError>;

enum Job {
    Submit {
        cmd: Command,
        data: Vec<u8>,
        reply: Sender<Outcome>,
    },
    Report(Sender<EmulationReport>),
    Sync(Sender<Result<(), DeviceError>>),
}

/// The device, shared or on its own thread.
pub struct DeviceHandle(Handle);

enum Handle {
    Shared(Arc<EmulatedDevice>),
    Thread {
        jobs: Sender<Job>,
        info: DeviceInfo,
        thread: Option<JoinHandle<()>>,
    },
}

impl DeviceHandle {
    pub fn open(cfg: &DeviceConfig) -> Result<DeviceHandle, EmulationError> {
        let config = EmulationConfig {
            time_dilation: cfg.time_dilation,
            backing_path: cfg.backing.clone(),
            ..Default::default()
        };
        match open_send(&cfg.device) {
            Ok(model) => Ok(DeviceHandle(Handle::Shared(Arc::new(EmulatedDevice::new(
                model, config,
            )?)))),
            Err(EmulationError::NotSend { .. }) => Self::open_on_thread(cfg.device.clone(), config),
            Err(e) => Err(e),
        }
    }

    fn open_on_thread(
        device: String,
        config: EmulationConfig,
    ) -> Result<DeviceHandle, EmulationError> {
        let (jobs, inbox) = channel::<Job>();
        let (opened, opened_rx) = channel::<Result<DeviceInfo, EmulationError>>();
        let thread = std::thread::Builder::new()
            .name("zonelab-device".into())
            .spawn(move || {
                let emu = match zonelab_devices::open_device(&device)
                    .map_err(EmulationError::from)
                    .and_then(|m| EmulatedDevice::new(m, config))
                {
                    Ok(emu) => emu,
                    Err(e) => {
                        let _ = opened.send(Err(e));
                        return;
                    }
                };
                let _ = opened.send(Ok(emu.info().clone()));
                for job in inbox {
                    match job {
                        Job::Submit { cmd, data, reply } => {
                            let _ = reply.send(submit(&emu, &cmd, data));
                        }
                        Job::Report(reply) => {
                            let _ = reply.send(emu.report("nbd"));
                        }
                        Job::Sync(reply) => {
                            let _ = reply.send(emu.sync());
                        }
                    }
                }
            })
            .map_err(|e| EmulationError::Backing {
                path: "(device thread)".into(),
                message: e.to_string(),
            })?;
        let info = opened_rx.recv().map_err(|_| EmulationError::Backing {
            path: "(device thread)".into(),
            message: "the device thread ended while opening".into(),
        })??;
        Ok(DeviceHandle(Handle::Thread {
            jobs,
            info,
            thread: Some(thread),
        }))
    }

    pub fn info(&self) -> DeviceInfo {
        match &self.0 {
            Handle::Shared(emu) => emu.info().clone(),
            Handle::Thread { info, .. } => info.clone(),
        }
    }

    /// Hands `cmd` to the model now. `data`: a write's bytes, or a read's buffer
    /// (its length is the read's), or empty.
    pub fn submit(&self, cmd: Command, data: Vec<u8>) -> Outcome {
        match &self.0 {
            Handle::Shared(emu) => submit(emu, &cmd, data),
            Handle::Thread { jobs, .. } => {
                let (reply, rx) = channel();
                jobs.send(Job::Submit { cmd, data, reply })
                    .map_err(|_| gone("submit"))?;
                rx.recv().map_err(|_| gone("submit"))?
            }
        }
    }

    pub fn report(&self) -> Option<EmulationReport> {
        match &self.0 {
            Handle::Shared(emu) => Some(emu.report("nbd")),
            Handle::Thread { jobs, .. } => {
                let (reply, rx) = channel();
                jobs.send(Job::Report(reply)).ok()?;
                rx.recv().ok()
            }
        }
    }

    /// Makes written data durable and saves zone states (with a backing file).
    pub fn sync(&self) -> Result<(), DeviceError> {
        match &self.0 {
            Handle::Shared(emu) => emu.sync(),
            Handle::Thread { jobs, .. } => {
                let (reply, rx) = channel();
                jobs.send(Job::Sync(reply)).map_err(|_| gone("sync"))?;
                rx.recv().map_err(|_| gone("sync"))?
            }
        }
    }
}

impl Drop for DeviceHandle {
    fn drop(&mut self) {
        if let Handle::Thread { jobs, thread, .. } = &mut self.0 {
            // Closing the channel ends the thread, which drops (and saves) the device.
            let (dummy, _) = channel();
            drop(std::mem::replace(jobs, dummy));
            if let Some(t) = thread.take() {
                let _ = t.join();
            }
        }
    }
}

fn gone(command: &'static str) -> DeviceError {
    DeviceError::Io {
        command,
        message: "the device thread has ended".into(),
    }
}

fn submit<D: ?Sized + zonelab_devices::Device>(
    emu: &EmulatedDevice<D>,
    cmd: &Command,
    mut data: Vec<u8>,
) -> Outcome {
    let c = match cmd {
        Command::Write { .. } | Command::Append { .. } => {
            emu.submit_nowait(cmd, Payload::Write(&data))?
        }
        Command::Read { .. } => emu.submit_nowait(cmd, Payload::Read(&mut data))?,
        _ => emu.submit_nowait(cmd, Payload::SizeOnly)?,
    };
    if !matches!(cmd, Command::Read { .. }) {
        data = Vec::new();
    }
    Ok((c.deadline, data))
}
