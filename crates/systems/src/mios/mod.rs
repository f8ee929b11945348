//! BCW/MIOS (the paper in `papers/mios-bcw.txt`): exploiting the buffered writes of
//! hard disks in SSD-HDD hybrid storage.
//!
//! A run of continuous sequential writes to a disk with a DRAM write buffer shows a
//! staircase of three latency levels (§3.1, Fig. 1 and 3): **F**ast writes while the
//! buffer absorbs them, then a **S**low write (a spike: the buffer is full and the
//! write waits for a flush to the media), then **M**id writes, then S and M
//! alternating. §3.2 (Fig. 4, Table 2) models this with the latencies L_f, L_m, L_s,
//! the bytes W_f, W_m written in the Fast and Mid stages and their durations T_f, T_m.
//!
//! This module implements:
//! - [`profiler`] — §3.1/§3.2: the "Profiling" run (sync, then sequential QD1 writes
//!   of one size) and the derivation of the model's parameters from the observed
//!   latencies alone ([`ProfiledParams`]); the latency levels are found by a
//!   documented clustering in log space ([`profiler::find_levels`]).
//! - [`predictor`] — §4.1: the Write-state Predictor (Fig. 5, Algorithm 1), its
//!   tracking of the real state from measured latencies, and the paper's accuracy
//!   test ([`predictor::accuracy_experiment`]).
//!
//! - [`node`] — §4.2–§4.3: an SSD-HDD hybrid node with Buffer-Controlled Writes
//!   (Algorithm 2), the mixed IO scheduler (Algorithm 3, MIOS_D / MIOS_E), the
//!   SSD-only and SWR baselines, the HDD log and its GC.
//! - [`multi_pair`] — §4.3: a node of several independent SSD/HDD pairs, one
//!   scheduler instance per pair, requests placed on pairs by file.
//! - [`ssd_dispatch`] — §4.3.1: MIOS's SSD queue (FIFO, one synchronous direct-IO
//!   request on the drive at a time) and the SSD's iostat-style utilisation.
//! - [`ssd_threshold`] — §4.3: the queue-length threshold L from the SSD's measured
//!   latency-vs-queue-length profile.

pub mod multi_pair;
pub mod node;
pub mod predictor;
pub mod profiler;
pub mod ssd_dispatch;
pub mod ssd_threshold;

pub use predictor::{
    accuracy_experiment, AccuracyConfig, AccuracyReport, BufferState, DiagramState, StateAccuracy,
    WritePredictor,
};
pub use profiler::{
    analyse, find_levels, profile, record_trace, HddProfile, LatencyThresholds, LatencyTrace,
    NoLevels, ProfileConfig, ProfiledParams, StateCounts, WriteSample,
};

use serde::Serialize;
use thiserror::Error;
use zonelab_devices::DeviceError;

/// The state a write is in (§3.2): Fast (absorbed by the buffer), Mid (the buffer
/// is close to full) or Slow (blocked until the buffer is flushed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum WriteState {
    F,
    M,
    S,
}

impl WriteState {
    pub const ALL: [WriteState; 3] = [WriteState::F, WriteState::M, WriteState::S];

    /// Dense index (F = 0, M = 1, S = 2) for per-state arrays.
    pub fn index(self) -> usize {
        match self {
            WriteState::F => 0,
            WriteState::M => 1,
            WriteState::S => 2,
        }
    }

    /// One letter, as the paper writes it.
    pub fn letter(self) -> &'static str {
        match self {
            WriteState::F => "F",
            WriteState::M => "M",
            WriteState::S => "S",
        }
    }
}

impl std::fmt::Display for WriteState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.letter())
    }
}

/// What can go wrong when profiling a disk or running the predictor on it.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MiosError {
    /// A parameter the caller gave is out of range (the message names it).
    #[error("{what} = {value} is not allowed ({allowed})")]
    BadConfig {
        what: &'static str,
        value: String,
        allowed: String,
    },
    /// The device refused a command.
    #[error("device {device}: {command} failed: {source}")]
    Device {
        device: String,
        command: &'static str,
        source: DeviceError,
    },
    /// The observed latencies do not show the three-level buffered-write staircase.
    #[error(
        "{device}: no buffered-write staircase in {writes} writes of {write_bytes} B: {reason}"
    )]
    NoStaircase {
        device: String,
        writes: u64,
        write_bytes: u64,
        reason: String,
    },
    /// A staircase was seen, but the run was too short to measure every parameter.
    #[error("{device}: profile too short: {reason}")]
    TooShort { device: String, reason: String },
}

/// The paper's numbers, for comparisons in tests and `reproduce` targets.
pub mod paper {
    use zonelab_engine::{Ns, MIB};

    /// §3.2: the WD 10 TB disk (WD100EFAX) with 64 KB writes (Fig. 1).
    pub const WD10TB_64K_L_F_NS: Ns = 180_000;
    pub const WD10TB_64K_L_M_NS: Ns = 280_000;
    pub const WD10TB_64K_L_S_NS: Ns = 12_000_000;
    pub const WD10TB_64K_T_F_NS: Ns = 60_000_000;
    pub const WD10TB_64K_T_M_NS: Ns = 37_000_000;
    pub const WD10TB_64K_T_S_NS: Ns = 12_000_000;
    /// "Wf is 16MB and Wm is 8MB" (read as MiB; the ±15% checks cover either).
    pub const WD10TB_64K_W_F_BYTES: u64 = 16 * MIB;
    pub const WD10TB_64K_W_M_BYTES: u64 = 8 * MIB;

    /// §4.1: predictor accuracy on the WD 10 TB disk, 100 GB of 128 KB writes with a
    /// sync after every 1 GB.
    pub const ACCURACY_F: f64 = 0.995;
    pub const ACCURACY_M: f64 = 0.981;
    pub const ACCURACY_S: f64 = 0.603;
}
