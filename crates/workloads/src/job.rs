//! fio-like synthetic jobs: sequential or random reads, writes or mixes with a block
//! size, queue depth, number of jobs, a region (offset, size) and a stop rule (bytes
//! or virtual runtime). On zoned devices writes are zone-aware as with fio's
//! `zonemode=zbd`: they go to a zone's write pointer, move on when a zone is full,
//! and reset zones to wrap around the region.
//!
//! Differences from fio, on purpose: `numjobs` splits the region into equal parts
//! (one per job, like fio's `offset_increment`) instead of having all jobs hit the
//! same offsets, so concurrent zone writes never collide.

use serde::Serialize;
use std::str::FromStr;
use thiserror::Error;
use zonelab_devices::zoned::ZoneType;
use zonelab_devices::{Command, Device, Lba, ZoneAction};
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{Ns, RngStream};

/// fio's `rw=` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential mix (`rw=readwrite` / `rw=rw`).
    ReadWrite,
    RandRw,
}

impl RwMode {
    pub fn is_random(self) -> bool {
        matches!(self, RwMode::RandRead | RwMode::RandWrite | RwMode::RandRw)
    }
}

impl RwMode {
    /// The names `from_str` accepts (`rw` is also taken for `readwrite`), as help
    /// texts and errors list them.
    pub const NAMES: &'static str = "read, write, randread, randwrite, readwrite, randrw";
}

impl FromStr for RwMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "read" => RwMode::Read,
            "write" => RwMode::Write,
            "randread" => RwMode::RandRead,
            "randwrite" => RwMode::RandWrite,
            "readwrite" | "rw" => RwMode::ReadWrite,
            "randrw" => RwMode::RandRw,
            _ => {
                return Err(format!(
                    "unknown rw mode `{s}` (expected {})",
                    RwMode::NAMES
                ))
            }
        })
    }
}

/// A job as the user describes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSpec {
    pub rw: RwMode,
    pub block_size_bytes: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Start of the region.
    pub offset_bytes: u64,
    /// Region size; `None` = to the end of the device.
    pub size_bytes: Option<u64>,
    /// Bytes each job transfers; `None` = the job's part of the region once (fio's
    /// default), unless `runtime_ns` is set.
    pub io_size_bytes: Option<u64>,
    /// Stop issuing after this much virtual time.
    pub runtime_ns: Option<Ns>,
    /// Percentage of reads in mixed modes.
    pub rwmixread_percent: u32,
    /// Zones random writers keep open on a zoned device, over all `numjobs` jobs as
    /// with fio's `max_open_zones` (each job gets an equal share, at least one);
    /// `None` = the device's max-open limit, capped at 8.
    pub max_open_zones: Option<u32>,
}

impl Default for JobSpec {
    fn default() -> Self {
        Self {
            rw: RwMode::Read,
            block_size_bytes: 4096,
            iodepth: 1,
            numjobs: 1,
            offset_bytes: 0,
            size_bytes: None,
            io_size_bytes: None,
            runtime_ns: None,
            rwmixread_percent: 50,
            max_open_zones: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum JobError {
    #[error("job option `{option}` = {value}: {reason}")]
    BadOption {
        option: &'static str,
        value: String,
        reason: String,
    },
}

fn bad(option: &'static str, value: impl std::fmt::Display, reason: impl Into<String>) -> JobError {
    JobError::BadOption {
        option,
        value: value.to_string(),
        reason: reason.into(),
    }
}

/// One step of a job: an optional zone reset to do first, then a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub reset_zone_first: Option<Lba>,
    pub cmd: Command,
}

/// Zone geometry a zoned job needs.
#[derive(Debug, Clone, Copy)]
struct ZoneGeom {
    size_blocks: u64,
    capacity_blocks: u64,
}

/// The stream of commands of one job instance.
pub struct JobStream {
    rw: RwMode,
    bs_blocks: u64,
    mix_read_percent: u32,
    region_start: Lba,
    region_blocks: u64,
    zoned: Option<ZonedState>,
    seq_cursor: u64,
    bytes_left: u64,
    block_bytes: u64,
    rng: RngStream,
}

/// Write-pointer bookkeeping of a zoned job (it is the only writer of its zones).
struct ZonedState {
    geom: ZoneGeom,
    /// Sequential-write-required zones of the job's region.
    zones: Vec<u32>,
    wp_blocks: Vec<u64>,
    dirty: Vec<bool>,
    /// Index into `zones` of the zone a sequential writer fills / next zone to open.
    next_zone: usize,
    open: Vec<usize>,
    open_target: usize,
    /// What reads cover: the region's part of each zone below the zone's capacity,
    /// as (first LBA, cumulative block-size slots up to and including this piece).
    read_pieces: Vec<(Lba, u64)>,
}

impl JobSpec {
    /// Validates the spec against a device and builds one stream per job.
    pub fn streams(
        &self,
        device: &dyn Device,
        rngs: &zonelab_engine::RngStreams,
    ) -> Result<Vec<JobStream>, JobError> {
        let info = device.info();
        let bb = info.block_bytes as u64;
        if self.block_size_bytes == 0 || !self.block_size_bytes.is_multiple_of(bb) {
            return Err(bad(
                "bs",
                self.block_size_bytes,
                format!("must be a positive multiple of the device's {bb}-byte block"),
            ));
        }
        if self.block_size_bytes > u32::MAX as u64 * bb {
            return Err(bad(
                "bs",
                self.block_size_bytes,
                "too large for one command",
            ));
        }
        if let Some(io) = self.io_size_bytes.filter(|&io| io < self.block_size_bytes) {
            return Err(bad(
                "io_size",
                io,
                format!(
                    "smaller than one {}-byte request (bs): the job would transfer nothing",
                    self.block_size_bytes
                ),
            ));
        }
        if self.iodepth == 0 || self.iodepth > 65_536 {
            return Err(bad("iodepth", self.iodepth, "must be in 1..=65536"));
        }
        if self.numjobs == 0 || self.numjobs > 1024 {
            return Err(bad("numjobs", self.numjobs, "must be in 1..=1024"));
        }
        if self.rwmixread_percent > 100 {
            return Err(bad(
                "rwmixread",
                self.rwmixread_percent,
                "must be in 0..=100",
            ));
        }
        if !self.offset_bytes.is_multiple_of(bb) {
            return Err(bad(
                "offset",
                self.offset_bytes,
                format!("must be a multiple of the device's {bb}-byte block"),
            ));
        }
        let capacity = info.capacity_bytes();
        if self.offset_bytes >= capacity {
            return Err(bad(
                "offset",
                self.offset_bytes,
                format!("beyond the device's {capacity} bytes"),
            ));
        }
        let size = self.size_bytes.unwrap_or(capacity - self.offset_bytes);
        if size == 0 || self.offset_bytes + size > capacity {
            return Err(bad(
                "size",
                size,
                format!("region must be non-empty and end within the device's {capacity} bytes"),
            ));
        }
        let part_bytes =
            (size / self.numjobs as u64) / self.block_size_bytes * self.block_size_bytes;
        if part_bytes == 0 {
            return Err(bad(
                "size",
                size,
                "too small for one block-size request per job",
            ));
        }
        let mut out = Vec::with_capacity(self.numjobs as usize);
        for j in 0..self.numjobs as u64 {
            let start = (self.offset_bytes + j * part_bytes) / bb;
            let zoned = match &info.zoned {
                Some(z) => Some(self.zoned_state(
                    device,
                    z.zone_size_blocks,
                    z.zone_capacity_blocks,
                    z.max_open_zones,
                    j as u32,
                    start,
                    part_bytes / bb,
                )?),
                None => None,
            };
            // One pass over the region by default; on a zoned device that is the
            // zones' capacity, not their address space.
            let pass_bytes = match &zoned {
                Some(z) if !z.zones.is_empty() => {
                    z.zones.len() as u64 * z.geom.capacity_blocks * bb
                }
                _ => part_bytes,
            };
            let io = self.io_size_bytes.unwrap_or(if self.runtime_ns.is_some() {
                u64::MAX
            } else {
                pass_bytes
            });
            out.push(JobStream {
                rw: self.rw,
                bs_blocks: self.block_size_bytes / bb,
                mix_read_percent: self.rwmixread_percent,
                region_start: start,
                region_blocks: part_bytes / bb,
                zoned,
                seq_cursor: 0,
                bytes_left: io,
                block_bytes: bb,
                rng: rngs.stream(&format!("job{j}")),
            });
        }
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn zoned_state(
        &self,
        device: &dyn Device,
        size_blocks: u64,
        capacity_blocks: u64,
        dev_max_open: u32,
        job: u32,
        start: Lba,
        blocks: u64,
    ) -> Result<ZonedState, JobError> {
        let first = start.div_ceil(size_blocks) as u32;
        let last = ((start + blocks) / size_blocks) as u32;
        let descriptors = device
            .report_zones(first, last.saturating_sub(first))
            .map_err(|e| {
                bad(
                    "size",
                    blocks * device.info().block_bytes as u64,
                    e.to_string(),
                )
            })?;
        let zones: Vec<u32> = descriptors
            .iter()
            .filter(|d| d.zone_type == ZoneType::SequentialWriteRequired)
            .map(|d| d.index)
            .collect();
        let writes = !matches!(self.rw, RwMode::Read | RwMode::RandRead);
        if zones.is_empty() && writes {
            return Err(bad(
                "size",
                blocks * device.info().block_bytes as u64,
                "a zoned write job's region must hold at least one whole sequential zone per job",
            ));
        }
        let bs_blocks = self.block_size_bytes / device.info().block_bytes as u64;
        if bs_blocks > capacity_blocks {
            return Err(bad(
                "bs",
                self.block_size_bytes,
                "larger than the zone capacity",
            ));
        }
        let cap = if dev_max_open == 0 {
            8
        } else {
            dev_max_open.min(8)
        };
        if let Some(m) = self.max_open_zones {
            if dev_max_open > 0 && m > dev_max_open {
                return Err(bad(
                    "max_open_zones",
                    m,
                    format!("exceeds the device's max-open limit of {dev_max_open}"),
                ));
            }
            if writes && m < self.numjobs {
                return Err(bad(
                    "max_open_zones",
                    m,
                    format!(
                        "below numjobs = {}: each zoned write job keeps a zone open",
                        self.numjobs
                    ),
                ));
            }
        }
        if writes && dev_max_open > 0 && self.numjobs > dev_max_open {
            return Err(bad("numjobs", self.numjobs, format!("each zoned write job keeps a zone open; the device's max-open limit is {dev_max_open}")));
        }
        // The open zones are shared by all the jobs (the device's limits are too).
        let total = self.max_open_zones.unwrap_or(cap);
        let share = total / self.numjobs + u32::from(job < total % self.numjobs);
        let open_target = share.max(1).min(zones.len().max(1) as u32) as usize;
        let wp_blocks = descriptors
            .iter()
            .filter(|d| d.zone_type == ZoneType::SequentialWriteRequired)
            .map(|d| d.write_pointer - d.start_lba)
            .collect::<Vec<_>>();
        let dirty = wp_blocks.iter().map(|&w| w > 0).collect();
        let reads = !matches!(self.rw, RwMode::Write | RwMode::RandWrite);
        let read_pieces = if reads {
            read_pieces(device, size_blocks, bs_blocks, start, blocks)?
        } else {
            Vec::new()
        };
        Ok(ZonedState {
            geom: ZoneGeom {
                size_blocks,
                capacity_blocks,
            },
            zones,
            wp_blocks,
            dirty,
            next_zone: 0,
            open: Vec::new(),
            open_target,
            read_pieces,
        })
    }
}

/// The readable pieces of the region `[start, start + blocks)` of a zoned device:
/// in each zone it overlaps, the part below the zone's capacity, in whole
/// `bs_blocks` requests (so reads stay inside the job's region even when it does
/// not start or end at a zone boundary).
fn read_pieces(
    device: &dyn Device,
    size_blocks: u64,
    bs_blocks: u64,
    start: Lba,
    blocks: u64,
) -> Result<Vec<(Lba, u64)>, JobError> {
    let end = start + blocks;
    let first = start / size_blocks;
    let count = (end - 1) / size_blocks + 1 - first;
    let bytes = blocks * device.info().block_bytes as u64;
    let descriptors = device
        .report_zones(first as u32, count as u32)
        .map_err(|e| bad("size", bytes, e.to_string()))?;
    let mut pieces = Vec::with_capacity(descriptors.len());
    let mut slots = 0;
    for d in &descriptors {
        let lo = start.max(d.start_lba);
        let hi = end.min(d.start_lba + d.capacity_blocks);
        let n = hi.saturating_sub(lo) / bs_blocks;
        if n > 0 {
            slots += n;
            pieces.push((lo, slots));
        }
    }
    if pieces.is_empty() {
        return Err(bad("size", bytes, "a zoned read job's region must hold at least one block-size request below a zone's capacity"));
    }
    Ok(pieces)
}

impl JobStream {
    /// Whether the job still has bytes to issue.
    pub fn has_more(&self) -> bool {
        self.bytes_left > 0
    }

    /// Bytes the job has still to issue (`u64::MAX` when only a runtime stops it).
    pub fn bytes_left(&self) -> u64 {
        self.bytes_left
    }

    /// The next step, or `None` when the job has issued all its bytes.
    pub fn next_step(&mut self) -> Option<Step> {
        if self.bytes_left == 0 {
            return None;
        }
        let is_read = match self.rw {
            RwMode::Read | RwMode::RandRead => true,
            RwMode::Write | RwMode::RandWrite => false,
            RwMode::ReadWrite | RwMode::RandRw => {
                uniform_below(&mut self.rng, 100) < self.mix_read_percent as u64
            }
        };
        let step = match (self.zoned.is_some(), is_read) {
            (false, _) => self.block_step(is_read),
            (true, true) => self.zoned_read(),
            (true, false) => self.zoned_write(),
        };
        let bytes = step.cmd.data_blocks() as u64 * self.block_bytes;
        self.bytes_left = self.bytes_left.saturating_sub(bytes);
        Some(step)
    }

    fn block_step(&mut self, is_read: bool) -> Step {
        let slots = self.region_blocks / self.bs_blocks;
        let slot = if self.rw.is_random() {
            uniform_below(&mut self.rng, slots)
        } else {
            let s = self.seq_cursor % slots;
            self.seq_cursor += 1;
            s
        };
        let lba = self.region_start + slot * self.bs_blocks;
        let blocks = self.bs_blocks as u32;
        let cmd = if is_read {
            Command::Read { lba, blocks }
        } else {
            Command::Write { lba, blocks }
        };
        Step {
            reset_zone_first: None,
            cmd,
        }
    }

    fn zoned_read(&mut self) -> Step {
        let bs = self.bs_blocks;
        let z = self.zoned.as_ref().expect("zoned");
        // Reads cover each zone's capacity (not the gap up to the zone size) inside
        // the job's region.
        let total = z
            .read_pieces
            .last()
            .expect("a reading job has read pieces")
            .1;
        let slot = if self.rw.is_random() {
            uniform_below(&mut self.rng, total)
        } else {
            let s = self.seq_cursor % total;
            self.seq_cursor += 1;
            s
        };
        let k = z.read_pieces.partition_point(|&(_, end)| end <= slot);
        let before = if k == 0 { 0 } else { z.read_pieces[k - 1].1 };
        let lba = z.read_pieces[k].0 + (slot - before) * bs;
        Step {
            reset_zone_first: None,
            cmd: Command::Read {
                lba,
                blocks: bs as u32,
            },
        }
    }

    fn zoned_write(&mut self) -> Step {
        let random = self.rw.is_random();
        let bs = self.bs_blocks;
        let rng = &mut self.rng;
        let z = self.zoned.as_mut().expect("zoned");
        let mut reset = None;
        // Pick the zone: sequential jobs fill zones in order; random jobs spread
        // writes over `open_target` open zones (fio zonemode=zbd).
        let idx = if random {
            while z.open.len() < z.open_target {
                // At most one reset per step: a second dirty zone waits a step.
                if reset.is_some() {
                    let next = z.skip_open_zones();
                    if z.dirty[next] {
                        break;
                    }
                }
                let i = z.take_next_zone(&mut reset);
                z.open.push(i);
            }
            let k = uniform_below(rng, z.open.len() as u64) as usize;
            z.open[k]
        } else {
            if z.open.is_empty() {
                let i = z.take_next_zone(&mut reset);
                z.open.push(i);
            }
            z.open[0]
        };
        let cap = z.geom.capacity_blocks;
        let wp = z.wp_blocks[idx];
        let blocks = bs.min(cap - wp);
        let zone_start = z.zones[idx] as u64 * z.geom.size_blocks;
        z.wp_blocks[idx] += blocks;
        z.dirty[idx] = true;
        if z.wp_blocks[idx] == cap {
            z.open.retain(|&i| i != idx);
        }
        Step {
            reset_zone_first: reset,
            cmd: Command::Write {
                lba: zone_start + wp,
                blocks: blocks as u32,
            },
        }
    }
}

impl ZonedState {
    /// Moves `next_zone` past zones the job still has open (a random writer fills
    /// its open zones in any order, so one taken long ago may still be filling) and
    /// returns it. There is always such a zone when fewer than all zones are open.
    fn skip_open_zones(&mut self) -> usize {
        debug_assert!(self.open.len() < self.zones.len());
        while self.open.contains(&self.next_zone) {
            self.next_zone = (self.next_zone + 1) % self.zones.len();
        }
        self.next_zone
    }

    /// Next zone of the region (wrapping) that is not open, reset first if it
    /// holds data.
    fn take_next_zone(&mut self, reset: &mut Option<Lba>) -> usize {
        let i = self.skip_open_zones();
        self.next_zone = (self.next_zone + 1) % self.zones.len();
        if self.dirty[i] {
            debug_assert!(reset.is_none(), "one reset per step");
            *reset = Some(self.zones[i] as u64 * self.geom.size_blocks);
            self.wp_blocks[i] = 0;
            self.dirty[i] = false;
        }
        i
    }
}

/// A zone reset command for `zone_lba`.
pub fn reset_command(zone_lba: Lba) -> Command {
    Command::Zone {
        action: ZoneAction::Reset,
        zone_lba,
    }
}
