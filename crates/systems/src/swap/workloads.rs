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

/// Memcached's slab classes with its defaults (`-n 48 -f 1.25`, 8-byte aligned):
/// 96, 120, 152, 192, 240, ..., 1184, 1480, ... bytes; an item goes to the first
/// class that holds it.
pub fn memcached_chunk_bytes(item_bytes: u64) -> u64 {
    let mut size = 96u64;
    while size < item_bytes {
        size = ((size as f64 * 1.25) as u64).div_ceil(8) * 8;
    }
    size
}

/// Bytes memcached stores for an item besides its key and value: the 48 B item
/// header, 8 B of CAS, the key's terminating NUL and the " flags len\r\n" suffix
/// (~6 B), the value's "\r\n".
const KV_ITEM_OVERHEAD_BYTES: u64 = 48 + 8 + 1 + 6 + 2;
/// Bytes of a YCSB key in the memcached binding: "usertable-user" + up to 19 digits.
const KV_KEY_BYTES: u64 = 24;
/// JSON bytes of one YCSB field besides its value, as the memcached binding's
/// `toJson` writes it: `"fieldN":"...",` = 8 B of name + 6 B of quotes, colon, comma.
pub const KV_JSON_FIELD_OVERHEAD_BYTES: u64 = 14;

/// JSON bytes of `fields` YCSB fields of `field_bytes` each (the stored value).
pub fn kv_json_bytes(fields: u64, field_bytes: u64) -> u64 {
    fields * (field_bytes + KV_JSON_FIELD_OVERHEAD_BYTES) + 2
}

/// One memcached slab class: chunks laid out back to back from `base_page`
/// (memcached carves 1 MiB slab pages into chunks, so a chunk may straddle two 4 KiB
/// pages; an access touches the page of its first byte), a LIFO free list as
/// `slabs_free` / `do_slabs_alloc` keep it.
#[derive(Debug, Clone)]
struct SlabClass {
    chunk_bytes: u64,
    base_page: u64,
    next: u32,
    free: Vec<u32>,
}

impl SlabClass {
    fn page_of(&self, chunk: u32) -> PageId {
        (self.base_page + chunk as u64 * self.chunk_bytes / super::PAGE_BYTES) as PageId
    }

    fn alloc(&mut self) -> u32 {
        self.free.pop().unwrap_or_else(|| {
            self.next += 1;
            self.next - 1
        })
    }

    /// Pages spanned by `chunks` chunks.
    fn pages_for(&self, chunks: u64) -> u64 {
        (chunks * self.chunk_bytes).div_ceil(super::PAGE_BYTES)
    }
}

/// Time of one client operation besides the server's memory access: request and
/// response on the network and the server's and client's processing. Reads and
/// updates differ: YCSB's memcached binding (`site.ycsb.db.MemcachedClient`) reads
/// with a GET that returns the whole record as JSON and updates with a REPLACE that
/// sends only the updated fields (one of ten by default, `writeallfields=false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvOpCosts {
    /// A read of a record as loaded (all fields).
    pub read_ns: Ns,
    /// A read of a record an update rewrote (only the fields it wrote).
    pub read_updated_ns: Ns,
    pub update_ns: Ns,
}

impl KvOpCosts {
    /// The same time for every operation.
    pub fn uniform(ns: Ns) -> Self {
        Self {
            read_ns: ns,
            read_updated_ns: ns,
            update_ns: ns,
        }
    }
}

/// Memcached-like KV cache under YCSB, as YCSB's memcached binding drives it: the
/// load ADDs every record (all fields as JSON) in key order; a read GETs the key's
/// item; an update REPLACEs it with a JSON of only the updated fields (one field
/// unless `write_all_fields`), which memcached stores as a new item in that size's
/// slab class (`do_item_alloc`) before freeing the old one (`item_replace` ->
/// `slabs_free`, which writes the free-list link into the freed chunk). So an update
/// writes two pages, and a record once updated is a small item in densely packed
/// pages of the small class.
pub struct KvCache {
    pages: u32,
    loaded_pages: u32,
    threads: u32,
    record_count: u64,
    /// Load phase: next key to insert; run phase: the YCSB generator.
    load_next: u64,
    run: Option<RunPhase>,
    costs: KvOpCosts,
    loaded: SlabClass,
    /// The class of updated records (the loaded class itself with `write_all_fields`).
    updated: SlabClass,
    same_class: bool,
    /// Chunk of each key in the updated class (NONE = still the loaded item).
    key_chunk: Vec<u32>,
    /// A thread's second access of an update (freeing the old item).
    pending: Vec<Option<Access>>,
    /// Ablation: an update writes the record's item in place (no REPLACE).
    in_place_updates: bool,
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
        let item = |fields: u64| {
            memcached_chunk_bytes(
                KV_ITEM_OVERHEAD_BYTES
                    + KV_KEY_BYTES
                    + kv_json_bytes(fields, spec.field_length_bytes),
            )
        };
        let written_fields = if spec.write_all_fields {
            spec.field_count
        } else {
            1
        };
        let loaded = SlabClass {
            chunk_bytes: item(spec.field_count),
            base_page: 0,
            next: spec.record_count.min(u32::MAX as u64) as u32,
            free: Vec::new(),
        };
        let same_class = item(written_fields) == loaded.chunk_bytes;
        // Replace allocates before it frees, so a class needs one chunk beyond its
        // live items.
        let loaded_pages = loaded.pages_for(spec.record_count);
        let updated = SlabClass {
            chunk_bytes: item(written_fields),
            base_page: loaded.pages_for(spec.record_count + 1),
            next: 0,
            free: Vec::new(),
        };
        let pages = if same_class {
            updated.base_page
        } else {
            updated.base_page + updated.pages_for(spec.record_count + 1)
        };
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
            loaded_pages: loaded_pages as u32,
            threads,
            record_count: spec.record_count,
            load_next: 0,
            run,
            costs,
            loaded,
            updated,
            same_class,
            key_chunk: vec![super::NONE; spec.record_count as usize],
            pending: vec![None; threads as usize],
            in_place_updates: false,
        })
    }

    /// Ablation: updates write the loaded item in place instead of REPLACEing it
    /// with a new item of the updated fields (the model before issue 15).
    pub fn with_in_place_updates(mut self) -> Self {
        self.in_place_updates = true;
        self
    }

    /// Footprint in pages of the item set as loaded (the memory limits are shares
    /// of it).
    pub fn footprint_pages(&self) -> u32 {
        self.loaded_pages
    }

    /// Page of `key`'s current item and whether an update rewrote it.
    fn locate(&self, key: u64) -> (PageId, bool) {
        match self.key_chunk[key as usize] {
            c if c == super::NONE => (self.loaded.page_of(key as u32), false),
            c => {
                let class = if self.same_class {
                    &self.loaded
                } else {
                    &self.updated
                };
                (class.page_of(c), true)
            }
        }
    }

    /// REPLACE of `key`: the new item's page, then the old item's (freed) page.
    fn replace(&mut self, thread: u32, key: u64) -> Access {
        let (old_page, was_updated) = self.locate(key);
        if self.in_place_updates {
            return Access {
                page: old_page,
                write: true,
                think_ns: self.costs.update_ns,
                ends_op: true,
            };
        }
        let old = self.key_chunk[key as usize];
        let class = if self.same_class {
            &mut self.loaded
        } else {
            &mut self.updated
        };
        let new = class.alloc();
        let new_page = class.page_of(new);
        if was_updated {
            class.free.push(old);
        } else if self.same_class {
            self.loaded.free.push(key as u32);
        }
        self.key_chunk[key as usize] = new;
        self.pending[thread as usize] = Some(Access {
            page: old_page,
            write: true,
            think_ns: self.costs.update_ns,
            ends_op: true,
        });
        Access {
            page: new_page,
            write: true,
            think_ns: 0,
            ends_op: false,
        }
    }
}

impl Workload for KvCache {
    fn pages(&self) -> u32 {
        self.pages
    }

    fn threads(&self) -> u32 {
        self.threads
    }

    fn next(&mut self, thread: u32) -> Option<Access> {
        if let Some(a) = self.pending[thread as usize].take() {
            return Some(a);
        }
        let Some(run) = self.run.as_mut() else {
            if self.load_next >= self.record_count {
                return None;
            }
            self.load_next += 1;
            return Some(Access {
                page: self.loaded.page_of((self.load_next - 1) as u32),
                write: true,
                think_ns: self.costs.update_ns,
                ends_op: true,
            });
        };
        let op = run.next()?;
        let read = |this: &Self, key: u64| {
            let (page, updated) = this.locate(key % this.record_count);
            Access {
                page,
                write: false,
                think_ns: if updated {
                    this.costs.read_updated_ns
                } else {
                    this.costs.read_ns
                },
                ends_op: true,
            }
        };
        Some(match op {
            YcsbOp::Read { key } => read(self, key),
            YcsbOp::Scan { start_key, .. } => read(self, start_key),
            YcsbOp::Update { key, .. }
            | YcsbOp::Insert { key, .. }
            | YcsbOp::ReadModifyWrite { key, .. } => {
                let key = key % self.record_count;
                self.replace(thread, key)
            }
        })
    }
}
