//! ZoneLab engine (DESIGN.md layer 1): the virtual clock, an event queue with
//! deterministic tie-breaking, seeded RNG streams (one per component), and the
//! statistics every run reports (latency histograms, counters, time series).
//!
//! Nothing here knows about storage; devices and workloads build on it.

pub mod arrival_lane;
pub mod event_queue;
pub mod gap_timeline;
pub mod in_flight;
pub mod rng;
pub mod stats;
pub mod time;
pub mod timeline;

pub use arrival_lane::{ArrivalLane, Popped};
pub use event_queue::EventQueue;
pub use gap_timeline::GapTimeline;
pub use in_flight::InFlight;
pub use rng::{RngStream, RngStreams};
pub use stats::{Counters, LatencyHistogram, LatencySummary, TimeSeries};
pub use time::*;
pub use timeline::Timeline;
