//! The ConZone zoned device (§3, Figs. 3-6): zone rules from [`ZoneSet`], shared
//! write buffers, SLC secondary buffer, hybrid mapping with an L2P cache, zone
//! reset erasing the zone's regular blocks and invalidating its SLC data, and SLC
//! GC. Writes are acknowledged once in the write buffer (reference code:
//! early completion); reads pay the firmware cost, the L2P lookup (mapping-page
//! fetches on a miss), the flash reads and the host transfer.

use super::config::{
    ConZoneProfile, Geometry, MissHandling, SlcManagement, SlcStaging, LOGICAL_PAGE_BYTES,
};
use super::hardware::{Cells, Hardware, Issuer};
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
            map: ZoneMap::new(z.zone_count, cap, g.chunk_pages, g.mapping),
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

    // ---------------------------------------------------------------- writes

    fn write(&mut self, now: Ns, zone: u32, lba: u64, blocks: u32) -> Result<Ns, DeviceError> {
        self.hw.advance(now);
        let mut t = self.hw.admit(now);
        let mut off = lba - self.zones.zone_start(zone);
        let mut left = blocks as u64;
        while left > 0 {
            let idx = loop {
                match self.wb.choose(zone) {
                    Choice::Use(i) => break i,
                    Choice::Evict(i) => {
                        self.counts.buffer_conflicts += 1;
                        self.flush_buffer(i, t)?;
                    }
                }
            };
            t = t.max(self.wb.buffers[idx].busy_until_ns);
            let cap = self.wb.capacity_pages;
            let b = &mut self.wb.buffers[idx];
            if b.zone.is_none() {
                b.zone = Some(zone);
                b.start = off;
                b.pages = 0;
            }
            let n = left.min(cap - b.pages);
            b.pages += n;
            t += self.g.fw_wbuf_ns + self.g.fw_wbuf_per_4kib_ns * n;
            t = self.hw.host_transfer(t, n * LOGICAL_PAGE_BYTES);
            if self.wb.buffers[idx].pages == cap {
                self.flush_buffer(idx, t)?;
            }
            off += n;
            left -= n;
        }
        self.counts.host_write_bytes += blocks as u64 * LOGICAL_PAGE_BYTES;
        self.hw.complete(t);
        Ok(t)
    }

    /// Flushes buffer `idx` from `ready`; it is busy until the programs complete.
    fn flush_buffer(&mut self, idx: usize, ready: Ns) -> Result<Ns, DeviceError> {
        let b = self.wb.buffers[idx];
        let Some(zone) = b.zone else {
            return Ok(ready);
        };
        if b.pages < self.wb.capacity_pages {
            self.counts.premature_flushes += 1;
        } else {
            self.counts.full_flushes += 1;
        }
        debug_assert_eq!(b.start, self.map.mapped(zone));
        let done = self.place(zone, b.start, b.pages, ready)?;
        let nb = &mut self.wb.buffers[idx];
        nb.zone = None;
        nb.pages = 0;
        nb.start = 0;
        nb.busy_until_ns = nb.busy_until_ns.max(done);
        Ok(done)
    }

    /// Places `n` buffered pages of `zone` from offset `first` (§3.2, Fig. 4):
    /// whole program units go to regular blocks, merging SLC-resident pages of the
    /// zone first; a remainder smaller than a program unit goes to SLC.
    fn place(&mut self, zone: u32, first: u64, n: u64, ready: Ns) -> Result<Ns, DeviceError> {
        let unit = self.g.unit_pages;
        let mut done = ready;
        let mut i = 0;
        while i < n {
            let rem = n - i;
            let run = self.map.slc_run[zone as usize];
            if self.g.staging == SlcStaging::All || run + rem < unit {
                done = done.max(self.write_slc(zone, first + i, rem, ready)?);
                i = n;
            } else {
                let k = unit - run;
                let read_done = self.read_slc_run(zone, run, ready);
                self.counts.merged_slc_pages += run;
                done = done.max(self.program_unit(zone, ready.max(read_done)));
                i += k;
            }
        }
        if self.slc.free_count() <= self.g.slc_gc_free {
            done = done.max(self.slc_gc(ready)?);
        }
        Ok(done)
    }

    /// Writes `n` pages of `zone` from `first` to SLC (4 KiB partial programs).
    fn write_slc(&mut self, zone: u32, first: u64, n: u64, ready: Ns) -> Result<Ns, DeviceError> {
        let mut done = ready;
        let mut group: Option<(u32, u64, u64)> = None; // (chip, flash page, pages)
        for off in first..first + n {
            let lpn = self.lpn(zone, off);
            let ppn = self.alloc_slc(owner(ZONED_NS, lpn), zone, ready)?;
            self.map.set(zone, off, ppn);
            let lba = self.lba(zone, off);
            self.move_payload(KEY_BUF | lba, KEY_SLC | ppn);
            let (chip, fp) = (self.slc.chip_of(ppn), self.slc.flash_page_of(ppn));
            match group.as_mut() {
                Some(g) if g.0 == chip && g.1 == fp => g.2 += 1,
                _ => {
                    if let Some((c, _, p)) = group {
                        done = done.max(self.hw.program(ready, c, p, Cells::Slc));
                    }
                    group = Some((chip, fp, 1));
                }
            }
        }
        if let Some((c, _, p)) = group {
            done = done.max(self.hw.program(ready, c, p, Cells::Slc));
        }
        self.map.slc_run[zone as usize] += n;
        self.counts.slc_flush_pages += n;
        Ok(done)
    }

    /// SLC allocation stream of `zone`: shared (pageslc) or the zone's own.
    #[inline]
    fn slc_stream(&self, zone: u32) -> u64 {
        match self.g.slc_management {
            SlcManagement::Page => 0,
            SlcManagement::Zone => zone as u64 + 1,
        }
    }

    fn alloc_slc(&mut self, o: u64, zone: u32, ready: Ns) -> Result<u64, DeviceError> {
        let stream = self.slc_stream(zone);
        if let Some(p) = self.slc.alloc(o, stream) {
            return Ok(p);
        }
        self.slc_gc(ready)?;
        self.slc
            .alloc(o, stream)
            .ok_or(DeviceError::NoSpace { command: "write" })
    }

    /// Reads the first `pages` SLC pages of `zone`'s SLC run (to merge or migrate
    /// them); returns when the data is in the controller.
    fn read_slc_run(&mut self, zone: u32, pages: u64, ready: Ns) -> Ns {
        let base = self.map.reg_end[zone as usize];
        let mut done = ready;
        let mut group: Option<(u32, u64, u64)> = None;
        for off in base..base + pages {
            let ppn = self.map.get(zone, off);
            let (chip, fp) = (self.slc.chip_of(ppn), self.slc.flash_page_of(ppn));
            match group.as_mut() {
                Some(g) if g.0 == chip && g.1 == fp => g.2 += 1,
                _ => {
                    if let Some((c, _, p)) = group {
                        done = done.max(self.hw.read(ready, c, p, Cells::Slc));
                    }
                    group = Some((chip, fp, 1));
                }
            }
        }
        if let Some((c, _, p)) = group {
            done = done.max(self.hw.read(ready, c, p, Cells::Slc));
        }
        done
    }

    /// Programs the zone's next regular program unit: the SLC run's first pages
    /// (already read) followed by buffered pages. Updates the mapping, invalidates
    /// the SLC copies and aggregates mapping entries that became contiguous.
    fn program_unit(&mut self, zone: u32, ready: Ns) -> Ns {
        let unit = self.g.unit_pages;
        let first = self.map.reg_end[zone as usize];
        let chip = self.reg_chip(zone, first);
        let done = self.hw.program(ready, chip, unit, Cells::Regular);
        let run = self.map.slc_run[zone as usize];
        let from_slc = run.min(unit);
        for off in first..first + unit {
            let e = self.map.get(zone, off);
            let lpn = self.lpn(zone, off);
            if off < first + from_slc {
                self.invalidate_slc(e, ready);
                self.move_payload(KEY_SLC | e, KEY_REG | lpn);
            } else {
                let lba = self.lba(zone, off);
                self.move_payload(KEY_BUF | lba, KEY_REG | lpn);
            }
            self.map.set(zone, off, REGULAR);
        }
        self.map.slc_run[zone as usize] = run - from_slc;
        self.map.reg_end[zone as usize] = first + unit;
        self.counts.regular_flush_pages += unit - from_slc;
        self.aggregate(zone, first, first + unit);
        done
    }

    /// Inserts chunk / zone entries completed by regular pages `[from, to)` (§3.3:
    /// merged entries are cached when created; with pinning, §6.6, they are pinned
    /// and the entries they cover are evicted).
    fn aggregate(&mut self, zone: u32, from: u64, to: u64) {
        if self.map.policy == super::config::MappingPolicy::Page {
            return;
        }
        let cp = self.map.chunk_pages;
        let pin = self.g.pin_aggregated;
        for chunk in (from / cp)..to.div_ceil(cp) {
            if (chunk + 1) * cp <= to && (chunk + 1) * cp > from {
                let zc = zone as u64 * self.map.chunks_per_zone() + chunk;
                self.cache.insert(key(ZONED_NS, Gran::Chunk, zc), pin);
                if pin {
                    for off in chunk * cp..(chunk + 1) * cp {
                        let lpn = self.lpn(zone, off);
                        self.cache.remove(key(ZONED_NS, Gran::Page, lpn));
                    }
                }
            }
        }
        if to == self.map.cap {
            self.cache
                .insert(key(ZONED_NS, Gran::Zone, zone as u64), pin);
            if pin {
                for c in 0..self.map.chunks_per_zone() {
                    let zc = zone as u64 * self.map.chunks_per_zone() + c;
                    self.cache.remove(key(ZONED_NS, Gran::Chunk, zc));
                }
            }
        }
    }

    /// Invalidates SLC page `ppn`; an SLC superblock left with no valid page is
    /// erased directly (in the background from `at`).
    fn invalidate_slc(&mut self, ppn: u64, at: Ns) {
        if let Some(sb) = self.slc.invalidate(ppn) {
            for chip in 0..self.g.chips {
                self.hw.erase(at, chip, Cells::Slc);
            }
            self.slc.erase_done(sb, self.in_gc);
        }
    }

    /// SLC GC (§3.4): while free SLC superblocks are at or below the threshold,
    /// take the full superblock with the fewest valid pages, move its valid pages
    /// (to regular blocks when they complete a program unit of their zone, else to
    /// the SLC write frontier), and erase it.
    fn slc_gc(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        self.in_gc = true;
        self.hw.issuer = Issuer::Background;
        let r = self.slc_gc_inner(ready);
        self.hw.issuer = Issuer::User;
        self.in_gc = false;
        r
    }

    fn slc_gc_inner(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        let mut done = ready;
        while self.slc.free_count() <= self.g.slc_gc_free {
            let Some(victim) = self.slc.victim() else {
                break;
            };
            self.counts.slc_gc_runs += 1;
            // Migration first (§2.1): SLC runs move to regular blocks in whole
            // program units. pageslc moves the units holding the victim's pages;
            // zonedslc moves the zone's whole SLC run (§6.5).
            let mut zones: Vec<u32> = self
                .slc
                .valid_in(victim)
                .iter()
                .map(|&p| (owner_lpn(self.slc.owner_of(p)) / self.map.cap) as u32)
                .collect();
            zones.sort_unstable();
            zones.dedup();
            for zone in zones {
                while self.map.slc_run[zone as usize] >= self.g.unit_pages
                    && (self.g.slc_management == SlcManagement::Zone
                        || self.victim_holds(victim, zone))
                {
                    let unit = self.g.unit_pages;
                    let r = self.read_slc_run(zone, unit, ready);
                    self.counts.migrated_pages += unit;
                    done = done.max(self.program_unit(zone, r));
                }
            }
            if !self.slc.is_full(victim) {
                continue; // emptied by the migration and erased directly
            }
            if self.slc.valid_count(victim) >= self.slc.sb_pages() {
                break; // nothing to gain from copying
            }
            // The rest (tails shorter than a program unit) is copied within SLC.
            let rest = self.slc.valid_in(victim);
            for p in rest {
                let o = self.slc.owner_of(p);
                let lpn = owner_lpn(o);
                let (zone, off) = ((lpn / self.map.cap) as u32, lpn % self.map.cap);
                let chip = self.slc.chip_of(p);
                let r = self.hw.read(ready, chip, 1, Cells::Slc);
                // The victim is erased below, not here, even if this empties it.
                let _ = self.slc.invalidate(p);
                let stream = self.slc_stream(zone);
                let np = self
                    .slc
                    .alloc(o, stream)
                    .ok_or(DeviceError::NoSpace { command: "write" })?;
                let w = self.hw.program(r, self.slc.chip_of(np), 1, Cells::Slc);
                done = done.max(w);
                self.map.set(zone, off, np);
                self.move_payload(KEY_SLC | p, KEY_SLC | np);
                self.counts.gc_copied_pages += 1;
            }
            if self.slc.is_full(victim) && self.slc.valid_count(victim) == 0 {
                for chip in 0..self.g.chips {
                    done = done.max(self.hw.erase(done, chip, Cells::Slc));
                }
                self.slc.erase_done(victim, true);
            }
        }
        Ok(done)
    }

    /// Whether SLC superblock `sb` still holds a valid page of `zone`.
    fn victim_holds(&self, sb: u32, zone: u32) -> bool {
        self.slc.is_full(sb)
            && self
                .slc
                .valid_in(sb)
                .iter()
                .any(|&p| owner_lpn(self.slc.owner_of(p)) / self.map.cap == zone as u64)
    }

    // ----------------------------------------------------------------- reads

    fn read(&mut self, now: Ns, lba: u64, blocks: u32) -> Result<Ns, DeviceError> {
        let zone = self.zones.check_read(lba, blocks)?;
        self.hw.advance(now);
        let start = self.hw.admit(now);
        let bytes = blocks as u64 * LOGICAL_PAGE_BYTES;
        let t0 = start
            + if bytes <= LOGICAL_PAGE_BYTES {
                self.g.fw_read_4kib_ns
            } else {
                self.g.fw_read_ns
            };
        let mut map_t = t0;
        let mut done = t0;
        let mut fetched: Vec<u64> = Vec::new();
        // Pending flash read: (chip, flash page id, SLC?, pages, ready).
        let mut group: Option<(u32, u64, bool, u64, Ns)> = None;
        let zs = self.zones.zone_start(zone);
        let bound = self.wb.bound(zone);
        for off in (lba - zs)..(lba - zs + blocks as u64) {
            if off >= self.map.cap {
                self.counts.unmapped_reads += 1;
                continue;
            }
            if bound.is_some_and(|i| self.wb.buffers[i].holds(zone, off)) {
                self.counts.buffer_read_hits += 1;
                continue;
            }
            let e = self.map.get(zone, off);
            if e == UNMAPPED {
                self.counts.unmapped_reads += 1;
                continue;
            }
            if !self.l2p_lookup(zone, off) {
                map_t = self.l2p_miss(zone, off, map_t, &mut fetched);
            }
            let (chip, fp, slc) = if e == REGULAR {
                let lpn = self.lpn(zone, off);
                (
                    self.reg_chip(zone, off),
                    lpn / self.g.flash_page_pages,
                    false,
                )
            } else {
                (self.slc.chip_of(e), self.slc.flash_page_of(e), true)
            };
            match group.as_mut() {
                Some(g) if g.0 == chip && g.1 == fp && g.2 == slc && g.4 == map_t => g.3 += 1,
                _ => {
                    if let Some(g) = group {
                        done = done.max(self.issue_read(g));
                    }
                    group = Some((chip, fp, slc, 1, map_t));
                }
            }
        }
        if let Some(g) = group {
            done = done.max(self.issue_read(g));
        }
        let end = self.hw.host_transfer(done, bytes);
        self.counts.host_read_bytes += bytes;
        self.hw.complete(end);
        Ok(end)
    }

    fn issue_read(&mut self, g: (u32, u64, bool, u64, Ns)) -> Ns {
        let cells = if g.2 { Cells::Slc } else { Cells::Regular };
        self.hw.read(g.4, g.0, g.3, cells)
    }

    /// Looks `off` up in the L2P cache: zone, then chunk, then page entries
    /// (§3.3 step I). Counts a hit or a miss.
    fn l2p_lookup(&mut self, zone: u32, off: u64) -> bool {
        let lpn = self.lpn(zone, off);
        let hybrid = self.map.policy == super::config::MappingPolicy::Hybrid;
        let chunk = zone as u64 * self.map.chunks_per_zone() + off / self.map.chunk_pages;
        let hit = if hybrid {
            self.cache.lookup(key(ZONED_NS, Gran::Zone, zone as u64))
                || self.cache.lookup(key(ZONED_NS, Gran::Chunk, chunk))
                || self.cache.lookup(key(ZONED_NS, Gran::Page, lpn))
        } else {
            self.cache.lookup(key(ZONED_NS, Gran::Page, lpn))
        };
        if hit {
            self.counts.l2p_hits += 1;
        } else {
            self.counts.l2p_misses += 1;
        }
        hit
    }

    /// Fetches the mapping entry of `off` from flash (§3.3 steps 1-4) and caches
    /// it. BITMAP knows the granularity: one fetch. MULTIPLE tries zone, chunk and
    /// page entries in turn, one dependent fetch each. Returns when it is known.
    /// `fetched` lists the (search level, mapping page) pairs already read for the
    /// current request: a mapping page holds 1024 consecutive entries, so a large
    /// request pays one fetch per mapping page and level, not one per logical page.
    fn l2p_miss(&mut self, zone: u32, off: u64, ready: Ns, fetched: &mut Vec<u64>) -> Ns {
        let gran = self.map.gran(zone, off);
        let zone_first = self.lpn(zone, 0);
        let chunk_first = self.lpn(zone, off / self.map.chunk_pages * self.map.chunk_pages);
        let lpn = self.lpn(zone, off);
        let chain: Vec<u64> = match (self.map.policy, self.g.miss_handling, gran) {
            (super::config::MappingPolicy::Page, _, _) => vec![lpn],
            (_, MissHandling::Bitmap, Gran::Zone) => vec![zone_first],
            (_, MissHandling::Bitmap, Gran::Chunk) => vec![chunk_first],
            (_, MissHandling::Bitmap, Gran::Page) => vec![lpn],
            (_, MissHandling::Multiple, Gran::Zone) => vec![zone_first],
            (_, MissHandling::Multiple, Gran::Chunk) => vec![zone_first, chunk_first],
            (_, MissHandling::Multiple, Gran::Page) => vec![zone_first, chunk_first, lpn],
        };
        let mut t = ready;
        for (level, entry) in chain.into_iter().enumerate() {
            // Each level of the search is its own flash read (reference map_read);
            // a request does not re-read a (level, mapping page) it already read.
            let map_page = entry / ENTRIES_PER_MAP_PAGE;
            let tag = ((level as u64) << 60) | map_page;
            if fetched.contains(&tag) {
                continue;
            }
            fetched.push(tag);
            let chip = (map_page % self.g.chips as u64) as u32;
            t = self.hw.fetch_map(t, chip);
        }
        let la = match gran {
            Gran::Zone => zone as u64,
            Gran::Chunk => zone as u64 * self.map.chunks_per_zone() + off / self.map.chunk_pages,
            Gran::Page => lpn,
        };
        self.cache.insert(
            key(ZONED_NS, gran, la),
            self.g.pin_aggregated && gran != Gran::Page,
        );
        t
    }

    // ----------------------------------------------------- zone management

    fn reset(&mut self, now: Ns, zone_lba: u64) -> Result<Ns, DeviceError> {
        let written = self.zones.reset(zone_lba)?;
        let zone = self.zones.zone_of(zone_lba);
        self.hw.advance(now);
        let done = now + self.g.fw_wbuf_ns;
        if let Some(i) = self.wb.bound(zone) {
            let b = self.wb.buffers[i];
            let first = KEY_BUF | self.lba(zone, b.start);
            if let Some(d) = self.data.as_mut() {
                d.discard(first, b.pages);
            }
            let nb = &mut self.wb.buffers[i];
            nb.zone = None;
            nb.pages = 0;
        }
        let reg = self.map.reg_end[zone as usize];
        let run = self.map.slc_run[zone as usize];
        for off in reg..reg + run {
            let ppn = self.map.get(zone, off);
            if let Some(d) = self.data.as_mut() {
                d.take(KEY_SLC | ppn);
            }
            self.invalidate_slc(ppn, done);
        }
        for off in 0..reg + run {
            self.map.set(zone, off, UNMAPPED);
        }
        // zonedslc: the zone's open SLC superblock holds only its (now invalid)
        // data; it is erased directly.
        if self.g.slc_management == SlcManagement::Zone {
            if let Some(sb) = self.slc.close_stream(self.slc_stream(zone)) {
                for chip in 0..self.g.chips {
                    self.hw.erase(done, chip, Cells::Slc);
                }
                self.slc.erase_done(sb, false);
            }
        }
        for off in 0..written.max(reg + run) {
            let lpn = self.lpn(zone, off);
            self.cache.remove(key(ZONED_NS, Gran::Page, lpn));
        }
        for c in 0..self.map.chunks_per_zone() {
            let zc = zone as u64 * self.map.chunks_per_zone() + c;
            self.cache.remove(key(ZONED_NS, Gran::Chunk, zc));
        }
        self.cache.remove(key(ZONED_NS, Gran::Zone, zone as u64));
        if reg > 0 {
            // Erase the zone's regular blocks in the background (§3.4, E.2).
            let used_chips = if self.zone_chips == 1 {
                1
            } else {
                reg.div_ceil(self.g.unit_pages).min(self.g.chips as u64) as u32
            };
            for i in 0..used_chips {
                let chip = self.reg_chip(zone, i as u64 * self.g.unit_pages);
                self.hw.erase(done, chip, Cells::Regular);
            }
            let first = KEY_REG | self.lpn(zone, 0);
            if let Some(d) = self.data.as_mut() {
                d.discard(first, reg);
            }
        }
        self.map.reg_end[zone as usize] = 0;
        self.map.slc_run[zone as usize] = 0;
        self.counts.zone_resets += 1;
        Ok(done)
    }

    fn zone_command(
        &mut self,
        now: Ns,
        action: ZoneAction,
        zone_lba: u64,
    ) -> Result<Ns, DeviceError> {
        match action {
            ZoneAction::Open => {
                self.zones.open(zone_lba)?;
                Ok(now + self.g.fw_wbuf_ns)
            }
            ZoneAction::Close => {
                self.zones.close(zone_lba)?;
                Ok(now + self.g.fw_wbuf_ns)
            }
            ZoneAction::Finish => {
                self.zones.finish(zone_lba)?;
                let zone = self.zones.zone_of(zone_lba);
                self.counts.zone_finishes += 1;
                self.hw.advance(now);
                let mut done = now + self.g.fw_wbuf_ns;
                if let Some(i) = self.wb.bound(zone) {
                    done = done.max(self.flush_buffer(i, done)?);
                }
                Ok(done)
            }
            ZoneAction::Reset => self.reset(now, zone_lba),
        }
    }

    /// Host flush: every buffer is emptied (§3.1); completes when programmed.
    fn host_flush(&mut self, now: Ns) -> Result<Ns, DeviceError> {
        self.hw.advance(now);
        self.counts.host_flushes += 1;
        let mut done = now + self.g.fw_wbuf_ns;
        for i in 0..self.wb.buffers.len() {
            if self.wb.buffers[i].zone.is_some() {
                let t = self.flush_buffer(i, now)?;
                done = done.max(t);
            }
        }
        Ok(done)
    }

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
