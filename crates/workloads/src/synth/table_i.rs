//! MU-RMW Table I: the ten MSR Cambridge traces the paper replays, with their data
//! written and read, write ratio and update ratio, and what those numbers mean
//! for a generator (how many requests of which size; how many new addresses).
//!
//! # Reading Table I
//!
//! The paper defines the write ratio as write *requests* over all requests (§IV-A).
//! For all ten traces it equals written ÷ (written + read) bytes to the table's
//! precision (rsrch_0: 4.96 / 5.47 = 90.68 %; stg_1: 3.04 / 8.38 = 36.28 % vs
//! 36.25 %; usr_0: 5.09 / 8.54 = 59.60 % vs 59.58 %), which requests of the real
//! traces' different read and write sizes could not give. Table I's "GB" are
//! therefore request counts × 4 KiB, in GiB: rsrch_0's 4.96 GiB are 1.30 M write
//! requests (its 1,433,655 requests × 90.68 %), usr_0's 5.09 GiB 1.33 M
//! (2,237,889 × 59.58 %). That matches the paper's request model, in which a
//! request carries one logical sector number (§III-C, Fig. 5: `write(C, 24614)`,
//! `read(LSN)`): each trace record is one 4 KiB sector access.
//!
//! The update ratio is update requests over write requests (§IV-A): a write is an
//! update when the sector it writes was written before in the trace. So
//! `(1 − update ratio) × writes` sectors are written for the first time — the
//! trace's write footprint: 1,040 sectors (4.1 MiB) for rsrch_0, 2,560 (10 MiB)
//! for web_0.

use serde::Serialize;

/// One trace's published characteristics (MU-RMW Table I).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TraceProfile {
    pub name: &'static str,
    pub written_gb: f64,
    pub read_gb: f64,
    /// Write requests ÷ all requests.
    pub write_ratio: f64,
    /// Writes to previously written addresses ÷ all writes.
    pub update_ratio: f64,
}

/// Table I's "GB" are GiB of 4 KiB requests (module doc).
pub const TABLE_I_REQUEST_BYTES: u64 = 4096;

impl TraceProfile {
    /// Write requests the trace has, times `scale`.
    pub fn write_requests(&self, scale: f64) -> u64 {
        requests(self.written_gb, scale)
    }

    /// Read requests the trace has, times `scale`.
    pub fn read_requests(&self, scale: f64) -> u64 {
        requests(self.read_gb, scale)
    }

    /// Write requests to sectors not written before (the write footprint), times
    /// `scale`; at least one.
    pub fn new_writes(&self, scale: f64) -> u64 {
        let w = self.write_requests(scale);
        ((w as f64 * (1.0 - self.update_ratio)).round() as u64).clamp(1.min(w), w)
    }
}

fn requests(gib: f64, scale: f64) -> u64 {
    (gib * (1u64 << 30) as f64 * scale / TABLE_I_REQUEST_BYTES as f64).round() as u64
}

/// MU-RMW Table I.
pub const MSR_TABLE_I: [TraceProfile; 10] = [
    TraceProfile {
        name: "rsrch_0",
        written_gb: 4.96,
        read_gb: 0.51,
        write_ratio: 0.9068,
        update_ratio: 0.9992,
    },
    TraceProfile {
        name: "src1_2",
        written_gb: 5.43,
        read_gb: 1.85,
        write_ratio: 0.7463,
        update_ratio: 0.9987,
    },
    TraceProfile {
        name: "src2_0",
        written_gb: 5.27,
        read_gb: 0.67,
        write_ratio: 0.8866,
        update_ratio: 0.9986,
    },
    TraceProfile {
        name: "src2_2",
        written_gb: 3.07,
        read_gb: 1.34,
        write_ratio: 0.6967,
        update_ratio: 0.9984,
    },
    TraceProfile {
        name: "stg_0",
        written_gb: 6.57,
        read_gb: 1.18,
        write_ratio: 0.8481,
        update_ratio: 0.9992,
    },
    TraceProfile {
        name: "stg_1",
        written_gb: 3.04,
        read_gb: 5.34,
        write_ratio: 0.3625,
        update_ratio: 0.9992,
    },
    TraceProfile {
        name: "ts_0",
        written_gb: 5.66,
        read_gb: 1.21,
        write_ratio: 0.8242,
        update_ratio: 0.9986,
    },
    TraceProfile {
        name: "usr_0",
        written_gb: 5.09,
        read_gb: 3.45,
        write_ratio: 0.5958,
        update_ratio: 0.9988,
    },
    TraceProfile {
        name: "wdev_0",
        written_gb: 3.49,
        read_gb: 0.88,
        write_ratio: 0.7992,
        update_ratio: 0.9976,
    },
    TraceProfile {
        name: "web_0",
        written_gb: 5.43,
        read_gb: 2.31,
        write_ratio: 0.7012,
        update_ratio: 0.9982,
    },
];

/// Finds a Table I profile by trace name.
pub fn find_profile(name: &str) -> Option<&'static TraceProfile> {
    MSR_TABLE_I.iter().find(|p| p.name == name)
}
