//! ZoneLab workloads (DESIGN.md layer 5): what drives the modelled devices.
//!
//! - [`job`]: fio-like synthetic jobs (sequential/random reads, writes, mixes;
//!   zone-aware writes on zoned devices).
//! - [`trace`]: streaming readers for recorded block traces (MSR Cambridge / SNIA
//!   IOTTA CSV, DiskSim and MQSim ASCII traces, Alibaba block traces, and a plain
//!   `time_ns,op,offset_bytes,size_bytes` CSV), all yielding one
//!   [`trace::TraceRecord`] type.

pub mod job;
pub mod trace;
