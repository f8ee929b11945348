//! SLC reclamation of the zoned device (§2.1, §3.4, §6.5), two mechanisms as in
//! the reference:
//!
//! - **SLC GC** when regular writes bypass SLC (TLC): while free SLC superblocks
//!   are at or below the threshold, the full superblock with the fewest valid
//!   pages is the victim, its pages are copied within SLC (runs that complete a
//!   regular program unit are merged into regular blocks instead), and it is
//!   erased (reference `foreground_gc` / `do_gc`, `zms_read_write.c:2415-2493`,
//!   threshold `gc_thres_lines_high = 2`, `zns_ftl.c:359`). GC commands are not
//!   preemptible.
//! - **Migration** when every write is staged in SLC (QLC): when free SLC
//!   superblocks fall to the threshold (`migrate_thres_lines_low = 2`,
//!   `zns_ftl.c:360`), superblocks whose pages are all invalid are erased
//!   directly first (they are erased as soon as they empty here, so none is left
//!   over); otherwise, if a migration is still in flight, host writes wait for it
//!   (`pending_for_migrating`); otherwise the *oldest fully written* superblock
//!   is migrated: its zones' SLC runs move to regular blocks in whole program
//!   units, leftovers shorter than a unit are re-written to SLC, and it is
//!   erased (reference `try_migrate` / `do_migrate` / `do_migrate_simple`,
//!   `zms_read_write.c:2217-2413`). Migration commands are preemptible (§4.2).

use super::*;
use crate::models::conzone::chip_queue::OpKind;

impl ConZone {
    /// Reclaims SLC space after a flush left free superblocks at the threshold.
    pub(super) fn reclaim_slc(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        match self.g.staging {
            SlcStaging::Bypass => self.slc_gc(ready),
            SlcStaging::All => self.try_migrate(ready, false),
        }
    }

    /// Reclaims SLC space because an allocation found none: a migration in
    /// flight is waited for rather than deferred.
    pub(super) fn reclaim_slc_forced(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        match self.g.staging {
            SlcStaging::Bypass => self.slc_gc(ready),
            SlcStaging::All => self.try_migrate(ready, true),
        }
    }

    /// Invalidates SLC page `ppn`; an SLC superblock left with no valid page is
    /// erased directly (in the background from `at`).
    pub(super) fn invalidate_slc(&mut self, ppn: u64, at: Ns) {
        if let Some(sb) = self.slc.invalidate(ppn) {
            let kind = self.hw.issuer;
            if !self.in_gc {
                self.hw.issuer = Issuer::User;
            }
            for chip in 0..self.g.chips {
                self.hw.erase(at, chip, Cells::Slc);
            }
            self.hw.issuer = kind;
            self.slc.erase_done(sb, self.in_gc);
        }
    }

    /// SLC GC (TLC): greedy victims, copies within SLC, merges of whole units.
    pub(super) fn slc_gc(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        self.in_gc = true;
        self.hw.issuer = OpKind::Gc;
        let r = self.collect_while_low(ready);
        self.hw.issuer = Issuer::User;
        self.in_gc = false;
        r
    }

    /// Migration (QLC): at most one superblock per call, none while one is in
    /// flight unless `forced` (then it starts when the one in flight ends).
    fn try_migrate(&mut self, ready: Ns, forced: bool) -> Result<Ns, DeviceError> {
        if self.slc.free_count() > self.g.slc_gc_free && !forced {
            return Ok(ready);
        }
        let in_flight = self.hw.migration_end_ns();
        let start = if in_flight > ready {
            if !forced {
                self.migration_pending = true;
                return Ok(ready);
            }
            in_flight
        } else {
            ready
        };
        self.in_gc = true;
        self.hw.issuer = OpKind::Migration;
        let r = self.migrate_oldest(start);
        self.hw.issuer = Issuer::User;
        self.in_gc = false;
        r
    }

    fn migrate_oldest(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        let Some(victim) = self.slc.oldest_full() else {
            return Ok(ready);
        };
        self.counts.migrations += 1;
        self.reclaim_victim(victim, ready)
    }

    /// SLC GC loop: greedy victims while free superblocks are at the threshold.
    fn collect_while_low(&mut self, ready: Ns) -> Result<Ns, DeviceError> {
        let mut done = ready;
        while self.slc.free_count() <= self.g.slc_gc_free {
            let Some(victim) = self.slc.victim() else {
                break;
            };
            if self.slc.valid_count(victim) >= self.slc.sb_pages() {
                break; // nothing to gain from copying
            }
            self.counts.slc_gc_runs += 1;
            done = done.max(self.reclaim_victim(victim, ready)?);
        }
        Ok(done)
    }

    /// Empties SLC superblock `victim`: runs of its zones that fill whole regular
    /// program units move to regular blocks (pageslc: the units holding the
    /// victim's pages; zonedslc: the zone's whole run, §6.5), the rest is copied
    /// within SLC, and the victim is erased.
    fn reclaim_victim(&mut self, victim: u32, ready: Ns) -> Result<Ns, DeviceError> {
        let mut done = ready;
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
                && (self.g.slc_management == SlcManagement::Zone || self.victim_holds(victim, zone))
            {
                let unit = self.g.unit_pages;
                let r = self.read_slc_run(zone, unit, ready);
                self.counts.migrated_pages += unit;
                done = done.max(self.program_unit(zone, r));
            }
        }
        if !self.slc.is_full(victim) {
            return Ok(done); // emptied by the migration and erased directly
        }
        // The rest (tails shorter than a unit) is copied within SLC.
        let rest = self.slc.valid_in(victim);
        for p in rest {
            let o = self.slc.owner_of(p);
            let lpn = owner_lpn(o);
            let (zone, off) = ((lpn / self.map.cap) as u32, lpn % self.map.cap);
            let chip = self.slc.chip_of(p);
            let r = self.hw.read(ready, chip, 1, Cells::Slc);
            // The victim is erased below, not here, even if this empties it.
            let _ = self.slc.invalidate(p);
            let stream = self.slc_stream(zone, off);
            let np = self
                .slc
                .alloc(o, stream)
                .ok_or(DeviceError::NoSpace { command: "write" })?;
            let w = self.hw.program(r, self.slc.chip_of(np), 1, Cells::Slc);
            done = done.max(w);
            self.map.set(zone, off, np);
            self.move_payload(KEY_SLC | p, KEY_SLC | np);
            self.counts.gc_copied_pages += 1;
            // A GC / migration write is page-mapped and inserts its entry too
            // (reference `update_or_reserve_mapping` for every I/O type).
            self.cache_insert(zone, off, Gran::Page);
        }
        if self.slc.is_full(victim) && self.slc.valid_count(victim) == 0 {
            for chip in 0..self.g.chips {
                done = done.max(self.hw.erase(done, chip, Cells::Slc));
            }
            self.slc.erase_done(victim, true);
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
