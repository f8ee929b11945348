//! The runs behind target `znsage`: the devices and back ends resized for a
//! scale, and one run of vm-scalability or of the Memcached-like KV cache.
//!
//! Sizes at scale 1 (the paper's 512 GB swap and 2 GB cgroup limit are beyond a
//! 10-minute run; the ratios that matter are kept): 4 GiB of usable swap slots on
//! every back end (the paper's 4 GB example of §3.2), scaled with `--scale`; a
//! memory limit of 1/32 of it. The zone count does not shrink with the scale: a
//! swap area has about 548 zones at every scale (`nr_swap_zones` = 548 in ZNSage's
//! setup script, `run-setup.sh` of h2wonS/znswap; 548 ZN540 zones are the paper's
//! ~512 GB), and zones are whole flash stripe rows of their device (ZN540: 1.5 MiB,
//! SK Hynix: 0.75 MiB), at least one; so a swap area has at least a few hundred
//! zones spread over all die groups, and the 8 per-core zones, the GC zone and the
//! watermarks are ~2% of it, as in the paper. `setup::zns_device_kib` keeps each
//! device's striping, program unit and erase time per byte.

use super::ReproduceError;
use zonelab_engine::{ms_to_ns, Ns, RngStreams, KIB, MIB};
use zonelab_systems::swap::conventional_ssd::ConventionalSwap;
use zonelab_systems::swap::setup::{ssd_device, zns_device_kib, zns_geometry};
use zonelab_systems::swap::workloads::{
    kv_json_bytes, KvCache, KvOpCosts, VmPhase, VmScalability, Workload,
};
use zonelab_systems::swap::znsage::{znsage, ZnsageOptions};
use zonelab_systems::swap::znswap::znswap;
use zonelab_systems::swap::{
    HostCosts, MemoryConfig, SwapBackend, SwapError, SwapRunStats, SwapSim, ZoneSwapConfig,
    PAGE_BYTES,
};
use zonelab_workloads::ycsb::CoreWorkloadSpec;

/// Usable swap at scale 1 (ZNSage §3.2's 4 GB example).
const SWAP_MIB_AT_SCALE_1: f64 = 4096.0;
/// Memory limit as a share of the swap area (assumption; the paper's 2 GB / 512 GB
/// would leave too few pages for 16 threads' reclaim batches at small scales).
const LIMIT_SHARE_OF_SWAP: f64 = 1.0 / 32.0;
/// Zones of a swap area (ZNSage's `run-setup.sh`: `nr_swap_zones` = 548).
const TARGET_ZONES: u64 = 548;
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
/// Per-request time of a client thread for a minimal request and response
/// (assumption: ~50 µs round trip and processing over the paper's 2.5 Gb Ethernet,
/// Table 3); the bytes of the operation are added at the link rate ([`kv_costs`]).
pub const KV_REQUEST_US: f64 = 50.0;
/// The client-server link (ZNSage Table 3: 2.5 Gbps Ethernet).
const KV_LINK_BITS_PER_S: f64 = 2.5e9;
/// Per-operation times of the Memcached-YCSB client: a read receives the record's
/// JSON (GET: all fields as loaded, only the updated ones once an update rewrote
/// it), an update sends the updated fields (REPLACE; one field unless
/// `write_all_fields`), each at the link rate on top of [`KV_REQUEST_US`].
pub fn kv_costs(spec: &CoreWorkloadSpec) -> KvOpCosts {
    let read_bytes = kv_json_bytes(spec.field_count, spec.field_length_bytes);
    let written = if spec.write_all_fields {
        spec.field_count
    } else {
        1
    };
    let update_bytes = kv_json_bytes(written, spec.field_length_bytes);
    let wire_ns = |bytes: u64| (bytes as f64 * 8.0 / KV_LINK_BITS_PER_S * 1e9).round() as Ns;
    let base = ms_to_ns(KV_REQUEST_US / 1000.0);
    KvOpCosts {
        read_ns: base + wire_ns(read_bytes),
        read_updated_ns: base + wire_ns(update_bytes),
        update_ns: base + wire_ns(update_bytes),
    }
}

/// What a run varies besides the back end (ablations): ZNSage's page-table update
/// during GC and the host costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variant {
    pub pt_update: bool,
    pub host: HostCosts,
}

impl Default for Variant {
    fn default() -> Self {
        Self {
            pt_update: true,
            host: HostCosts::default(),
        }
    }
}

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

    /// (zones, zone capacity KiB) on `profile`: about [`TARGET_ZONES`] zones of
    /// whole stripe rows (at least one row, at most the profile's capacity) that
    /// hold the usable slots after over-provisioning `op`.
    pub fn zones(&self, profile: &str, op: f64) -> Result<(u32, u64), ReproduceError> {
        let g = zns_geometry(profile).map_err(swap_err)?;
        let total_kib = (self.usable_slots * PAGE_BYTES) as f64 / (1.0 - op) / KIB as f64;
        let rows = ((total_kib / TARGET_ZONES as f64) / g.stripe_row_kib as f64).floor() as u64;
        let cap = (rows.max(1) * g.stripe_row_kib).min(g.zone_capacity_kib);
        Ok(((total_kib / cap as f64).ceil() as u32, cap))
    }
}

fn swap_err(e: SwapError) -> ReproduceError {
    ReproduceError::Run(e.to_string())
}

/// Builds back end `kind` sized by `geo`.
pub fn backend(
    kind: Kind,
    geo: &Geometry,
    variant: &Variant,
) -> Result<Box<dyn SwapBackend>, ReproduceError> {
    let zcfg = ZoneSwapConfig {
        cores: CORES,
        host: variant.host,
        ..Default::default()
    };
    let op = zcfg.over_provisioning;
    Ok(match kind {
        Kind::Znsage | Kind::ZnsageZn540 => {
            let profile = if kind == Kind::Znsage {
                "sk-hynix-zns"
            } else {
                "zn540"
            };
            let (zones, cap) = geo.zones(profile, op)?;
            let dev = zns_device_kib(profile, zones, Some(cap), None).map_err(swap_err)?;
            let opts = ZnsageOptions {
                gc_page_table_update: variant.pt_update,
                ..Default::default()
            };
            Box::new(znsage(dev, zcfg, &opts).map_err(swap_err)?)
        }
        Kind::Znswap => {
            let (zones, cap) = geo.zones("zn540", op)?;
            // lbaf 4: 4 KiB + 64 B metadata (Table 1), the format ZNSwap needs.
            let dev = zns_device_kib("zn540", zones, Some(cap), Some(4)).map_err(swap_err)?;
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
            Box::new(
                ConventionalSwap::new(dev, None, CORES, false)
                    .and_then(|b| b.with_host_costs(variant.host))
                    .map_err(swap_err)?,
            )
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
    variant: &Variant,
    length: VmLength,
    seed: u64,
) -> Result<VmResult, ReproduceError> {
    let b = backend(kind, geo, variant)?;
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
    spec: CoreWorkloadSpec,
    memory_share: f64,
    costs: Option<KvOpCosts>,
    seed: u64,
) -> Result<(f64, SwapRunStats), ReproduceError> {
    kv_run_with(kind, geo, scale, spec, memory_share, costs, false, seed)
}

/// [`kv_run`] with the in-place-update ablation switch.
#[allow(clippy::too_many_arguments)]
pub fn kv_run_with(
    kind: Kind,
    geo: &Geometry,
    scale: f64,
    mut spec: CoreWorkloadSpec,
    memory_share: f64,
    costs: Option<KvOpCosts>,
    in_place_updates: bool,
    seed: u64,
) -> Result<(f64, SwapRunStats), ReproduceError> {
    spec.record_count = (KV_RECORDS_AT_SCALE_1 * scale).round().max(3_000.0) as u64;
    spec.operation_count = (KV_OPS_AT_SCALE_1 * scale).round().max(20_000.0) as u64;
    let costs = costs.unwrap_or_else(|| kv_costs(&spec));
    let mut load = KvCache::new(&spec, KV_THREADS, costs, None).map_err(swap_err)?;
    let footprint = load.footprint_pages();
    // 100%: everything fits (plus a reclaim batch per thread of slack); 50%: half.
    // 100%: everything fits, the items updates rewrite included; 50%: half of
    // the loaded item set.
    let limit = if memory_share >= 1.0 {
        load.pages() + VM_THREADS * RECLAIM_BATCH * 2
    } else {
        ((footprint as f64 * memory_share) as u32).max(KV_MIN_LIMIT_PAGES)
    };
    let b = backend(kind, geo, &Variant::default())?;
    let mut sim = SwapSim::new(geo.memory(limit), load.pages(), b, false).map_err(swap_err)?;
    sim.run(&mut load).map_err(swap_err)?;
    let rngs = RngStreams::new(seed);
    let mut run = KvCache::new(&spec, KV_THREADS, costs, Some(&rngs)).map_err(swap_err)?;
    if in_place_updates {
        run = run.with_in_place_updates();
    }
    let s = sim.run(&mut run).map_err(swap_err)?;
    let ops_s = if s.elapsed_ns() == 0 {
        0.0
    } else {
        s.ops as f64 / (s.elapsed_ns() as f64 / 1e9)
    };
    Ok((ops_s, s))
}
