//! Garbage collection of the block device: greedy GC of regular superblocks into
//! the GC frontier, and SLC GC (migration to regular blocks; copies within SLC for
//! the SLC-only metadata namespace of ConZone+).

use super::*;

impl ConZoneBlock {
    /// Greedy GC of regular superblocks into the GC frontier.
    pub(super) fn gc(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        let mut done = ready;
        while self.reg.free.len() as u32 <= self.reg_gc_free {
            let Some(victim) = self.reg.victim() else {
                break;
            };
            if self.reg.valid[victim as usize] >= self.reg.sb_pages {
                break;
            }
            self.counts.gc_runs += 1;
            self.hw.issuer = Issuer::Gc;
            let first = victim as u64 * self.reg.sb_pages;
            let valid: Vec<(u64, u64)> = (first..first + self.reg.sb_pages)
                .filter(|&p| self.reg.p2l[p as usize] != NO_OWNER)
                .map(|p| (p, self.reg.p2l[p as usize]))
                .collect();
            let mut r = ready;
            for &(p, lpn) in &valid {
                r = r.max(self.hw.read(ready, self.reg_chip(p), 1, Cells::Regular));
                self.reg.invalidate(p);
                self.move_payload(KEY_REG | p, KEY_GC | lpn);
            }
            let lpns: Vec<u64> = valid.iter().map(|v| v.1).collect();
            done = done.max(self.relocate(&lpns, r)?);
            // Regular-to-regular copies are GC copies, not SLC migrations.
            self.counts.gc_copied_pages += lpns.len() as u64;
            for chip in 0..self.g.chips {
                done = done.max(self.hw.erase(r, chip, Cells::Regular));
            }
            let v = victim as usize;
            self.reg.written[v] = 0;
            self.reg.full[v] = false;
            self.reg.free.push_back(victim);
            self.hw.issuer = Issuer::User;
        }
        Ok(done)
    }

    /// SLC GC: migrates the victim's valid pages to regular blocks, then erases it.
    pub(super) fn slc_gc(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        let mut done = ready;
        while self.slc.free_count() <= self.g.slc_gc_free {
            let Some(victim) = self.slc.victim() else {
                break;
            };
            if self.slc_only && self.slc.valid_count(victim) >= self.slc.sb_pages() {
                break; // copying a full superblock frees nothing
            }
            self.counts.slc_gc_runs += 1;
            self.hw.issuer = Issuer::Gc;
            let valid = self.slc.valid_in(victim);
            let mut r = ready;
            let mut lpns = Vec::with_capacity(valid.len());
            for p in valid {
                let lpn = owner_lpn(self.slc.owner_of(p));
                r = r.max(self.hw.read(ready, self.slc.chip_of(p), 1, Cells::Slc));
                let _ = self.slc.invalidate(p);
                self.move_payload(KEY_SLC | p, KEY_GC | lpn);
                self.map[lpn as usize] = UNMAPPED;
                lpns.push(lpn);
            }
            done = done.max(self.relocate(&lpns, r)?);
            if self.slc_only {
                self.counts.gc_copied_pages += lpns.len() as u64;
            } else {
                self.counts.migrated_pages += lpns.len() as u64;
            }
            for chip in 0..self.g.chips {
                done = done.max(self.hw.erase(r, chip, Cells::Slc));
            }
            if self.slc.is_full(victim) {
                self.slc.erase_done(victim, true);
            }
            self.hw.issuer = Issuer::User;
        }
        Ok(done)
    }

    /// Writes GC'd logical pages (already read, payloads parked under `KEY_GC`) to
    /// their new home once their reads are done at `ready`: within SLC for the
    /// SLC-only namespace (the victim is full, so new pages land elsewhere),
    /// otherwise to regular blocks. Returns when the last program ends; the caller
    /// counts the pages as GC copies or SLC migrations.
    fn relocate(&mut self, lpns: &[u64], ready: Ns) -> Result<Ns, DeviceError> {
        if !self.slc_only {
            let done = self.write_regular(lpns, 1, ready, false)?;
            for &lpn in lpns {
                let ppn = self.map[lpn as usize] & !REG_BIT;
                self.move_payload(KEY_GC | lpn, KEY_REG | ppn);
            }
            return Ok(done);
        }
        let mut done = ready;
        for &lpn in lpns {
            done = done.max(self.program_in_slc(lpn, KEY_GC | lpn, ready, "write")?);
        }
        Ok(done)
    }
}
