//! Conventional (block-interface) SSD with a page-mapped FTL: `model = "ftl-ssd"`.
//!
//! Firmware model:
//! - **Host interface.** Read, write, trim and flush on 4 KiB logical blocks, or
//!   512-byte ones emulated on the 4 KiB map (`ftl/lba_format.rs`: sub-block
//!   reads read the covering page, sub-block writes read-modify-write); zone
//!   commands and zone append are [`DeviceError::Unsupported`].
//! - **Mapping** (`ftl/mapping.rs`): one L2P entry per 4 KiB logical
//!   unit and one P2L entry per physical 4 KiB slot, dense `u32` arrays. Space is
//!   allocated, collected and erased in *superblocks* (one multi-plane block on
//!   every die), with per-superblock valid counts bucketed for greedy GC.
//! - **Over-provisioning.** Physical space = logical × (1 + OP), rounded up to whole
//!   superblocks. The spare superblocks must cover the open superblocks of both
//!   write streams, the GC victim and the GC watermarks; the profile check says so.
//! - **Write buffer** (`ssd_common/write_buffer.rs`): a write is
//!   acknowledged once its bytes are in the DRAM buffer (after the PCIe transfer).
//!   Data is programmed one program unit (page × bits per cell × planes) at a time;
//!   buffer space is released when that program completes, so sustained writes are
//!   flash-bound. By default the buffer is volatile: **Flush** pads and programs
//!   the partial program unit and completes when everything buffered is on
//!   flash; `[write_buffer] mode` makes it write-through or power-loss protected
//!   (`ftl/write_mode.rs`).
//! - **Allocation.** Host writes and GC copies are separate streams, each with one
//!   open superblock (one open block per die). Each new program unit goes to a die
//!   whose block has room, chosen by `ftl.die_allocation`: `"round-robin"`
//!   (the next die in turn) or `"least-busy"` (dynamic allocation: host data to the
//!   die free earliest, GC copies to the die that frees soonest after their reads
//!   complete; ties round-robin), so dies busy with GC are passed over.
//! - **Foreground GC** (`ftl/gc.rs`), greedy and incremental: once free
//!   superblocks are ≤ `ftl.trigger_free_superblocks`, the host write that starts a
//!   program unit runs one GC step, which reclaims `reclaim_ratio ×` a program
//!   unit (net), and that write completes only when the step's reads and copy
//!   programs are done (not the victim's erases, which hold only their dies):
//!   GC is paid for in the write path, a few milliseconds on
//!   one write in a program unit's worth, which is the tail latency of an aged
//!   device. GC runs until `reclaim_free_superblocks` more superblocks are free.
//!   The last free superblock is the GC stream's reserve: when the host stream
//!   needs it, GC runs until the target is reached (an emergency run). GC uses
//!   the same die and channel timelines as host I/O, so it also delays other
//!   requests. Waiting for each step keeps the work queued on the timelines
//!   shallow; deep queues would make the single-free-time timelines leave gaps
//!   they cannot backfill. There is no background (idle-time) GC and no wear
//!   levelling.
//! - **Reads** look up the mapping: unmapped units read as zeros and units still in
//!   the write buffer's open program unit come from DRAM, both without flash
//!   access; the rest read from flash, one tR per multi-plane page that the request
//!   touches (consecutive units of one page are grouped), then the channel
//!   transfer of the requested bytes.
//! - **Read-first scheduling and program/erase suspension** (optional
//!   `[scheduling]`, `ftl/scheduling.rs` + `zonelab_media::die_queue`): host reads
//!   go before programs and erases not yet started on their die and may suspend
//!   the one in progress; GC and fold reads stay first-come first-served.
//! - **Demand-paged mapping cache** (optional `[mapping_cache]`,
//!   `ftl/map_cache.rs`, DFTL): only part of the map is cached; a miss reads a
//!   translation page before the data, dirty evictions are written back and
//!   count in WAF.
//! - **Payloads**, when given, are stored per *physical* slot, so GC moves them and
//!   reading them back through the mapping checks the mapping.
//! - **Flexible Data Placement** (optional `[fdp]` section, `ftl/fdp.rs`): reclaim
//!   groups, reclaim unit handles with one write stream per (group, handle), GC
//!   per group keeping each handle's isolation, FDP statistics and events. Writes
//!   name their handle with a placement identifier ([`Device::submit_placed`]);
//!   plain writes use handle 0 of group 0. Without the section the FTL is the
//!   one-group, one-handle case: a host stream and a GC stream.

#[path = "ftl/cow_array.rs"]
mod cow_array;
#[path = "ftl/fdp.rs"]
mod fdp;
#[cfg(test)]
#[path = "ftl/fdp_tests.rs"]
mod fdp_tests;
#[path = "ftl/gc.rs"]
mod gc;
#[path = "ftl/lba_format.rs"]
mod lba_format;
#[cfg(test)]
#[path = "ftl/lba_format_tests.rs"]
mod lba_format_tests;
#[path = "ftl/map_cache.rs"]
mod map_cache;
#[cfg(test)]
#[path = "ftl/map_cache_tests.rs"]
mod map_cache_tests;
#[path = "ftl/mapping.rs"]
mod mapping;
#[path = "ftl/scheduling.rs"]
mod scheduling;
#[cfg(test)]
#[path = "ftl/scheduling_tests.rs"]
mod scheduling_tests;
#[path = "ftl/slc_cache.rs"]
mod slc_cache;
#[cfg(test)]
#[path = "ftl/slc_tests.rs"]
mod slc_tests;
#[cfg(test)]
#[path = "ftl/tests.rs"]
mod tests;
#[path = "ftl/write_mode.rs"]
mod write_mode;
#[cfg(test)]
#[path = "ftl/write_mode_tests.rs"]
mod write_mode_tests;

use super::ssd_common::{
    add_utilisation, Controller, ControllerSection, FlashSection, WriteBuffer,
};
use crate::block_store::BlockStore;
use crate::command::{Command, Completion, Payload};
use crate::device::{check_block_range, check_payload, Device, DeviceInfo, DeviceStats};
use crate::error::DeviceError;
use crate::fdp::FdpReport;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
pub use fdp::FdpSection;
use fdp::FdpState;
use gc::{Collector, GcOutcome, GcParams};
use lba_format::{LbaFormat, UnitSpan};
use map_cache::MapCache;
pub use map_cache::MappingCacheSection;
use mapping::{Layout, Mapping, HOST, HOST_AND_GC, NONE};
pub use scheduling::SchedulingSection;
use serde::Deserialize;
use slc_cache::SlcCache;
pub use slc_cache::{FoldPolicy, SlcCacheSection};
pub use write_mode::{WriteBufferMode, WriteBufferSection};
use zonelab_engine::{Ns, KIB, MIB};
use zonelab_media::flash::FlashArray;

/// The FTL's mapping granularity.
const UNIT_BYTES: u64 = 4 * KIB;

/// `model = "ftl-ssd"` profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlSsdProfile {
    pub name: String,
    pub model: String,
    pub description: String,
    pub capacity: CapacitySection,
    pub flash: FlashSection,
    pub controller: ControllerSection,
    pub ftl: FtlSection,
    /// An SLC write cache (`ftl/slc_cache.rs`); absent: none.
    #[serde(default)]
    pub slc_cache: Option<SlcCacheSection>,
    /// Flexible Data Placement (`ftl/fdp.rs`); absent: none.
    #[serde(default)]
    pub fdp: Option<FdpSection>,
    /// Read-first die scheduling and program/erase suspension
    /// (`ftl/scheduling.rs`); absent: dies serve work in booking order.
    #[serde(default)]
    pub scheduling: Option<SchedulingSection>,
    /// A demand-paged mapping cache (`ftl/map_cache.rs`); absent: the whole
    /// page map is in controller DRAM.
    #[serde(default)]
    pub mapping_cache: Option<MappingCacheSection>,
    /// When writes are acknowledged and what Flush waits for
    /// (`ftl/write_mode.rs`); absent: a volatile write-back buffer.
    #[serde(default)]
    pub write_buffer: Option<WriteBufferSection>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacitySection {
    pub block_bytes: u32,
    /// Logical (host-visible) capacity.
    pub capacity_mib: u64,
    /// Physical space beyond the logical capacity, in percent of it.
    pub over_provisioning_percent: f64,
}

/// Which die a new program unit goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DieAllocation {
    /// The next die in turn.
    RoundRobin,
    /// The die whose timeline is free earliest (ties in turn).
    LeastBusy,
}

/// FTL policies: where program units go and when GC runs.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlSection {
    pub die_allocation: DieAllocation,
    /// GC starts when free superblocks ≤ this.
    pub trigger_free_superblocks: u32,
    /// A GC run stops once this many superblocks above the trigger level are free.
    pub reclaim_free_superblocks: u32,
    /// While GC is active, slots reclaimed per host slot written (≥ 1 so that
    /// free space never shrinks during a run).
    pub reclaim_ratio: f64,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    host_read_bytes: u64,
    host_write_bytes: u64,
    media_read_bytes: u64,
    media_write_bytes: u64,
    erases: u64,
    gc_runs: u64,
    gc_steps: u64,
    gc_emergency: u64,
    gc_victims: u64,
    gc_copied_bytes: u64,
    gc_padding_bytes: u64,
    gc_stuck: u64,
    flush_padding_bytes: u64,
    buffer_stalls: u64,
    buffer_read_units: u64,
    unmapped_read_units: u64,
    trimmed_units: u64,
    /// Units a read covered only partly whose flash page was read whole.
    sub_block_read_units: u64,
    /// Units a write covered only partly (merged with their old data).
    sub_block_write_units: u64,
    /// Of those, units whose old data was read from flash (read-modify-write).
    sub_block_rmw_units: u64,
    /// Time host reads' completions waited for the PCIe link after their data
    /// was ready (with the flash waits, where a read's time goes).
    read_link_wait_ns: u64,
}

/// The device.
#[derive(Clone)]
pub struct FtlSsd {
    info: DeviceInfo,
    flash: FlashArray,
    ctl: Controller,
    map: Mapping,
    buffer: WriteBuffer,
    write_mode: WriteBufferMode,
    /// Host LBA size over the 4 KiB mapping unit (`ftl/lba_format.rs`).
    lba_format: LbaFormat,
    /// With 512-byte LBAs: host program units still being programmed (first
    /// slot's program unit → end), so a sub-block write merges their data in
    /// the write buffer, which still holds it, instead of reading flash.
    programs_in_flight: std::collections::HashMap<u32, Ns>,
    /// Size at which ended programs are pruned from `programs_in_flight`
    /// (twice the program units the write buffer holds).
    programs_in_flight_limit: usize,
    data: Option<BlockStore>,
    /// One collector per reclaim group.
    collectors: Vec<Collector>,
    gc: GcParams,
    slc: Option<SlcCache>,
    /// The profile has a `[scheduling]` section (its counters are reported,
    /// also with `read_first = false`, the first-come first-served baseline).
    scheduling_on: bool,
    /// Demand-paged mapping cache; `None`: the whole map is in DRAM.
    map_cache: Option<MapCache>,
    /// When the drive last had host work to do (the latest host completion or
    /// buffered program): idle time, for background work, is counted from here.
    busy_until_ns: Ns,
    /// Host write streams: 0..host_streams of the mapping.
    host_streams: usize,
    fdp: Option<FdpState>,
    /// Bytes of one erase block (all planes of one die).
    erase_block_bytes: u64,
    stats: Counts,
}

impl FtlSsd {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: FtlSsdProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    pub fn new(p: FtlSsdProfile, source_name: &str) -> Result<Self, ProfileError> {
        let v = Validator::new(source_name);
        v.check(
            "capacity.over_provisioning_percent",
            p.capacity.over_provisioning_percent,
            !p.capacity.over_provisioning_percent.is_nan(),
            "a number",
        )?;
        v.check(
            "ftl.reclaim_ratio",
            p.ftl.reclaim_ratio,
            !p.ftl.reclaim_ratio.is_nan(),
            "a number",
        )?;
        let cap = &p.capacity;
        v.check(
            "capacity.block_bytes",
            cap.block_bytes,
            cap.block_bytes == 512 || cap.block_bytes as u64 == UNIT_BYTES,
            "512 (512-byte LBAs emulated on the FTL's 4 KiB mapping units) or 4096",
        )?;
        let lba_format = LbaFormat::new(cap.block_bytes as u64, UNIT_BYTES);
        // ≤ 4 TiB logical keeps every physical slot index (with OP ≤ 100%) in a u32.
        v.range("capacity.capacity_mib", cap.capacity_mib, 1, 4 << 20)?;
        v.range(
            "capacity.over_provisioning_percent",
            cap.over_provisioning_percent,
            0.0,
            100.0,
        )?;
        let f = &p.flash;
        f.validate(&v)?;
        let bits = f.cell_type.bits_per_cell();
        let c = &p.controller;
        c.validate(&v)?;
        let g = &p.ftl;
        // One free superblock is the emergency reserve (GC then blocks the write).
        v.range(
            "ftl.trigger_free_superblocks",
            g.trigger_free_superblocks,
            2,
            1 << 16,
        )?;
        v.range(
            "ftl.reclaim_free_superblocks",
            g.reclaim_free_superblocks,
            1,
            1 << 16,
        )?;
        v.range("ftl.reclaim_ratio", g.reclaim_ratio, 1.0, 64.0)?;

        let dies = f.channels * f.dies_per_channel;
        let page_units = f.page_kib as u64 * KIB / UNIT_BYTES;
        let units_per_program_unit = page_units * bits as u64 * f.planes_per_die as u64;
        let units_per_block = page_units * f.pages_per_block as u64 * f.planes_per_die as u64;
        let program_unit_bytes = units_per_program_unit * UNIT_BYTES;
        v.check(
            "flash.pages_per_block",
            f.pages_per_block,
            units_per_block * dies as u64 <= 1 << 24,
            "a value keeping a superblock (one block on every die) within 64 GiB",
        )?;
        v.check(
            "controller.write_buffer_mib",
            c.write_buffer_mib,
            c.write_buffer_mib * MIB >= program_unit_bytes,
            &format!(
                "at least one program unit ({} KiB)",
                program_unit_bytes / KIB
            ),
        )?;

        let logical_units = cap.capacity_mib * MIB / UNIT_BYTES;
        let units_per_superblock = units_per_block * dies as u64;
        let physical_wanted =
            (logical_units as f64 * (1.0 + cap.over_provisioning_percent / 100.0)).ceil() as u64;
        let superblocks = physical_wanted.div_ceil(units_per_superblock);
        let physical_units = superblocks * units_per_superblock;
        v.check(
            "capacity.capacity_mib",
            cap.capacity_mib,
            physical_units < NONE as u64,
            "a size whose physical space (with OP) is below 16 TiB",
        )?;
        if let Some(f) = &p.fdp {
            f.validate(&v, dies)?;
        }
        let groups = p.fdp.as_ref().map_or(1, |f| f.reclaim_groups) as u64;
        let fdp_layout = p
            .fdp
            .as_ref()
            .map(|f| fdp::FdpLayout::new(f.reclaim_groups, &f.handles));
        // With reclaim groups a superblock (reclaim unit) spans one group's dies.
        let superblocks = superblocks * groups;
        let units_per_superblock = units_per_superblock / groups;
        // Per group: the open superblocks of its streams, the GC victim, the
        // watermarks, and one more so that some closed superblock always has an
        // invalid slot.
        let streams_per_group = fdp_layout.as_ref().map_or(2, |l| l.streams_per_group()) as u64;
        let needed_spare = groups
            * (streams_per_group
                + 1
                + g.trigger_free_superblocks as u64
                + g.reclaim_free_superblocks as u64
                + 1);
        let spare = superblocks.saturating_sub(logical_units.div_ceil(units_per_superblock));
        v.check(
            "capacity.over_provisioning_percent",
            cap.over_provisioning_percent,
            spare >= needed_spare,
            &format!(
                "a value leaving at least {needed_spare} spare superblocks ({streams_per_group} open, 1 GC victim, GC watermarks{}); this one leaves {spare} of {} MiB; or lower flash.pages_per_block",
                if groups > 1 { format!(", in each of {groups} reclaim groups") } else { String::new() },
                units_per_superblock * UNIT_BYTES / MIB
            ),
        )?;

        // The SLC cache keeps state per physical program unit of the one-group
        // layout; with FDP's reclaim groups it is not modelled.
        v.check(
            "slc_cache",
            "present",
            p.slc_cache.is_none() || p.fdp.is_none(),
            "absent when the profile has an [fdp] section (an SLC cache with Flexible Data Placement is not modelled)",
        )?;
        let slc = match &p.slc_cache {
            Some(section) => {
                let params = section.validate(&v, f, program_unit_bytes)?;
                let physical_pus = superblocks * units_per_superblock / units_per_program_unit;
                Some(SlcCache::new(params, physical_pus, dies))
            }
            None => None,
        };
        let map_cache = match &p.mapping_cache {
            Some(section) => Some(section.validate(&v, logical_units, f.page_kib)?),
            None => None,
        };
        let die_scheduling = match &p.scheduling {
            Some(section) => Some(section.validate(&v)?),
            None => None,
        };
        let geometry = f.geometry((superblocks / groups) as u32);
        debug_assert_eq!(geometry.program_unit_bytes(), program_unit_bytes);
        let layout = Layout {
            dies,
            superblocks: superblocks as u32,
            groups: groups as u32,
            units_per_block: units_per_block as u32,
            units_per_program_unit: units_per_program_unit as u32,
            units_per_read_group: (page_units * f.planes_per_die as u64) as u32,
            logical_units: logical_units as u32,
        };
        let info = DeviceInfo {
            name: p.name.clone(),
            model: p.model.clone(),
            description: p.description.clone(),
            block_bytes: cap.block_bytes,
            capacity_blocks: logical_units * lba_format.sectors_per_unit(),
            zoned: None,
        };
        let map = match &fdp_layout {
            Some(l) => Mapping::new(layout, &l.stream_specs(), true),
            None => Mapping::new(layout, &HOST_AND_GC, false),
        };
        let collectors = (0..layout.groups)
            .map(|g| Collector::new(&map, g))
            .collect();
        let host_streams = fdp_layout
            .as_ref()
            .map_or(1, |l| l.groups as usize * l.handles.len());
        let fdp = p
            .fdp
            .as_ref()
            .map(|section| FdpState::new(section, units_per_superblock * UNIT_BYTES));
        let mut flash = FlashArray::new(geometry, f.timings());
        if let Some(s) = die_scheduling {
            flash.set_scheduling(s);
            flash.set_just_in_time_transfers(true);
        }
        Ok(Self {
            info,
            flash,
            ctl: Controller::new(c),
            map,
            buffer: WriteBuffer::new(c.write_buffer_mib * MIB),
            write_mode: p.write_buffer.map(|w| w.mode).unwrap_or_default(),
            lba_format,
            programs_in_flight: Default::default(),
            programs_in_flight_limit: (2 * c.write_buffer_mib * MIB / program_unit_bytes + 64)
                as usize,
            data: None,
            collectors,
            host_streams,
            fdp,
            erase_block_bytes: units_per_block * UNIT_BYTES,
            gc: GcParams {
                unit_bytes: UNIT_BYTES,
                program_unit_bytes,
                low_free_superblocks: g.trigger_free_superblocks,
                target_free_superblocks: g.trigger_free_superblocks + g.reclaim_free_superblocks,
                step_reclaim_units: (g.reclaim_ratio * units_per_program_unit as f64).ceil() as u64,
                least_busy: g.die_allocation == DieAllocation::LeastBusy,
            },
            slc,
            map_cache,
            scheduling_on: die_scheduling.is_some(),
            busy_until_ns: 0,
            stats: Counts::default(),
        })
    }

    /// Checks every FTL invariant (L2P/P2L agreement, valid counts, block states).
    #[cfg(test)]
    pub(crate) fn check_invariants(&self) -> Result<(), String> {
        self.map.check_invariants()?;
        if let Some(f) = &self.fdp {
            self.map
                .check_isolation(|stream, tag| f.layout.allowed(stream, tag))?;
        }
        match &self.slc {
            Some(slc) => slc.check_invariants(),
            None => Ok(()),
        }
    }

    /// Whether the profile has a `[scheduling]` section.
    fn scheduling_on(&self) -> bool {
        self.scheduling_on
    }

    /// Background work the drive does while idle up to `now_ns` (SLC folding).
    fn run_background(&mut self, now_ns: Ns) {
        if let Some(slc) = self.slc.as_mut() {
            let map = &self.map;
            slc.fold_while_idle(&mut self.flash, self.busy_until_ns, now_ns, |sb| {
                map.superblock_epoch(sb)
            });
        }
    }

    /// Whether the data in `slot` is in the SLC cache.
    #[inline]
    fn in_slc(&self, slot: u32) -> bool {
        match &self.slc {
            Some(slc) => {
                let l = self.map.layout();
                slc.is_cached(
                    slot / l.units_per_program_unit,
                    self.map.superblock_epoch(l.superblock_of_slot(slot)),
                )
            }
            None => false,
        }
    }

    fn unsupported(&self, cmd: &Command) -> DeviceError {
        DeviceError::Unsupported {
            command: cmd.name(),
            device: self.info.name.clone(),
        }
    }

    fn check_range(&self, command: &'static str, lba: u64, blocks: u32) -> Result<(), DeviceError> {
        check_block_range(command, lba, blocks, self.info.capacity_blocks)
    }

    /// Timing of a validated read (and its bytes, when `out` is given).
    fn read(&mut self, now_ns: Ns, lba: u64, blocks: u32, mut out: Option<&mut [u8]>) -> Ns {
        self.flash.advance(now_ns);
        let bytes = blocks as u64 * self.info.block_bytes as u64;
        let (first_unit, units) = self.lba_format.units(lba, blocks);
        let busy = self.ctl.read_busy_ns(bytes);
        let start = self.ctl.start_command(now_ns, busy);
        let group_units = self.map.layout().units_per_read_group;
        let mut data_ready = start + busy;
        // Data reads start once the request's map entries are in (a cache miss
        // reads its translation page from flash first).
        let mapped_at = self.translate(
            start + self.ctl.read_command_ns,
            first_unit,
            units as u32,
            false,
        );
        // The read group being gathered: (group, first slot, units, issue time).
        let mut pending: Option<(u32, u32, u64, Ns)> = None;
        for i in 0..units {
            let lpn = (first_unit + i) as u32;
            let slot = self.map.lookup(lpn);
            let span = self.lba_format.span(lba, blocks, first_unit + i);
            if let Some(buf) = out.as_deref_mut() {
                self.copy_unit_out(slot, span, buf);
            }
            if slot == NONE {
                self.stats.unmapped_read_units += 1;
                continue;
            }
            if self.map.is_staged(slot) {
                self.stats.buffer_read_units += 1;
                continue;
            }
            // The flash page is read whole, also for a few sectors of it.
            self.stats.sub_block_read_units += span.is_partial(self.lba_format) as u64;
            let group = slot / group_units;
            match pending.as_mut() {
                Some((g, _, units, _)) if *g == group => *units += 1,
                _ => {
                    if let Some((_, first, units, issued)) = pending.take() {
                        data_ready = data_ready.max(self.flash_read(issued, first, units));
                    }
                    let issued = (start
                        + self.ctl.read_command_ns
                        + self.ctl.read_bytes_ns((i + 1) * UNIT_BYTES))
                    .max(mapped_at);
                    pending = Some((group, slot, 1, issued));
                }
            }
        }
        if let Some((_, first, units, issued)) = pending {
            data_ready = data_ready.max(self.flash_read(issued, first, units));
        }
        // Host DMA overlaps the flash reads; the last read group's transfer is the tail.
        let tail = self.ctl.pcie_ns(bytes.min(group_units as u64 * UNIT_BYTES));
        let link_done = self.ctl.dma_to_host(start, bytes);
        self.stats.host_read_bytes += bytes;
        self.stats.read_link_wait_ns += link_done.saturating_sub(data_ready + tail);
        (data_ready + tail).max(link_done)
    }

    /// Copies the part of the unit in `slot` that `span` covers into a read
    /// payload (zeros when unmapped or never given bytes).
    fn copy_unit_out(&self, slot: u32, span: UnitSpan, buf: &mut [u8]) {
        let lba_bytes = self.info.block_bytes as usize;
        let at = span.request_offset as usize * lba_bytes;
        let dst = &mut buf[at..at + span.sectors as usize * lba_bytes];
        let Some(d) = self.data.as_ref().filter(|_| slot != NONE) else {
            dst.fill(0);
            return;
        };
        if !span.is_partial(self.lba_format) {
            return d.read(slot as u64, dst);
        }
        let mut unit = [0u8; UNIT_BYTES as usize];
        d.read(slot as u64, &mut unit);
        let from = span.first_sector as usize * lba_bytes;
        dst.copy_from_slice(&unit[from..from + dst.len()]);
    }

    /// The bytes a write of `span` leaves in a unit: its sectors from `src`
    /// over the unit's old data in `old_slot` (zeros when unmapped).
    fn merged_unit(&self, old_slot: u32, span: UnitSpan, src: &[u8]) -> Box<[u8]> {
        let lba_bytes = self.info.block_bytes as usize;
        let at = span.request_offset as usize * lba_bytes;
        let new = &src[at..at + span.sectors as usize * lba_bytes];
        if !span.is_partial(self.lba_format) {
            return new.into();
        }
        let mut unit = vec![0u8; UNIT_BYTES as usize];
        if let (Some(d), true) = (self.data.as_ref(), old_slot != NONE) {
            d.read(old_slot as u64, &mut unit);
        }
        let from = span.first_sector as usize * lba_bytes;
        unit[from..from + new.len()].copy_from_slice(new);
        unit.into()
    }

    /// Read-modify-write of the units a write covers only partly (first and
    /// last): each whose old data is on flash is read (from `ready_ns`) before
    /// the merged unit can be acknowledged and programmed; returns when all are in.
    fn read_partial_units(&mut self, ready_ns: Ns, lba: u64, blocks: u32) -> Ns {
        let (first, units) = self.lba_format.units(lba, blocks);
        let mut done = ready_ns;
        let ends = [first, first + units - 1];
        for &unit in &ends[..if units > 1 { 2 } else { 1 }] {
            if !self
                .lba_format
                .span(lba, blocks, unit)
                .is_partial(self.lba_format)
            {
                continue;
            }
            self.stats.sub_block_write_units += 1;
            let slot = self.map.lookup(unit as u32);
            let upu = self.map.layout().units_per_program_unit;
            let in_buffer = slot != NONE
                && (self.map.is_staged(slot)
                    || self
                        .programs_in_flight
                        .get(&(slot / upu))
                        .is_some_and(|&end| end > ready_ns));
            if slot != NONE && !in_buffer {
                self.stats.sub_block_rmw_units += 1;
                done = done.max(self.flash_read(ready_ns, slot, 1));
            }
        }
        done
    }

    /// Reads `units` of the read group holding `slot` (one tR: SLC-mode when the
    /// data is still in the SLC cache).
    #[inline]
    fn flash_read(&mut self, issued_ns: Ns, slot: u32, units: u64) -> Ns {
        self.stats.media_read_bytes += units * UNIT_BYTES;
        let die = self.map.layout().die_of_slot(slot);
        let read_ns = if self.in_slc(slot) {
            self.slc.as_ref().map_or(0, |c| c.read_ns())
        } else {
            self.flash.timings.read_ns
        };
        self.flash
            .host_read_with(issued_ns, die, units * UNIT_BYTES, read_ns)
    }

    /// A validated write through host stream `stream`: into the buffer, mapped,
    /// full program units programmed.
    fn write(
        &mut self,
        now_ns: Ns,
        lba: u64,
        blocks: u32,
        payload: Option<&[u8]>,
        stream: usize,
    ) -> Result<Ns, DeviceError> {
        let bytes = blocks as u64 * self.info.block_bytes as u64;
        let (first_unit, units) = self.lba_format.units(lba, blocks);
        self.flash.advance(now_ns);
        let busy = self.ctl.write_busy_ns(bytes);
        let start = self.ctl.start_command(now_ns, busy);
        let flash = &self.flash;
        // Merged sub-block units take a whole unit of buffer space.
        let admitted = self
            .buffer
            .admit_with(start, units * UNIT_BYTES, |die, id| {
                flash.current_end_ns(die, id)
            });
        if admitted > start {
            self.stats.buffer_stalls += 1;
        }
        // Map updates: a missing translation page is read in the background.
        self.translate(admitted, first_unit, units as u32, true);
        let dma_done = self.ctl.dma(admitted, bytes);
        let mut acked = dma_done.max(admitted + busy);
        if self.lba_format.is_emulated() {
            acked = acked.max(self.read_partial_units(admitted, lba, blocks));
        }
        let mut gc_done = 0;
        let group = self.map.stream_group(stream) as usize;
        let tag = self.fdp.as_ref().map(|f| f.tag_of(stream));
        // Latest program holding this write's data (write-through waits for it).
        let mut programmed = 0;
        for i in 0..units {
            let lpn = (first_unit + i) as u32;
            if self.map.needs_new_program_unit(stream) {
                if let Some(o) = self.collectors[group].on_host_program_unit(
                    &mut self.map,
                    &mut self.flash,
                    &mut self.data,
                    admitted,
                    &self.gc,
                    stream,
                ) {
                    gc_done = gc_done.max(o.done_ns);
                    self.busy_until_ns = self.busy_until_ns.max(o.erase_done_ns);
                    self.account_gc(&o, group, admitted);
                }
            }
            let least_busy = self.gc.least_busy;
            let flash = &self.flash;
            let Some(slot) = self.map.next_slot(stream, |d| {
                if least_busy {
                    flash.die_free_at_ns(d)
                } else {
                    0
                }
            }) else {
                return Err(DeviceError::NoSpace { command: "write" });
            };
            let merged = payload.map(|src| {
                let span = self.lba_format.span(lba, blocks, lpn as u64);
                self.merged_unit(self.map.lookup(lpn), span, src)
            });
            if let Some(old) = self.map.unmap(lpn) {
                if let Some(d) = self.data.as_mut() {
                    d.take(old as u64);
                }
            }
            self.map.map(lpn, slot);
            if let Some(t) = tag {
                self.map.set_tag(lpn, t);
            }
            if let Some(unit) = merged {
                self.data
                    .get_or_insert_with(|| BlockStore::new(UNIT_BYTES as u32))
                    .put(slot as u64, unit);
            }
            if self.map.staged_full(stream) {
                programmed = programmed.max(self.program_host(stream, acked));
            }
        }
        self.stats.host_write_bytes += bytes;
        if let Some(f) = self.fdp.as_mut() {
            f.add_host_bytes(bytes);
        }
        if self.write_mode == WriteBufferMode::WriteThrough {
            if self.map.staged_units(stream) > 0 {
                programmed = programmed.max(self.program_host(stream, acked));
            }
            return Ok(acked.max(gc_done).max(programmed));
        }
        Ok(acked.max(gc_done))
    }

    /// Programs host stream `stream`'s staged program unit (padded if partial).
    fn program_host(&mut self, stream: usize, ready_ns: Ns) -> Ns {
        let Some(unit) = self.map.take_staged(stream) else {
            return ready_ns;
        };
        let cached = match self.slc.as_mut() {
            Some(slc) => {
                let map = &self.map;
                let l = map.layout();
                let sb = l.superblock_of_slot(unit.first_slot);
                slc.place(
                    &mut self.flash,
                    ready_ns,
                    unit.die,
                    unit.first_slot / l.units_per_program_unit,
                    sb,
                    map.superblock_epoch(sb),
                    map.unmapped_units() * UNIT_BYTES,
                    |s| map.superblock_epoch(s),
                )
            }
            None => None,
        };
        let done = match cached {
            Some(done) => done,
            None => {
                self.stats.media_write_bytes += self.gc.program_unit_bytes;
                if let Some(f) = self.fdp.as_mut() {
                    f.add_media_bytes(self.gc.program_unit_bytes);
                }
                self.flash
                    .program(ready_ns, unit.die, self.gc.program_unit_bytes)
            }
        };
        // With read-first scheduling the program may be pushed back by reads
        // later: the buffer asks for its end again when the release comes due.
        let tag = self
            .flash
            .last_booked(unit.die)
            .filter(|&id| self.flash.current_end_ns(unit.die, id) == Some(done))
            .map(|id| (unit.die, id));
        self.buffer
            .release_tagged(done, unit.filled_units as u64 * UNIT_BYTES, tag);
        if self.lba_format.is_emulated() {
            let upu = self.map.layout().units_per_program_unit;
            // Bounded by the buffer's program units in flight; prune the ended.
            if self.programs_in_flight.len() >= self.programs_in_flight_limit {
                self.programs_in_flight.retain(|_, end| *end > ready_ns);
            }
            self.programs_in_flight.insert(unit.first_slot / upu, done);
        }
        self.busy_until_ns = self.busy_until_ns.max(done);
        let padding = self.map.layout().units_per_program_unit - unit.filled_units;
        self.stats.flush_padding_bytes += padding as u64 * UNIT_BYTES;
        done
    }

    /// Brings the map entries of `blocks` units from `lba` into the mapping
    /// cache (dirtied for writes and trims) and returns when they are in; gathered
    /// dirty write-backs are programmed a unit at a time. Without a mapping cache
    /// the map is in DRAM: `ready_ns`.
    fn translate(&mut self, ready_ns: Ns, lba: u64, blocks: u32, dirty: bool) -> Ns {
        let Some(mc) = self.map_cache.as_mut() else {
            return ready_ns;
        };
        let dies = self.map.layout().dies;
        let mut done = ready_ns;
        for page in mc.page_of(lba)..=mc.page_of(lba + blocks as u64 - 1) {
            let access = mc.access(page, dirty);
            if !access.hit {
                let die = page % dies;
                let read_ns = self.flash.timings.read_ns;
                let loaded = if dirty {
                    self.flash.read(ready_ns, die, mc.page_bytes)
                } else {
                    self.flash
                        .host_read_with(ready_ns, die, mc.page_bytes, read_ns)
                };
                done = done.max(loaded);
            }
            if access.evicted_dirty && mc.take_write_back_unit(self.gc.program_unit_bytes) {
                let die = mc.next_write_back_die;
                mc.next_write_back_die = (die + 1) % dies;
                self.flash
                    .program(ready_ns, die, self.gc.program_unit_bytes);
            }
        }
        done
    }

    /// Counts what a GC call of `group`'s collector did (at `now_ns`, for events).
    fn account_gc(&mut self, o: &GcOutcome, group: usize, now_ns: Ns) {
        if let Some(f) = self.fdp.as_mut() {
            f.add_media_bytes(o.programmed_bytes);
            f.add_erased_bytes(o.erases * self.erase_block_bytes);
            for r in self.collectors[group].relocations.drain(..) {
                f.media_reallocated(r.owner as usize, r.moved_units, now_ns);
            }
        } else {
            self.collectors[group].relocations.clear();
        }
        let s = &mut self.stats;
        s.gc_runs += o.started as u64;
        s.gc_steps += o.steps;
        s.gc_emergency += o.emergency as u64;
        s.gc_victims += o.victims;
        s.gc_copied_bytes += o.copied_units * UNIT_BYTES;
        s.gc_padding_bytes += o.padding_units * UNIT_BYTES;
        s.media_read_bytes += o.read_bytes;
        s.media_write_bytes += o.programmed_bytes;
        s.erases += o.erases;
        s.gc_stuck += o.stuck as u64;
    }

    fn trim(&mut self, now_ns: Ns, lba: u64, blocks: u32) -> Ns {
        let start = self.ctl.start_command(now_ns, self.ctl.write_command_ns);
        // Only units covered whole are deallocated (a partial unit keeps its data).
        let spu = self.lba_format.sectors_per_unit();
        let first = lba.div_ceil(spu);
        let end = (lba + blocks as u64) / spu;
        if end <= first {
            return start + self.ctl.write_command_ns;
        }
        self.translate(start, first, (end - first) as u32, true);
        for unit in first..end {
            if let Some(old) = self.map.unmap(unit as u32) {
                self.stats.trimmed_units += 1;
                if let Some(d) = self.data.as_mut() {
                    d.take(old as u64);
                }
            }
        }
        start + self.ctl.write_command_ns
    }

    fn flush(&mut self, now_ns: Ns) -> Ns {
        self.flash.advance(now_ns);
        let start = self.ctl.start_command(now_ns, self.ctl.write_command_ns);
        if self.write_mode == WriteBufferMode::PowerLossProtected {
            // The buffer is durable: nothing to wait for.
            return start + self.ctl.write_command_ns;
        }
        for stream in 0..self.host_streams {
            if self.map.staged_units(stream) > 0 {
                self.program_host(stream, start);
            }
        }
        let mut done = (start + self.ctl.write_command_ns).max({
            let flash = &self.flash;
            self.buffer
                .drained_at_with(|die, id| flash.current_end_ns(die, id))
        });
        for group in 0..self.collectors.len() {
            let o = self.collectors[group].flush(&mut self.map, &mut self.flash, start, &self.gc);
            self.account_gc(&o, group, start);
            done = done.max(o.done_ns);
        }
        done
    }

    /// Host data in program units still being filled (only in the DRAM buffer).
    fn staged_host_units(&self) -> u64 {
        (0..self.host_streams)
            .map(|s| self.map.staged_units(s) as u64)
            .sum()
    }

    /// Reclaim Unit Handle Update: each named handle's current reclaim unit is
    /// closed (its staged program unit padded and programmed first) so its next
    /// write opens an empty one.
    fn update_handles(&mut self, now_ns: Ns, pids: &[u16]) -> Result<Ns, DeviceError> {
        let Some(f) = self.fdp.as_ref() else {
            return Err(DeviceError::Unsupported {
                command: "reclaim unit handle update (FDP)",
                device: self.info.name.clone(),
            });
        };
        let mut streams = Vec::with_capacity(pids.len());
        for &pid in pids {
            let Some((group, handle)) = f.config().decode(pid) else {
                return Err(DeviceError::InvalidPlacement {
                    placement_id: pid,
                    reclaim_groups: f.config().reclaim_groups,
                    handles: f.config().handles.len() as u32,
                });
            };
            streams.push((pid, f.layout.host_stream(group, handle)));
        }
        self.flash.advance(now_ns);
        let start = self.ctl.start_command(now_ns, self.ctl.write_command_ns);
        let mut done = start + self.ctl.write_command_ns;
        for (pid, stream) in streams {
            if self.map.staged_units(stream) > 0 {
                done = done.max(self.program_host(stream, start));
            }
            let unwritten = self.map.close_early(stream);
            if unwritten > 0 {
                if let Some(f) = self.fdp.as_mut() {
                    f.not_fully_written(stream, pid, now_ns);
                }
            }
        }
        Ok(done)
    }
}

impl Device for FtlSsd {
    fn boxed_clone(&self) -> Option<Box<dyn Device>> {
        Some(Box::new(self.clone()))
    }

    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        if matches!(cmd, Command::Append { .. } | Command::Zone { .. }) {
            return Err(self.unsupported(cmd));
        }
        check_payload(cmd, &payload, self.info.block_bytes)?;
        match *cmd {
            Command::Read { lba, blocks } => self.check_range("read", lba, blocks)?,
            Command::Write { lba, blocks } => self.check_range("write", lba, blocks)?,
            Command::Trim { lba, blocks } => self.check_range("trim", lba, blocks)?,
            _ => {}
        }
        // Idle time before this command (nothing here can fail any more).
        if self.slc.is_some() {
            self.run_background(now_ns);
        }
        let done = self.dispatch(now_ns, cmd, payload)?;
        self.busy_until_ns = self.busy_until_ns.max(done.done_ns);
        Ok(done)
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        self.device_stats(elapsed_ns)
    }

    fn submit_placed(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        placement_id: u16,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        let Command::Write { lba, blocks } = *cmd else {
            return Err(DeviceError::Unsupported {
                command: match cmd {
                    Command::Read { .. } => "read with a data placement directive",
                    _ => "a data placement directive on a command other than write",
                },
                device: self.info.name.clone(),
            });
        };
        if self.fdp.is_none() {
            return Err(DeviceError::Unsupported {
                command: "write with a data placement directive (FDP)",
                device: self.info.name.clone(),
            });
        }
        check_payload(cmd, &payload, self.info.block_bytes)?;
        self.check_range("write", lba, blocks)?;
        let stream = self
            .fdp
            .as_mut()
            .expect("checked")
            .stream_for_pid(placement_id, now_ns);
        let src = match payload {
            Payload::Write(src) => Some(src),
            _ => None,
        };
        let done_ns = self.write(now_ns, lba, blocks, src, stream)?;
        self.busy_until_ns = self.busy_until_ns.max(done_ns);
        Ok(Completion { done_ns, lba })
    }

    fn fdp(&self) -> Option<FdpReport> {
        self.fdp.as_ref().map(|f| f.report(&self.map, UNIT_BYTES))
    }

    fn fdp_update(&mut self, now_ns: Ns, placement_ids: &[u16]) -> Result<Completion, DeviceError> {
        Ok(Completion {
            done_ns: self.update_handles(now_ns, placement_ids)?,
            lba: 0,
        })
    }
}

impl FtlSsd {
    /// A validated command's effect and completion.
    fn dispatch(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        match *cmd {
            Command::Read { lba, blocks } => {
                let out = match payload {
                    Payload::Read(out) => Some(out),
                    _ => None,
                };
                Ok(Completion {
                    done_ns: self.read(now_ns, lba, blocks, out),
                    lba,
                })
            }
            Command::Write { lba, blocks } => {
                let src = match payload {
                    Payload::Write(src) => Some(src),
                    _ => None,
                };
                Ok(Completion {
                    done_ns: self.write(now_ns, lba, blocks, src, HOST)?,
                    lba,
                })
            }
            Command::Trim { lba, blocks } => Ok(Completion {
                done_ns: self.trim(now_ns, lba, blocks),
                lba,
            }),
            Command::Flush => Ok(Completion {
                done_ns: self.flush(now_ns),
                lba: 0,
            }),
            Command::Append { .. } | Command::Zone { .. } => Err(self.unsupported(cmd)),
        }
    }

    fn device_stats(&self, elapsed_ns: Ns) -> DeviceStats {
        let s = &self.stats;
        let slc = self.slc.as_ref().map(|c| c.counters).unwrap_or_default();
        let mc = self
            .map_cache
            .as_ref()
            .map(|c| c.counters)
            .unwrap_or_default();
        let mut st = DeviceStats {
            host_read_bytes: s.host_read_bytes,
            host_write_bytes: s.host_write_bytes,
            media_read_bytes: s.media_read_bytes + slc.media_read_bytes + mc.translation_read_bytes,
            media_write_bytes: s.media_write_bytes
                + slc.media_write_bytes
                + mc.translation_write_bytes,
            gc_runs: s.gc_runs,
            gc_copied_bytes: s.gc_copied_bytes,
            erases: s.erases + slc.erases,
            // Host data of the program units being filled: only in the DRAM buffer.
            buffered_write_bytes: self.staged_host_units() * UNIT_BYTES,
            ..Default::default()
        };
        add_utilisation(&mut st, &self.flash, &self.ctl, elapsed_ns);
        let (free, open, closed, victim) = self.map.superblock_counts();
        let c = &mut st.counters;
        c.insert("superblocks".into(), self.map.layout().superblocks as u64);
        c.insert("free_superblocks".into(), free as u64);
        c.insert("open_superblocks".into(), open as u64);
        c.insert("closed_superblocks".into(), closed as u64);
        c.insert("victim_superblocks".into(), victim as u64);
        c.insert(
            "gc_active".into(),
            self.collectors.iter().any(|g| g.is_active()) as u64,
        );
        c.insert("mapped_bytes".into(), self.map.mapped_units() * UNIT_BYTES);
        c.insert(
            "physical_bytes".into(),
            self.map.layout().physical_units() * UNIT_BYTES,
        );
        c.insert("gc_victims".into(), s.gc_victims);
        c.insert("gc_steps".into(), s.gc_steps);
        c.insert("gc_emergency_runs".into(), s.gc_emergency);
        c.insert("gc_padding_bytes".into(), s.gc_padding_bytes);
        c.insert("gc_stuck".into(), s.gc_stuck);
        c.insert("flush_padding_bytes".into(), s.flush_padding_bytes);
        c.insert("write_buffer_stalls".into(), s.buffer_stalls);
        c.insert("buffer_read_units".into(), s.buffer_read_units);
        c.insert("unmapped_read_units".into(), s.unmapped_read_units);
        c.insert("trimmed_units".into(), s.trimmed_units);
        if self.lba_format.is_emulated() {
            c.insert("sub_block_read_units".into(), s.sub_block_read_units);
            c.insert("sub_block_write_units".into(), s.sub_block_write_units);
            c.insert("sub_block_rmw_units".into(), s.sub_block_rmw_units);
        }
        if let Some(cache) = &self.map_cache {
            c.insert("map_cache_pages".into(), cache.capacity_pages() as u64);
            c.insert("map_cache_hits".into(), mc.hits);
            c.insert("map_cache_misses".into(), mc.misses);
            c.insert("map_cache_dirty_evictions".into(), mc.dirty_evictions);
            c.insert("translation_read_bytes".into(), mc.translation_read_bytes);
            c.insert("translation_write_bytes".into(), mc.translation_write_bytes);
        }
        if self.scheduling_on() {
            let d = self.flash.scheduling_counters();
            c.insert("reads_ahead_of_programs".into(), d.reads_ahead);
            c.insert("program_suspends".into(), d.program_suspends);
            c.insert("erase_suspends".into(), d.erase_suspends);
            c.insert("suspend_limit_waits".into(), d.suspend_limit_waits);
            c.insert("resume_overhead_ns".into(), d.resume_overhead_ns);
            let w = self.flash.host_read_waits();
            c.insert("host_flash_reads".into(), w.reads);
            c.insert("read_die_wait_ns".into(), w.die_wait_ns);
            c.insert("read_channel_wait_ns".into(), w.channel_wait_ns);
            c.insert("read_link_wait_ns".into(), s.read_link_wait_ns);
        }
        if let Some(cache) = &self.slc {
            let free_user = self.map.unmapped_units() * UNIT_BYTES;
            c.insert("slc_capacity_bytes".into(), cache.capacity_bytes(free_user));
            c.insert("slc_held_bytes".into(), cache.held_bytes());
            c.insert("slc_written_bytes".into(), slc.slc_written_bytes);
            c.insert("slc_direct_written_bytes".into(), slc.direct_written_bytes);
            c.insert("slc_folded_bytes".into(), slc.folded_bytes);
            c.insert("slc_background_folds".into(), slc.background_folds);
            c.insert("slc_write_path_folds".into(), slc.write_path_folds);
            c.insert("slc_stale_drops".into(), slc.stale_drops);
            c.insert("slc_erases".into(), slc.erases);
        }
        if let Some(f) = &self.fdp {
            let fs = f.statistics();
            let ev = f.event_counts();
            c.insert(
                "fdp_host_bytes_with_metadata_written".into(),
                fs.host_bytes_with_metadata_written,
            );
            c.insert(
                "fdp_media_bytes_with_metadata_written".into(),
                fs.media_bytes_with_metadata_written,
            );
            c.insert("fdp_media_bytes_erased".into(), fs.media_bytes_erased);
            c.insert(
                "fdp_events_ru_not_fully_written".into(),
                ev.reclaim_unit_not_fully_written,
            );
            c.insert(
                "fdp_events_invalid_placement_id".into(),
                ev.invalid_placement_identifier,
            );
            c.insert("fdp_events_media_reallocated".into(), ev.media_reallocated);
            c.insert(
                "fdp_reclaim_unit_bytes".into(),
                f.config().reclaim_unit_bytes,
            );
        }
        st.finish()
    }
}
