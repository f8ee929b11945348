//! The ConZone zoned device (§3, Figs. 3-6): zone rules from [`ZoneSet`], shared
//! write buffers, SLC secondary buffer, hybrid mapping with an L2P cache, zone
//! reset erasing the zone's regular blocks and invalidating its SLC data, and SLC
//! GC. Writes are acknowledged once in the write buffer (reference code:
//! early completion); reads pay the firmware cost, the L2P lookup (mapping-page
//! fetches on a miss), the flash reads and the host transfer.

mod read_path;
mod slc_reclaim;
mod write_path;
mod zone_mgmt;

use super::config::{
    ConZoneProfile, Geometry, MappingPolicy, MissHandling, SlcManagement, SlcStaging,
    LOGICAL_PAGE_BYTES,
};
use super::hardware::{Cells, FlashReadBatch, Hardware, Issuer};
use super::l2p_cache::{key, Gran, L2pCache};
use super::slc::{owner, owner_lpn, SlcArea};
use super::write_buffer::{Choice, WriteBuffers};
use super::zone_map::{ZoneMap, REGULAR, UNMAPPED};
use crate::block_store::BlockStore;
use crate::command::{Command, Completion, Payload, ZoneAction};
use crate::device::{check_payload, round6, Device, DeviceInfo, DeviceStats, ZonedInfo};
use crate::error::DeviceError;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
use crate::zoned::{ZoneDescriptor, ZoneLayout, ZoneSet};
use zonelab_engine::Ns;

/// Namespace id of the zoned namespace in L2P keys and SLC owners.
pub const ZONED_NS: u8 = 1;
/// Mapping entries per 4 KiB mapping page (4-byte entries, §3.3).
const ENTRIES_PER_MAP_PAGE: u64 = 1024;

/// Payload keys: where a page's bytes live.
const KEY_BUF: u64 = 1 << 60;
const KEY_SLC: u64 = 2 << 60;
const KEY_REG: u64 = 3 << 60;

/// Counters of the zoned device.
#[derive(Debug, Default, Clone, Copy)]
pub struct ZonedCounts {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub l2p_hits: u64,
    pub l2p_misses: u64,
    pub buffer_read_hits: u64,
    pub unmapped_reads: u64,
    pub full_flushes: u64,
    pub premature_flushes: u64,
    pub buffer_conflicts: u64,
    pub slc_flush_pages: u64,
    pub regular_flush_pages: u64,
    pub merged_slc_pages: u64,
    pub migrated_pages: u64,
    pub gc_copied_pages: u64,
    pub slc_gc_runs: u64,
    /// SLC superblocks migrated to regular blocks (QLC, everything staged).
    pub migrations: u64,
    /// Host writes held back because a migration was in flight when SLC ran
    /// low, and the time they waited (reference `pending_for_migrating`).
    pub migration_stalls: u64,
    pub migration_stall_ns: u64,
    pub zone_resets: u64,
    pub zone_finishes: u64,
    pub host_flushes: u64,
}

/// The zoned ConZone device.
pub struct ConZone {
    info: DeviceInfo,
    g: Geometry,
    zones: ZoneSet,
    zone_size: u64,
    zone_chips: u32,
    hw: Hardware,
    map: ZoneMap,
    cache: L2pCache,
    wb: WriteBuffers,
    slc: SlcArea,
    data: Option<BlockStore>,
    /// Inside SLC GC: superblocks emptied now count as GC erases.
    in_gc: bool,
    /// SLC ran low while a migration was in flight: the next host write waits
    /// for it (reference `pending_for_migrating`, `zms_read_write.c:2396-2399`).
    migration_pending: bool,
    pub counts: ZonedCounts,
}

impl ConZone {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: ConZoneProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    pub fn new(p: ConZoneProfile, source_name: &str) -> Result<Self, ProfileError> {
        let g = p.validate(source_name)?;
        let v = Validator::new(source_name);
        let Some(z) = p.zones.as_ref() else {
            return Err(v.out_of_range(
                "zones",
                "missing",
                "a [zones] section for model conzone".into(),
            ));
        };
        if z.zone_chips == 1 {
            v.check(
                "zones.zone_count",
                z.zone_count,
                z.zone_count.is_multiple_of(g.chips),
                &format!("a multiple of the {} chips in sub-block mode", g.chips),
            )?;
        }
        if g.slc_management == SlcManagement::Zone {
            // zonedslc: every active zone may hold an open SLC superblock, and GC
            // needs its reserve on top.
            let active = if z.max_active_zones == 0 {
                z.zone_count
            } else {
                z.max_active_zones
            };
            let need = active + g.slc_gc_free + 1;
            v.check(
                "slc.blocks_per_chip",
                g.slc_blocks_per_chip,
                g.slc_blocks_per_chip >= need,
                &format!(
                    "at least {need} with management = \"zone\" (max active zones {active} + gc_free_superblocks {} + 1)",
                    g.slc_gc_free
                ),
            )?;
        }
        let cap = g.block_pages * z.zone_chips as u64;
        v.check(
            "l2p.chunk_mib",
            p.l2p.chunk_mib,
            cap.is_multiple_of(g.chunk_pages),
            &format!("a divisor of the {} MiB zone capacity", cap * 4 / 1024),
        )?;
        // §4.4: zone capacity need not be a power of two; the zone size is the next
        // power of two and the rest of it is unused LBA space.
        let zone_size = cap.next_power_of_two();
        let layout = ZoneLayout {
            zone_count: z.zone_count,
            zone_size_blocks: zone_size,
            zone_capacity_blocks: cap,
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
            block_bytes: LOGICAL_PAGE_BYTES as u32,
            capacity_blocks: zones.capacity_blocks(),
            zoned: Some(ZonedInfo {
                zone_count: z.zone_count,
                zone_size_blocks: zone_size,
                zone_capacity_blocks: cap,
                conventional_zones: 0,
                max_open_zones: z.max_open_zones,
                max_active_zones: z.max_active_zones,
            }),
        };
        Ok(Self {
            info,
            hw: Hardware::new(&g),
            map: ZoneMap::new(
                z.zone_count,
                cap,
                g.chunk_pages,
                g.subzone_pages,
                g.mapping,
                g.slc_management == SlcManagement::Zone && g.staging == SlcStaging::All,
            ),
            cache: L2pCache::new(g.cache_entries, g.cache_buckets),
            wb: WriteBuffers::new(g.buffer_count, g.buffer_pages, g.buffer_mapping),
            slc: SlcArea::new(
                g.slc_blocks_per_chip,
                g.chips,
                g.slc_block_pages,
                g.slc_unit_pages,
            ),
            zones,
            zone_size,
            zone_chips: z.zone_chips,
            data: None,
            in_gc: false,
            migration_pending: false,
            counts: ZonedCounts::default(),
            g,
        })
    }

    /// Swaps the hardware and L2P cache with `hw` / `cache` (ConZone+ runs two
    /// namespaces' controllers on one shared medium, §4).
    pub fn swap_shared(&mut self, hw: &mut Hardware, cache: &mut L2pCache) {
        std::mem::swap(&mut self.hw, hw);
        std::mem::swap(&mut self.cache, cache);
    }

    /// Empties the volatile L2P cache, as a power cycle does (experiments that
    /// need reads to start from a cold cache, docs/conzone.md).
    pub fn drop_l2p_cache(&mut self) {
        self.cache.clear();
    }

    pub fn geometry(&self) -> &Geometry {
        &self.g
    }

    pub fn zone_capacity_pages(&self) -> u64 {
        self.map.cap
    }

    /// Where a mapped page lives, for tests: `None` if unmapped, `Some(None)` in a
    /// write buffer, `Some(Some((slc, index)))` on flash.
    pub fn locate(&self, lba: u64) -> Option<Option<(bool, u64)>> {
        let zone = (lba / self.zone_size) as u32;
        let off = lba % self.zone_size;
        if zone >= self.info.zoned.as_ref()?.zone_count || off >= self.map.cap {
            return None;
        }
        if self.wb.buffers.iter().any(|b| b.holds(zone, off)) {
            return Some(None);
        }
        match self.map.get(zone, off) {
            UNMAPPED => None,
            REGULAR => Some(Some((false, zone as u64 * self.map.cap + off))),
            ppn => Some(Some((true, ppn))),
        }
    }

    /// Checks the internal invariants (tests call it after every operation).
    pub fn check_invariants(&self) -> Result<(), String> {
        let zc = self.info.zoned.as_ref().map_or(0, |z| z.zone_count);
        for zone in 0..zc {
            let reg = self.map.reg_end[zone as usize];
            let run = self.map.slc_run[zone as usize];
            if !reg.is_multiple_of(self.g.unit_pages) && reg != self.map.cap {
                return Err(format!(
                    "zone {zone}: regular prefix {reg} is not whole program units"
                ));
            }
            for off in 0..self.map.cap {
                let e = self.map.get(zone, off);
                let want_reg = off < reg;
                let want_slc = off >= reg && off < reg + run;
                match e {
                    REGULAR if !want_reg => {
                        return Err(format!(
                            "zone {zone} page {off}: regular beyond prefix {reg}"
                        ))
                    }
                    UNMAPPED if want_reg || want_slc => {
                        return Err(format!(
                            "zone {zone} page {off}: unmapped inside mapped range"
                        ))
                    }
                    REGULAR | UNMAPPED => {}
                    ppn => {
                        if !want_slc {
                            return Err(format!(
                                "zone {zone} page {off}: SLC page outside the SLC run"
                            ));
                        }
                        let o = self.slc.owner_of(ppn);
                        if o != owner(ZONED_NS, zone as u64 * self.map.cap + off) {
                            return Err(format!(
                                "zone {zone} page {off}: SLC page {ppn} owned by {o:#x}"
                            ));
                        }
                    }
                }
            }
            let wp = self.zones.write_pointer(zone) - self.zones.zone_start(zone);
            let buffered: u64 = self
                .wb
                .buffers
                .iter()
                .filter(|b| b.zone == Some(zone))
                .map(|b| {
                    if b.start != reg + run {
                        u64::MAX
                    } else {
                        b.pages
                    }
                })
                .sum();
            let state = self.zones.state(zone);
            if buffered == u64::MAX {
                return Err(format!(
                    "zone {zone}: buffer does not start at the mapped end"
                ));
            }
            if state != crate::zoned::ZoneState::Full && reg + run + buffered != wp {
                return Err(format!(
                    "zone {zone}: regular {reg} + SLC {run} + buffered {buffered} != write pointer {wp}"
                ));
            }
        }
        let valid_total = self.slc.valid_pages_total();
        let run_total: u64 = self.map.slc_run.iter().sum();
        if valid_total != run_total {
            return Err(format!(
                "SLC holds {valid_total} valid pages but zones map {run_total}"
            ));
        }
        Ok(())
    }

    #[inline]
    fn lpn(&self, zone: u32, off: u64) -> u64 {
        zone as u64 * self.map.cap + off
    }

    #[inline]
    fn lba(&self, zone: u32, off: u64) -> u64 {
        zone as u64 * self.zone_size + off
    }

    /// Chip holding regular page `off` of `zone`: zones stripe program units over
    /// their chips (§3.2 "the write pointer moves to the next flash block after
    /// programming one unit").
    #[inline]
    fn reg_chip(&self, zone: u32, off: u64) -> u32 {
        if self.zone_chips == 1 {
            zone % self.g.chips
        } else {
            ((off / self.g.unit_pages) % self.g.chips as u64) as u32
        }
    }

    fn move_payload(&mut self, from: u64, to: u64) {
        if let Some(d) = self.data.as_mut() {
            if let Some(b) = d.take(from) {
                d.put(to, b);
            }
        }
    }
}

impl ConZone {
    fn store_write(&mut self, lba: u64, bytes: &[u8]) {
        let d = self
            .data
            .get_or_insert_with(|| BlockStore::new(LOGICAL_PAGE_BYTES as u32));
        for (i, chunk) in bytes.chunks_exact(LOGICAL_PAGE_BYTES as usize).enumerate() {
            d.put(KEY_BUF | (lba + i as u64), chunk.into());
        }
    }

    /// Reads payload bytes of `lba..` from wherever each page lives.
    fn store_read(&self, lba: u64, out: &mut [u8]) {
        let Some(d) = self.data.as_ref() else {
            out.fill(0);
            return;
        };
        for (i, chunk) in out
            .chunks_exact_mut(LOGICAL_PAGE_BYTES as usize)
            .enumerate()
        {
            let l = lba + i as u64;
            let k = match self.locate(l) {
                None => None,
                Some(None) => Some(KEY_BUF | l),
                Some(Some((true, ppn))) => Some(KEY_SLC | ppn),
                Some(Some((false, lpn))) => Some(KEY_REG | lpn),
            };
            match k {
                Some(k) => d.read(k, chunk),
                None => chunk.fill(0),
            }
        }
    }
}

impl ConZone {
    /// Statistics with the given hardware and L2P cache (the shared ones when
    /// this controller is a ConZone+ namespace).
    pub fn stats_with(&self, hw: &Hardware, cache: &L2pCache, elapsed_ns: Ns) -> DeviceStats {
        let c = &self.counts;
        let ops = &hw.ops;
        let mut st = DeviceStats {
            host_read_bytes: c.host_read_bytes,
            host_write_bytes: c.host_write_bytes,
            media_read_bytes: (ops.slc_read_pages + ops.regular_read_pages) * LOGICAL_PAGE_BYTES,
            media_write_bytes: (ops.slc_program_pages + ops.regular_program_pages)
                * LOGICAL_PAGE_BYTES,
            gc_runs: c.slc_gc_runs,
            gc_copied_bytes: c.gc_copied_pages * LOGICAL_PAGE_BYTES,
            erases: ops.slc_erases + ops.regular_erases,
            zone_resets: c.zone_resets,
            zone_finishes: c.zone_finishes,
            // Acknowledged (early completion) but not yet flushed to SLC or
            // regular blocks.
            buffered_write_bytes: self.wb.buffers.iter().map(|b| b.pages).sum::<u64>()
                * LOGICAL_PAGE_BYTES,
            ..Default::default()
        };
        let (chip, chan, link) = hw.utilisation(elapsed_ns);
        st.utilisation.insert("chip".into(), round6(chip));
        st.utilisation.insert("channel".into(), round6(chan));
        st.utilisation.insert("host_link".into(), round6(link));
        for (k, v) in [
            ("l2p_hits", c.l2p_hits),
            ("l2p_misses", c.l2p_misses),
            ("l2p_evictions", cache.evictions),
            ("map_fetches", ops.map_fetches),
            ("buffer_read_hits", c.buffer_read_hits),
            ("unmapped_reads", c.unmapped_reads),
            ("full_flushes", c.full_flushes),
            ("premature_flushes", c.premature_flushes),
            ("buffer_conflicts", c.buffer_conflicts),
            ("slc_flush_pages", c.slc_flush_pages),
            ("regular_flush_pages", c.regular_flush_pages),
            ("merged_slc_pages", c.merged_slc_pages),
            ("migrated_pages", c.migrated_pages),
            ("migrations", c.migrations),
            ("migration_stalls", c.migration_stalls),
            ("migration_stall_ns", c.migration_stall_ns),
            ("slc_gc_runs", c.slc_gc_runs),
            ("slc_program_pages", ops.slc_program_pages),
            ("regular_program_pages", ops.regular_program_pages),
            ("slc_erases", ops.slc_erases),
            ("regular_erases", ops.regular_erases),
            ("slc_direct_erases", self.slc.direct_erases),
            ("slc_gc_erases", self.slc.gc_erases),
            ("host_flushes", c.host_flushes),
        ] {
            st.counters.insert(k.into(), v);
        }
        st.finish()
    }
}

impl Device for ConZone {
    fn info(&self) -> &DeviceInfo {
        &self.info
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
                let done = self.read(now_ns, lba, blocks)?;
                if let Payload::Read(out) = payload {
                    self.store_read(lba, out);
                }
                Ok(Completion { done_ns: done, lba })
            }
            Command::Write { lba, blocks } => {
                let w = self.zones.write(lba, blocks)?;
                if let Payload::Write(bytes) = payload {
                    self.store_write(w.lba, bytes);
                }
                let done = self.write(now_ns, w.zone, w.lba, blocks)?;
                Ok(Completion {
                    done_ns: done,
                    lba: w.lba,
                })
            }
            Command::Append { zone_lba, blocks } => {
                let w = self.zones.append(zone_lba, blocks)?;
                if let Payload::Write(bytes) = payload {
                    self.store_write(w.lba, bytes);
                }
                let done = self.write(now_ns, w.zone, w.lba, blocks)?;
                Ok(Completion {
                    done_ns: done,
                    lba: w.lba,
                })
            }
            Command::Flush => Ok(Completion {
                done_ns: self.host_flush(now_ns)?,
                lba: 0,
            }),
            Command::Trim { .. } => Err(DeviceError::Unsupported {
                command: "trim",
                device: self.info.name.clone(),
            }),
            Command::Zone { action, zone_lba } => Ok(Completion {
                done_ns: self.zone_command(now_ns, action, zone_lba)?,
                lba: zone_lba,
            }),
        }
    }

    fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        Ok(self.zones.report(first, max))
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        self.stats_with(&self.hw, &self.cache, elapsed_ns)
    }
}
