//! The runs behind target `placement` (docs/placement.md): one flash array (the
//! `zn540-fdp` profile: zn540's dies, timings and controller behind a page-mapped
//! FTL) behind a conventional block interface and behind NVMe FDP with 1, 2, 4 or
//! 8 reclaim unit handles, driven by a multi-tenant mix of sequential and random
//! writers.
//!
//! The mix follows the shape of CacheLib's flash cache, the workload of the
//! published FDP evaluation (Allison et al., EuroSys 2025): a small, hot region
//! written with small random writes (BigHash) next to a large region written
//! sequentially as a log (BlockCache). Here [`TENANTS`] tenants alternate: even
//! ones write their range sequentially in 128 KiB requests (wrapping around), odd
//! ones write 4 KiB requests uniformly at random in a range [`RANDOM_SPACE_SHARE`]
//! of the space shares. Each completion issues the next request of a tenant drawn
//! with [`RANDOM_BYTE_SHARE`] of the bytes going to the random tenants, so the byte
//! mix does not depend on the latencies. Under FDP tenant `t` writes with
//! placement identifier `t mod handles`, so two handles already separate the
//! sequential tenants from the random ones.

use super::placement_zns::ZnsHost;
use zonelab_devices::models::build;
use zonelab_devices::profile::ProfileSource;
use zonelab_devices::{Command, Device, Payload};
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{EventQueue, LatencyHistogram, Ns, RngStream, RngStreams, MIB};

/// Tenants of the mix (as many as the profile's handles, so 8 handles isolate each).
pub const TENANTS: u32 = 8;
/// Share of the logical space the random tenants' ranges take together (CacheLib
/// production configurations give BigHash a few percent of the cache; 10% here).
pub const RANDOM_SPACE_SHARE: f64 = 0.10;
/// Share of the written bytes that goes to the random tenants in the main runs
/// (half: the hot small-object region takes as many bytes as the log; the
/// ablation runs 0 and 1).
pub const RANDOM_BYTE_SHARE: f64 = 0.5;
/// Request sizes: sequential tenants 128 KiB, random ones 4 KiB.
pub(super) const SEQ_BLOCKS: u32 = 32;
const RAND_BLOCKS: u32 = 1;
/// Requests in flight (one per tenant's share of the queue).
const QUEUE_DEPTH: usize = TENANTS as usize;
/// Logical capacity at scale 1 and the flash block size there (the profile's).
const CAPACITY_MIB_AT_1: f64 = 65536.0;
const PAGES_PER_BLOCK_AT_1: f64 = 192.0;

/// The interface in front of the flash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interface {
    /// No placement: the `zn540-fdp` flash without its `[fdp]` section.
    Conventional,
    /// FDP with this many initially isolated reclaim unit handles.
    Fdp { handles: u32 },
    /// FDP with this many persistently isolated handles (an ablation: GC keeps
    /// each handle's copies in that handle's own GC frontier).
    FdpPersistent { handles: u32 },
    /// The same flash behind ZNS, one zone per reclaim unit, with the host
    /// layer of `placement_zns.rs`.
    Zns,
}

impl Interface {
    pub fn label(&self) -> String {
        match self {
            Interface::Conventional => "conventional".into(),
            Interface::Fdp { handles } => format!("fdp-{handles}"),
            Interface::FdpPersistent { handles } => format!("fdp-{handles}-pi"),
            Interface::Zns => "zns".into(),
        }
    }
}

/// What one run measured over its measured phase (after the fill).
#[derive(Debug, Clone, PartialEq)]
pub struct MixResult {
    pub interface: Interface,
    /// Device write amplification: media bytes written / host bytes written.
    pub waf: f64,
    pub throughput_mib_s: f64,
    pub p99_write_us: f64,
    /// Block erases (one erase block on one die each).
    pub erases: u64,
    pub gc_copied_mib: f64,
    /// FDP Media Reallocated events (0 without FDP).
    pub media_reallocated_events: u64,
    /// MiB GC moved out of reclaim units each handle wrote (FDP only; handle
    /// order), and out of units the shared GC frontier wrote (last entry).
    pub gc_moved_mib_by_handle: Vec<f64>,
}

/// The `zn540-fdp` profile at `scale` for `interface`: capacity scales with
/// `scale`, and the flash block (so the reclaim unit) with it in whole TLC word
/// lines, so every scale keeps hundreds of reclaim units for GC to choose from
/// (341 at scale 1, 437 at 0.02; docs/placement.md).
pub fn profile_text(interface: Interface, scale: f64) -> String {
    let base = include_str!("../../../../profiles/zn540-fdp.toml");
    let capacity_mib = (CAPACITY_MIB_AT_1 * scale).round().max(64.0) as u64;
    // TLC: a whole number of 3-page word lines.
    let pages = ((PAGES_PER_BLOCK_AT_1 * scale / 3.0).round().max(1.0) * 3.0) as u64;
    let mut text: String = base
        .lines()
        .map(|l| {
            if l.starts_with("capacity_mib =") {
                format!("capacity_mib = {capacity_mib}")
            } else if l.starts_with("pages_per_block =") {
                format!("pages_per_block = {pages}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let fdp_at = text.find("[fdp]").expect("zn540-fdp has an [fdp] section");
    text.truncate(fdp_at);
    let (handles, kind) = match interface {
        Interface::Fdp { handles } => (handles, "initially-isolated"),
        Interface::FdpPersistent { handles } => (handles, "persistently-isolated"),
        Interface::Conventional | Interface::Zns => return text,
    };
    let list = vec![format!("\"{kind}\""); handles as usize].join(", ");
    text.push_str(&format!("[fdp]\nreclaim_groups = 1\nhandles = [{list}]\n"));
    text
}

/// One tenant: its range, its access pattern and its placement identifier.
struct Tenant {
    first_lba: u64,
    blocks: u64,
    sequential: bool,
    cursor: u64,
    rng: RngStream,
    pid: Option<u16>,
}

impl Tenant {
    fn next_write(&mut self) -> Command {
        if self.sequential {
            let lba = self.first_lba + self.cursor;
            self.cursor = (self.cursor + SEQ_BLOCKS as u64) % self.blocks;
            Command::Write {
                lba,
                blocks: SEQ_BLOCKS,
            }
        } else {
            let lba = self.first_lba + uniform_below(&mut self.rng, self.blocks);
            Command::Write {
                lba,
                blocks: RAND_BLOCKS,
            }
        }
    }
}

/// Splits the device's blocks among the tenants (ranges in 128 KiB units).
fn tenants(capacity_blocks: u64, interface: Interface, rngs: &RngStreams) -> Vec<Tenant> {
    let unit = SEQ_BLOCKS as u64;
    let units = capacity_blocks / unit;
    let half = TENANTS as u64 / 2;
    let rand_units = ((units as f64 * RANDOM_SPACE_SHARE) as u64 / half).max(1);
    let seq_units = (units - rand_units * half) / half;
    let mut first = 0;
    (0..TENANTS)
        .map(|t| {
            let sequential = t % 2 == 0;
            let blocks = if sequential { seq_units } else { rand_units } * unit;
            let tenant = Tenant {
                first_lba: first,
                blocks,
                sequential,
                cursor: 0,
                rng: rngs.stream(&format!("placement.tenant{t}")),
                pid: match interface {
                    Interface::Conventional | Interface::Zns => None,
                    Interface::Fdp { handles } | Interface::FdpPersistent { handles } => {
                        Some((t % handles) as u16)
                    }
                },
            };
            first += blocks;
            tenant
        })
        .collect()
}

/// What the tenants write to: an FTL device (conventional or FDP) directly, or
/// the ZNS device through its host layer.
enum Host {
    Ftl(Box<dyn Device>),
    Zns(ZnsHost),
}

impl Host {
    fn new(interface: Interface, scale: f64) -> Result<Self, String> {
        let ftl = |interface: Interface| {
            build(&ProfileSource {
                source_name: format!("zn540-fdp ({}, scale {scale})", interface.label()),
                text: profile_text(interface, scale),
            })
            .map_err(|e| e.to_string())
        };
        match interface {
            Interface::Zns => {
                // The FTL's geometry: its reclaim unit and superblock count.
                let probe = ftl(Interface::Fdp { handles: 1 })?;
                let info = probe.info().clone();
                let ru_blocks = probe
                    .fdp()
                    .expect("fdp-1 has FDP")
                    .config
                    .reclaim_unit_bytes
                    / info.block_bytes as u64;
                let superblocks = ftl_superblocks(
                    &profile_text(interface, scale),
                    info.capacity_blocks,
                    ru_blocks,
                );
                let rngs = RngStreams::new(0);
                let layout: Vec<(u64, u64, bool)> = tenants(info.capacity_blocks, interface, &rngs)
                    .iter()
                    .map(|t| (t.first_lba, t.blocks, t.sequential))
                    .collect();
                Ok(Host::Zns(ZnsHost::new(
                    scale,
                    superblocks,
                    ru_blocks,
                    info.capacity_blocks,
                    &layout,
                )?))
            }
            _ => Ok(Host::Ftl(ftl(interface)?)),
        }
    }

    fn device(&self) -> &dyn Device {
        match self {
            Host::Ftl(d) => d.as_ref(),
            Host::Zns(h) => h.device(),
        }
    }

    /// The tenants' logical space (the FTL's capacity; ZNS maps it onto zones).
    fn logical_blocks(&self) -> u64 {
        match self {
            Host::Ftl(d) => d.info().capacity_blocks,
            Host::Zns(h) => h.logical_blocks(),
        }
    }

    /// FDP's reclaim unit in blocks (none without FDP).
    fn reclaim_unit_blocks(&self) -> Option<u64> {
        let dev = self.device();
        dev.fdp()
            .map(|f| f.config.reclaim_unit_bytes / dev.info().block_bytes as u64)
    }

    /// Deallocates `blocks` at `lba` at `at` (FTL devices); when it completes.
    fn trim(&mut self, at: Ns, lba: u64, blocks: u32) -> Result<Ns, String> {
        match self {
            Host::Ftl(dev) => dev
                .submit(at, &Command::Trim { lba, blocks }, Payload::SizeOnly)
                .map(|c| c.done_ns)
                .map_err(|e| format!("trim: {e}")),
            Host::Zns(_) => Ok(at),
        }
    }

    /// Tenant `t`'s write at `at`; when it completes.
    fn write(&mut self, at: Ns, t: usize, cmd: &Command, pid: Option<u16>) -> Result<Ns, String> {
        match self {
            Host::Ftl(dev) => match pid {
                Some(p) => dev.submit_placed(at, cmd, p, Payload::SizeOnly),
                None => dev.submit(at, cmd, Payload::SizeOnly),
            }
            .map(|c| c.done_ns)
            .map_err(|e| format!("{}: {e}", cmd.name())),
            Host::Zns(h) => h.write(at, t, cmd),
        }
    }

    /// Blocks the host layer's GC copied (ZNS); the device counts the FTL's.
    fn host_gc_copied_blocks(&self) -> u64 {
        match self {
            Host::Ftl(_) => 0,
            Host::Zns(h) => h.gc_copied_blocks,
        }
    }
}

/// Superblocks the `ftl-ssd` model gives a profile (its formula: logical units
/// times 1 + OP, rounded up to whole superblocks of `ru_blocks` units).
fn ftl_superblocks(profile: &str, logical_blocks: u64, ru_blocks: u64) -> u64 {
    let op_percent: f64 = profile
        .lines()
        .find_map(|l| l.strip_prefix("over_provisioning_percent"))
        .and_then(|r| r.trim_start().strip_prefix('='))
        .and_then(|v| v.split('#').next())
        .and_then(|v| v.trim().parse().ok())
        .expect("zn540-fdp has over_provisioning_percent");
    let physical = (logical_blocks as f64 * (1.0 + op_percent / 100.0)).ceil() as u64;
    physical.div_ceil(ru_blocks)
}

/// Fills every tenant's range once, sequentially in 128 KiB writes with its
/// placement identifier (tenants in turn, QD1); returns when it ended.
fn fill(host: &mut Host, tenants: &[Tenant]) -> Result<Ns, String> {
    let mut now = 0;
    let longest = tenants.iter().map(|t| t.blocks).max().unwrap_or(0);
    let mut off = 0;
    while off < longest {
        for (i, t) in tenants.iter().enumerate().filter(|(_, t)| off < t.blocks) {
            let cmd = Command::Write {
                lba: t.first_lba + off,
                blocks: SEQ_BLOCKS,
            };
            now = host.write(now, i, &cmd, t.pid)?;
        }
        off += SEQ_BLOCKS as u64;
    }
    Ok(now)
}

/// Runs the mix on `interface` at `scale`: fill, then `write_factor` × the
/// logical capacity of mixed writes, measured.
pub fn mix_run(
    interface: Interface,
    scale: f64,
    write_factor: f64,
    random_byte_share: f64,
    seed: u64,
    trim_log_ahead: bool,
) -> Result<MixResult, String> {
    let mut host = Host::new(interface, scale)?;
    let logical_blocks = host.logical_blocks();
    let bb = host.device().info().block_bytes as u64;
    let rngs = RngStreams::new(seed);
    let mut tenants = tenants(logical_blocks, interface, &rngs);
    let start_ns = fill(&mut host, &tenants)?;
    let before = host.device().stats(start_ns);
    let host_gc_before = host.host_gc_copied_blocks();
    let fdp_before = host
        .device()
        .fdp()
        .map_or(0, |f| f.event_counts.media_reallocated);
    let moved_before = moved_lbas_by_handle(host.device());
    let budget_bytes = (write_factor * (logical_blocks * bb) as f64) as u64;
    let mut pick = rngs.stream("placement.mix");
    // Ablation: a sequential tenant deallocates the next reclaim unit's worth of
    // its log before overwriting it (what a zone reset does on ZNS).
    let trim_unit = host.reclaim_unit_blocks().filter(|_| trim_log_ahead);
    let mut hist = LatencyHistogram::new();
    let mut queue: EventQueue<Ns> = EventQueue::with_capacity(QUEUE_DEPTH);
    queue.advance_to(start_ns);
    let mut issued_bytes = 0;
    let random_request_per_2_20 =
        (random_request_chance(random_byte_share) * (1u64 << 20) as f64) as u64;
    let mut next = |now: Ns, host: &mut Host, issued: &mut u64| -> Result<Option<Ns>, String> {
        if *issued >= budget_bytes {
            return Ok(None);
        }
        // Random tenants are the odd ones; the draw sets the byte mix.
        let random = uniform_below(&mut pick, 1 << 20) < random_request_per_2_20;
        let half = TENANTS / 2;
        let t = 2 * uniform_below(&mut pick, half as u64) as usize + random as usize;
        let cmd = tenants[t].next_write();
        *issued += cmd.data_blocks() as u64 * bb;
        let mut at = now;
        if let (Some(unit), Command::Write { lba, .. }, true) =
            (trim_unit, cmd, tenants[t].sequential)
        {
            let off = lba - tenants[t].first_lba;
            if off % unit == 0 {
                let blocks = unit.min(tenants[t].blocks - off) as u32;
                at = host.trim(now, lba, blocks)?;
            }
        }
        Ok(Some(host.write(at, t, &cmd, tenants[t].pid)?))
    };
    for _ in 0..QUEUE_DEPTH {
        if let Some(done) = next(start_ns, &mut host, &mut issued_bytes)? {
            queue.schedule(done, start_ns);
        }
    }
    let mut end_ns = start_ns;
    while let Some((now, submitted)) = queue.pop() {
        hist.record(now - submitted);
        end_ns = now;
        if let Some(done) = next(now, &mut host, &mut issued_bytes)? {
            queue.schedule(done, now);
        }
    }
    let dev = host.device();
    let after = dev.stats(end_ns);
    let host_gc_bytes = (host.host_gc_copied_blocks() - host_gc_before) * bb;
    // Application bytes: what the tenants wrote (the ZNS host layer's GC copies
    // reach the device as host writes but are write amplification).
    let host = after.host_write_bytes - before.host_write_bytes - host_gc_bytes;
    let media = after.media_write_bytes - before.media_write_bytes;
    Ok(MixResult {
        interface,
        waf: media as f64 / host as f64,
        throughput_mib_s: host as f64 / MIB as f64 / ((end_ns - start_ns) as f64 / 1e9),
        p99_write_us: hist.quantile_ns(0.99) as f64 / 1e3,
        erases: after.erases - before.erases,
        gc_copied_mib: (after.gc_copied_bytes - before.gc_copied_bytes + host_gc_bytes) as f64
            / MIB as f64,
        media_reallocated_events: dev.fdp().map_or(0, |f| f.event_counts.media_reallocated)
            - fdp_before,
        gc_moved_mib_by_handle: moved_lbas_by_handle(dev)
            .iter()
            .zip(&moved_before)
            .map(|(a, b)| ((a - b) * bb) as f64 / MIB as f64)
            .collect(),
    })
}

/// Logical blocks GC moved so far per handle, then out of shared GC units (the
/// sums of the FDP Media Reallocated events; empty without FDP).
fn moved_lbas_by_handle(dev: &dyn Device) -> Vec<u64> {
    dev.fdp().map_or(Vec::new(), |f| {
        let mut v = f.relocated.by_handle.clone();
        v.push(f.relocated.from_shared_gc_units);
        v
    })
}

/// The chance that a request goes to a random tenant which gives the random
/// tenants `share` of the bytes, requests being 4 KiB there and 128 KiB on the
/// sequential side: share / (share + (1 − share) / 32).
fn random_request_chance(share: f64) -> f64 {
    let per_request = (SEQ_BLOCKS / RAND_BLOCKS) as f64;
    if share <= 0.0 {
        return 0.0;
    }
    share / (share + (1.0 - share) / per_request)
}
