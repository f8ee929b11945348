//! Memory-pressure workloads of the ZNSage evaluation (§5.2, §5.3):
//! - [`VmScalability`]: vm-scalability `case-anon-w-rand-mt` — threads of one
//!   process write random pages of a shared anonymous area larger than the memory
//!   limit (first a sequential first-touch pass that fills memory and swap);
//! - [`KvCache`]: a Memcached-like KV cache whose items sit in slab pages, driven
//!   by the YCSB core-workload generators (`zonelab_workloads::ycsb`): a read maps
//!   to a read of the item's page, an update to a write.

use super::error::{bad_config, SwapError};
use super::PageId;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{Ns, RngStream, RngStreams};
use zonelab_workloads::ycsb::{CoreWorkloadSpec, RunPhase, YcsbOp};

/// One memory access of a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub page: PageId,
    pub write: bool,
    /// CPU / network time of the thread before its next access.
    pub think_ns: Ns,
    /// Last access of an application operation (for ops/s).
    pub ends_op: bool,
}

/// A multi-threaded access stream.
pub trait Workload {
    fn pages(&self) -> u32;
    fn threads(&self) -> u32;
    /// Next access of `thread`; None when the thread is done.
    fn next(&mut self, thread: u32) -> Option<Access>;
}

/// Which part of vm-scalability's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmPhase {
    /// Each thread first-touches its share of the area in order.
    Fill,
    /// Random page writes over the whole area.
    RandomWrites { per_thread: u64 },
}

/// vm-scalability `case-anon-w-rand-mt` (§5.2.1: 16 threads).
pub struct VmScalability {
    pages: u32,
    threads: u32,
    phase: VmPhase,
    cursor: Vec<u64>,
    rngs: Vec<RngStream>,
}

impl VmScalability {
    pub fn new(
        pages: u32,
        threads: u32,
        phase: VmPhase,
        streams: &RngStreams,
    ) -> Result<Self, SwapError> {
        if !(1..=1024).contains(&threads) {
            return Err(bad_config("vm_scalability.threads", threads, "1..=1024"));
        }
        if pages < threads {
            return Err(bad_config(
                "vm_scalability.pages",
                pages,
                "at least one per thread",
            ));
        }
        Ok(Self {
            pages,
            threads,
            phase,
            cursor: vec![0; threads as usize],
            rngs: (0..threads)
                .map(|t| streams.stream(&format!("swap.vm_scalability.t{t}")))
                .collect(),
        })
    }
}

impl Workload for VmScalability {
    fn pages(&self) -> u32 {
        self.pages
    }

    fn threads(&self) -> u32 {
        self.threads
    }

    fn next(&mut self, thread: u32) -> Option<Access> {
        let t = thread as usize;
        let i = self.cursor[t];
        let page = match self.phase {
            VmPhase::Fill => {
                let share = self.pages as u64 / self.threads as u64;
                let first = share * thread as u64;
                let len = if thread + 1 == self.threads {
                    self.pages as u64 - first
                } else {
                    share
                };
                if i >= len {
                    return None;
                }
                (first + i) as PageId
            }
            VmPhase::RandomWrites { per_thread } => {
                if i >= per_thread {
                    return None;
                }
                uniform_below(&mut self.rngs[t], self.pages as u64) as PageId
            }
        };
        self.cursor[t] += 1;
        Some(Access {
            page,
            write: true,
            think_ns: 0,
            ends_op: true,
        })
    }
}

/// Memcached slab chunk of a ~1 KB YCSB item (24 B key + 10 x 100 B fields + 48 B
/// item header = 1,072 B) with memcached's default slab classes (`-n 48 -f 1.25`):
/// the 1,184 B class.
pub const KV_ITEM_CHUNK_BYTES: u64 = 1184;

/// Time of one client operation besides the server's memory access: request and
/// response on the network and the server's and client's processing. Reads and
/// updates differ: YCSB's memcached binding (`site.ycsb.db.MemcachedClient`) reads
/// with a GET that returns the whole record as JSON and updates with a REPLACE that
/// sends only the updated fields (one of ten by default, `writeallfields=false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvOpCosts {
    pub read_ns: Ns,
    pub update_ns: Ns,
}

impl KvOpCosts {
    /// The same time for every operation.
    pub fn uniform(ns: Ns) -> Self {
        Self {
            read_ns: ns,
            update_ns: ns,
        }
    }
}

/// Memcached-like KV cache under YCSB.
pub struct KvCache {
    pages: u32,
    threads: u32,
    items_per_page: u64,
    record_count: u64,
    /// Load phase: next key to insert; run phase: the YCSB generator.
    load_next: u64,
    run: Option<RunPhase>,
    costs: KvOpCosts,
}

impl KvCache {
    /// `costs`: per-operation network + processing time of a client thread.
    pub fn new(
        spec: &CoreWorkloadSpec,
        threads: u32,
        costs: KvOpCosts,
        streams: Option<&RngStreams>,
    ) -> Result<Self, SwapError> {
        spec.validate()
            .map_err(|e| bad_config("kv.ycsb", e, "a valid YCSB spec"))?;
        if !(1..=1024).contains(&threads) {
            return Err(bad_config("kv.threads", threads, "1..=1024"));
        }
        let items_per_page = super::PAGE_BYTES / KV_ITEM_CHUNK_BYTES;
        let pages = spec.record_count.div_ceil(items_per_page);
        if pages >= (u32::MAX / 2) as u64 {
            return Err(bad_config(
                "kv.record_count",
                spec.record_count,
                "fewer records",
            ));
        }
        let run = match streams {
            Some(s) => Some(
                spec.run(s)
                    .map_err(|e| bad_config("kv.ycsb", e, "a valid YCSB spec"))?,
            ),
            None => None,
        };
        Ok(Self {
            pages: pages as u32,
            threads,
            items_per_page,
            record_count: spec.record_count,
            load_next: 0,
            run,
            costs,
        })
    }

    /// Footprint in pages of the whole item set.
    pub fn footprint_pages(&self) -> u32 {
        self.pages
    }
}

impl Workload for KvCache {
    fn pages(&self) -> u32 {
        self.pages
    }

    fn threads(&self) -> u32 {
        self.threads
    }

    fn next(&mut self, _thread: u32) -> Option<Access> {
        let (key, write) = match self.run.as_mut() {
            None => {
                if self.load_next >= self.record_count {
                    return None;
                }
                self.load_next += 1;
                (self.load_next - 1, true)
            }
            Some(run) => match run.next()? {
                YcsbOp::Read { key } => (key, false),
                YcsbOp::Update { key, .. }
                | YcsbOp::Insert { key, .. }
                | YcsbOp::ReadModifyWrite { key, .. } => (key, true),
                YcsbOp::Scan { start_key, .. } => (start_key, false),
            },
        };
        let page = ((key % self.record_count) / self.items_per_page) as PageId;
        Some(Access {
            page,
            write,
            think_ns: if write {
                self.costs.update_ns
            } else {
                self.costs.read_ns
            },
            ends_op: true,
        })
    }
}
