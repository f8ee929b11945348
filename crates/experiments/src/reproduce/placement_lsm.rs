//! Workload (b) of target `placement` (docs/placement.md): the lab's RocksDB-like
//! LSM-tree (`zonelab_systems::lsm`, the model HHZS drives) storing its files on
//! the same flash behind three interfaces, through a small file store
//! ([`PlacedFiles`], an `LsmStorage`):
//!
//! - **conventional** / **FDP**: files live in 1 MiB extents of the logical space
//!   (most recently freed first, as a file system reuses space); a deleted file's
//!   extents are deallocated (trim). Under FDP each write carries the placement
//!   identifier of its file's lifetime class: WAL, L0–L1, L2, L3 and deeper
//!   ([`file_class`]);
//! - **ZNS**: a ZenFS-like zone allocator: one active zone per lifetime class,
//!   files of a class appended into it, a zone reset once it is full and all the
//!   data in it belongs to deleted files (no host GC: the data set is sized to
//!   leave room, and running out of zones is an error).
//!
//! Files are written in whole 4 KiB blocks as they fill (the partial tail block
//! stays in host memory until the file is closed, then is written padded), so no
//! block is ever rewritten in place.

use super::placement_runs::{profile_text, Interface};
use super::placement_zns::zns_profile_text;
use std::collections::BTreeMap;
use zonelab_devices::models::build;
use zonelab_devices::profile::ProfileSource;
use zonelab_devices::{Command, Device, Payload, ZoneAction};
use zonelab_engine::rng::{splitmix64, uniform_below};
use zonelab_engine::{Ns, RngStreams};
use zonelab_systems::lsm::{
    FileKind, FileNo, Hint, KvOp, LsmDb, LsmOptions, LsmStorage, StorageError,
};

const BLOCK_BYTES: u64 = 4096;
/// Extent of the block-interface file store (blocks).
const EXTENT_BLOCKS: u64 = 256;
/// Largest write or read command the store issues (blocks: 256 KiB).
const MAX_COMMAND_BLOCKS: u64 = 64;
/// Lifetime classes: WAL, L0–L1, L2, L3+ (placement identifier = class).
pub const CLASSES: usize = 4;
/// Share of the logical capacity the loaded key-value data takes.
pub const DATA_SHARE: f64 = 0.25;
/// Overwrites measured after the load, as a multiple of the loaded keys.
const OVERWRITE_FACTOR: u64 = 1;

/// The lifetime class of a file: the WAL dies at the next flush, L0/L1 files at
/// the next compactions, deeper levels live longer the deeper they are.
pub fn file_class(kind: FileKind) -> usize {
    match kind {
        FileKind::Wal => 0,
        FileKind::Sst { level } if level <= 1 => 1,
        FileKind::Sst { level: 2 } => 2,
        FileKind::Sst { .. } => 3,
    }
}

struct File {
    class: usize,
    size_bytes: u64,
    written_blocks: u64,
    closed: bool,
    /// Runs of the file's blocks: (first file block, first LBA, blocks).
    runs: Vec<(u64, u64, u64)>,
}

/// Where files go: logical extents (conventional, FDP) or zones (ZNS).
enum Space {
    Extents {
        free: Vec<u64>,
        placed: bool,
    },
    Zones {
        zone_size: u64,
        zone_cap: u64,
        free: Vec<u64>,
        active: [Option<(u64, u64)>; CLASSES],
        valid: Vec<u64>,
        full: Vec<bool>,
    },
}

/// The LSM-tree's file store on one device.
pub struct PlacedFiles {
    dev: Box<dyn Device>,
    space: Space,
    files: BTreeMap<FileNo, File>,
}

impl PlacedFiles {
    fn new(dev: Box<dyn Device>, interface: Interface) -> Self {
        let info = dev.info().clone();
        let space = match &info.zoned {
            Some(z) => Space::Zones {
                zone_size: z.zone_size_blocks,
                zone_cap: z.zone_capacity_blocks,
                free: (0..z.zone_count as u64).rev().collect(),
                active: [None; CLASSES],
                valid: vec![0; z.zone_count as usize],
                full: vec![false; z.zone_count as usize],
            },
            None => Space::Extents {
                free: (0..info.capacity_blocks / EXTENT_BLOCKS).rev().collect(),
                placed: matches!(interface, Interface::Fdp { .. }),
            },
        };
        Self {
            dev,
            space,
            files: BTreeMap::new(),
        }
    }

    pub fn device(&self) -> &dyn Device {
        self.dev.as_ref()
    }

    fn submit(&mut self, now: Ns, cmd: &Command, pid: Option<u16>) -> Result<Ns, StorageError> {
        match pid {
            Some(p) => self.dev.submit_placed(now, cmd, p, Payload::SizeOnly),
            None => self.dev.submit(now, cmd, Payload::SizeOnly),
        }
        .map(|c| c.done_ns)
        .map_err(|e| StorageError(format!("{}: {e}", cmd.name())))
    }

    /// Writes `blocks` more blocks of `file` at `now`; returns when done.
    fn write_blocks(&mut self, now: Ns, file: FileNo, blocks: u64) -> Result<Ns, StorageError> {
        let mut done = now;
        let mut left = blocks;
        while left > 0 {
            let f = &self.files[&file];
            let (class, at_block) = (f.class, f.written_blocks);
            let (lba, n, pid) = match &mut self.space {
                Space::Extents { free, placed } => {
                    let in_extent = at_block % EXTENT_BLOCKS;
                    let f = self.files.get_mut(&file).expect("exists");
                    if in_extent == 0 {
                        let e = free
                            .pop()
                            .ok_or_else(|| StorageError("file store: out of space".into()))?;
                        f.runs.push((at_block, e * EXTENT_BLOCKS, 0));
                    }
                    let run = f.runs.last_mut().expect("an extent is open");
                    let n = left.min(EXTENT_BLOCKS - in_extent).min(MAX_COMMAND_BLOCKS);
                    let lba = run.1 + run.2;
                    run.2 += n;
                    (lba, n, placed.then_some(class as u16))
                }
                Space::Zones {
                    zone_size,
                    zone_cap,
                    free,
                    active,
                    valid,
                    full,
                } => {
                    let (zone, off) = match active[class] {
                        Some(a) => a,
                        None => (
                            free.pop()
                                .ok_or_else(|| StorageError("file store: out of zones".into()))?,
                            0,
                        ),
                    };
                    let n = left.min(*zone_cap - off).min(MAX_COMMAND_BLOCKS);
                    valid[zone as usize] += n;
                    active[class] = if off + n == *zone_cap {
                        full[zone as usize] = true;
                        None
                    } else {
                        Some((zone, off + n))
                    };
                    let lba = zone * *zone_size + off;
                    let f = self.files.get_mut(&file).expect("exists");
                    match f.runs.last_mut() {
                        // Runs never span zones (delete counts them per zone).
                        Some(r) if off > 0 && r.1 + r.2 == lba && r.0 + r.2 == at_block => r.2 += n,
                        _ => f.runs.push((at_block, lba, n)),
                    }
                    (lba, n, None)
                }
            };
            self.files.get_mut(&file).expect("exists").written_blocks += n;
            let cmd = Command::Write {
                lba,
                blocks: n as u32,
            };
            done = done.max(self.submit(now, &cmd, pid)?);
            left -= n;
        }
        Ok(done)
    }

    fn missing(op: &str, file: FileNo) -> StorageError {
        StorageError(format!("{op} of file {file}, which does not exist"))
    }
}

impl LsmStorage for PlacedFiles {
    fn create(&mut self, _now: Ns, file: FileNo, kind: FileKind) -> Result<(), StorageError> {
        let f = File {
            class: file_class(kind),
            size_bytes: 0,
            written_blocks: 0,
            closed: false,
            runs: Vec::new(),
        };
        if self.files.insert(file, f).is_some() {
            return Err(StorageError(format!("file {file} already exists")));
        }
        Ok(())
    }

    fn append(&mut self, now: Ns, file: FileNo, bytes: u64) -> Result<Ns, StorageError> {
        let f = self
            .files
            .get_mut(&file)
            .ok_or_else(|| Self::missing("append", file))?;
        f.size_bytes += bytes;
        let whole = f.size_bytes / BLOCK_BYTES;
        let new = whole - f.written_blocks;
        if new == 0 {
            return Ok(now);
        }
        self.write_blocks(now, file, new)
    }

    fn close(&mut self, now: Ns, file: FileNo) -> Result<Ns, StorageError> {
        let f = self
            .files
            .get_mut(&file)
            .ok_or_else(|| Self::missing("close", file))?;
        f.closed = true;
        let tail = f.size_bytes.div_ceil(BLOCK_BYTES) - f.written_blocks;
        if tail == 0 {
            return Ok(now);
        }
        self.write_blocks(now, file, tail)
    }

    fn read(&mut self, now: Ns, file: FileNo, offset: u64, bytes: u64) -> Result<Ns, StorageError> {
        let f = self
            .files
            .get(&file)
            .ok_or_else(|| Self::missing("read", file))?;
        let first = offset / BLOCK_BYTES;
        let end = (offset + bytes).div_ceil(BLOCK_BYTES).min(f.written_blocks);
        let mut cmds = Vec::new();
        for &(fb, lba, n) in &f.runs {
            let (a, b) = (first.max(fb), end.min(fb + n));
            let mut at = a;
            while at < b {
                let k = (b - at).min(MAX_COMMAND_BLOCKS);
                cmds.push(Command::Read {
                    lba: lba + (at - fb),
                    blocks: k as u32,
                });
                at += k;
            }
        }
        // Blocks not yet written are in host memory.
        let mut done = now;
        for cmd in cmds {
            done = done.max(self.submit(now, &cmd, None)?);
        }
        Ok(done)
    }

    fn delete(&mut self, now: Ns, file: FileNo) -> Result<(), StorageError> {
        let f = self
            .files
            .remove(&file)
            .ok_or_else(|| Self::missing("delete", file))?;
        let mut resets = Vec::new();
        match &mut self.space {
            Space::Extents { free, .. } => {
                for &(_, lba, n) in &f.runs {
                    free.push(lba / EXTENT_BLOCKS);
                    resets.push(Command::Trim {
                        lba,
                        blocks: n as u32,
                    });
                }
            }
            Space::Zones {
                zone_size,
                free,
                valid,
                full,
                ..
            } => {
                for &(_, lba, n) in &f.runs {
                    let zone = lba / *zone_size;
                    valid[zone as usize] -= n;
                    if valid[zone as usize] == 0 && full[zone as usize] {
                        full[zone as usize] = false;
                        free.insert(0, zone);
                        resets.push(Command::Zone {
                            action: ZoneAction::Reset,
                            zone_lba: zone * *zone_size,
                        });
                    }
                }
            }
        }
        for cmd in resets {
            self.submit(now, &cmd, None)?;
        }
        Ok(())
    }

    fn hint(&mut self, _now: Ns, _hint: &Hint) -> Result<(), StorageError> {
        Ok(())
    }
}

/// What one LSM run measured over its overwrite phase.
#[derive(Debug, Clone, PartialEq)]
pub struct LsmResult {
    pub interface: Interface,
    /// Device WAF: media bytes / bytes the file store wrote.
    pub waf: f64,
    pub kops_per_s: f64,
    pub p99_put_us: f64,
    pub erases: u64,
    /// Bytes the LSM-tree wrote (WAL, flushes, compactions) per byte of user data.
    pub lsm_write_amplification: f64,
}

/// The device of `interface` at `scale` (the FTL profiles of workload (a); ZNS
/// with one zone per reclaim unit and the FTL's superblock count).
fn device(interface: Interface, scale: f64) -> Result<Box<dyn Device>, String> {
    let ftl = |i: Interface| {
        build(&ProfileSource {
            source_name: format!("zn540-fdp ({}, scale {scale})", i.label()),
            text: profile_text(i, scale),
        })
        .map_err(|e| e.to_string())
    };
    match interface {
        Interface::Zns => {
            let probe = ftl(Interface::Fdp { handles: 1 })?;
            let ru_blocks = probe
                .fdp()
                .expect("fdp-1 has FDP")
                .config
                .reclaim_unit_bytes
                / BLOCK_BYTES;
            let op = 1.07; // zn540-fdp's 7% (as `ftl_superblocks` reads it)
            let zones =
                ((probe.info().capacity_blocks as f64 * op).ceil() as u64).div_ceil(ru_blocks);
            build(&ProfileSource {
                source_name: format!("zn540-fdp-zns (scale {scale})"),
                text: zns_profile_text(scale, zones, ru_blocks),
            })
            .map_err(|e| e.to_string())
        }
        other => ftl(other),
    }
}

/// Loads keys worth [`DATA_SHARE`] of the capacity, then overwrites as many at
/// random (measured). SSTs are sized to one reclaim unit (HHZS sizes them to a
/// zone), the LSM's other sizes scaled with them.
pub fn lsm_run(interface: Interface, scale: f64, seed: u64) -> Result<LsmResult, String> {
    let dev = device(interface, scale)?;
    let ru_bytes = match &dev.info().zoned {
        Some(z) => z.zone_capacity_blocks * BLOCK_BYTES,
        None => {
            device(Interface::Fdp { handles: 1 }, scale)?
                .fdp()
                .expect("fdp")
                .config
                .reclaim_unit_bytes
        }
    };
    let capacity_bytes = profile_capacity_bytes(scale)?;
    let paper = LsmOptions::hhzs_paper();
    let o = paper.scaled(ru_bytes as f64 / paper.target_file_bytes as f64);
    let keys = (capacity_bytes as f64 * DATA_SHARE / o.value_bytes as f64) as u64;
    let store = PlacedFiles::new(dev, interface);
    let mut db = LsmDb::new(o, store).map_err(|e| e.to_string())?;
    let mut load = (0..keys).map(|i| KvOp::Put {
        key: splitmix64(i) >> 1,
    });
    db.run_ops(&mut load, 0).map_err(|e| e.to_string())?;
    db.wait_for_compactions().map_err(|e| e.to_string())?;
    let start = db.now_ns();
    let before = db.storage().device().stats(start);
    let mut rng = RngStreams::new(seed).stream("placement.lsm");
    let mut over = (0..keys * OVERWRITE_FACTOR).map(|_| KvOp::Put {
        key: splitmix64(uniform_below(&mut rng, keys)) >> 1,
    });
    let s = db.run_ops(&mut over, 0).map_err(|e| e.to_string())?;
    db.wait_for_compactions().map_err(|e| e.to_string())?;
    let end = db.now_ns();
    let after = db.storage().device().stats(end);
    let host = after.host_write_bytes - before.host_write_bytes;
    let media = after.media_write_bytes - before.media_write_bytes;
    let user = s.puts as f64 * db_value_bytes(&db) as f64;
    Ok(LsmResult {
        interface,
        waf: media as f64 / host as f64,
        kops_per_s: s.ops_per_s / 1e3,
        p99_put_us: s
            .put_latency
            .as_ref()
            .map_or(0.0, |l| l.p99_ns as f64 / 1e3),
        erases: after.erases - before.erases,
        lsm_write_amplification: host as f64 / user,
    })
}

fn db_value_bytes(db: &LsmDb<PlacedFiles>) -> u64 {
    db.options().value_bytes as u64
}

fn profile_capacity_bytes(scale: f64) -> Result<u64, String> {
    Ok(device(Interface::Conventional, scale)?
        .info()
        .capacity_bytes())
}
