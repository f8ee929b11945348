//! Zone management shared by the ZNS back ends (ZNSage §4.2-§4.4, as ZNSwap's
//! `struct swap_zone` / `zns_swap_info_struct`): a swap slot is a 4 KiB LBA of a
//! swap zone; each core appends to its own open zone (per-core policy, §4.3);
//! every zone keeps its valid-slot count; a reverse map (slot -> page, 24 B per
//! slot in the paper's `page_md_m`) lets GC find the owner of a valid slot.
//!
//! Swap-zone GC (§4.4): when free zones drop below the low watermark, a
//! background collector picks the full zone with the most invalid slots, copies its
//! valid pages through host memory into a dedicated GC zone one chunk at a time,
//! reports each move so the page table (swap entry) is updated, and resets the
//! victim once empty; it stops at the high watermark. One free zone is kept as the
//! GC's reserve: swap-out never takes it, so GC always has a zone to copy into.
//!
//! The [`ZonePolicy`] says what differs between ZNSwap and ZNSage: how writes are
//! issued (one zone append per page vs. per-zone bio lists submitted at the
//! write unit), where the reverse map lives (per-LBA device metadata vs. host
//! memory) and whether GC updates page tables while pages are in memory.

use super::backend::{
    dev_err, encode_pages, read_pages, BackendStats, GcMove, IoEvents, PageTag, SwapBackend,
};
use super::config::ZoneSwapConfig;
use super::error::SwapError;
use super::host::{BlockPath, CpuKind, HostStats, IoKind, IoScheduler};
use super::{PageId, Slot, NONE, PAGE_BYTES, RMAP_ENTRY_BYTES};
use std::collections::VecDeque;
use zonelab_devices::{Command, Device, DeviceStats, Payload, ZoneAction};
use zonelab_engine::Ns;

/// What distinguishes the zone back ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZonePolicy {
    pub name: &'static str,
    /// Per-zone bio lists submitted when they reach this many pages (ZNSage §4.3;
    /// 1 = every page on its own, as ZNSwap); None = every swap-out batch at once.
    pub write_unit_pages: Option<u32>,
    /// Zone append (ZNSwap) instead of writes at the host-tracked write pointer.
    pub use_append: bool,
    /// Reverse map carried in per-LBA metadata with the data (ZNSwap).
    pub metadata_on_device: bool,
    /// Page-table update while GC holds valid pages in memory (ZNSage §4.4).
    pub gc_page_table_update: bool,
    /// Valid pages GC moves per step.
    pub gc_chunk_pages: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ZoneState {
    Free,
    Open,
    Full,
}

pub struct ZoneSwap {
    policy: ZonePolicy,
    cfg: ZoneSwapConfig,
    dev: Box<dyn Device>,
    zones: u32,
    /// Slots (4 KiB blocks) per zone: the zone capacity.
    cap: u32,
    zone_size_blocks: u64,
    state: Vec<ZoneState>,
    valid: Vec<u32>,
    /// Next slot the host assigns in each zone.
    host_wp: Vec<u32>,
    /// Slots of each zone submitted to the device.
    dev_wp: Vec<u32>,
    free: VecDeque<u32>,
    core_zone: Vec<u32>,
    gc_zone: u32,
    /// Reverse map: slot -> page (NONE when invalid).
    rmap: Vec<PageId>,
    /// Per-zone bio lists: (slot, tag) not yet submitted.
    pending: Vec<Vec<(Slot, PageTag)>>,
    valid_total: u64,
    usable: u64,
    gc_active: bool,
    victim: u32,
    victim_cursor: u32,
    buf: Vec<u8>,
    stats: BackendStats,
    gc_low: u32,
    gc_high: u32,
    /// The block layer to the device (mq-deadline, as every zoned device).
    host: BlockPath,
}

impl ZoneSwap {
    pub fn new(
        dev: Box<dyn Device>,
        cfg: ZoneSwapConfig,
        policy: ZonePolicy,
    ) -> Result<Self, SwapError> {
        let info = dev.info().clone();
        let unusable = |reason: String| SwapError::UnsupportedDevice {
            backend: policy.name,
            device: info.name.clone(),
            reason,
        };
        let Some(z) = info.zoned.clone() else {
            return Err(unusable("not a zoned device".into()));
        };
        if info.block_bytes as u64 != PAGE_BYTES {
            return Err(unusable(format!(
                "{} B blocks; swap needs a 4096 B LBA format",
                info.block_bytes
            )));
        }
        let sizes = cfg.validate(z.zone_count)?;
        let zones = sizes.zones;
        if z.zone_capacity_blocks > (NONE / 2) as u64 {
            return Err(unusable("zone capacity too large".into()));
        }
        let cap = z.zone_capacity_blocks as u32;
        let total_slots = zones as u64 * cap as u64;
        if total_slots >= NONE as u64 {
            return Err(super::error::bad_config(
                "zone_swap.zones",
                zones,
                &format!(
                    "fewer than {} zones of this capacity",
                    NONE as u64 / cap as u64
                ),
            ));
        }
        if z.max_active_zones > 0 && cfg.cores + 1 > z.max_active_zones {
            return Err(unusable(format!(
                "{} per-core zones + 1 GC zone exceed max_active_zones {}",
                cfg.cores, z.max_active_zones
            )));
        }
        if let Some(u) = policy.write_unit_pages {
            if u == 0 || u > cap {
                return Err(super::error::bad_config(
                    "znsage.write_unit_bytes",
                    u as u64 * PAGE_BYTES,
                    &format!(
                        "4096..={} (the zone capacity), a multiple of 4096",
                        cap as u64 * PAGE_BYTES
                    ),
                ));
            }
        }
        let usable = (total_slots as f64 * (1.0 - cfg.over_provisioning)).floor() as u64;
        let stats = BackendStats {
            usable_slots: usable,
            host_rmap_bytes: if policy.metadata_on_device {
                0
            } else {
                total_slots * RMAP_ENTRY_BYTES
            },
            ..Default::default()
        };
        Ok(Self {
            policy,
            dev,
            zones,
            cap,
            zone_size_blocks: z.zone_size_blocks,
            state: vec![ZoneState::Free; zones as usize],
            valid: vec![0; zones as usize],
            host_wp: vec![0; zones as usize],
            dev_wp: vec![0; zones as usize],
            free: (0..zones).collect(),
            core_zone: vec![NONE; cfg.cores as usize],
            gc_zone: NONE,
            rmap: vec![NONE; total_slots as usize],
            pending: vec![Vec::new(); zones as usize],
            valid_total: 0,
            usable,
            gc_active: false,
            victim: NONE,
            victim_cursor: 0,
            buf: Vec::new(),
            stats,
            gc_low: sizes.gc_low_free_zones,
            gc_high: sizes.gc_high_free_zones,
            host: BlockPath::new(cfg.host, IoScheduler::MqDeadline),
            cfg,
        })
    }

    pub fn zones(&self) -> u32 {
        self.zones
    }

    pub fn zone_capacity_slots(&self) -> u32 {
        self.cap
    }

    pub fn free_zones(&self) -> u32 {
        self.free.len() as u32
    }

    /// GC watermarks in use (low, high) in free zones.
    pub fn watermarks(&self) -> (u32, u32) {
        (self.gc_low, self.gc_high)
    }

    /// Checks the reverse map against the per-zone valid counts (tests).
    pub fn check_zones(&self) -> Result<(), String> {
        let mut total = 0u64;
        for z in 0..self.zones {
            let s0 = (z * self.cap) as usize;
            let n = self.rmap[s0..s0 + self.cap as usize]
                .iter()
                .filter(|&&p| p != NONE)
                .count() as u32;
            if n != self.valid[z as usize] {
                return Err(format!(
                    "zone {z}: {n} reverse-map entries but valid count {}",
                    self.valid[z as usize]
                ));
            }
            if self.state[z as usize] == ZoneState::Free && n != 0 {
                return Err(format!("free zone {z} has {n} valid slots"));
            }
            let wp = self.host_wp[z as usize];
            if let Some(s) = self.rmap[s0 + wp as usize..s0 + self.cap as usize]
                .iter()
                .position(|&p| p != NONE)
            {
                return Err(format!(
                    "zone {z}: valid slot {} above the write pointer {wp}",
                    wp as usize + s
                ));
            }
            total += n as u64;
        }
        if total != self.valid_total {
            return Err(format!(
                "{total} valid slots but valid_total {}",
                self.valid_total
            ));
        }
        Ok(())
    }

    #[inline]
    fn zone_of(&self, slot: Slot) -> u32 {
        slot / self.cap
    }

    #[inline]
    fn lba_of(&self, slot: Slot) -> u64 {
        let z = self.zone_of(slot);
        z as u64 * self.zone_size_blocks + (slot % self.cap) as u64
    }

    /// Takes a free zone; swap-out (`for_gc = false`) never takes the last one.
    fn take_zone(&mut self, for_gc: bool) -> Option<u32> {
        if !for_gc && self.free.len() <= 1 {
            return None;
        }
        let z = self.free.pop_front()?;
        self.state[z as usize] = ZoneState::Open;
        self.host_wp[z as usize] = 0;
        self.dev_wp[z as usize] = 0;
        Some(z)
    }

    /// Assigns the next slot of zone `z` to `tag`; returns it.
    fn assign(&mut self, z: u32, tag: PageTag) -> Slot {
        let slot = z * self.cap + self.host_wp[z as usize];
        self.host_wp[z as usize] += 1;
        self.rmap[slot as usize] = tag.page;
        self.valid[z as usize] += 1;
        self.valid_total += 1;
        self.pending[z as usize].push((slot, tag));
        if self.host_wp[z as usize] == self.cap {
            self.state[z as usize] = ZoneState::Full;
        }
        slot
    }

    /// Submits zone `z`'s bio list as one request, its submitter ready at
    /// `ready_ns`; returns (when the request reached the device, when its
    /// completion interrupt ends). `wait`: whether the submitter waits for it.
    fn submit(
        &mut self,
        ready_ns: Ns,
        z: u32,
        kind: IoKind,
        wait: CpuKind,
        report: Option<&mut IoEvents>,
    ) -> Result<(Ns, Ns), SwapError> {
        let list = std::mem::take(&mut self.pending[z as usize]);
        if list.is_empty() {
            return Ok((ready_ns, ready_ns));
        }
        let n = list.len() as u32;
        let issue_ns = self.host.submit(ready_ns, n, kind);
        let zone_lba = z as u64 * self.zone_size_blocks;
        let lba = zone_lba + self.dev_wp[z as usize] as u64;
        let cmd = if self.policy.use_append {
            Command::Append {
                zone_lba,
                blocks: n,
            }
        } else {
            Command::Write { lba, blocks: n }
        };
        let err = dev_err(self.policy.name);
        let done = if self.cfg.payloads {
            let tags: Vec<PageTag> = list.iter().map(|&(_, t)| t).collect();
            let mut buf = std::mem::take(&mut self.buf);
            encode_pages(&tags, &mut buf);
            let c = self
                .dev
                .submit(issue_ns, &cmd, Payload::Write(&buf))
                .map_err(err);
            self.buf = buf;
            c?
        } else {
            self.dev
                .submit(issue_ns, &cmd, Payload::SizeOnly)
                .map_err(err)?
        };
        debug_assert_eq!(done.lba, lba, "append landed where the host expected");
        let end_ns = self.host.complete(done.done_ns, n, wait);
        self.dev_wp[z as usize] += n;
        self.stats.write_commands += 1;
        if self.policy.metadata_on_device {
            self.stats.device_metadata_rmap_bytes += n as u64 * RMAP_ENTRY_BYTES;
        }
        if let Some(ev) = report {
            for (slot, tag) in list {
                ev.written.push((end_ns, tag.page, slot));
            }
        }
        Ok((issue_ns, end_ns))
    }

    /// Reads `count` consecutive slots in one request, its submitter ready at
    /// `ready_ns`, who waits for it; returns (issue, end of the completion interrupt).
    fn read_run(
        &mut self,
        ready_ns: Ns,
        slot: Slot,
        count: u32,
        kind: IoKind,
        tags: Option<&mut Vec<PageTag>>,
    ) -> Result<(Ns, Ns), SwapError> {
        let cmd = Command::Read {
            lba: self.lba_of(slot),
            blocks: count,
        };
        self.stats.read_commands += 1;
        let issue_ns = self.host.submit(ready_ns, count, kind);
        let done = read_pages(&mut *self.dev, issue_ns, &cmd, count, tags, &mut self.buf)
            .map_err(dev_err(self.policy.name))?;
        Ok((issue_ns, self.host.complete(done, count, CpuKind::Wakeup)))
    }

    /// Picks the full zone with the fewest valid slots (most invalid).
    fn pick_victim(&self) -> Option<u32> {
        let mut best: Option<u32> = None;
        for z in 0..self.zones {
            if self.state[z as usize] != ZoneState::Full {
                continue;
            }
            if best.is_none_or(|b| self.valid[z as usize] < self.valid[b as usize]) {
                best = Some(z);
            }
        }
        best.filter(|&z| self.valid[z as usize] < self.cap)
    }
}

impl SwapBackend for ZoneSwap {
    fn name(&self) -> &'static str {
        self.policy.name
    }

    fn usable_slots(&self) -> u64 {
        self.usable
    }

    fn valid_slots(&self) -> u64 {
        self.valid_total
    }

    fn can_accept(&self, core: u32, pages: u32) -> bool {
        let z = self.core_zone[(core % self.cfg.cores) as usize];
        let room = if z == NONE {
            0
        } else {
            (self.cap - self.host_wp[z as usize]) as u64
        };
        let spare = (self.free.len() as u64).saturating_sub(1) * self.cap as u64;
        room + spare >= pages as u64
    }

    fn swap_out(
        &mut self,
        now_ns: Ns,
        core: u32,
        tags: &[PageTag],
        slots: &mut Vec<Slot>,
        ev: &mut IoEvents,
    ) -> Result<(), SwapError> {
        if self.valid_total + tags.len() as u64 > self.usable {
            return Err(SwapError::SwapFull {
                backend: self.policy.name,
                valid: self.valid_total,
                usable: self.usable,
            });
        }
        let c = (core % self.cfg.cores) as usize;
        // The reclaiming thread submits one request after another.
        let mut cursor = now_ns;
        for &tag in tags {
            if self.core_zone[c] == NONE {
                match self.take_zone(false) {
                    Some(z) => self.core_zone[c] = z,
                    None => {
                        return Err(SwapError::GcStuck {
                            backend: self.policy.name,
                        })
                    }
                }
            }
            let z = self.core_zone[c];
            slots.push(self.assign(z, tag));
            let full = self.state[z as usize] == ZoneState::Full;
            let unit_full = self
                .policy
                .write_unit_pages
                .is_some_and(|u| self.pending[z as usize].len() as u32 >= u);
            if full || unit_full {
                cursor = self
                    .submit(cursor, z, IoKind::SwapOut, CpuKind::Deferred, Some(ev))?
                    .0;
            }
            if full {
                self.core_zone[c] = NONE;
            }
        }
        if self.policy.write_unit_pages.is_none() && self.core_zone[c] != NONE {
            let z = self.core_zone[c];
            self.submit(cursor, z, IoKind::SwapOut, CpuKind::Deferred, Some(ev))?;
        }
        self.stats.swap_out_pages += tags.len() as u64;
        self.host.drain_into(&mut ev.cpu);
        Ok(())
    }

    fn flush(&mut self, now_ns: Ns, ev: &mut IoEvents) -> Result<(), SwapError> {
        let mut cursor = now_ns;
        for z in 0..self.zones {
            if !self.pending[z as usize].is_empty() {
                cursor = self
                    .submit(cursor, z, IoKind::SwapOut, CpuKind::Deferred, Some(ev))?
                    .0;
            }
        }
        self.host.drain_into(&mut ev.cpu);
        Ok(())
    }

    fn read(
        &mut self,
        now_ns: Ns,
        slot: Slot,
        count: u32,
        tags: Option<&mut Vec<PageTag>>,
        ev: &mut IoEvents,
    ) -> Result<Ns, SwapError> {
        self.stats.swap_in_pages += count as u64;
        let tags = if self.cfg.payloads { tags } else { None };
        let (_, end_ns) = self.read_run(now_ns, slot, count, IoKind::SwapIn, tags)?;
        self.host.drain_into(&mut ev.cpu);
        Ok(end_ns)
    }

    fn free(&mut self, _now_ns: Ns, slot: Slot) -> Result<(), SwapError> {
        if self.rmap[slot as usize] == NONE {
            return Ok(());
        }
        self.rmap[slot as usize] = NONE;
        let z = self.zone_of(slot);
        self.valid[z as usize] -= 1;
        self.valid_total -= 1;
        Ok(())
    }

    fn owner(&self, slot: Slot) -> Option<PageId> {
        self.rmap.get(slot as usize).copied().filter(|&p| p != NONE)
    }

    fn contiguous(&self, a: Slot) -> bool {
        !(a + 1).is_multiple_of(self.cap)
    }

    fn slot_space(&self) -> u64 {
        self.rmap.len() as u64
    }

    fn gc_wanted(&mut self) -> bool {
        let free = self.free.len() as u32;
        if free < self.gc_low {
            self.gc_active = true;
        } else if free >= self.gc_high && self.victim == NONE {
            self.gc_active = false;
        }
        self.gc_active || self.victim != NONE
    }

    fn gc_step(&mut self, now_ns: Ns, ev: &mut IoEvents) -> Result<Option<Ns>, SwapError> {
        if self.victim == NONE {
            let Some(v) = self.pick_victim() else {
                return Ok(None);
            };
            self.victim = v;
            self.victim_cursor = 0;
            self.stats.gc_victims += 1;
        }
        let v = self.victim;
        // Next chunk of valid slots of the victim.
        let mut chunk: Vec<(Slot, PageId)> = Vec::new();
        while self.victim_cursor < self.cap && (chunk.len() as u32) < self.policy.gc_chunk_pages {
            let s = v * self.cap + self.victim_cursor;
            if self.rmap[s as usize] != NONE {
                chunk.push((s, self.rmap[s as usize]));
            }
            self.victim_cursor += 1;
        }
        if chunk.is_empty() {
            // Every valid page moved: reset the victim.
            let cmd = Command::Zone {
                action: ZoneAction::Reset,
                zone_lba: v as u64 * self.zone_size_blocks,
            };
            let done = self
                .dev
                .submit(now_ns, &cmd, Payload::SizeOnly)
                .map_err(dev_err(self.policy.name))?;
            debug_assert_eq!(self.valid[v as usize], 0);
            self.state[v as usize] = ZoneState::Free;
            self.host_wp[v as usize] = 0;
            self.dev_wp[v as usize] = 0;
            self.free.push_back(v);
            self.victim = NONE;
            self.stats.zone_resets += 1;
            return Ok(Some(done.done_ns.max(now_ns)));
        }
        let n = chunk.len() as u32;
        // Read the chunk into memory: one request per run of consecutive slots
        // (ZNSwap's one-page read bios of a run merge in the block layer's plug).
        let want_tags = self.cfg.payloads;
        let mut tags: Vec<PageTag> = Vec::with_capacity(chunk.len());
        let mut cursor = now_ns;
        let mut read_done = now_ns;
        let mut i = 0;
        while i < chunk.len() {
            let mut j = i + 1;
            while j < chunk.len() && chunk[j].0 == chunk[j - 1].0 + 1 {
                j += 1;
            }
            let out = if want_tags { Some(&mut tags) } else { None };
            let (issue, end) =
                self.read_run(cursor, chunk[i].0, (j - i) as u32, IoKind::GcRead, out)?;
            cursor = issue;
            read_done = read_done.max(end);
            i = j;
        }
        if want_tags {
            // Runs are exactly the valid slots, so the tags line up with the chunk.
            debug_assert_eq!(tags.len(), chunk.len());
        }
        // ZNSage (§4.4, Fig. 6): update the page table while the pages are in
        // memory, before copying them; ZNSwap does it after the copy (below).
        let mut cursor = read_done;
        if self.policy.gc_page_table_update {
            cursor = self.host.gc_remap(cursor, n);
        }
        // Write them to the GC zone, in requests of the write unit (one append per
        // page for ZNSwap, `gc_move_zone_write`).
        let unit = self.policy.write_unit_pages.unwrap_or(u32::MAX);
        let first_move = ev.moves.len();
        let mut write_done = cursor;
        for (k, &(old, page)) in chunk.iter().enumerate() {
            if self.gc_zone == NONE {
                match self.take_zone(true) {
                    Some(z) => self.gc_zone = z,
                    None => {
                        return Err(SwapError::GcStuck {
                            backend: self.policy.name,
                        })
                    }
                }
            }
            let gz = self.gc_zone;
            let tag = if want_tags {
                tags[k]
            } else {
                PageTag { page, version: 0 }
            };
            // Move the reverse-map entry.
            self.rmap[old as usize] = NONE;
            self.valid[v as usize] -= 1;
            self.valid_total -= 1;
            let new = self.assign(gz, tag);
            self.rmap[new as usize] = page;
            ev.moves.push(GcMove {
                page,
                old_slot: old,
                new_slot: new,
                read_done_ns: read_done,
                write_done_ns: 0,
            });
            let zone_full = self.state[gz as usize] == ZoneState::Full;
            let last = k + 1 == chunk.len();
            if zone_full || last || self.pending[gz as usize].len() as u32 >= unit {
                let (issue, end) =
                    self.submit(cursor, gz, IoKind::GcWrite, CpuKind::Wakeup, None)?;
                cursor = issue;
                write_done = write_done.max(end);
            }
            if zone_full {
                self.gc_zone = NONE;
            }
        }
        for m in &mut ev.moves[first_move..] {
            m.write_done_ns = write_done;
        }
        // ZNSwap's `gc_move_zone_activate`: the page-table update after the copy.
        let next = if self.policy.gc_page_table_update {
            write_done.max(cursor)
        } else {
            self.host.gc_remap(write_done.max(cursor), n)
        };
        self.stats.gc_copied_pages += chunk.len() as u64;
        self.host.drain_into(&mut ev.cpu);
        Ok(Some(next))
    }

    fn gc_updates_page_table(&self) -> bool {
        self.policy.gc_page_table_update
    }

    fn stats(&self) -> BackendStats {
        let mut s = self.stats.clone();
        s.valid_slots = self.valid_total;
        s
    }

    fn host_stats(&self) -> HostStats {
        self.host.stats().clone()
    }

    fn forget_before(&mut self, now_ns: Ns) {
        self.host.forget_before(now_ns);
    }

    fn check_consistency(&self) -> Result<(), String> {
        self.check_zones()
    }

    fn device_stats(&self, elapsed_ns: Ns) -> DeviceStats {
        self.dev.stats(elapsed_ns)
    }
}
