//! Zone management and host flush of the zoned device (§3.4 E.2, §3.1): reset
//! erases the zone's regular blocks and invalidates its SLC data; finish and
//! flush empty write buffers.

use super::*;

impl ConZone {
    // ----------------------------------------------------- zone management

    pub(super) fn reset(&mut self, now: Ns, zone_lba: u64) -> Result<Ns, DeviceError> {
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
        // zonedslc: the zone's open SLC superblocks hold only its (now invalid)
        // data; they are erased directly (reference `zone_reset` erases the
        // zone's lines whose pages are all invalid or reserved,
        // `zms_read_write.c:3375-3397`).
        if self.g.slc_management == SlcManagement::Zone {
            let streams: Vec<u64> = if self.slc_subzone_streams() {
                (0..self.map.subzones_per_zone())
                    .map(|s| self.slc_stream(zone, s * self.map.subzone_pages))
                    .collect()
            } else {
                vec![self.slc_stream(zone, 0)]
            };
            for stream in streams {
                if let Some(sb) = self.slc.close_stream(stream) {
                    for chip in 0..self.g.chips {
                        self.hw.erase(done, chip, Cells::Slc);
                    }
                    self.slc.erase_done(sb, false);
                }
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
        for s in 0..self.map.subzones_per_zone() {
            let zs = zone as u64 * self.map.subzones_per_zone() + s;
            self.cache.remove(key(ZONED_NS, Gran::SubZone, zs));
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

    pub(super) fn zone_command(
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
            // The ConZone+ model has no zone random write area.
            ZoneAction::OpenZrwa | ZoneAction::FlushZrwa => Err(DeviceError::Unsupported {
                command: Command::Zone { action, zone_lba }.name(),
                device: self.info.name.clone(),
            }),
        }
    }

    /// Host flush: every buffer is emptied (§3.1); completes when every chip is
    /// idle, background work included (reference `zns_flush`, `zns_ftl.c:
    /// 219-251`: the completion time is `ssd_next_idle_time`).
    pub(super) fn host_flush(&mut self, now: Ns) -> Result<Ns, DeviceError> {
        self.hw.advance(now);
        self.counts.host_flushes += 1;
        let mut done = now + self.g.fw_wbuf_ns;
        for i in 0..self.wb.buffers.len() {
            if self.wb.buffers[i].zone.is_some() {
                let ready = now.max(self.wb.buffers[i].filled_ns);
                let t = self.flush_buffer(i, ready)?;
                done = done.max(t);
            }
        }
        Ok(done.max(self.hw.idle_at_ns()))
    }
}
