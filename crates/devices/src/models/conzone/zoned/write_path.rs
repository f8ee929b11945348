//! Write path of the zoned device (§3.2, Fig. 4) and SLC GC / migration (§3.4,
//! §2.1, §6.5): write buffers, premature flushes to SLC, merges of SLC-resident
//! pages into regular program units, aggregation of mapping entries.

use super::*;

impl ConZone {
    // ---------------------------------------------------------------- writes

    pub(super) fn write(
        &mut self,
        now: Ns,
        zone: u32,
        lba: u64,
        blocks: u32,
    ) -> Result<Ns, DeviceError> {
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
    pub(super) fn flush_buffer(&mut self, idx: usize, ready: Ns) -> Result<Ns, DeviceError> {
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
    pub(super) fn place(
        &mut self,
        zone: u32,
        first: u64,
        n: u64,
        ready: Ns,
    ) -> Result<Ns, DeviceError> {
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
    pub(super) fn write_slc(
        &mut self,
        zone: u32,
        first: u64,
        n: u64,
        ready: Ns,
    ) -> Result<Ns, DeviceError> {
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
    pub(super) fn slc_stream(&self, zone: u32) -> u64 {
        match self.g.slc_management {
            SlcManagement::Page => 0,
            SlcManagement::Zone => zone as u64 + 1,
        }
    }

    pub(super) fn alloc_slc(&mut self, o: u64, zone: u32, ready: Ns) -> Result<u64, DeviceError> {
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
    pub(super) fn read_slc_run(&mut self, zone: u32, pages: u64, ready: Ns) -> Ns {
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
    pub(super) fn program_unit(&mut self, zone: u32, ready: Ns) -> Ns {
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
    pub(super) fn aggregate(&mut self, zone: u32, from: u64, to: u64) {
        if self.map.policy == MappingPolicy::Page {
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
    pub(super) fn invalidate_slc(&mut self, ppn: u64, at: Ns) {
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
    pub(super) fn slc_gc(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        self.in_gc = true;
        self.hw.issuer = Issuer::Background;
        let r = self.slc_gc_inner(ready);
        self.hw.issuer = Issuer::User;
        self.in_gc = false;
        r
    }

    pub(super) fn slc_gc_inner(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
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
    pub(super) fn victim_holds(&self, sb: u32, zone: u32) -> bool {
        self.slc.is_full(sb)
            && self
                .slc
                .valid_in(sb)
                .iter()
                .any(|&p| owner_lpn(self.slc.owner_of(p)) / self.map.cap == zone as u64)
    }
}
