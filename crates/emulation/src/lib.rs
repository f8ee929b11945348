//! ZoneLab emulation mode: any device model, paced against the wall clock and
//! storing real bytes.
//!
//! DESIGN.md ("Two modes, one model") describes two ways to run the same device
//! models. *Simulation* runs in virtual time only the engine advances and needs no
//! payload bytes. *Emulation* (this crate) runs the same models against the wall
//! clock with real bytes, so real programs can use a modelled device.
//!
//! - [`EmulatedDevice`] wraps any [`zonelab_devices::Device`]. Virtual time is
//!   the wall-clock nanoseconds since the emulator was created divided by
//!   [`EmulationConfig::time_dilation`] (≥ 1). With a dilation of 10, a request
//!   the model says takes 1 ms takes 10 ms of wall time: the emulated device is
//!   10× *slower* than the modelled one, with the same relative timings.
//!   [`EmulatedDevice::submit`] hands the request and the caller's bytes to the
//!   model at the current virtual time, then blocks the caller's thread until the
//!   modelled completion time is reached on the wall clock. It never returns
//!   before that time. Rule violations (a zoned write off the write pointer, a
//!   range out of bounds, …) come back at once as the model's typed
//!   [`zonelab_devices::DeviceError`].
//! - The device sits behind a mutex. Several threads can submit through one
//!   `Arc<EmulatedDevice>`; requests reach the model in non-decreasing virtual
//!   time, and the threads wait outside the lock.
//! - [`Pacer`] does the waiting: it sleeps until a short window before the
//!   deadline (200 µs by default), then spins. `examples/emulation_fidelity.rs`
//!   measures how closely it meets deadlines and how fast the data path is;
//!   `PERFORMANCE-NOTES.md` records the results.
//!
//! - **Backing file** ([`backing`], [`restore`]): with
//!   [`EmulationConfig::backing_path`] set, payload bytes live in a sparse file of
//!   the device's capacity instead of memory (data sets larger than RAM work), and
//!   the zone states (conditions, write pointers) in a sidecar `<file>.zones`,
//!   saved on every Flush, on [`EmulatedDevice::sync`] and on drop. Reopening the
//!   same file replays the saved zone states into the fresh model and resumes
//!   there. Without a backing file nothing changes: bytes stay in the models'
//!   in-memory stores and nothing persists.
//! - [`BackedDevice`] ([`backed`]): the model + backing file part without pacing,
//!   as a plain [`zonelab_devices::Device`], for owners that pace requests
//!   themselves (the zone file store of `crates/zonefs` holds its devices under one
//!   lock and waits for whole store operations).
//! - **Report** ([`report`]): [`EmulatedDevice::report`] returns what the device
//!   did since it was opened (requests, modelled latencies, refusals, the model's
//!   statistics) as JSON shaped like `zonelab bench`'s; the fio engine and the
//!   NBD server print it at the end (docs/fio.md, docs/nbd.md).
//! - **Scaled zones** ([`zones`]): a zoned profile with smaller zones, so a test
//!   or a short fio job wraps zones (and resets them) in megabytes, not gigabytes.
//! - **C ABI**: `crates/capi` (`libzonelab`, docs/c-api.md) wraps this crate for
//!   C/C++ programs.
//!
//! # Not done yet
//! - **Crash consistency between flushes.** Zone states are saved at a flush,
//!   not per write: after a crash (kill -9) a device resumes as of the last
//!   flush, with the bytes written since then cleared. Block-interface models
//!   (FTL SSD, CMR HDD) keep their bytes but restart their internal mapping and
//!   GC state empty, so only their timing differs after a reopen.
//! - **No completion queue.** [`EmulatedDevice::submit`] blocks its thread;
//!   [`EmulatedDevice::submit_nowait`] returns the deadline and leaves the waiting
//!   to the caller. The fio engine (`integrations/fio`, its `getevents`) and the
//!   NBD server (`crates/nbd`, a reply thread per connection) keep many requests
//!   in flight that way; nothing in this crate polls many deadlines for you.

pub mod backed;
pub mod backing;
pub mod emulated;
pub mod pacer;
pub mod report;
pub mod restore;
pub mod zones;

pub use backed::BackedDevice;
pub use emulated::{
    open_send, open_send_source, EmulatedCompletion, EmulatedDevice, EmulationConfig,
    EmulationError,
};
pub use pacer::{Pacer, DEFAULT_SPIN_WINDOW};
pub use report::{EmulationReport, ErrorCounts, OpTotals};
pub use zones::with_zone_capacity_mib;
