//! Write path of the zoned device (§3.2, Fig. 4): write buffers, premature
//! flushes to SLC, merges of SLC-resident pages into regular program units,
//! mapping entries (inserted into the L2P cache at write time, aggregated when a
//! unit completes). SLC reclamation lives in [`super::slc_reclaim`].

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
        if self.migration_pending {
            // SLC ran low while a migration was in flight: host writes are
            // refused until every chip's migration ends (reference
            // `handle_write_request`, `zms_read_write.c:2897-2926`).
            self.migration_pending = false;
            let end = self.hw.migration_end_ns();
            if end > t {
                self.counts.migration_stalls += 1;
                self.counts.migration_stall_ns += end - t;
                t = end;
            }
        }
        let mut off = lba - self.zones.zone_start(zone);
        let mut left = blocks as u64;
        // A request keeps the buffer it started in: after filling and flushing it,
        // the rest waits for that flush (reference `handle_write_request` holds
        // `write_buffer` for the whole request and starts the next chunk at the
        // flush's completion, `zms_read_write.c:3005-3072`).
        let mut held: Option<usize> = None;
        while left > 0 {
            let idx = match held {
                Some(i) => i,
                None => loop {
                    match self.wb.choose(zone) {
                        Choice::Use(i) => break i,
                        Choice::Evict(i) => {
                            self.counts.buffer_conflicts += 1;
                            let b = self.wb.buffers[i];
                            self.flush_buffer(i, t.max(b.filled_ns).max(b.busy_until_ns))?;
                        }
                    }
                },
            };
            held = Some(idx);
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
            self.wb.buffers[idx].filled_ns = t;
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
    /// zone first; a remainder smaller than a program unit goes to SLC. Then SLC
    /// space is reclaimed if it ran low; the flush completes with its own
    /// programs, not with the reclamation it triggered (the reference's
    /// `buffer_flush` takes its completion from its `nand_write`s only: GC and
    /// migration run from `nand_write` without returning their times,
    /// `zms_read_write.c:1768-1785`).
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
            self.reclaim_slc(ready)?;
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
            let ppn = self.alloc_slc(owner(ZONED_NS, lpn), zone, off, ready)?;
            self.map.set(zone, off, ppn);
            self.map.slc_run[zone as usize] += 1;
            let lba = self.lba(zone, off);
            self.move_payload(KEY_BUF | lba, KEY_SLC | ppn);
            self.slc_page_written(zone, off);
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
        self.counts.slc_flush_pages += n;
        Ok(done)
    }

    /// L2P cache maintenance for a page just written to SLC (reference
    /// `update_or_reserve_mapping`, `zms_read_write.c:1569-1712`): a page-mapped
    /// write inserts its page entry (`set_map_gran(PAGE_MAP)`, line 1619); with
    /// sub-zone reservations only the sub-zone's first page does, and the
    /// sub-zone's last page turns it into a sub-zone entry (lines 1554-1565).
    fn slc_page_written(&mut self, zone: u32, off: u64) {
        if self.map.policy == MappingPolicy::Hybrid && self.slc_subzone_streams() {
            let sz = self.map.subzone_pages;
            if off % sz == 0 {
                self.cache_insert(zone, off, Gran::Page);
            } else if (off + 1) % sz == 0 && self.map.gran(zone, off) == Gran::SubZone {
                self.cache_replace(zone, off / sz * sz, Gran::Page, Gran::SubZone);
            }
        } else {
            self.cache_insert(zone, off, Gran::Page);
        }
    }

    /// Whether zone-managed SLC reserves a superblock per sub-zone (every write
    /// staged in SLC: reference `ZONED_SLC && !SLC_BYPASS`).
    #[inline]
    pub(super) fn slc_subzone_streams(&self) -> bool {
        self.g.slc_management == SlcManagement::Zone && self.g.staging == SlcStaging::All
    }

    /// SLC allocation stream of page `off` of `zone`: shared (pageslc), the
    /// zone's own, or its sub-zone's own (zonedslc staging every write).
    #[inline]
    pub(super) fn slc_stream(&self, zone: u32, off: u64) -> u64 {
        match self.g.slc_management {
            SlcManagement::Page => 0,
            SlcManagement::Zone if self.slc_subzone_streams() => {
                1 + zone as u64 * self.map.subzones_per_zone() + off / self.map.subzone_pages
            }
            SlcManagement::Zone => zone as u64 + 1,
        }
    }

    pub(super) fn alloc_slc(
        &mut self,
        o: u64,
        zone: u32,
        off: u64,
        ready: Ns,
    ) -> Result<u64, DeviceError> {
        let stream = self.slc_stream(zone, off);
        if let Some(p) = self.slc.alloc(o, stream) {
            return Ok(p);
        }
        self.reclaim_slc_forced(ready)?;
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
        self.regular_written(zone, first, first + unit);
        done
    }

    /// L2P cache maintenance for regular pages `[from, to)` just programmed
    /// (reference `update_or_reserve_mapping` / `update_mapping_if_reserved`):
    /// the zone's reservation inserts a page entry for its first page (line
    /// 1619); with page mapping every page gets its entry (the level loop starts
    /// at `PAGE_MAP`, lines 1548-1565); with hybrid mapping a completed chunk,
    /// sub-zone or zone becomes one entry replacing the finer entry that starts
    /// at the same page (the reference keeps one entry per start page and changes
    /// its granularity, `set_map_gran`, lines 1297-1316). With pinning (§6.6)
    /// aggregated entries are pinned and the entries they cover are evicted.
    pub(super) fn regular_written(&mut self, zone: u32, from: u64, to: u64) {
        if self.map.policy == MappingPolicy::Page {
            for off in from..to {
                self.cache_insert(zone, off, Gran::Page);
            }
            return;
        }
        if from == 0 {
            self.cache_insert(zone, 0, Gran::Page);
        }
        let pin = self.g.pin_aggregated;
        let (cp, sz) = (self.map.chunk_pages, self.map.subzone_pages);
        for chunk in (from / cp)..to.div_ceil(cp) {
            let end = (chunk + 1) * cp;
            if end <= to && end > from {
                self.cache_replace(zone, chunk * cp, Gran::Page, Gran::Chunk);
                if pin {
                    for off in chunk * cp..end {
                        let lpn = self.lpn(zone, off);
                        self.cache.remove(key(ZONED_NS, Gran::Page, lpn));
                    }
                }
            }
        }
        for sub in (from / sz)..to.div_ceil(sz) {
            let end = (sub + 1) * sz;
            if end <= to && end > from && end <= self.map.cap {
                self.cache_replace(zone, sub * sz, Gran::Chunk, Gran::SubZone);
                if pin {
                    for off in (sub * sz..end).step_by(cp as usize) {
                        let a = self.map.entry_address(zone, off, Gran::Chunk);
                        self.cache.remove(key(ZONED_NS, Gran::Chunk, a));
                    }
                }
            }
        }
        if to == self.map.cap {
            self.cache_replace(zone, 0, Gran::SubZone, Gran::Zone);
            // The zone entry covers everything: finer entries are redundant.
            for s in 0..self.map.subzones_per_zone() {
                let a = self.map.entry_address(zone, s * sz, Gran::SubZone);
                self.cache.remove(key(ZONED_NS, Gran::SubZone, a));
            }
            for c in 0..self.map.chunks_per_zone() {
                let a = self.map.entry_address(zone, c * cp, Gran::Chunk);
                self.cache.remove(key(ZONED_NS, Gran::Chunk, a));
            }
        }
    }

    /// Inserts the `gran` entry covering page `off` of `zone` (pinned if it is an
    /// aggregated entry and §6.6 pinning is on).
    pub(super) fn cache_insert(&mut self, zone: u32, off: u64, gran: Gran) {
        let a = self.map.entry_address(zone, off, gran);
        let pin = self.g.pin_aggregated && gran != Gran::Page;
        self.cache.insert(key(ZONED_NS, gran, a), pin);
    }

    /// Replaces the `finer` entry starting at page `off` with a `coarser` one.
    fn cache_replace(&mut self, zone: u32, off: u64, finer: Gran, coarser: Gran) {
        let a = self.map.entry_address(zone, off, finer);
        self.cache.remove(key(ZONED_NS, finer, a));
        if finer != Gran::Page {
            let p = self.lpn(zone, off);
            self.cache.remove(key(ZONED_NS, Gran::Page, p));
        }
        self.cache_insert(zone, off, coarser);
    }
}
