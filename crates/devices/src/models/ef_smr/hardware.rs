//! The hardware of an EF-SMR disk (MU-RMW §II-A, §IV-A): the embedded NAND flash
//! persistent cache ([`FlashCache`]) and the SMR disk of bands ([`BandDisk`]).
//! STLs drive these parts; the parts keep time (the flash's parallel units, the
//! disk actuator) and counts. [`Hardware`] also holds what every STL reports about
//! its cleanings and the pause a cleaning imposes on the host.

pub use super::band_disk::BandDisk;
pub use super::flash_cache::{FlashCache, FlashCacheParams, Ppn, NONE};
use zonelab_engine::Ns;

/// Everything an STL works with, plus the cleaning statistics it reports.
pub struct Hardware {
    pub flash: FlashCache,
    pub disk: BandDisk,
    pub cleanings: u64,
    pub cleaning_ns_total: Ns,
    pub cleaning_ns_max: Ns,
    /// Cleanings that wrote at least one band back (RMW).
    pub rmw_cleanings: u64,
    /// The host is paused until this time: a cleaning blocks user requests
    /// (MU-RMW §IV-B4: "system pause (i.e., blocking user requests)"), so a
    /// request that arrives while one runs starts when it ends.
    pub pause_until_ns: Ns,
}

impl Hardware {
    pub fn new(flash: FlashCache, disk: BandDisk) -> Self {
        Self {
            flash,
            disk,
            cleanings: 0,
            cleaning_ns_total: 0,
            cleaning_ns_max: 0,
            rmw_cleanings: 0,
            pause_until_ns: 0,
        }
    }

    /// Records one cleaning that ran from `start_ns` to `end_ns` and did `rmws`
    /// band write-backs; the host is paused until it ends.
    pub fn record_cleaning(&mut self, start_ns: Ns, end_ns: Ns, rmws: u64) {
        let d = end_ns.saturating_sub(start_ns);
        self.cleanings += 1;
        self.cleaning_ns_total += d;
        self.cleaning_ns_max = self.cleaning_ns_max.max(d);
        if rmws > 0 {
            self.rmw_cleanings += 1;
        }
        self.pause_until_ns = self.pause_until_ns.max(end_ns);
    }
}
