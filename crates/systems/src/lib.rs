//! ZoneLab systems (DESIGN.md layer 4): the host-side designs of the papers and
//! their baselines, each a policy on top of the device models of layer 3.
//!
//! - [`lsm`]: a RocksDB-like LSM-tree in virtual time that emits HHZS's hints
//!   (`papers/hhzs.txt` §2.2, §3.1).
//! - [`hhzs`]: HHZS's zone file store across a ZNS SSD and an HM-SMR HDD, with its
//!   caching and migration mechanisms, and the placement policies B1–B4, AUTO,
//!   write-guided placement (P), P+M, B3+M and HHZS (§2.3, §3, §4.1).
//! - [`mios`]: BCW/MIOS (`papers/mios-bcw.txt`: Buffer-Controlled Writes and the
//!   SSD-HDD Mixed IO Scheduler): the HDD profiler (§3), the write-state predictor
//!   (§4.1), BCW (§4.2) and MIOS with its baselines (§4.3).
//! - [`f2fs`]: an F2FS-like log-structured file system (ConZone+'s host, §6.3-
//!   §6.5) with F2FS's zoned and block cleaning policies.
//! - [`swap`]: ZNSage (`papers/znsage.txt`): swap on ZNS SSDs with the reverse map
//!   in host memory, ZNSwap and swap on a conventional SSD, with a memory model.

pub mod f2fs;
pub mod hhzs;
pub mod lsm;
pub mod mios;
mod search;
pub mod swap;
