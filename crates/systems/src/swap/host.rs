//! Host-side costs of the swap path (issue 15): the CPU a block request costs to
//! submit and complete, the I/O scheduler's lock every request passes through, and
//! the page-table update of swap-zone GC. These are the costs ZNSage's design
//! changes: ZNSwap issues one bio per page (`mm/page_io.c` of acsl-technion/znswap:
//! `bio_alloc(GFP_NOIO, 1)` + `REQ_OP_ZONE_APPEND` for every page), ZNSage batches a
//! zone's pages into one bio of the device's write unit (ZNSage §4.3, Fig. 5).
//!
//! A [`BlockPath`] sits between a back end and its device, as the Linux block layer
//! does: each request costs `request_cpu_ns` (half on submission, half in the
//! completion interrupt) plus `page_cpu_ns` per 4 KiB page, and on a device run
//! with mq-deadline (every zoned device: ZNSage's setup script selects `deadline`,
//! and Linux requires it for zoned writes) each request holds the scheduler's one
//! `dd->lock` for `scheduler_lock_ns`, so requests of all threads queue for it
//! ([`GapTimeline`], the same resource model as the devices'). The back end records
//! the CPU work it caused as [`CpuItem`]s; the run loop ([`super::sim`]) places them
//! on the core of the thread (or GC kthread) that caused them, so 16 threads on 8
//! cores compete for CPU as on the paper's machine (Table 2).

use super::error::{bad_config, SwapError};
use serde::Serialize;
use zonelab_engine::{GapTimeline, Ns};

/// Host CPU costs, each default with its source (docs/znsage.md "Host costs").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostCosts {
    /// CPU to submit and complete one block request besides its pages: bio and
    /// request allocation, scheduler insert/dispatch, driver queueing, interrupt,
    /// completion, `bio_endio`. Measured on this machine: 6.0 µs per O_DIRECT
    /// request (`scripts/measure-block-request-cpu.sh`: fio randread of a file on
    /// ext4/virtio-blk with mq-deadline, least squares over 4/96/192 KiB, 3 runs;
    /// `docs/znsage.md`), which includes the VM's exits and the file system, so it
    /// is an upper bound for bare metal.
    pub request_cpu_ns: Ns,
    /// CPU per 4 KiB page of a request (bio_add_page, DMA mapping of the segment,
    /// per-page end_io work): 0.33 µs, the slope of the same fit.
    pub page_cpu_ns: Ns,
    /// Time a request holds the device's mq-deadline `dd->lock` (insert + dispatch),
    /// serialised over all CPUs: 1.1 µs = 1 / 901 K requests/s, the IOPS at which
    /// 32 threads saturated that lock on an NVMe SSD (J. Axboe, linux-block, Jan.
    /// 2024, "mq-deadline scalability"; commit "block/mq-deadline: use separate
    /// insertion lists": 901K IOPS, 94.5% of the time in lock contention).
    pub scheduler_lock_ns: Ns,
    /// GC's page-table update per moved page: an rmap walk from the page's
    /// `anon_vma` to its PTE and the PTE rewrite (`move_swapped_ptes` in ZNSwap's
    /// `gc_move_zone_activate`, which ZNSage's §4.4 moves before the copy).
    /// Assumption: 1 µs, the cost the model gives a minor fault, which does the same
    /// page-table walk and PTE update.
    pub gc_remap_page_ns: Ns,
}

impl Default for HostCosts {
    fn default() -> Self {
        Self {
            request_cpu_ns: 6_000,
            page_cpu_ns: 330,
            scheduler_lock_ns: 1_100,
            gc_remap_page_ns: 1_000,
        }
    }
}

impl HostCosts {
    /// No host costs (the model before issue 15; for ablations).
    pub fn zero() -> Self {
        Self {
            request_cpu_ns: 0,
            page_cpu_ns: 0,
            scheduler_lock_ns: 0,
            gc_remap_page_ns: 0,
        }
    }

    pub fn validate(&self) -> Result<(), SwapError> {
        const MAX_NS: Ns = 1_000_000;
        for (field, v) in [
            ("host.request_cpu_ns", self.request_cpu_ns),
            ("host.page_cpu_ns", self.page_cpu_ns),
            ("host.scheduler_lock_ns", self.scheduler_lock_ns),
            ("host.gc_remap_page_ns", self.gc_remap_page_ns),
        ] {
            if v > MAX_NS {
                return Err(bad_config(field, v, "0..=1000000 (ns)"));
            }
        }
        if self.scheduler_lock_ns > self.request_cpu_ns / 2 {
            return Err(bad_config(
                "host.scheduler_lock_ns",
                self.scheduler_lock_ns,
                "at most half of host.request_cpu_ns (the lock is part of submission)",
            ));
        }
        Ok(())
    }
}

/// The I/O scheduler of the device's request queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoScheduler {
    /// `none`: the NVMe default for a conventional SSD; no shared lock.
    None,
    /// `mq-deadline`: one lock per request queue (zoned devices).
    MqDeadline,
}

/// How a piece of CPU work relates to the actor that caused it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CpuKind {
    /// The caller's CPU is busy from `ready_ns` (submission, spinning on a lock,
    /// the GC's page-table walk): the caller continues after it.
    Sync,
    /// A completion interrupt on the caller's core the caller waits for (a swap-in
    /// read, a GC read or write).
    Wakeup,
    /// A completion interrupt nobody waits for (a swap-out write).
    Deferred,
}

/// CPU work a back-end call caused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuItem {
    pub ready_ns: Ns,
    pub duration_ns: Ns,
    pub kind: CpuKind,
}

/// What each request is for (counters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoKind {
    SwapOut,
    SwapIn,
    GcRead,
    GcWrite,
}

/// Counters of the host path: requests by purpose, CPU by kind, lock waits.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HostStats {
    pub swap_out_requests: u64,
    pub swap_in_requests: u64,
    pub gc_read_requests: u64,
    pub gc_write_requests: u64,
    pub request_pages: u64,
    /// CPU of submitting and completing requests (without lock waits).
    pub block_cpu_ns: u64,
    /// Scheduler-lock acquisitions and the time spent spinning for them.
    pub lock_acquisitions: u64,
    pub lock_wait_ns: u64,
    pub lock_max_wait_ns: u64,
    /// GC page-table updates and their CPU.
    pub gc_remapped_pages: u64,
    pub gc_remap_cpu_ns: u64,
}

impl HostStats {
    /// Counts since `before` (an earlier snapshot of the same path).
    pub fn since(&self, before: &HostStats) -> HostStats {
        HostStats {
            swap_out_requests: self.swap_out_requests - before.swap_out_requests,
            swap_in_requests: self.swap_in_requests - before.swap_in_requests,
            gc_read_requests: self.gc_read_requests - before.gc_read_requests,
            gc_write_requests: self.gc_write_requests - before.gc_write_requests,
            request_pages: self.request_pages - before.request_pages,
            block_cpu_ns: self.block_cpu_ns - before.block_cpu_ns,
            lock_acquisitions: self.lock_acquisitions - before.lock_acquisitions,
            lock_wait_ns: self.lock_wait_ns - before.lock_wait_ns,
            // A maximum cannot be differenced: the run's is at most the total's.
            lock_max_wait_ns: self.lock_max_wait_ns,
            gc_remapped_pages: self.gc_remapped_pages - before.gc_remapped_pages,
            gc_remap_cpu_ns: self.gc_remap_cpu_ns - before.gc_remap_cpu_ns,
        }
    }

    pub fn requests(&self) -> u64 {
        self.swap_out_requests
            + self.swap_in_requests
            + self.gc_read_requests
            + self.gc_write_requests
    }
}

/// The block layer between one back end and its device.
pub struct BlockPath {
    costs: HostCosts,
    lock: Option<GapTimeline>,
    items: Vec<CpuItem>,
    stats: HostStats,
}

impl BlockPath {
    pub fn new(costs: HostCosts, scheduler: IoScheduler) -> Self {
        let lock = (scheduler == IoScheduler::MqDeadline && costs.scheduler_lock_ns > 0)
            .then(GapTimeline::new);
        Self {
            costs,
            lock,
            items: Vec::new(),
            stats: HostStats::default(),
        }
    }

    pub fn costs(&self) -> &HostCosts {
        &self.costs
    }

    /// CPU of one side (submission or completion) of a request of `pages` pages.
    fn half_ns(&self, pages: u32) -> Ns {
        (self.costs.request_cpu_ns + pages as Ns * self.costs.page_cpu_ns) / 2
    }

    /// A request of `pages` pages whose submitter is ready at `ready_ns`: returns
    /// when it reaches the device (after the submission CPU and the scheduler
    /// lock, for which the submitter spins).
    pub fn submit(&mut self, ready_ns: Ns, pages: u32, kind: IoKind) -> Ns {
        let cpu = self.half_ns(pages);
        let hold = self.costs.scheduler_lock_ns;
        let issue = match self.lock.as_mut() {
            Some(lock) => {
                let pre = cpu - hold;
                let (start, end) = lock.reserve(ready_ns + pre, hold);
                let wait = start - (ready_ns + pre);
                self.stats.lock_acquisitions += 1;
                self.stats.lock_wait_ns += wait;
                self.stats.lock_max_wait_ns = self.stats.lock_max_wait_ns.max(wait);
                end
            }
            None => ready_ns + cpu,
        };
        self.stats.block_cpu_ns += cpu;
        self.stats.request_pages += pages as u64;
        match kind {
            IoKind::SwapOut => self.stats.swap_out_requests += 1,
            IoKind::SwapIn => self.stats.swap_in_requests += 1,
            IoKind::GcRead => self.stats.gc_read_requests += 1,
            IoKind::GcWrite => self.stats.gc_write_requests += 1,
        }
        self.push(ready_ns, issue - ready_ns, CpuKind::Sync);
        issue
    }

    /// The completion interrupt of a request of `pages` pages the device finished
    /// at `done_ns`; returns when it ends if its core is free then.
    pub fn complete(&mut self, done_ns: Ns, pages: u32, kind: CpuKind) -> Ns {
        let cpu = self.half_ns(pages);
        self.stats.block_cpu_ns += cpu;
        self.push(done_ns, cpu, kind);
        done_ns + cpu
    }

    /// GC's page-table update of `pages` moved pages from `ready_ns`; returns its end.
    pub fn gc_remap(&mut self, ready_ns: Ns, pages: u32) -> Ns {
        let cpu = pages as Ns * self.costs.gc_remap_page_ns;
        self.stats.gc_remapped_pages += pages as u64;
        self.stats.gc_remap_cpu_ns += cpu;
        self.push(ready_ns, cpu, CpuKind::Sync);
        ready_ns + cpu
    }

    fn push(&mut self, ready_ns: Ns, duration_ns: Ns, kind: CpuKind) {
        if duration_ns > 0 {
            self.items.push(CpuItem {
                ready_ns,
                duration_ns,
                kind,
            });
        }
    }

    /// Moves the CPU work recorded since the last call into `out`.
    pub fn drain_into(&mut self, out: &mut Vec<CpuItem>) {
        out.append(&mut self.items);
    }

    /// Forgets lock reservations that ended by `now_ns` (callers go in time order).
    pub fn forget_before(&mut self, now_ns: Ns) {
        if let Some(l) = self.lock.as_mut() {
            l.forget_before(now_ns);
        }
    }

    pub fn stats(&self) -> &HostStats {
        &self.stats
    }
}

/// The CPU cores of the host: each a timeline of work placed in the first gap.
pub struct Cores {
    cores: Vec<GapTimeline>,
}

impl Cores {
    pub fn new(cores: u32) -> Self {
        Self {
            cores: (0..cores.max(1)).map(|_| GapTimeline::new()).collect(),
        }
    }

    pub fn count(&self) -> u32 {
        self.cores.len() as u32
    }

    /// Runs `duration_ns` of work on `core` no earlier than `ready_ns`; returns its end.
    pub fn run(&mut self, core: u32, ready_ns: Ns, duration_ns: Ns) -> Ns {
        if duration_ns == 0 {
            return ready_ns;
        }
        self.cores[core as usize].reserve(ready_ns, duration_ns).1
    }

    /// The core whose reserved work ends first (lowest index on ties): where the
    /// scheduler would wake an unbound kernel thread.
    pub fn least_busy(&self) -> u32 {
        let mut best = 0;
        for (i, c) in self.cores.iter().enumerate() {
            if c.free_at_ns() < self.cores[best].free_at_ns() {
                best = i;
            }
        }
        best as u32
    }

    pub fn forget_before(&mut self, now_ns: Ns) {
        for c in &mut self.cores {
            c.forget_before(now_ns);
        }
    }

    /// CPU time reserved so far on all cores.
    pub fn busy_ns(&self) -> Ns {
        self.cores.iter().map(|c| c.busy_ns()).sum()
    }
}
