//! Fig. 12 of ConZone+ (§6.5): three write streams with different lifetimes
//! (short, medium, extreme) on the QLC device, where every write is staged in SLC,
//! with SLC managed per page (`pageslc`) or per zone (`zonedslc`).
//!
//! The paper drives F2FS with fio write hints; F2FS is not available here, so a
//! minimal F2FS-like host log stands in: each stream appends to its own zone (one
//! log per hint, as F2FS's lfs mode on a zoned device), an update writes the block
//! anew at the stream's write pointer and invalidates the old copy, and a full
//! zone whose blocks are all invalid is reset. Every 4 KiB write is followed by a
//! flush (the paper's buffered I/O + fsync). F2FS node/metadata writes, its GC and
//! its checkpoints are not modelled (docs/conzone.md).

use super::conzone_runs::err;
use super::ReproduceError;
use std::collections::VecDeque;
use zonelab_devices::models::conzone::config::SlcManagement;
use zonelab_devices::models::conzone::{ConZone, ConZoneProfile};
use zonelab_devices::profile::{find_profile, parse_as};
use zonelab_devices::{Command, Device, Payload, ZoneAction};
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{Ns, RngStream, RngStreams, MIB, NS_PER_S, NS_PER_US};

const PAGE_BYTES: u64 = 4096;

/// One stream of §6.5: `files` files of `file_mib`, then `random_updates` random
/// 4 KiB updates per file, an optional pause, then `hot_update_mib` of random
/// 4 KiB updates to one file.
#[derive(Debug, Clone, Copy)]
pub(super) struct StreamSpec {
    pub name: &'static str,
    pub files: u64,
    pub file_mib: u64,
    pub random_updates: u64,
    pub pause_us: u64,
    pub hot_update_mib: u64,
}

/// §6.5: short, medium and extreme streams.
pub(super) const STREAMS: [StreamSpec; 3] = [
    StreamSpec {
        name: "short",
        files: 16,
        file_mib: 6,
        random_updates: 8,
        pause_us: 0,
        hot_update_mib: 160,
    },
    StreamSpec {
        name: "medium",
        files: 16,
        file_mib: 12,
        random_updates: 8,
        pause_us: 200,
        hot_update_mib: 160,
    },
    StreamSpec {
        name: "extreme",
        files: 32,
        file_mib: 4,
        random_updates: 0,
        pause_us: 0,
        hot_update_mib: 0,
    },
];

/// The (file, block) writes of one stream, in order, with the pause position.
fn stream_writes(s: &StreamSpec, scale: f64, rng: &mut RngStream) -> (Vec<(u32, u64)>, usize) {
    let file_pages = ((s.file_mib * MIB) as f64 * scale / PAGE_BYTES as f64).max(32.0) as u64;
    let mut w = Vec::new();
    for f in 0..s.files {
        for b in 0..file_pages {
            w.push((f as u32, b));
        }
    }
    for f in 0..s.files {
        for _ in 0..s.random_updates {
            w.push((f as u32, uniform_below(rng, file_pages)));
        }
    }
    let pause_at = w.len();
    if s.hot_update_mib > 0 {
        let hot = uniform_below(rng, s.files) as u32;
        let n = ((s.hot_update_mib * MIB) as f64 * scale / PAGE_BYTES as f64) as u64;
        for _ in 0..n {
            w.push((hot, uniform_below(rng, file_pages)));
        }
    }
    (w, pause_at)
}

/// Measurements of one Fig. 12 run.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StreamRun {
    pub mib_s: f64,
    pub migrated_mib: f64,
    pub direct_slc_erases: u64,
    pub slc_gc_erases: u64,
    pub host_resets: u64,
    pub waf: f64,
}

/// A minimal F2FS-like log per stream over the zoned device.
struct HostLog {
    zone_size: u64,
    cap: u64,
    free: VecDeque<u32>,
    head: Vec<Option<(u32, u64)>>,
    /// Per stream, per file, per block: current LBA (u64::MAX = none).
    loc: Vec<Vec<Vec<u64>>>,
    valid: Vec<u64>,
    resets: u64,
}

impl HostLog {
    fn zone_of(&self, lba: u64) -> u32 {
        (lba / self.zone_size) as u32
    }

    /// Writes one block of (stream, file, block) at `t`, then fsyncs; returns the
    /// time the fsync completes.
    fn write(
        &mut self,
        d: &mut dyn Device,
        t: Ns,
        s: usize,
        f: u32,
        b: u64,
    ) -> Result<Ns, ReproduceError> {
        let mut t = t;
        let old = self.loc[s][f as usize][b as usize];
        if old != u64::MAX {
            let z = self.zone_of(old);
            self.valid[z as usize] -= 1;
            let is_head = self.head.iter().any(|h| h.is_some_and(|(hz, _)| hz == z));
            if self.valid[z as usize] == 0 && !is_head {
                let reset = Command::Zone {
                    action: ZoneAction::Reset,
                    zone_lba: z as u64 * self.zone_size,
                };
                t = d.submit(t, &reset, Payload::SizeOnly).map_err(err)?.done_ns;
                self.free.push_back(z);
                self.resets += 1;
            }
        }
        let (z, wp) = match self.head[s] {
            Some(h) => h,
            None => {
                let z = self
                    .free
                    .pop_front()
                    .ok_or_else(|| err("fig12 host log ran out of free zones"))?;
                (z, 0)
            }
        };
        let lba = z as u64 * self.zone_size + wp;
        t = d
            .submit(t, &Command::Write { lba, blocks: 1 }, Payload::SizeOnly)
            .map_err(err)?
            .done_ns;
        self.loc[s][f as usize][b as usize] = lba;
        self.valid[z as usize] += 1;
        self.head[s] = if wp + 1 == self.cap {
            // The zone is full: it leaves the head; reset it now if already dead.
            if self.valid[z as usize] == 0 {
                self.free.push_back(z);
            }
            None
        } else {
            Some((z, wp + 1))
        };
        Ok(d.submit(t, &Command::Flush, Payload::SizeOnly)
            .map_err(err)?
            .done_ns)
    }
}

/// Runs the three streams concurrently (QD1 each, earliest ready goes next) on a
/// fresh `conzone-qlc` with the given SLC management.
pub(super) fn run_streams(
    management: SlcManagement,
    scale: f64,
    seed: u64,
) -> Result<StreamRun, ReproduceError> {
    let src = find_profile("conzone-qlc").map_err(err)?;
    let mut p: ConZoneProfile = parse_as(&src).map_err(err)?;
    p.slc.management = management;
    let mut d = ConZone::new(p, "conzone-qlc").map_err(err)?;
    let z = d.info().zoned.clone().expect("zoned");
    let rngs = RngStreams::new(seed);
    let plans: Vec<(Vec<(u32, u64)>, usize)> = STREAMS
        .iter()
        .map(|s| stream_writes(s, scale, &mut rngs.stream(&format!("fig12.{}", s.name))))
        .collect();
    let mut log = HostLog {
        zone_size: z.zone_size_blocks,
        cap: z.zone_capacity_blocks,
        free: (0..z.zone_count).collect(),
        head: vec![None; STREAMS.len()],
        loc: STREAMS
            .iter()
            .map(|s| {
                let pages =
                    ((s.file_mib * MIB) as f64 * scale / PAGE_BYTES as f64).max(32.0) as usize;
                vec![vec![u64::MAX; pages]; s.files as usize]
            })
            .collect(),
        valid: vec![0; z.zone_count as usize],
        resets: 0,
    };
    let mut next: Vec<Ns> = vec![0; STREAMS.len()];
    let mut pos = vec![0usize; STREAMS.len()];
    let mut end = 0;
    let mut bytes = 0u64;
    while let Some(s) = (0..STREAMS.len())
        .filter(|&s| pos[s] < plans[s].0.len())
        .min_by_key(|&s| (next[s], s))
    {
        if pos[s] == plans[s].1 && pos[s] > 0 {
            next[s] += STREAMS[s].pause_us * NS_PER_US;
        }
        let (f, b) = plans[s].0[pos[s]];
        let done = log.write(&mut d, next[s], s, f, b)?;
        next[s] = done;
        pos[s] += 1;
        bytes += PAGE_BYTES;
        end = end.max(done);
    }
    let st = d.stats(end);
    let c = |k: &str| st.counters.get(k).copied().unwrap_or(0);
    Ok(StreamRun {
        mib_s: bytes as f64 / MIB as f64 / (end as f64 / NS_PER_S as f64),
        migrated_mib: (c("migrated_pages") * PAGE_BYTES) as f64 / MIB as f64,
        direct_slc_erases: c("slc_direct_erases"),
        slc_gc_erases: c("slc_gc_erases"),
        host_resets: log.resets,
        waf: st.write_amplification,
    })
}
