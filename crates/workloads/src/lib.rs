//! ZoneLab workloads (DESIGN.md layer 5): what drives the modelled devices.
//!
//! - [`job`]: fio-like synthetic jobs (sequential/random reads, writes, mixes;
//!   zone-aware writes on zoned devices).
//! - [`files`]: file-level workloads for a file system model: a SQLite-like
//!   transactional writer (WAL mode, as mobibench's insert / update tests) and
//!   fio-like file jobs (files, random / sequential writes, fsync, hints).
//! - [`pangu`]: Pangu-like traces with the published characteristics of MIOS
//!   Table 1 (the real traces are private).
//! - [`pangu_stats`]: what a Pangu-like trace looks like in Table 1's terms
//!   (volumes, rates, size mix, bursts), for calibrating the generator.
//! - [`synth`]: look-alike traces with the published characteristics of the MSR
//!   Cambridge traces (MU-RMW Table I).
//! - [`trace`]: streaming readers for recorded block traces (MSR Cambridge / SNIA
//!   IOTTA CSV, DiskSim and MQSim ASCII traces, Alibaba and Tencent CBS block traces, and a plain
//!   `time_ns,op,offset_bytes,size_bytes` CSV), all yielding one
//!   [`trace::TraceRecord`] type.
//! - [`ycsb`]: YCSB with the exact semantics of YCSB's CoreWorkload (workloads
//!   A–F, custom mixes, zipfian / scrambled zipfian / latest generators,
//!   FNV-hashed keys, `-target` throttling in virtual time).

pub mod files;
pub mod job;
pub mod pangu;
pub mod pangu_rates;
pub mod pangu_stats;
pub mod synth;
pub mod trace;
pub mod ycsb;
