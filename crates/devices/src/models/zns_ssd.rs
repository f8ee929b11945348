//! Enterprise ZNS SSD (e.g. WD Ultrastar DC ZN540, HHZS §2.2 Table 1).
//!
//! Firmware model:
//! - **Controller cores.** Each command is processed on one of `controller_cores`
//!   cores: a fixed cost plus a cost per 4 KiB, and flash operations for a chunk are
//!   issued as the core reaches it. At QD1 a large command is bound by that per-LBA
//!   processing (why a ZN540 gives ~1 GB/s at QD1 with 1 MiB requests while its
//!   flash and PCIe link can do several times more at higher queue depths).
//! - **Zone striping.** Zone `z` is striped page by page over the
//!   `zone_stripe_dies` dies of die group `z mod groups` (page `p` of the zone on
//!   die `p mod stripe`), so a large read spreads over all of them.
//! - **Writes** are acknowledged once in the power-loss-protected write buffer. A
//!   zone's data is programmed one stripe row at a time — one program unit (page ×
//!   bits per cell × planes) on each die of the stripe — and buffer space is
//!   released when the programs complete, so a sustained stream is bound by the
//!   flash when the buffer fills.
//! - **Reads** of programmed data read pages from flash; reads above the write
//!   pointer or of a zone's not-yet-programmed stripe row are served from the buffer
//!   without flash.
//! - **Reset** erases the zone's blocks in the background on its dies (later I/O
//!   on those dies waits); **finish** pads and programs the open program unit.

use crate::block_store::BlockStore;
use crate::command::{Command, Completion, Payload, ZoneAction};
use crate::device::{check_payload, Device, DeviceInfo, DeviceStats, ZonedInfo};
use crate::error::DeviceError;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
use crate::zoned::{ZoneDescriptor, ZoneLayout, ZoneSet};
use serde::Deserialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonelab_engine::{transfer_ns, us_to_ns, Ns, Timeline, KIB, MIB};
use zonelab_media::flash::{CellType, FlashArray, FlashGeometry, FlashTimings};

/// `model = "zns-ssd"` profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZnsSsdProfile {
    pub name: String,
    pub model: String,
    pub description: String,
    pub zones: ZonesSection,
    pub flash: FlashSection,
    pub controller: ControllerSection,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZonesSection {
    pub block_bytes: u32,
    pub zone_count: u32,
    pub zone_size_mib: u64,
    pub zone_capacity_mib: u64,
    pub max_open_zones: u32,
    pub max_active_zones: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashSection {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes_per_die: u32,
    pub pages_per_block: u32,
    pub page_kib: u32,
    pub cell_type: CellType,
    pub read_us: f64,
    pub program_us: f64,
    pub erase_us: f64,
    pub channel_mb_s: f64,
    pub zone_stripe_dies: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerSection {
    pub cores: u32,
    pub read_command_us: f64,
    pub write_command_us: f64,
    pub read_per_4kib_us: f64,
    pub write_per_4kib_us: f64,
    pub pcie_mb_s: f64,
    pub write_buffer_mib: u64,
}

/// The device.
pub struct ZnsSsd {
    info: DeviceInfo,
    zones: ZoneSet,
    flash: FlashArray,
    cores: Vec<Timeline>,
    pcie: Timeline,
    ctl: Controller,
    stripe_dies: u32,
    die_groups: u32,
    program_unit_blocks: u64,
    page_blocks: u64,
    /// Blocks of each zone handed to the flash (whole stripe rows).
    programmed_blocks: Vec<u64>,
    write_buffer: WriteBuffer,
    data: Option<BlockStore>,
    stats: Counts,
}

#[derive(Debug, Clone, Copy)]
struct Controller {
    read_command_ns: Ns,
    write_command_ns: Ns,
    read_per_4kib_ns: Ns,
    write_per_4kib_ns: Ns,
    pcie_bytes_per_s: u64,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    host_read_bytes: u64,
    host_write_bytes: u64,
    media_read_bytes: u64,
    media_write_bytes: u64,
    erases: u64,
    zone_resets: u64,
    zone_finishes: u64,
    buffer_stalls: u64,
}

/// Power-loss-protected write buffer: bytes held until their program completes.
struct WriteBuffer {
    capacity_bytes: u64,
    held_bytes: u64,
    releases: BinaryHeap<Reverse<(Ns, u64)>>,
}

impl WriteBuffer {
    /// Earliest time ≥ `now` at which `bytes` fit; the space is then taken.
    fn admit(&mut self, now_ns: Ns, bytes: u64) -> Ns {
        let mut t = now_ns;
        loop {
            while let Some(&Reverse((at, b))) = self.releases.peek() {
                if at > t {
                    break;
                }
                self.releases.pop();
                self.held_bytes -= b;
            }
            if self.held_bytes + bytes <= self.capacity_bytes {
                self.held_bytes += bytes;
                return t;
            }
            match self.releases.peek() {
                Some(&Reverse((at, _))) => t = at,
                // Larger than the whole buffer: admit once empty.
                None => {
                    self.held_bytes += bytes;
                    return t;
                }
            }
        }
    }

    fn release_at(&mut self, at_ns: Ns, bytes: u64) {
        self.releases.push(Reverse((at_ns, bytes)));
    }
}

impl ZnsSsd {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: ZnsSsdProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    pub fn new(p: ZnsSsdProfile, source_name: &str) -> Result<Self, ProfileError> {
        let v = Validator::new(source_name);
        let z = &p.zones;
        v.check("zones.block_bytes", z.block_bytes, [512, 4096].contains(&z.block_bytes), "512 or 4096")?;
        v.range("zones.zone_count", z.zone_count, 1, 1 << 20)?;
        v.range("zones.zone_size_mib", z.zone_size_mib, 1, 1 << 16)?;
        v.range("zones.zone_capacity_mib", z.zone_capacity_mib, 1, z.zone_size_mib)?;
        v.range("zones.max_open_zones", z.max_open_zones, 0, z.zone_count)?;
        v.range("zones.max_active_zones", z.max_active_zones, 0, z.zone_count)?;
        if z.max_active_zones > 0 {
            v.range("zones.max_open_zones", z.max_open_zones, 1, z.max_active_zones)?;
        }
        let f = &p.flash;
        v.range("flash.channels", f.channels, 1, 64)?;
        v.range("flash.dies_per_channel", f.dies_per_channel, 1, 64)?;
        v.range("flash.planes_per_die", f.planes_per_die, 1, 16)?;
        v.range("flash.pages_per_block", f.pages_per_block, 1, 1 << 16)?;
        v.check("flash.page_kib", f.page_kib, f.page_kib.is_power_of_two() && (4..=64).contains(&f.page_kib), "a power of two in 4..=64")?;
        v.range("flash.read_us", f.read_us, 0.1, 10_000.0)?;
        v.range("flash.program_us", f.program_us, 1.0, 100_000.0)?;
        v.range("flash.erase_us", f.erase_us, 1.0, 100_000.0)?;
        v.range("flash.channel_mb_s", f.channel_mb_s, 1.0, 100_000.0)?;
        let dies = f.channels * f.dies_per_channel;
        v.check("flash.zone_stripe_dies", f.zone_stripe_dies, f.zone_stripe_dies >= 1 && dies % f.zone_stripe_dies == 0, &format!("a divisor of the {dies} dies"))?;
        let c = &p.controller;
        v.range("controller.cores", c.cores, 1, 64)?;
        v.range("controller.read_command_us", c.read_command_us, 0.0, 10_000.0)?;
        v.range("controller.write_command_us", c.write_command_us, 0.0, 10_000.0)?;
        v.range("controller.read_per_4kib_us", c.read_per_4kib_us, 0.0, 1_000.0)?;
        v.range("controller.write_per_4kib_us", c.write_per_4kib_us, 0.0, 1_000.0)?;
        v.range("controller.pcie_mb_s", c.pcie_mb_s, 1.0, 1_000_000.0)?;
        v.range("controller.write_buffer_mib", c.write_buffer_mib, 1, 1 << 16)?;

        let geometry = FlashGeometry {
            channels: f.channels,
            dies_per_channel: f.dies_per_channel,
            planes_per_die: f.planes_per_die,
            blocks_per_plane: 1,
            pages_per_block: f.pages_per_block,
            page_bytes: f.page_kib * KIB as u32,
            cell_type: f.cell_type,
        };
        let unit_bytes = geometry.program_unit_bytes();
        v.check("flash.page_kib", f.page_kib, (f.page_kib as u64 * KIB) % z.block_bytes as u64 == 0, "a page that is a whole number of blocks")?;
        let timings = FlashTimings {
            read_ns: us_to_ns(f.read_us),
            program_ns: us_to_ns(f.program_us),
            erase_ns: us_to_ns(f.erase_us),
            channel_bytes_per_s: (f.channel_mb_s * 1e6) as u64,
        };
        let block_bytes = z.block_bytes as u64;
        let layout = ZoneLayout {
            zone_count: z.zone_count,
            zone_size_blocks: z.zone_size_mib * MIB / block_bytes,
            zone_capacity_blocks: z.zone_capacity_mib * MIB / block_bytes,
            conventional_zones: 0,
            max_open_zones: z.max_open_zones,
            max_active_zones: z.max_active_zones,
            read_unwritten_ok: true,
        };
        let zones = ZoneSet::new(layout);
        let info = DeviceInfo {
            name: p.name.clone(),
            model: p.model.clone(),
            description: p.description.clone(),
            block_bytes: z.block_bytes,
            capacity_blocks: zones.capacity_blocks(),
            zoned: Some(ZonedInfo {
                zone_count: z.zone_count,
                zone_size_blocks: layout.zone_size_blocks,
                zone_capacity_blocks: layout.zone_capacity_blocks,
                conventional_zones: 0,
                max_open_zones: z.max_open_zones,
                max_active_zones: z.max_active_zones,
            }),
        };
        Ok(Self {
            info,
            zones,
            flash: FlashArray::new(geometry, timings),
            cores: vec![Timeline::new(); c.cores as usize],
            pcie: Timeline::new(),
            ctl: Controller {
                read_command_ns: us_to_ns(c.read_command_us),
                write_command_ns: us_to_ns(c.write_command_us),
                read_per_4kib_ns: us_to_ns(c.read_per_4kib_us),
                write_per_4kib_ns: us_to_ns(c.write_per_4kib_us),
                pcie_bytes_per_s: (c.pcie_mb_s * 1e6) as u64,
            },
            stripe_dies: f.zone_stripe_dies,
            die_groups: dies / f.zone_stripe_dies,
            program_unit_blocks: unit_bytes / block_bytes,
            page_blocks: (f.page_kib as u64 * KIB) / block_bytes,
            programmed_blocks: vec![0; z.zone_count as usize],
            write_buffer: WriteBuffer { capacity_bytes: c.write_buffer_mib * MIB, held_bytes: 0, releases: BinaryHeap::new() },
            data: None,
            stats: Counts::default(),
        })
    }

    /// Die holding page `page` (counted from the zone start) of `zone`.
    #[inline]
    fn die_of_page(&self, zone: u32, page: u64) -> u32 {
        let group = zone % self.die_groups;
        group * self.stripe_dies + (page % self.stripe_dies as u64) as u32
    }

    /// Blocks in one stripe row: a program unit on every die of the stripe.
    #[inline]
    fn row_blocks(&self) -> u64 {
        self.program_unit_blocks * self.stripe_dies as u64
    }

    /// Picks the controller core free earliest (lowest index on ties).
    #[inline]
    fn core_start(&mut self, now_ns: Ns, busy_ns: Ns) -> Ns {
        let mut best = 0;
        for (i, c) in self.cores.iter().enumerate() {
            if c.free_at_ns() < self.cores[best].free_at_ns() {
                best = i;
            }
        }
        self.cores[best].reserve(now_ns, busy_ns).0
    }

    fn per_4kib(&self, blocks: u32, per_4kib_ns: Ns) -> Ns {
        (blocks as u64 * self.info.block_bytes as u64 * per_4kib_ns).div_ceil(4 * KIB)
    }

    fn read(&mut self, now_ns: Ns, lba: u64, blocks: u32) -> Result<Completion, DeviceError> {
        let zone = self.zones.check_read(lba, blocks)?;
        let bb = self.info.block_bytes as u64;
        let busy = self.ctl.read_command_ns + self.per_4kib(blocks, self.ctl.read_per_4kib_ns);
        let start = self.core_start(now_ns, busy);
        let zone_start = self.zones.zone_start(zone);
        let flash_end = zone_start + self.programmed_blocks[zone as usize];
        let page_blocks = self.page_blocks;
        let end = lba + blocks as u64;
        let mut data_ready = start + busy;
        let mut cur = lba;
        while cur < end {
            // One flash page (or what of it the request covers) at a time.
            let page_end = ((cur / page_blocks) + 1) * page_blocks;
            let chunk_end = page_end.min(end);
            let chunk_blocks = chunk_end - cur;
            let issued = start + self.ctl.read_command_ns + self.per_4kib((chunk_end - lba) as u32, self.ctl.read_per_4kib_ns);
            if cur < flash_end {
                let die = self.die_of_page(zone, (cur - zone_start) / page_blocks);
                let done = self.flash.read(issued, die, chunk_blocks * bb);
                self.stats.media_read_bytes += chunk_blocks * bb;
                data_ready = data_ready.max(done);
            } else {
                data_ready = data_ready.max(issued);
            }
            cur = chunk_end;
        }
        let bytes = blocks as u64 * bb;
        // Host DMA overlaps the flash reads; the last page's transfer is the tail.
        let tail = transfer_ns(bytes.min(page_blocks * bb), self.ctl.pcie_bytes_per_s);
        let (_, link_done) = self.pcie.reserve(start, transfer_ns(bytes, self.ctl.pcie_bytes_per_s));
        self.stats.host_read_bytes += bytes;
        Ok(Completion { done_ns: (data_ready + tail).max(link_done), lba })
    }

    /// Data of a validated write lands in the buffer; full program units go to flash.
    fn write_data(&mut self, now_ns: Ns, zone: u32, lba: u64, blocks: u32) -> Ns {
        let bb = self.info.block_bytes as u64;
        let bytes = blocks as u64 * bb;
        let busy = self.ctl.write_command_ns + self.per_4kib(blocks, self.ctl.write_per_4kib_ns);
        let start = self.core_start(now_ns, busy);
        let admitted = self.write_buffer.admit(start, bytes);
        if admitted > start {
            self.stats.buffer_stalls += 1;
        }
        let (_, dma_done) = self.pcie.reserve(admitted, transfer_ns(bytes, self.ctl.pcie_bytes_per_s));
        let acked = dma_done.max(admitted + busy);
        self.stats.host_write_bytes += bytes;
        let zone_start = self.zones.zone_start(zone);
        let written_end = lba + blocks as u64 - zone_start;
        self.program_full_units(zone, written_end, acked);
        acked
    }

    /// Programs every complete stripe row of `zone` below `written_blocks`.
    fn program_full_units(&mut self, zone: u32, written_blocks: u64, ready_ns: Ns) {
        let row = self.row_blocks();
        while self.programmed_blocks[zone as usize] + row <= written_blocks {
            self.program_row(zone, self.stripe_dies, ready_ns);
        }
    }

    /// Programs the next stripe row of `zone` on its first `dies` dies (all of them
    /// for a full row; fewer when finishing pads a partial row).
    fn program_row(&mut self, zone: u32, dies: u32, ready_ns: Ns) {
        let bytes = self.program_unit_blocks * self.info.block_bytes as u64;
        let first_page = self.programmed_blocks[zone as usize] / self.page_blocks;
        for i in 0..dies as u64 {
            let die = self.die_of_page(zone, first_page + i);
            let done = self.flash.program(ready_ns, die, bytes);
            self.write_buffer.release_at(done, bytes);
            self.stats.media_write_bytes += bytes;
        }
        self.programmed_blocks[zone as usize] += self.row_blocks();
    }

    fn zone_command(&mut self, now_ns: Ns, action: ZoneAction, zone_lba: u64) -> Result<Completion, DeviceError> {
        let done = now_ns + self.ctl.write_command_ns;
        match action {
            ZoneAction::Open => {
                self.zones.open(zone_lba)?;
            }
            ZoneAction::Close => self.zones.close(zone_lba)?,
            ZoneAction::Finish => {
                let padded = self.zones.finish(zone_lba)?;
                let zone = self.zones.zone_of(zone_lba);
                if padded > 0 {
                    // Pad the open stripe row and program the dies holding data;
                    // the rest of the capacity is left unprogrammed (marked full).
                    let written = self.zones.layout().zone_capacity_blocks - padded;
                    let partial = written % self.row_blocks();
                    if partial != 0 {
                        let dies = partial.div_ceil(self.page_blocks).min(self.stripe_dies as u64) as u32;
                        self.program_row(zone, dies, done);
                    }
                    self.programmed_blocks[zone as usize] = self.zones.layout().zone_capacity_blocks;
                }
                self.stats.zone_finishes += 1;
            }
            ZoneAction::Reset => {
                let written = self.zones.reset(zone_lba)?;
                let zone = self.zones.zone_of(zone_lba);
                let programmed = self.programmed_blocks[zone as usize];
                self.programmed_blocks[zone as usize] = 0;
                if programmed > 0 {
                    // Erase in the background: each die of the stripe erases the
                    // blocks it holds for this zone.
                    let bb = self.info.block_bytes as u64;
                    let die_block_bytes = self.flash.geometry.block_bytes() * self.flash.geometry.planes_per_die as u64;
                    let per_die_bytes = (programmed * bb).div_ceil(self.stripe_dies as u64);
                    let blocks_per_die = per_die_bytes.div_ceil(die_block_bytes);
                    for i in 0..self.stripe_dies as u64 {
                        let die = self.die_of_page(zone, i);
                        for _ in 0..blocks_per_die {
                            self.flash.erase(done, die);
                            self.stats.erases += 1;
                        }
                    }
                }
                if let Some(d) = self.data.as_mut() {
                    d.discard(zone_lba, written);
                }
                self.stats.zone_resets += 1;
            }
        }
        Ok(Completion { done_ns: done, lba: zone_lba })
    }
}

impl Device for ZnsSsd {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(&mut self, now_ns: Ns, cmd: &Command, payload: Payload<'_>) -> Result<Completion, DeviceError> {
        check_payload(cmd, &payload, self.info.block_bytes)?;
        match *cmd {
            Command::Read { lba, blocks } => {
                let c = self.read(now_ns, lba, blocks)?;
                if let Payload::Read(out) = payload {
                    match self.data.as_ref() {
                        Some(d) => d.read(lba, out),
                        None => out.fill(0),
                    }
                }
                Ok(c)
            }
            Command::Write { lba, blocks } => {
                let w = self.zones.write(lba, blocks)?;
                let done = self.write_data(now_ns, w.zone, w.lba, blocks);
                if let Payload::Write(bytes) = payload {
                    let bb = self.info.block_bytes;
                    self.data.get_or_insert_with(|| BlockStore::new(bb)).write(w.lba, bytes);
                }
                Ok(Completion { done_ns: done, lba: w.lba })
            }
            Command::Append { zone_lba, blocks } => {
                let w = self.zones.append(zone_lba, blocks)?;
                let done = self.write_data(now_ns, w.zone, w.lba, blocks);
                if let Payload::Write(bytes) = payload {
                    let bb = self.info.block_bytes;
                    self.data.get_or_insert_with(|| BlockStore::new(bb)).write(w.lba, bytes);
                }
                Ok(Completion { done_ns: done, lba: w.lba })
            }
            Command::Flush => {
                // The write buffer is power-loss protected: flush costs one command.
                Ok(Completion { done_ns: now_ns + self.ctl.write_command_ns, lba: 0 })
            }
            Command::Trim { .. } => Err(DeviceError::Unsupported { command: "trim", device: self.info.name.clone() }),
            Command::Zone { action, zone_lba } => self.zone_command(now_ns, action, zone_lba),
        }
    }

    fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        Ok(self.zones.report(first, max))
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        let s = &self.stats;
        let u = self.flash.utilisation(elapsed_ns);
        let mut st = DeviceStats {
            host_read_bytes: s.host_read_bytes,
            host_write_bytes: s.host_write_bytes,
            media_read_bytes: s.media_read_bytes,
            media_write_bytes: s.media_write_bytes,
            erases: s.erases,
            zone_resets: s.zone_resets,
            zone_finishes: s.zone_finishes,
            ..Default::default()
        };
        st.utilisation.insert("channel".into(), round6(u.channel_busy_fraction));
        st.utilisation.insert("die".into(), round6(u.die_busy_fraction));
        if elapsed_ns > 0 {
            let core_busy: Ns = self.cores.iter().map(|c| c.busy_ns()).sum();
            st.utilisation.insert("controller".into(), round6(core_busy as f64 / (self.cores.len() as f64 * elapsed_ns as f64)));
        }
        st.counters.insert("write_buffer_stalls".into(), s.buffer_stalls);
        st.counters.insert("open_zones".into(), self.zones.open_count() as u64);
        st.counters.insert("active_zones".into(), self.zones.active_count() as u64);
        st.finish()
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
