//! Small fake devices for the MIOS tests, so that they do not depend on the real
//! disk models.
//!
//! [`BufferDisk`] has a simple write buffer: after a flush it accepts writes at
//! the fast latency until `w_f` bytes are buffered; the write that would go beyond
//! waits for the buffer to be written back (the slow latency, `slow_writes` writes
//! in a row), after which the buffer takes `w_m` bytes at the mid latency before the
//! next write-back, and so on. A flush empties it. Latencies get a deterministic
//! ±`jitter_permille` spread. With `l_m == l_f` it has two levels; with
//! `w_f == u64::MAX` it never blocks (an SSD-like single level). Mid writes can
//! have periodic hiccups (`hiccup_every`, `hiccup_ns`).
#![allow(dead_code)]

use zonelab_devices::{Command, Completion, Device, DeviceError, DeviceInfo, DeviceStats, Payload};
use zonelab_engine::{Ns, MIB};

pub struct BufferDisk {
    info: DeviceInfo,
    pub l_f_ns: Ns,
    pub l_m_ns: Ns,
    pub l_s_ns: Ns,
    pub w_f_bytes: u64,
    pub w_m_bytes: u64,
    pub slow_writes: u32,
    pub flush_ns: Ns,
    pub jitter_permille: u64,
    /// Every `hiccup_every`-th write of a mid stage also waits `hiccup_ns` (a head
    /// switch in the media stream); 0 = never.
    pub hiccup_every: u64,
    pub hiccup_ns: Ns,
    fill: u64,
    limit: u64,
    after_first_writeback: bool,
    slow_left: u32,
    writes: u64,
    busy_until: Ns,
}

impl BufferDisk {
    /// The paper's WD 10 TB numbers for 64 KiB writes (§3.2): 180 µs / 280 µs /
    /// 12 ms, W_f 16 MiB, W_m 8 MiB, one slow write per spike.
    pub fn wd_like() -> Self {
        Self {
            info: DeviceInfo {
                name: "fake-buffer-disk".into(),
                model: "fake".into(),
                description: "test disk with a simple write buffer".into(),
                block_bytes: 512,
                capacity_blocks: 1 << 32, // 2 TiB
                zoned: None,
            },
            l_f_ns: 180_000,
            l_m_ns: 280_000,
            l_s_ns: 12_000_000,
            w_f_bytes: 16 * MIB,
            w_m_bytes: 8 * MIB,
            slow_writes: 1,
            flush_ns: 500_000,
            jitter_permille: 0,
            hiccup_every: 0,
            hiccup_ns: 0,
            fill: 0,
            limit: 16 * MIB,
            after_first_writeback: false,
            slow_left: 0,
            writes: 0,
            busy_until: 0,
        }
    }

    pub fn with(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self.limit = self.w_f_bytes;
        self
    }

    /// A single-level device (an SSD's fast writes, never blocking).
    pub fn flat() -> Self {
        Self::wd_like().with(|d| {
            d.w_f_bytes = u64::MAX;
            d.l_f_ns = 25_000;
            d.jitter_permille = 50;
        })
    }

    fn jitter(&self, ns: Ns) -> Ns {
        if self.jitter_permille == 0 {
            return ns;
        }
        // Deterministic spread from the write number (a multiplicative hash).
        let h = self.writes.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 33;
        let j = h % (2 * self.jitter_permille + 1);
        ns * (1000 + j - self.jitter_permille) / 1000
    }

    fn write_latency(&mut self, bytes: u64) -> Ns {
        let (base, slow) = if self.slow_left > 0 {
            self.slow_left -= 1;
            (self.l_s_ns, true)
        } else if self.fill.saturating_add(bytes) > self.limit {
            self.slow_left = self.slow_writes - 1;
            (self.l_s_ns, true)
        } else {
            self.fill += bytes;
            let hiccup = self.hiccup_every > 0 && self.writes.is_multiple_of(self.hiccup_every);
            match (self.after_first_writeback, hiccup) {
                (false, _) => (self.l_f_ns, false),
                (true, false) => (self.l_m_ns, false),
                (true, true) => (self.l_m_ns + self.hiccup_ns, false),
            }
        };
        if slow && self.slow_left == 0 {
            // Written back: the buffer takes W_m more before the next write-back.
            self.fill = 0;
            self.limit = self.w_m_bytes;
            self.after_first_writeback = true;
        }
        let ns = self.jitter(base);
        self.writes += 1;
        ns
    }
}

impl Device for BufferDisk {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        _payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        let start = now_ns.max(self.busy_until);
        let (lat, lba) = match *cmd {
            Command::Write { lba, blocks } => {
                if lba + blocks as u64 > self.info.capacity_blocks {
                    return Err(DeviceError::OutOfRange {
                        command: "write",
                        lba,
                        blocks,
                        capacity_blocks: self.info.capacity_blocks,
                    });
                }
                (
                    self.write_latency(blocks as u64 * self.info.block_bytes as u64),
                    lba,
                )
            }
            Command::Flush => {
                self.fill = 0;
                self.limit = self.w_f_bytes;
                self.after_first_writeback = false;
                self.slow_left = 0;
                (self.flush_ns, 0)
            }
            _ => {
                return Err(DeviceError::Unsupported {
                    command: cmd.name(),
                    device: self.info.name.clone(),
                })
            }
        };
        self.busy_until = start + lat;
        Ok(Completion {
            done_ns: self.busy_until,
            lba,
        })
    }

    fn stats(&self, _elapsed_ns: Ns) -> DeviceStats {
        DeviceStats::default().finish()
    }
}
