//! The SSD controller: the `[controller]` profile section and its timing. Each
//! command runs on one of `cores` cores for a fixed cost plus a cost per 4 KiB, and
//! the flash operations for a chunk are issued as the core reaches it; host data
//! crosses a PCIe link.

use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use zonelab_engine::{transfer_ns, us_to_ns, Ns, Timeline, KIB};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerSection {
    pub cores: u32,
    pub read_command_us: f64,
    pub write_command_us: f64,
    pub read_per_4kib_us: f64,
    pub write_per_4kib_us: f64,
    pub pcie_mb_s: f64,
    pub write_buffer_mib: u64,
}

impl ControllerSection {
    /// Checks every field; errors name `controller.<field>`.
    pub fn validate(&self, v: &Validator<'_>) -> Result<(), ProfileError> {
        for (field, value) in [
            ("controller.read_command_us", self.read_command_us),
            ("controller.write_command_us", self.write_command_us),
            ("controller.read_per_4kib_us", self.read_per_4kib_us),
            ("controller.write_per_4kib_us", self.write_per_4kib_us),
            ("controller.pcie_mb_s", self.pcie_mb_s),
        ] {
            v.check(field, value, !value.is_nan(), "a number")?;
        }
        v.range("controller.cores", self.cores, 1, 64)?;
        v.range(
            "controller.read_command_us",
            self.read_command_us,
            0.0,
            10_000.0,
        )?;
        v.range(
            "controller.write_command_us",
            self.write_command_us,
            0.0,
            10_000.0,
        )?;
        v.range(
            "controller.read_per_4kib_us",
            self.read_per_4kib_us,
            0.0,
            1_000.0,
        )?;
        v.range(
            "controller.write_per_4kib_us",
            self.write_per_4kib_us,
            0.0,
            1_000.0,
        )?;
        v.range("controller.pcie_mb_s", self.pcie_mb_s, 1.0, 1_000_000.0)?;
        v.range(
            "controller.write_buffer_mib",
            self.write_buffer_mib,
            1,
            1 << 16,
        )?;
        Ok(())
    }
}

/// The controller's resources and costs.
#[derive(Debug, Clone)]
pub struct Controller {
    cores: Vec<Timeline>,
    /// The PCIe link host → device (write data; for callers that do not use
    /// [`dma_to_host`](Controller::dma_to_host), both directions).
    pcie: Timeline,
    /// The PCIe link device → host (read data). PCIe is full duplex (one
    /// differential pair per direction in every lane), so read data does not
    /// queue behind write data fetched later, when buffer space frees.
    pcie_to_host: Timeline,
    pub read_command_ns: Ns,
    pub write_command_ns: Ns,
    read_per_4kib_ns: Ns,
    write_per_4kib_ns: Ns,
    pcie_bytes_per_s: u64,
}

impl Controller {
    pub fn new(c: &ControllerSection) -> Self {
        Self {
            cores: vec![Timeline::new(); c.cores as usize],
            pcie: Timeline::new(),
            pcie_to_host: Timeline::new(),
            read_command_ns: us_to_ns(c.read_command_us),
            write_command_ns: us_to_ns(c.write_command_us),
            read_per_4kib_ns: us_to_ns(c.read_per_4kib_us),
            write_per_4kib_ns: us_to_ns(c.write_per_4kib_us),
            pcie_bytes_per_s: (c.pcie_mb_s * 1e6) as u64,
        }
    }

    /// Processing cost of `bytes` of a read (per 4 KiB, rounded up).
    #[inline]
    pub fn read_bytes_ns(&self, bytes: u64) -> Ns {
        (bytes * self.read_per_4kib_ns).div_ceil(4 * KIB)
    }

    /// Processing cost of `bytes` of a write (per 4 KiB, rounded up).
    #[inline]
    pub fn write_bytes_ns(&self, bytes: u64) -> Ns {
        (bytes * self.write_per_4kib_ns).div_ceil(4 * KIB)
    }

    /// Busy time of a read command of `bytes`.
    #[inline]
    pub fn read_busy_ns(&self, bytes: u64) -> Ns {
        self.read_command_ns + self.read_bytes_ns(bytes)
    }

    /// Busy time of a write command of `bytes`.
    #[inline]
    pub fn write_busy_ns(&self, bytes: u64) -> Ns {
        self.write_command_ns + self.write_bytes_ns(bytes)
    }

    /// Runs a command of `busy_ns` on the core free earliest (lowest index on
    /// ties); returns when it starts.
    #[inline]
    pub fn start_command(&mut self, now_ns: Ns, busy_ns: Ns) -> Ns {
        let mut best = 0;
        for (i, c) in self.cores.iter().enumerate() {
            if c.free_at_ns() < self.cores[best].free_at_ns() {
                best = i;
            }
        }
        self.cores[best].reserve(now_ns, busy_ns).0
    }

    /// Time to move `bytes` over the PCIe link.
    #[inline]
    pub fn pcie_ns(&self, bytes: u64) -> Ns {
        transfer_ns(bytes, self.pcie_bytes_per_s)
    }

    /// Reserves the PCIe link for `bytes` from `ready_ns`; returns when done.
    #[inline]
    pub fn dma(&mut self, ready_ns: Ns, bytes: u64) -> Ns {
        let d = self.pcie_ns(bytes);
        self.pcie.reserve(ready_ns, d).1
    }

    /// Reserves the device → host direction of the link for `bytes` of read
    /// data from `ready_ns`; returns when done. A write that waits for buffer
    /// space books its data transfer (host → device) at its admission time, which
    /// can be far ahead under a write backlog; with one shared timeline every
    /// read's data would queue behind it (issue 22: that, not the dies, kept
    /// read-first reads at ~460 ms p99 under an open-loop write backlog).
    #[inline]
    pub fn dma_to_host(&mut self, ready_ns: Ns, bytes: u64) -> Ns {
        let d = self.pcie_ns(bytes);
        self.pcie_to_host.reserve(ready_ns, d).1
    }

    /// Mean busy fraction of the cores over `elapsed_ns`.
    pub fn core_utilisation(&self, elapsed_ns: Ns) -> f64 {
        if elapsed_ns == 0 {
            return 0.0;
        }
        let busy: Ns = self.cores.iter().map(|c| c.busy_ns()).sum();
        busy as f64 / (self.cores.len() as f64 * elapsed_ns as f64)
    }
}
