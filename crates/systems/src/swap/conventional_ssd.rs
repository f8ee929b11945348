//! Swap on a conventional SSD (ZNSage §1, §3.1): a linear swap area on a
//! block-interface device (the `ftl-ssd` model). Slots are allocated as Linux's
//! `mm/swapfile.c` does: each CPU takes a free 256-slot (1 MiB) cluster and fills
//! it in order; with no free cluster left, it takes slots wherever a cluster has
//! room. A discard (TRIM) is sent only for a whole cluster once every slot in it is
//! free (swap discards at 1 MiB granularity, ZNSage §2.1), so slots freed inside a
//! still-used cluster stay valid to the FTL, which copies them during its GC.

use super::backend::{
    dev_err, encode_pages, read_pages, BackendStats, IoEvents, PageTag, SwapBackend,
};
use super::error::{bad_config, SwapError};
use super::host::{BlockPath, CpuKind, HostCosts, HostStats, IoKind, IoScheduler};
use super::{PageId, Slot, NONE, PAGE_BYTES};
use std::collections::VecDeque;
use zonelab_devices::{Command, Device, DeviceStats, Payload};
use zonelab_engine::Ns;

/// Slots per swap cluster (Linux `SWAPFILE_CLUSTER` = 256 pages = 1 MiB).
pub const CLUSTER_SLOTS: u32 = 256;

pub struct ConventionalSwap {
    dev: Box<dyn Device>,
    slots: u32,
    clusters: u32,
    used: Vec<u32>,
    free_clusters: VecDeque<u32>,
    is_free: Vec<bool>,
    core_cluster: Vec<u32>,
    core_next: Vec<u32>,
    scan_cursor: u32,
    rmap: Vec<PageId>,
    valid_total: u64,
    payloads: bool,
    buf: Vec<u8>,
    stats: BackendStats,
    /// The block layer to the device (`none` scheduler, the NVMe default).
    host: BlockPath,
}

impl ConventionalSwap {
    /// A swap area of `slots` 4 KiB slots (None = the whole device) for `cores` CPUs.
    pub fn new(
        dev: Box<dyn Device>,
        slots: Option<u64>,
        cores: u32,
        payloads: bool,
    ) -> Result<Self, SwapError> {
        let info = dev.info().clone();
        if info.zoned.is_some() || info.block_bytes as u64 != PAGE_BYTES {
            return Err(SwapError::UnsupportedDevice {
                backend: "ssd-swap",
                device: info.name.clone(),
                reason: "needs a block-interface device with 4096 B blocks".into(),
            });
        }
        if !(1..=256).contains(&cores) {
            return Err(bad_config("ssd_swap.cores", cores, "1..=256"));
        }
        let max = info.capacity_blocks.min((NONE - 1) as u64);
        let slots = slots.unwrap_or(max);
        if slots < (cores as u64 + 1) * CLUSTER_SLOTS as u64 || slots > max {
            return Err(bad_config(
                "ssd_swap.slots",
                slots,
                &format!(
                    "{}..={max} (a cluster per core and one more, at most the device)",
                    (cores as u64 + 1) * CLUSTER_SLOTS as u64
                ),
            ));
        }
        let slots = slots as u32;
        let clusters = slots.div_ceil(CLUSTER_SLOTS);
        Ok(Self {
            dev,
            slots,
            clusters,
            used: vec![0; clusters as usize],
            free_clusters: (0..clusters).collect(),
            is_free: vec![true; clusters as usize],
            core_cluster: vec![NONE; cores as usize],
            core_next: vec![0; cores as usize],
            scan_cursor: 0,
            rmap: vec![NONE; slots as usize],
            valid_total: 0,
            payloads,
            buf: Vec::new(),
            stats: BackendStats {
                usable_slots: slots as u64,
                ..Default::default()
            },
            host: BlockPath::new(HostCosts::default(), IoScheduler::None),
        })
    }

    fn cluster_len(&self, c: u32) -> u32 {
        (self.slots - c * CLUSTER_SLOTS).min(CLUSTER_SLOTS)
    }

    /// Next free slot for CPU `core`.
    fn alloc(&mut self, core: usize) -> Option<Slot> {
        for _ in 0..=self.clusters {
            let c = self.core_cluster[core];
            if c != NONE {
                let len = self.cluster_len(c);
                while self.core_next[core] < len {
                    let s = c * CLUSTER_SLOTS + self.core_next[core];
                    self.core_next[core] += 1;
                    if self.rmap[s as usize] == NONE {
                        return Some(s);
                    }
                }
                self.core_cluster[core] = NONE;
                if self.used[c as usize] == 0 && !self.is_free[c as usize] {
                    self.is_free[c as usize] = true;
                    self.free_clusters.push_back(c);
                }
            }
            // A free cluster, else any cluster with room (fragmented allocation).
            let next = if let Some(f) = self.free_clusters.pop_front() {
                self.is_free[f as usize] = false;
                Some(f)
            } else {
                let mut found = None;
                for k in 0..self.clusters {
                    let c = (self.scan_cursor + k) % self.clusters;
                    if self.used[c as usize] < self.cluster_len(c)
                        && !self.core_cluster.contains(&c)
                    {
                        found = Some(c);
                        self.scan_cursor = (c + 1) % self.clusters;
                        break;
                    }
                }
                found
            };
            let c = next?;
            self.core_cluster[core] = c;
            self.core_next[core] = 0;
        }
        None
    }

    /// Host CPU costs of the block path (default: [`HostCosts::default`]).
    pub fn with_host_costs(mut self, costs: HostCosts) -> Result<Self, SwapError> {
        costs.validate()?;
        self.host = BlockPath::new(costs, IoScheduler::None);
        Ok(self)
    }

    /// One write request of consecutive slots from `first`, its submitter ready at
    /// `ready_ns`; returns (issue, end of its completion interrupt).
    fn write_run(
        &mut self,
        ready_ns: Ns,
        tags: &[PageTag],
        first: Slot,
    ) -> Result<(Ns, Ns), SwapError> {
        let n = tags.len() as u32;
        let cmd = Command::Write {
            lba: first as u64,
            blocks: n,
        };
        self.stats.write_commands += 1;
        let issue_ns = self.host.submit(ready_ns, n, IoKind::SwapOut);
        let err = dev_err("ssd-swap");
        let done = if self.payloads {
            let mut buf = std::mem::take(&mut self.buf);
            encode_pages(tags, &mut buf);
            let c = self.dev.submit(issue_ns, &cmd, Payload::Write(&buf));
            self.buf = buf;
            c.map_err(err)?.done_ns
        } else {
            self.dev
                .submit(issue_ns, &cmd, Payload::SizeOnly)
                .map_err(err)?
                .done_ns
        };
        Ok((issue_ns, self.host.complete(done, n, CpuKind::Deferred)))
    }
}

impl SwapBackend for ConventionalSwap {
    fn name(&self) -> &'static str {
        "ssd-swap"
    }

    fn usable_slots(&self) -> u64 {
        self.slots as u64
    }

    fn valid_slots(&self) -> u64 {
        self.valid_total
    }

    fn can_accept(&self, _core: u32, pages: u32) -> bool {
        self.valid_total + pages as u64 <= self.slots as u64
    }

    fn swap_out(
        &mut self,
        now_ns: Ns,
        core: u32,
        tags: &[PageTag],
        slots: &mut Vec<Slot>,
        ev: &mut IoEvents,
    ) -> Result<(), SwapError> {
        if self.valid_total + tags.len() as u64 > self.slots as u64 {
            return Err(SwapError::SwapFull {
                backend: "ssd-swap",
                valid: self.valid_total,
                usable: self.slots as u64,
            });
        }
        let core = (core as usize) % self.core_cluster.len();
        let first = slots.len();
        for &t in tags {
            let Some(s) = self.alloc(core) else {
                return Err(SwapError::SwapFull {
                    backend: "ssd-swap",
                    valid: self.valid_total,
                    usable: self.slots as u64,
                });
            };
            self.rmap[s as usize] = t.page;
            self.used[(s / CLUSTER_SLOTS) as usize] += 1;
            self.valid_total += 1;
            slots.push(s);
        }
        // One write per run of consecutive slots (the block layer merges them).
        let mut cursor = now_ns;
        let mut i = 0;
        while i < tags.len() {
            let mut j = i + 1;
            while j < tags.len() && slots[first + j] == slots[first + j - 1] + 1 {
                j += 1;
            }
            let (issue, done) = self.write_run(cursor, &tags[i..j], slots[first + i])?;
            cursor = issue;
            for k in i..j {
                ev.written.push((done, tags[k].page, slots[first + k]));
            }
            i = j;
        }
        self.stats.swap_out_pages += tags.len() as u64;
        self.host.drain_into(&mut ev.cpu);
        Ok(())
    }

    fn flush(&mut self, _now_ns: Ns, _ev: &mut IoEvents) -> Result<(), SwapError> {
        Ok(())
    }

    fn read(
        &mut self,
        now_ns: Ns,
        slot: Slot,
        count: u32,
        tags: Option<&mut Vec<PageTag>>,
        ev: &mut IoEvents,
    ) -> Result<Ns, SwapError> {
        self.stats.swap_in_pages += count as u64;
        self.stats.read_commands += 1;
        let cmd = Command::Read {
            lba: slot as u64,
            blocks: count,
        };
        let tags = tags.filter(|_| self.payloads);
        let issue_ns = self.host.submit(now_ns, count, IoKind::SwapIn);
        let done = read_pages(&mut *self.dev, issue_ns, &cmd, count, tags, &mut self.buf)
            .map_err(dev_err("ssd-swap"))?;
        let end_ns = self.host.complete(done, count, CpuKind::Wakeup);
        self.host.drain_into(&mut ev.cpu);
        Ok(end_ns)
    }

    fn free(&mut self, now_ns: Ns, slot: Slot) -> Result<(), SwapError> {
        if self.rmap[slot as usize] == NONE {
            return Ok(());
        }
        self.rmap[slot as usize] = NONE;
        self.valid_total -= 1;
        let c = slot / CLUSTER_SLOTS;
        self.used[c as usize] -= 1;
        if self.used[c as usize] == 0 && !self.core_cluster.contains(&c) {
            // The whole 1 MiB cluster is free: discard it.
            let cmd = Command::Trim {
                lba: (c * CLUSTER_SLOTS) as u64,
                blocks: self.cluster_len(c),
            };
            self.dev
                .submit(now_ns, &cmd, Payload::SizeOnly)
                .map_err(dev_err("ssd-swap"))?;
            self.stats.trims += 1;
            self.is_free[c as usize] = true;
            self.free_clusters.push_back(c);
        }
        Ok(())
    }

    fn owner(&self, slot: Slot) -> Option<PageId> {
        self.rmap.get(slot as usize).copied().filter(|&p| p != NONE)
    }

    fn contiguous(&self, a: Slot) -> bool {
        a + 1 < self.slots
    }

    fn slot_space(&self) -> u64 {
        self.slots as u64
    }

    fn gc_wanted(&mut self) -> bool {
        false
    }

    fn gc_step(&mut self, _now_ns: Ns, _ev: &mut IoEvents) -> Result<Option<Ns>, SwapError> {
        Ok(None)
    }

    fn gc_updates_page_table(&self) -> bool {
        false
    }

    fn stats(&self) -> BackendStats {
        let mut s = self.stats.clone();
        s.valid_slots = self.valid_total;
        s
    }

    fn host_stats(&self) -> HostStats {
        self.host.stats().clone()
    }

    fn forget_before(&mut self, now_ns: Ns) {
        self.host.forget_before(now_ns);
    }

    fn device_stats(&self, elapsed_ns: Ns) -> DeviceStats {
        self.dev.stats(elapsed_ns)
    }
}
