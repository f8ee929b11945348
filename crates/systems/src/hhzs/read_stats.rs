//! Where foreground point reads are served and how long they take (HHZS §3.2
//! "Reads", §3.5): per device, the latency of every data-block read the LSM-tree
//! issues (queueing behind migration, compaction and flush I/O included), and the
//! reads per (device, level). Counters for studying the read side; nothing here
//! changes what the store does.

use crate::lsm::FileKind;
use std::collections::BTreeMap;
use zonelab_engine::{LatencyHistogram, Ns};

/// Point-read counters of a store.
#[derive(Debug, Clone, Default)]
pub struct ReadStats {
    /// Latency of point reads served by each device (SST data blocks).
    pub device_latency: Vec<LatencyHistogram>,
    /// Latency of the point reads of `device_latency` that were issued while a
    /// migration chunk on that device was still in service (Exp#6, issue 14's
    /// sixth session: which slow reads met migration I/O).
    pub device_latency_meeting_migration: Vec<LatencyHistogram>,
    /// Latency of reads served by the SSD cache (§3.5).
    pub cache_latency: LatencyHistogram,
    /// Point reads per (device, SST level).
    pub by_level: BTreeMap<(usize, u32), u64>,
}

impl ReadStats {
    pub(super) fn record_device(
        &mut self,
        device: usize,
        kind: FileKind,
        latency_ns: Ns,
        met_migration: bool,
    ) {
        if self.device_latency.len() <= device {
            self.device_latency
                .resize_with(device + 1, LatencyHistogram::new);
            self.device_latency_meeting_migration
                .resize_with(device + 1, LatencyHistogram::new);
        }
        self.device_latency[device].record(latency_ns);
        if met_migration {
            self.device_latency_meeting_migration[device].record(latency_ns);
        }
        if let FileKind::Sst { level } = kind {
            *self.by_level.entry((device, level)).or_insert(0) += 1;
        }
    }
}
