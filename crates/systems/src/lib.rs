//! ZoneLab systems (DESIGN.md layer 4): the host-side designs of the papers and
//! their baselines, each a policy on top of the device models of layer 3.
//!
//! - [`mios`]: BCW/MIOS (the paper in `papers/mios-bcw.txt`: Buffer-Controlled
//!   Writes and the SSD-HDD Mixed IO Scheduler): the HDD buffered-write profiler
//!   of §3 and the Write-state Predictor of §4.1. BCW (§4.2) and the scheduler
//!   (§4.3) will build on these.
//! - [`swap`]: ZNSage (`papers/znsage.txt`): swap on ZNS SSDs with the reverse map
//!   in host memory, ZNSwap and swap on a conventional SSD, with a memory model.

pub mod hhzs;
pub mod lsm;
pub mod mios;
pub mod swap;
