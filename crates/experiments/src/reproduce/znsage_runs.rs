//! The runs behind target `znsage`: the devices and back ends resized for a
//! scale, and one run of vm-scalability or of the Memcached-like KV cache.
//!
//! Sizes at scale 1 (the paper's 512 GB swap and 2 GB cgroup limit are beyond a
//! 10-minute run; the ratios that matter are kept): 4 GiB of usable swap slots on
//! every back end (the paper's 4 GB example of §3.2); a memory limit of 1/32 of it;
//! at least 32 zones so that the 8 per-core zones, the GC zone and the watermarks
//! are a minority of them (the paper's 512 GB had 475 ZN540 zones). A zone keeps
//! its profile capacity when that allows 32 zones (SK Hynix: 96 MiB), else it is
//! shrunk to a multiple of 3 MiB (whole flash stripe rows of both profiles;
//! ZN540: 1,077 MiB -> 144 MiB at scale 1), so the ZN540's zones stay the larger.

use super::ReproduceError;
use zonelab_engine::{ms_to_ns, Ns, RngStreams, KIB, MIB};
use zonelab_systems::swap::conventional_ssd::ConventionalSwap;
use zonelab_systems::swap::setup::{ssd_device, zns_device};
use zonelab_systems::swap::workloads::{KvCache, VmPhase, VmScalability};
use zonelab_systems::swap::znsage::{znsage, ZnsageOptions};
use zonelab_systems::swap::znswap::znswap;
use zonelab_systems::swap::{
    MemoryConfig, SwapBackend, SwapError, SwapRunStats, SwapSim, ZoneSwapConfig, PAGE_BYTES,
};
use zonelab_workloads::ycsb::CoreWorkloadSpec;

/// Usable swap at scale 1 (ZNSage §3.2's 4 GB example).
const SWAP_MIB_AT_SCALE_1: f64 = 4096.0;
/// Memory limit as a share of the swap area (assumption; the paper's 2 GB / 512 GB
/// would leave too few pages for 16 threads' reclaim batches at small scales).
const LIMIT_SHARE_OF_SWAP: f64 = 1.0 / 32.0;
/// Zones at least in a swap area.
const MIN_ZONES: u64 = 32;
/// Zone capacities are multiples of this (a whole stripe row of both profiles).
const ZONE_STEP_MIB: u64 = 3;
/// vm-scalability threads (ZNSage §5.2.1: 16 test threads).
pub const VM_THREADS: u32 = 16;
/// CPU cores (ZNSage Table 2: 8 cores).
const CORES: u32 = 8;
/// Linux SWAP_CLUSTER_MAX.
const RECLAIM_BATCH: u32 = 32;
/// YCSB client threads (assumption: as many as vm-scalability's threads).
pub const KV_THREADS: u32 = 16;
/// KV records at scale 1 (assumption: a 390 MiB item set, 1/10 of the swap area).
const KV_RECORDS_AT_SCALE_1: f64 = 300_000.0;
/// Smallest memory limit of a KV run (a multiple of the reclaim batches in flight).
const KV_MIN_LIMIT_PAGES: u32 = 256;
/// YCSB operations per run at scale 1.
const KV_OPS_AT_SCALE_1: f64 = 600_000.0;
/// Per-request network + memcached time of a client thread (assumption: ~50 µs
/// request/response over the paper's 2.5 Gb Ethernet, Table 3).
pub const KV_REQUEST_US: f64 = 50.0;

/// A back end on its device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// ZNSage on the SK Hynix-like profile (the paper's setup).
    Znsage,
    /// ZNSwap on the ZN540 formatted with 64 B metadata (the paper's setup).
    Znswap,
    /// Swap on the conventional SSD profile.
    Ssd,
    /// ZNSage on the same ZN540 (no metadata) — isolates the software from the device.
    ZnsageZn540,
}

impl Kind {
    pub fn label(&self) -> &'static str {
        match self {
            Kind::Znsage => "ZNSage (sk-hynix-zns)",
            Kind::Znswap => "ZNSwap (zn540, 64 B metadata)",
            Kind::Ssd => "swap on conventional SSD",
            Kind::ZnsageZn540 => "ZNSage (zn540)",
        }
    }
}

/// Sizes of a run at a scale.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    pub usable_slots: u64,
    pub limit_pages: u32,
}

impl Geometry {
    pub fn at(scale: f64) -> Self {
        let usable_mib = (SWAP_MIB_AT_SCALE_1 * scale).round().max(128.0) as u64;
        let usable_slots = usable_mib * MIB / PAGE_BYTES;
        let limit_pages = ((usable_slots as f64 * LIMIT_SHARE_OF_SWAP) as u32).max(1024);
        Self {
            usable_slots,
            limit_pages,
        }
    }

    pub fn memory(&self, limit_pages: u32) -> MemoryConfig {
        MemoryConfig {
            limit_pages,
            cores: CORES,
            reclaim_batch_pages: RECLAIM_BATCH,
            max_writeback_pages: (VM_THREADS * RECLAIM_BATCH).min(limit_pages / 4),
            ..Default::default()
        }
    }

    /// (zones, zone capacity MiB) for a profile whose zone capacity is `cap_mib`.
    fn zones(&self, cap_mib: u64, op: f64) -> (u32, u64) {
        let total_mib = (self.usable_slots * PAGE_BYTES) as f64 / (1.0 - op) / MIB as f64;
        let fit = (total_mib / MIN_ZONES as f64) as u64 / ZONE_STEP_MIB * ZONE_STEP_MIB;
        let cap = cap_mib.min(fit.max(ZONE_STEP_MIB));
        let zones = (total_mib / cap as f64).ceil() as u32;
        (zones, cap)
    }
}

fn swap_err(e: SwapError) -> ReproduceError {
    ReproduceError::Run(e.to_string())
}

/// Builds back end `kind` sized by `geo`.
pub fn backend(
    kind: Kind,
    geo: &Geometry,
    pt_update: bool,
) -> Result<Box<dyn SwapBackend>, ReproduceError> {
    let zcfg = ZoneSwapConfig {
        cores: CORES,
        ..Default::default()
    };
    let op = zcfg.over_provisioning;
    Ok(match kind {
        Kind::Znsage | Kind::ZnsageZn540 => {
            let (profile, cap) = if kind == Kind::Znsage {
                ("sk-hynix-zns", 96)
            } else {
                ("zn540", 1077)
            };
            let (zones, cap) = geo.zones(cap, op);
            let dev = zns_device(profile, zones, Some(cap), None).map_err(swap_err)?;
            let opts = ZnsageOptions {
                gc_page_table_update: pt_update,
                ..Default::default()
            };
            Box::new(znsage(dev, zcfg, &opts).map_err(swap_err)?)
        }
        Kind::Znswap => {
            let (zones, cap) = geo.zones(1077, op);
            // lbaf 4: 4 KiB + 64 B metadata (Table 1), the format ZNSwap needs.
            let dev = zns_device("zn540", zones, Some(cap), Some(4)).map_err(swap_err)?;
            Box::new(znswap(dev, zcfg).map_err(swap_err)?)
        }
        Kind::Ssd => {
            let cap_mib = geo.usable_slots * PAGE_BYTES / MIB;
            // Enough superblocks for the profile's 7% OP to cover the FTL's spare
            // needs: 32 dies (MiB superblocks of `ppb` pages) above 384 MiB, else 8.
            let (dies, sb_kib_per_page) = if cap_mib >= 384 {
                ((8, 4), 1024)
            } else {
                ((4, 2), 256)
            };
            let ppb = ((cap_mib * KIB / 128 / sb_kib_per_page) / 3 * 3).clamp(3, 192) as u32;
            let dev =
                ssd_device("ssd-conventional", cap_mib, Some(ppb), Some(dies)).map_err(swap_err)?;
            Box::new(ConventionalSwap::new(dev, None, CORES, false).map_err(swap_err)?)
        }
    })
}

/// What one vm-scalability run measured (its random-write phase).
#[derive(Debug, Clone)]
pub struct VmResult {
    pub stats: SwapRunStats,
    /// Swap-in + swap-out bandwidth, MiB/s.
    pub swap_mib_s: f64,
    pub swap_out_mib_s: f64,
    pub host_rmap_bytes: u64,
    pub swap_zone_bytes: u64,
    pub device_waf: f64,
    pub device_gc_copied_bytes: u64,
}

fn mib_s(pages: u64, ns: Ns) -> f64 {
    if ns == 0 {
        return 0.0;
    }
    (pages * PAGE_BYTES) as f64 / MIB as f64 / (ns as f64 / 1e9)
}

/// How long a vm-scalability run writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VmLength {
    /// A warm-up of one swap area's worth of random writes, then one more measured:
    /// swap-zone GC (or the FTL's) in steady state.
    SteadyState,
    /// Only a tenth of the swap area written after the fill, no warm-up: GC does
    /// not start (free zones stay above the low watermark at 20-80%).
    Fresh,
}

/// Random writes of the fresh run, as a share of the usable slots.
const FRESH_SHARE: f64 = 0.1;

/// vm-scalability `case-anon-w-rand-mt` at swap utilisation `util` (0..1): the
/// area is the memory limit plus `util` of the usable swap; a first-touch pass
/// (and for [`VmLength::SteadyState`] a warm-up) precedes the measured writes.
pub fn vm_run(
    kind: Kind,
    geo: &Geometry,
    util: f64,
    pt_update: bool,
    length: VmLength,
    seed: u64,
) -> Result<VmResult, ReproduceError> {
    let b = backend(kind, geo, pt_update)?;
    let swap_zone_bytes = b.slot_space() * PAGE_BYTES;
    let pages = geo.limit_pages + (geo.usable_slots as f64 * util) as u32;
    let mut sim = SwapSim::new(geo.memory(geo.limit_pages), pages, b, false).map_err(swap_err)?;
    let rngs = RngStreams::new(seed);
    let mut per_thread = geo.usable_slots / VM_THREADS as u64;
    let mut fill = VmScalability::new(pages, VM_THREADS, VmPhase::Fill, &rngs).map_err(swap_err)?;
    sim.run(&mut fill).map_err(swap_err)?;
    match length {
        VmLength::SteadyState => {
            let warm_rngs = RngStreams::new(seed ^ 0x5741_524d);
            let mut warm = VmScalability::new(
                pages,
                VM_THREADS,
                VmPhase::RandomWrites { per_thread },
                &warm_rngs,
            )
            .map_err(swap_err)?;
            sim.run(&mut warm).map_err(swap_err)?;
        }
        VmLength::Fresh => per_thread = (per_thread as f64 * FRESH_SHARE) as u64,
    }
    let mut main = VmScalability::new(
        pages,
        VM_THREADS,
        VmPhase::RandomWrites { per_thread },
        &rngs,
    )
    .map_err(swap_err)?;
    let s = sim.run(&mut main).map_err(swap_err)?;
    let el = s.elapsed_ns();
    let ds = sim.backend().device_stats(sim.now_ns());
    Ok(VmResult {
        swap_mib_s: mib_s(s.swap_in_pages + s.swap_out_pages, el),
        swap_out_mib_s: mib_s(s.swap_out_pages, el),
        host_rmap_bytes: sim.backend().stats().host_rmap_bytes,
        swap_zone_bytes,
        device_waf: ds.write_amplification,
        device_gc_copied_bytes: ds.gc_copied_bytes,
        stats: s,
    })
}

/// One Memcached-YCSB run: load, then the YCSB run phase; ops/s of the run phase.
pub fn kv_run(
    kind: Kind,
    geo: &Geometry,
    scale: f64,
    mut spec: CoreWorkloadSpec,
    memory_share: f64,
    seed: u64,
) -> Result<(f64, SwapRunStats), ReproduceError> {
    spec.record_count = (KV_RECORDS_AT_SCALE_1 * scale).round().max(3_000.0) as u64;
    spec.operation_count = (KV_OPS_AT_SCALE_1 * scale).round().max(20_000.0) as u64;
    let request_ns = ms_to_ns(KV_REQUEST_US / 1000.0);
    let mut load = KvCache::new(&spec, KV_THREADS, request_ns, None).map_err(swap_err)?;
    let footprint = load.footprint_pages();
    // 100%: everything fits (plus a reclaim batch per thread of slack); 50%: half.
    let limit = if memory_share >= 1.0 {
        footprint + VM_THREADS * RECLAIM_BATCH * 2
    } else {
        ((footprint as f64 * memory_share) as u32).max(KV_MIN_LIMIT_PAGES)
    };
    let b = backend(kind, geo, true)?;
    let mut sim = SwapSim::new(geo.memory(limit), footprint, b, false).map_err(swap_err)?;
    sim.run(&mut load).map_err(swap_err)?;
    let rngs = RngStreams::new(seed);
    let mut run = KvCache::new(&spec, KV_THREADS, request_ns, Some(&rngs)).map_err(swap_err)?;
    let s = sim.run(&mut run).map_err(swap_err)?;
    let ops_s = if s.elapsed_ns() == 0 {
        0.0
    } else {
        s.ops as f64 / (s.elapsed_ns() as f64 / 1e9)
    };
    Ok((ops_s, s))
}
