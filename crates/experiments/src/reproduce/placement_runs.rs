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
const SEQ_BLOCKS: u32 = 32;
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
}

impl Interface {
    pub fn label(&self) -> String {
        match self {
            Interface::Conventional => "conventional".into(),
            Interface::Fdp { handles } => format!("fdp-{handles}"),
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
    if let Interface::Fdp { handles } = interface {
        let list = vec!["\"initially-isolated\""; handles as usize].join(", ");
        text.push_str(&format!("[fdp]\nreclaim_groups = 1\nhandles = [{list}]\n"));
    }
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
                    Interface::Conventional => None,
                    Interface::Fdp { handles } => Some((t % handles) as u16),
                },
            };
            first += blocks;
            tenant
        })
        .collect()
}

fn submit(dev: &mut dyn Device, at: Ns, cmd: &Command, pid: Option<u16>) -> Result<Ns, String> {
    match pid {
        Some(p) => dev.submit_placed(at, cmd, p, Payload::SizeOnly),
        None => dev.submit(at, cmd, Payload::SizeOnly),
    }
    .map(|c| c.done_ns)
    .map_err(|e| format!("{}: {e}", cmd.name()))
}

/// Fills every tenant's range once, sequentially in 128 KiB writes with its
/// placement identifier (tenants in turn, QD1); returns when it ended.
fn fill(dev: &mut dyn Device, tenants: &[Tenant]) -> Result<Ns, String> {
    let mut now = 0;
    let longest = tenants.iter().map(|t| t.blocks).max().unwrap_or(0);
    let mut off = 0;
    while off < longest {
        for t in tenants.iter().filter(|t| off < t.blocks) {
            let cmd = Command::Write {
                lba: t.first_lba + off,
                blocks: SEQ_BLOCKS,
            };
            now = submit(dev, now, &cmd, t.pid)?;
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
) -> Result<MixResult, String> {
    let mut dev = build(&ProfileSource {
        source_name: format!("zn540-fdp ({}, scale {scale})", interface.label()),
        text: profile_text(interface, scale),
    })
    .map_err(|e| e.to_string())?;
    let dev = dev.as_mut();
    let info = dev.info().clone();
    let rngs = RngStreams::new(seed);
    let mut tenants = tenants(info.capacity_blocks, interface, &rngs);
    let start_ns = fill(dev, &tenants)?;
    let before = dev.stats(start_ns);
    let fdp_before = dev.fdp().map_or(0, |f| f.event_counts.media_reallocated);
    let budget_bytes =
        (write_factor * (info.capacity_blocks * info.block_bytes as u64) as f64) as u64;
    let mut pick = rngs.stream("placement.mix");
    let bb = info.block_bytes as u64;
    let mut hist = LatencyHistogram::new();
    let mut queue: EventQueue<Ns> = EventQueue::with_capacity(QUEUE_DEPTH);
    queue.advance_to(start_ns);
    let mut issued_bytes = 0;
    let random_request_per_2_20 =
        (random_request_chance(random_byte_share) * (1u64 << 20) as f64) as u64;
    let mut next =
        |now: Ns, dev: &mut dyn Device, issued: &mut u64| -> Result<Option<Ns>, String> {
            if *issued >= budget_bytes {
                return Ok(None);
            }
            // Random tenants are the odd ones; the draw sets the byte mix.
            let random = uniform_below(&mut pick, 1 << 20) < random_request_per_2_20;
            let half = TENANTS / 2;
            let t = 2 * uniform_below(&mut pick, half as u64) as usize + random as usize;
            let cmd = tenants[t].next_write();
            *issued += cmd.data_blocks() as u64 * bb;
            Ok(Some(submit(dev, now, &cmd, tenants[t].pid)?))
        };
    for _ in 0..QUEUE_DEPTH {
        if let Some(done) = next(start_ns, &mut *dev, &mut issued_bytes)? {
            queue.schedule(done, start_ns);
        }
    }
    let mut end_ns = start_ns;
    while let Some((now, submitted)) = queue.pop() {
        hist.record(now - submitted);
        end_ns = now;
        if let Some(done) = next(now, &mut *dev, &mut issued_bytes)? {
            queue.schedule(done, now);
        }
    }
    let after = dev.stats(end_ns);
    let host = after.host_write_bytes - before.host_write_bytes;
    let media = after.media_write_bytes - before.media_write_bytes;
    Ok(MixResult {
        interface,
        waf: media as f64 / host as f64,
        throughput_mib_s: host as f64 / MIB as f64 / ((end_ns - start_ns) as f64 / 1e9),
        p99_write_us: hist.quantile_ns(0.99) as f64 / 1e3,
        erases: after.erases - before.erases,
        gc_copied_mib: (after.gc_copied_bytes - before.gc_copied_bytes) as f64 / MIB as f64,
        media_reallocated_events: dev.fdp().map_or(0, |f| f.event_counts.media_reallocated)
            - fdp_before,
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
