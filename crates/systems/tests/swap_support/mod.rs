//! Shared setup of the swap tests: small devices, small memory, a mixed workload.
#![allow(dead_code)]

use zonelab_engine::rng::uniform_below;
use zonelab_engine::{RngStream, RngStreams};
use zonelab_systems::swap::conventional_ssd::ConventionalSwap;
use zonelab_systems::swap::setup::{ssd_device, zns_device};
use zonelab_systems::swap::workloads::{Access, Workload};
use zonelab_systems::swap::znsage::{znsage, ZnsageOptions};
use zonelab_systems::swap::znswap::znswap;
use zonelab_systems::swap::zone_swap::ZoneSwap;
use zonelab_systems::swap::{MemoryConfig, PageId, SwapBackend, ZoneSwapConfig};

pub const CORES: u32 = 4;

pub fn mem_cfg() -> MemoryConfig {
    MemoryConfig {
        limit_pages: 512,
        cores: CORES,
        max_writeback_pages: 128,
        ..Default::default()
    }
}

pub fn zone_cfg(payloads: bool) -> ZoneSwapConfig {
    ZoneSwapConfig {
        cores: CORES,
        payloads,
        ..Default::default()
    }
}

/// ZNSage on the SK Hynix-like profile: 20 zones of 3 MiB (768 slots each).
pub fn znsage_backend(payloads: bool, pt_update: bool) -> ZoneSwap {
    let dev = zns_device("sk-hynix-zns", 20, Some(3), None).unwrap();
    let opts = ZnsageOptions {
        gc_page_table_update: pt_update,
        ..Default::default()
    };
    znsage(dev, zone_cfg(payloads), &opts).unwrap()
}

/// ZNSwap on the ZN540 formatted with lbaf 4 (64 B metadata): 20 zones of 3 MiB.
pub fn znswap_backend(payloads: bool) -> ZoneSwap {
    let dev = zns_device("zn540", 20, Some(3), Some(4)).unwrap();
    znswap(dev, zone_cfg(payloads)).unwrap()
}

/// Swap on the conventional SSD: 64 MiB swap area on 4 dies (384 KiB superblocks).
pub fn ssd_backend(payloads: bool) -> ConventionalSwap {
    let dev = ssd_device("ssd-conventional", 64, Some(3), Some((2, 2))).unwrap();
    ConventionalSwap::new(dev, None, CORES, payloads).unwrap()
}

pub fn all_backends(payloads: bool) -> Vec<Box<dyn SwapBackend>> {
    vec![
        Box::new(znsage_backend(payloads, true)),
        Box::new(znsage_backend(payloads, false)),
        Box::new(znswap_backend(payloads)),
        Box::new(ssd_backend(payloads)),
    ]
}

/// Random reads and writes (half each) over `pages` pages, after a first touch.
pub struct Mixed {
    pages: u32,
    threads: u32,
    per_thread: u64,
    done: Vec<u64>,
    rngs: Vec<RngStream>,
}

impl Mixed {
    pub fn new(pages: u32, threads: u32, per_thread: u64, seed: u64) -> Self {
        let s = RngStreams::new(seed);
        Self {
            pages,
            threads,
            per_thread,
            done: vec![0; threads as usize],
            rngs: (0..threads)
                .map(|t| s.stream(&format!("mixed{t}")))
                .collect(),
        }
    }
}

impl Workload for Mixed {
    fn pages(&self) -> u32 {
        self.pages
    }
    fn threads(&self) -> u32 {
        self.threads
    }
    fn next(&mut self, thread: u32) -> Option<Access> {
        let t = thread as usize;
        if self.done[t] >= self.per_thread {
            return None;
        }
        self.done[t] += 1;
        let r = &mut self.rngs[t];
        // A skewed choice: half the accesses to the first tenth of the pages.
        let page = if uniform_below(r, 2) == 0 {
            uniform_below(r, (self.pages / 10).max(1) as u64)
        } else {
            uniform_below(r, self.pages as u64)
        } as PageId;
        Some(Access {
            page,
            write: uniform_below(r, 2) == 0,
            think_ns: 0,
            ends_op: true,
        })
    }
}
