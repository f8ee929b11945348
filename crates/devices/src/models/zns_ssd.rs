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
//! - **LBA formats** (optional `[namespace]` section; ZNSage paper §2.2 and Table 1):
//!   the formats a namespace offers (data size, per-LBA metadata size, relative
//!   performance) and the one it is formatted with. Metadata crosses the data path
//!   with its LBA: the controller's per-4 KiB cost and the PCIe transfer are
//!   charged for data + metadata bytes, plus `metadata_command_us` per command that
//!   carries metadata (the separate metadata buffer of an NVMe command). A host
//!   reads the formatted metadata size with [`Device::metadata_bytes_per_block`].
//! - **Zone random write areas** (optional `[zrwa]` section; NVMe TP4076, rules in
//!   `zoned/zrwa.rs`): a zone opened with ZRWA allocation keeps its ZRWA in the
//!   write buffer. Writes anywhere in the window are acknowledged from the
//!   buffer; rewriting a block not yet committed takes no new buffer space and
//!   never reaches flash (the overwrite is absorbed). Only committed data — below
//!   the write pointer that explicit and implicit flushes move — is programmed,
//!   a stripe row at a time as without a ZRWA; committed blocks that were never
//!   written are zero-filled in the buffer and programmed like data.

use super::ssd_common::{
    add_utilisation, Controller, ControllerSection, FlashSection, WriteBuffer,
};
use crate::block_store::BlockStore;
use crate::command::{Command, Completion, Payload, ZoneAction};
use crate::device::{check_payload, Device, DeviceInfo, DeviceStats, ZonedInfo};
use crate::error::DeviceError;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
use crate::zoned::{ZoneDescriptor, ZoneLayout, ZoneSet, ZoneWrite, ZrwaConfig};
use serde::Deserialize;
use zonelab_engine::{Ns, KIB, MIB};
use zonelab_media::flash::FlashArray;

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
    /// LBA formats; absent = one format of `zones.block_bytes` without metadata.
    #[serde(default)]
    pub namespace: Option<NamespaceSection>,
    /// Zone random write areas; absent = the namespace has none.
    #[serde(default)]
    pub zrwa: Option<ZrwaSection>,
}

/// `[zrwa]`: the namespace's zone random write areas (Identify Namespace, ZNS
/// command set: ZRWASZ, ZRWAFG, NUMZRWA; there in logical blocks).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZrwaSection {
    /// ZRWASZ: size of one zone's random write area, KiB.
    pub zrwas_kib: u64,
    /// ZRWAFG: flush granularity, KiB (a divisor of the size and of the zone capacity).
    pub zrwafg_kib: u64,
    /// NUMZRWA: zones that may hold a ZRWA at once (at most the max-active limit).
    pub numzrwa: u32,
}

/// One LBA format of the namespace (NVMe Identify Namespace LBAF: `ms`, `lbads`, `rp`).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LbaFormat {
    /// Data bytes per LBA (2^lbads).
    pub data_bytes: u32,
    /// Metadata bytes per LBA (`ms`, including protection information if enabled).
    pub metadata_bytes: u32,
    /// Relative performance (0 = best … 3 = degraded), as the device reports it.
    pub relative_performance: u8,
}

/// `[namespace]`: the LBA formats offered and the one in use.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamespaceSection {
    pub lba_formats: Vec<LbaFormat>,
    /// Index into `lba_formats` the namespace is formatted with; its `data_bytes`
    /// must equal `zones.block_bytes`.
    pub formatted_lba_format: u32,
    /// Controller cost per command that transfers metadata, µs.
    pub metadata_command_us: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZonesSection {
    pub block_bytes: u32,
    pub zone_count: u32,
    pub zone_size_mib: u64,
    pub zone_capacity_mib: u64,
    /// Finer zone size and capacity in KiB, overriding the MiB fields when set
    /// (scaled-down namespaces whose zones are a few flash stripe rows).
    #[serde(default)]
    pub zone_size_kib: Option<u64>,
    #[serde(default)]
    pub zone_capacity_kib: Option<u64>,
    pub max_open_zones: u32,
    pub max_active_zones: u32,
    /// Dies a zone is striped over (a divisor of the flash's dies).
    pub zone_stripe_dies: u32,
}

/// The device.
#[derive(Clone)]
pub struct ZnsSsd {
    info: DeviceInfo,
    zones: ZoneSet,
    flash: FlashArray,
    ctl: Controller,
    stripe_dies: u32,
    die_groups: u32,
    program_unit_blocks: u64,
    page_blocks: u64,
    /// Blocks of each zone handed to the flash (whole stripe rows).
    programmed_blocks: Vec<u64>,
    write_buffer: WriteBuffer,
    data: Option<BlockStore>,
    /// Metadata bytes per LBA of the formatted LBA format.
    metadata_bytes: u32,
    /// Extra controller time per command carrying metadata.
    metadata_command_ns: Ns,
    stats: Counts,
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
    zrwa_absorbed_bytes: u64,
    zrwa_implicit_flushes: u64,
    zrwa_explicit_flushes: u64,
    zrwa_hole_bytes: u64,
}

impl ZnsSsd {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: ZnsSsdProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    pub fn new(p: ZnsSsdProfile, source_name: &str) -> Result<Self, ProfileError> {
        let v = Validator::new(source_name);
        let z = &p.zones;
        v.check(
            "zones.block_bytes",
            z.block_bytes,
            [512, 4096].contains(&z.block_bytes),
            "512 or 4096",
        )?;
        v.range("zones.zone_count", z.zone_count, 1, 1 << 20)?;
        v.range("zones.zone_size_mib", z.zone_size_mib, 1, 1 << 16)?;
        let zone_size_kib = z.zone_size_kib.unwrap_or(z.zone_size_mib * 1024);
        let zone_capacity_kib = z.zone_capacity_kib.unwrap_or(z.zone_capacity_mib * 1024);
        v.range("zones.zone_capacity_kib", zone_capacity_kib, 4, 1 << 26)?;
        v.range(
            "zones.zone_size_kib",
            zone_size_kib,
            zone_capacity_kib,
            1 << 26,
        )?;
        v.check(
            "zones.zone_capacity_kib",
            zone_capacity_kib,
            (zone_capacity_kib * KIB).is_multiple_of(z.block_bytes as u64)
                && (zone_size_kib * KIB).is_multiple_of(z.block_bytes as u64),
            "zone size and capacity in whole blocks",
        )?;
        v.range(
            "zones.zone_capacity_mib",
            z.zone_capacity_mib,
            1,
            z.zone_size_mib,
        )?;
        v.range("zones.max_open_zones", z.max_open_zones, 0, z.zone_count)?;
        v.range(
            "zones.max_active_zones",
            z.max_active_zones,
            0,
            z.zone_count,
        )?;
        if z.max_active_zones > 0 {
            v.range(
                "zones.max_open_zones",
                z.max_open_zones,
                1,
                z.max_active_zones,
            )?;
        }
        let f = &p.flash;
        f.validate(&v)?;
        let dies = f.dies();
        v.check(
            "zones.zone_stripe_dies",
            z.zone_stripe_dies,
            z.zone_stripe_dies >= 1 && dies.is_multiple_of(z.zone_stripe_dies),
            &format!("a divisor of the {dies} dies"),
        )?;
        let c = &p.controller;
        c.validate(&v)?;
        let (metadata_bytes, metadata_command_ns) = match &p.namespace {
            None => (0, 0),
            Some(ns) => {
                v.range("namespace.lba_formats (count)", ns.lba_formats.len(), 1, 16)?;
                for (i, f) in ns.lba_formats.iter().enumerate() {
                    v.check(
                        &format!("namespace.lba_formats[{i}].data_bytes"),
                        f.data_bytes,
                        [512, 4096].contains(&f.data_bytes),
                        "512 or 4096",
                    )?;
                    v.range(
                        &format!("namespace.lba_formats[{i}].metadata_bytes"),
                        f.metadata_bytes,
                        0,
                        256,
                    )?;
                    v.range(
                        &format!("namespace.lba_formats[{i}].relative_performance"),
                        f.relative_performance,
                        0,
                        3,
                    )?;
                }
                let idx = ns.formatted_lba_format as usize;
                v.range(
                    "namespace.formatted_lba_format",
                    ns.formatted_lba_format,
                    0,
                    ns.lba_formats.len() as u32 - 1,
                )?;
                let f = ns.lba_formats[idx];
                v.check(
                    "namespace.formatted_lba_format",
                    ns.formatted_lba_format,
                    f.data_bytes == z.block_bytes,
                    &format!(
                        "a format whose data_bytes equals zones.block_bytes ({})",
                        z.block_bytes
                    ),
                )?;
                v.check(
                    "namespace.metadata_command_us",
                    ns.metadata_command_us,
                    ns.metadata_command_us.is_finite()
                        && (0.0..=1_000.0).contains(&ns.metadata_command_us),
                    "0..=1000",
                )?;
                let cmd_ns = if f.metadata_bytes > 0 {
                    zonelab_engine::us_to_ns(ns.metadata_command_us)
                } else {
                    0
                };
                (f.metadata_bytes, cmd_ns)
            }
        };

        let geometry = f.geometry(1);
        let unit_bytes = geometry.program_unit_bytes();
        v.check(
            "flash.page_kib",
            f.page_kib,
            (f.page_kib as u64 * KIB).is_multiple_of(z.block_bytes as u64),
            "a page that is a whole number of blocks",
        )?;
        let block_bytes = z.block_bytes as u64;
        let layout = ZoneLayout {
            zone_count: z.zone_count,
            zone_size_blocks: zone_size_kib * KIB / block_bytes,
            zone_capacity_blocks: zone_capacity_kib * KIB / block_bytes,
            conventional_zones: 0,
            max_open_zones: z.max_open_zones,
            max_active_zones: z.max_active_zones,
            read_unwritten_ok: true,
        };
        let mut zones = ZoneSet::new(layout);
        if let Some(zr) = &p.zrwa {
            zones.enable_zrwa(zrwa_config(zr, &layout, z, &v)?);
        }
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
            flash: FlashArray::new(geometry, f.timings()),
            ctl: Controller::new(c),
            stripe_dies: z.zone_stripe_dies,
            die_groups: dies / z.zone_stripe_dies,
            program_unit_blocks: unit_bytes / block_bytes,
            page_blocks: (f.page_kib as u64 * KIB) / block_bytes,
            programmed_blocks: vec![0; z.zone_count as usize],
            write_buffer: WriteBuffer::new(c.write_buffer_mib * MIB),
            data: None,
            metadata_bytes,
            metadata_command_ns,
            stats: Counts::default(),
        })
    }

    /// Bytes that cross the data path for `blocks` LBAs: data plus metadata.
    #[inline]
    fn path_bytes(&self, blocks: u64) -> u64 {
        blocks * (self.info.block_bytes as u64 + self.metadata_bytes as u64)
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

    fn read(&mut self, now_ns: Ns, lba: u64, blocks: u32) -> Result<Completion, DeviceError> {
        let zone = self.zones.check_read(lba, blocks)?;
        let bb = self.info.block_bytes as u64;
        self.flash.advance(now_ns);
        let bytes = blocks as u64 * bb;
        let path_bytes = self.path_bytes(blocks as u64);
        let busy = self.ctl.read_busy_ns(path_bytes) + self.metadata_command_ns;
        let start = self.ctl.start_command(now_ns, busy);
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
            let issued =
                start + self.ctl.read_command_ns + self.ctl.read_bytes_ns((chunk_end - lba) * bb);
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
        // Host DMA overlaps the flash reads; the last page's transfer is the tail.
        let tail = self.ctl.pcie_ns(bytes.min(page_blocks * bb));
        let link_done = self.ctl.dma(start, path_bytes);
        self.stats.host_read_bytes += bytes;
        Ok(Completion {
            done_ns: (data_ready + tail).max(link_done),
            lba,
        })
    }

    /// Data of a validated write lands in the buffer; committed full stripe rows
    /// go to flash. Only blocks new to the buffer take space: on a zone with a
    /// ZRWA an overwrite of an uncommitted block is absorbed, and committed blocks
    /// never written are zero-filled there.
    fn write_data(&mut self, now_ns: Ns, w: &ZoneWrite, blocks: u32) -> Ns {
        let bb = self.info.block_bytes as u64;
        let bytes = blocks as u64 * bb;
        let path_bytes = self.path_bytes(blocks as u64);
        self.flash.advance(now_ns);
        let busy = self.ctl.write_busy_ns(path_bytes) + self.metadata_command_ns;
        let start = self.ctl.start_command(now_ns, busy);
        let buffered = (w.fresh_blocks as u64 + w.committed.holes) * bb;
        let admitted = self.write_buffer.admit(start, buffered);
        if admitted > start {
            self.stats.buffer_stalls += 1;
        }
        let dma_done = self.ctl.dma(admitted, path_bytes);
        let acked = dma_done.max(admitted + busy);
        self.stats.host_write_bytes += bytes;
        self.stats.zrwa_absorbed_bytes += (blocks - w.fresh_blocks) as u64 * bb;
        self.stats.zrwa_hole_bytes += w.committed.holes * bb;
        if w.zrwa && w.committed.blocks > 0 {
            self.stats.zrwa_implicit_flushes += 1;
        }
        self.program_committed(w.zone, acked);
        acked
    }

    /// One past the last block of `zone` holding data (beyond the write pointer
    /// when its ZRWA holds data), and the blocks between the write pointer and
    /// there that hold none.
    fn zrwa_window_summary(&self, zone: u32) -> (u64, u64) {
        let wp = self.zones.write_pointer(zone);
        let data_end = self.zones.data_end(zone);
        (
            data_end,
            data_end - wp - self.zones.zrwa_written_blocks(zone),
        )
    }

    /// Programs every complete stripe row of `zone` below its write pointer.
    fn program_committed(&mut self, zone: u32, ready_ns: Ns) {
        let committed = self.zones.write_pointer(zone) - self.zones.zone_start(zone);
        self.program_full_units(zone, committed, ready_ns);
    }

    /// Blocks written to zones but not yet programmed: the partial stripe rows and
    /// the ZRWAs held in the (power-loss-protected) write buffer.
    fn buffered_blocks(&self) -> u64 {
        (self.zones.layout().conventional_zones..self.zones.layout().zone_count)
            .map(|z| self.buffered_blocks_of(z))
            .sum()
    }

    /// Blocks of `zone` in the write buffer: committed but not programmed, and
    /// written into its ZRWA.
    fn buffered_blocks_of(&self, zone: u32) -> u64 {
        let committed = self.zones.write_pointer(zone) - self.zones.zone_start(zone);
        committed.saturating_sub(self.programmed_blocks[zone as usize])
            + self.zones.zrwa_written_blocks(zone)
    }

    /// Programs every complete stripe row of `zone` below `written_blocks`.
    fn program_full_units(&mut self, zone: u32, written_blocks: u64, ready_ns: Ns) {
        let row = self.row_blocks();
        let row_bytes = row * self.info.block_bytes as u64;
        while self.programmed_blocks[zone as usize] + row <= written_blocks {
            self.program_row(zone, self.stripe_dies, ready_ns, row_bytes);
        }
    }

    /// Programs the next stripe row of `zone` on its first `dies` dies (all of them
    /// for a full row; fewer when finishing pads a partial row). `data_bytes` of
    /// host data in the row leave the write buffer as their dies finish (padding
    /// was never buffered).
    fn program_row(&mut self, zone: u32, dies: u32, ready_ns: Ns, data_bytes: u64) {
        let bytes = self.program_unit_blocks * self.info.block_bytes as u64;
        let first_page = self.programmed_blocks[zone as usize] / self.page_blocks;
        let mut unreleased = data_bytes;
        for i in 0..dies as u64 {
            let die = self.die_of_page(zone, first_page + i);
            let done = self.flash.program(ready_ns, die, bytes);
            let released = unreleased.min(bytes);
            unreleased -= released;
            self.write_buffer.release_at(done, released);
            self.stats.media_write_bytes += bytes;
        }
        self.programmed_blocks[zone as usize] += self.row_blocks();
    }

    fn zone_command(
        &mut self,
        now_ns: Ns,
        action: ZoneAction,
        zone_lba: u64,
    ) -> Result<Completion, DeviceError> {
        self.flash.advance(now_ns);
        let done = now_ns + self.ctl.write_command_ns;
        match action {
            ZoneAction::Open => {
                self.zones.open(zone_lba)?;
            }
            ZoneAction::OpenZrwa => {
                self.zones.open_zrwa(zone_lba)?;
            }
            ZoneAction::FlushZrwa => {
                let f = self.zones.zrwa_flush(zone_lba)?;
                self.stats.zrwa_explicit_flushes += 1;
                let bb = self.info.block_bytes as u64;
                // Committed blocks never written are zero-filled in the buffer.
                self.write_buffer.admit(done, f.committed.holes * bb);
                self.stats.zrwa_hole_bytes += f.committed.holes * bb;
                self.program_committed(f.zone, done);
            }
            ZoneAction::Close => self.zones.close(zone_lba)?,
            ZoneAction::Finish => {
                // Data in a ZRWA is committed by the finish: it counts as written.
                let zone = self
                    .zones
                    .zone_of(zone_lba.min(self.zones.capacity_blocks() - 1));
                let (data_end, window_holes) = self.zrwa_window_summary(zone);
                let padded = self.zones.finish(zone_lba)?;
                if window_holes > 0 {
                    let bb = self.info.block_bytes as u64;
                    self.write_buffer.admit(done, window_holes * bb);
                    self.stats.zrwa_hole_bytes += window_holes * bb;
                }
                if padded > 0 {
                    // Pad the open stripe row and program the dies holding data;
                    // the rest of the capacity is left unprogrammed (marked full).
                    let written = data_end - self.zones.zone_start(zone);
                    self.program_full_units(zone, written, done);
                    let partial = written % self.row_blocks();
                    if partial != 0 {
                        let dies = partial
                            .div_ceil(self.page_blocks)
                            .min(self.stripe_dies as u64) as u32;
                        let data_bytes = partial * self.info.block_bytes as u64;
                        self.program_row(zone, dies, done, data_bytes);
                    }
                    self.programmed_blocks[zone as usize] =
                        self.zones.layout().zone_capacity_blocks;
                }
                self.stats.zone_finishes += 1;
            }
            ZoneAction::Reset => {
                let zone = self
                    .zones
                    .zone_of(zone_lba.min(self.zones.capacity_blocks() - 1));
                let buffered = self.buffered_blocks_of(zone);
                let written = self.zones.reset(zone_lba)?;
                let programmed = self.programmed_blocks[zone as usize];
                self.programmed_blocks[zone as usize] = 0;
                // Data still buffered (a partial row, a ZRWA) is dropped with the zone.
                self.write_buffer
                    .release_at(done, buffered * self.info.block_bytes as u64);
                if programmed > 0 {
                    // Erase in the background: each die of the stripe erases the
                    // blocks it holds for this zone.
                    let bb = self.info.block_bytes as u64;
                    let die_block_bytes = self.flash.geometry.block_bytes()
                        * self.flash.geometry.planes_per_die as u64;
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
        Ok(Completion {
            done_ns: done,
            lba: zone_lba,
        })
    }
}

/// Checks `[zrwa]` against the zones; returns the namespace's ZRWA shape in blocks.
fn zrwa_config(
    zr: &ZrwaSection,
    layout: &ZoneLayout,
    z: &ZonesSection,
    v: &Validator<'_>,
) -> Result<ZrwaConfig, ProfileError> {
    let bb = z.block_bytes as u64;
    v.check(
        "zrwa.zrwafg_kib",
        zr.zrwafg_kib,
        zr.zrwafg_kib >= 1 && (zr.zrwafg_kib * KIB).is_multiple_of(bb),
        &format!("a whole number of {bb}-byte blocks, at least 1 KiB"),
    )?;
    let fg_blocks = zr.zrwafg_kib * KIB / bb;
    v.check(
        "zrwa.zrwafg_kib",
        zr.zrwafg_kib,
        layout.zone_capacity_blocks.is_multiple_of(fg_blocks),
        &format!(
            "a divisor of the zone capacity ({} KiB)",
            layout.zone_capacity_blocks * bb / KIB
        ),
    )?;
    v.check(
        "zrwa.zrwas_kib",
        zr.zrwas_kib,
        zr.zrwas_kib >= zr.zrwafg_kib
            && zr.zrwas_kib.is_multiple_of(zr.zrwafg_kib)
            && zr.zrwas_kib * KIB / bb <= layout.zone_capacity_blocks,
        &format!(
            "a multiple of zrwafg_kib ({}) no larger than the zone capacity",
            zr.zrwafg_kib
        ),
    )?;
    let max = if z.max_active_zones > 0 {
        z.max_active_zones
    } else {
        z.zone_count
    };
    v.range("zrwa.numzrwa", zr.numzrwa, 1, max)?;
    Ok(ZrwaConfig {
        size_blocks: zr.zrwas_kib * KIB / bb,
        flush_granularity_blocks: fg_blocks,
        resources: zr.numzrwa,
    })
}

impl Device for ZnsSsd {
    fn boxed_clone(&self) -> Option<Box<dyn Device>> {
        Some(Box::new(self.clone()))
    }

    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn metadata_bytes_per_block(&self) -> u32 {
        self.metadata_bytes
    }

    /// One program unit (page x bits per cell x planes): the zone is programmed a
    /// program unit per die at a time (ZN540 profile: 16 KiB x 3 x 2 = 96 KiB).
    fn preferred_write_bytes(&self) -> u64 {
        self.program_unit_blocks * self.info.block_bytes as u64
    }

    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
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
                let done = self.write_data(now_ns, &w, blocks);
                if let Payload::Write(bytes) = payload {
                    let bb = self.info.block_bytes;
                    self.data
                        .get_or_insert_with(|| BlockStore::new(bb))
                        .write(w.lba, bytes);
                }
                Ok(Completion {
                    done_ns: done,
                    lba: w.lba,
                })
            }
            Command::Append { zone_lba, blocks } => {
                let w = self.zones.append(zone_lba, blocks)?;
                let done = self.write_data(now_ns, &w, blocks);
                if let Payload::Write(bytes) = payload {
                    let bb = self.info.block_bytes;
                    self.data
                        .get_or_insert_with(|| BlockStore::new(bb))
                        .write(w.lba, bytes);
                }
                Ok(Completion {
                    done_ns: done,
                    lba: w.lba,
                })
            }
            Command::Flush => {
                // The write buffer is power-loss protected: flush costs one command.
                Ok(Completion {
                    done_ns: now_ns + self.ctl.write_command_ns,
                    lba: 0,
                })
            }
            Command::Trim { .. } => Err(DeviceError::Unsupported {
                command: "trim",
                device: self.info.name.clone(),
            }),
            Command::Zone { action, zone_lba } => self.zone_command(now_ns, action, zone_lba),
        }
    }

    fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        Ok(self.zones.report(first, max))
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        let s = &self.stats;
        let mut st = DeviceStats {
            host_read_bytes: s.host_read_bytes,
            host_write_bytes: s.host_write_bytes,
            media_read_bytes: s.media_read_bytes,
            media_write_bytes: s.media_write_bytes,
            erases: s.erases,
            zone_resets: s.zone_resets,
            zone_finishes: s.zone_finishes,
            buffered_write_bytes: self.buffered_blocks() * self.info.block_bytes as u64,
            ..Default::default()
        };
        add_utilisation(&mut st, &self.flash, &self.ctl, elapsed_ns);
        st.counters
            .insert("write_buffer_stalls".into(), s.buffer_stalls);
        st.counters
            .insert("open_zones".into(), self.zones.open_count() as u64);
        st.counters
            .insert("active_zones".into(), self.zones.active_count() as u64);
        if self.zones.zrwa_config().is_some() {
            let c = &mut st.counters;
            c.insert("zrwa_zones".into(), self.zones.zrwa_in_use() as u64);
            c.insert("zrwa_absorbed_bytes".into(), s.zrwa_absorbed_bytes);
            c.insert("zrwa_implicit_flushes".into(), s.zrwa_implicit_flushes);
            c.insert("zrwa_explicit_flushes".into(), s.zrwa_explicit_flushes);
            c.insert("zrwa_hole_bytes".into(), s.zrwa_hole_bytes);
        }
        st.finish()
    }
}
