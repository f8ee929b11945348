//! "ConZone – Block Device" (§6.1): the same hardware behind a block interface,
//! as in ZMS's block-storage baseline. Page-level mapping for everything, the same
//! L2P cache (one mapping-page fetch per miss; every page written inserts its
//! entry, reference `set_map_gran(PAGE_MAP)`, `zms_read_write.c:1619`), one write
//! buffer of the whole write-buffer memory shared by all writes (the reference's
//! block namespace has `nr_wb = 1` of `ZONE_WB_SIZE`, `zns_ftl.c:378-381`; a full
//! buffer is flushed in program units to regular blocks and is busy until the
//! flush completes), host flushes sending the partial remainder to SLC and
//! completing when the chips are idle (`zns_flush`, `zns_ftl.c:219-251`), greedy
//! GC on regular blocks (over-provisioned space) and SLC GC migrating SLC data to
//! regular blocks.
//!
//! Simplifications (docs/conzone.md): SLC-resident data is not merged with new
//! writes as in the zoned device; it moves to regular blocks when SLC GC runs.

mod gc;
mod regular;

use super::config::{ConZoneProfile, Geometry, LOGICAL_PAGE_BYTES};
use super::hardware::{Cells, FlashReadBatch, Hardware, Issuer};
use super::l2p_cache::{key, Gran, L2pCache};
use super::slc::{owner, owner_lpn, SlcArea, NO_OWNER};
use crate::block_store::BlockStore;
use crate::command::{Command, Completion, Payload};
use crate::device::{check_block_range, check_payload, round6, Device, DeviceInfo, DeviceStats};
use crate::error::DeviceError;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
use regular::RegularArea;
use zonelab_engine::{Ns, MIB};

/// Namespace id of the block device in L2P keys and SLC owners (the metadata
/// namespace of ConZone+; a block *data* namespace uses id 1).
pub const BLOCK_NS: u8 = 0;
const ENTRIES_PER_MAP_PAGE: u64 = 1024;
const UNMAPPED: u64 = u64::MAX;
/// Mapping entries with this bit are regular pages; others are SLC pages.
const REG_BIT: u64 = 1 << 62;
const KEY_BUF: u64 = 1 << 60;
/// Where GC stages a page it moves (apart from the write buffer's pages, which
/// may hold a newer version of the same logical page).
const KEY_GC: u64 = 4 << 60;
const KEY_SLC: u64 = 2 << 60;
const KEY_REG: u64 = 3 << 60;

#[derive(Debug, Default, Clone, Copy)]
pub struct BlockCounts {
    pub host_read_bytes: u64,
    pub host_write_bytes: u64,
    pub l2p_hits: u64,
    pub l2p_misses: u64,
    pub buffer_read_hits: u64,
    pub unmapped_reads: u64,
    pub full_flushes: u64,
    pub premature_flushes: u64,
    pub gc_runs: u64,
    pub gc_copied_pages: u64,
    pub slc_gc_runs: u64,
    pub migrated_pages: u64,
    pub host_flushes: u64,
}

/// The block-interface ConZone device.
pub struct ConZoneBlock {
    info: DeviceInfo,
    g: Geometry,
    hw: Hardware,
    map: Vec<u64>,
    cache: L2pCache,
    reg: RegularArea,
    slc: SlcArea,
    reg_gc_free: u32,
    /// The write buffer: pages (logical page numbers) and busy-until time (a
    /// one-element list, so the read and trim paths stay general).
    buffers: Vec<(Vec<u64>, Ns)>,
    /// Capacity of the buffer in pages (`write_buffer.count` × `kib`).
    buffer_pages: u64,
    data: Option<BlockStore>,
    /// Metadata namespace of ConZone+ (§4): every page lives in SLC, SLC GC
    /// copies within SLC; no regular blocks.
    slc_only: bool,
    /// Namespace id tagging this controller's L2P entries and SLC owners.
    ns_id: u8,
    pub counts: BlockCounts,
}

impl ConZoneBlock {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: ConZoneProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    pub fn new(p: ConZoneProfile, source_name: &str) -> Result<Self, ProfileError> {
        Self::with_mode(p, source_name, false)
    }

    /// As [`new`](Self::new); `slc_only` keeps every page in SLC (the metadata
    /// namespace of ConZone+, §4: "places all data from namespace 0 into SLC").
    pub fn with_mode(
        p: ConZoneProfile,
        source_name: &str,
        slc_only: bool,
    ) -> Result<Self, ProfileError> {
        let g = p.validate(source_name)?;
        let v = Validator::new(source_name);
        let Some(b) = p.block.clone() else {
            return Err(v.out_of_range(
                "block",
                "missing",
                "a [block] section for model conzone-block".into(),
            ));
        };
        let lpns = b.capacity_mib * MIB / LOGICAL_PAGE_BYTES;
        let sb_pages = g.block_pages * g.chips as u64;
        let physical = lpns + lpns * b.op_percent as u64 / 100;
        let superblocks = if slc_only {
            0
        } else {
            physical.div_ceil(sb_pages) as u32 + b.gc_free_superblocks + 2
        };
        let info = DeviceInfo {
            name: p.name.clone(),
            model: p.model.clone(),
            description: p.description.clone(),
            block_bytes: LOGICAL_PAGE_BYTES as u32,
            capacity_blocks: lpns,
            zoned: None,
        };
        Ok(Self {
            info,
            hw: Hardware::new(&g),
            map: vec![UNMAPPED; lpns as usize],
            cache: L2pCache::new(g.cache_entries, g.cache_buckets),
            reg: RegularArea::new(superblocks, sb_pages),
            slc: SlcArea::new(
                g.slc_blocks_per_chip,
                g.chips,
                g.slc_block_pages,
                g.slc_unit_pages,
            ),
            reg_gc_free: b.gc_free_superblocks,
            buffers: vec![(Vec::new(), 0); 1],
            buffer_pages: g.buffer_pages * g.buffer_count as u64,
            data: None,
            slc_only,
            ns_id: BLOCK_NS,
            counts: BlockCounts::default(),
            g,
        })
    }

    /// Empties the volatile L2P cache, as a power cycle does.
    pub fn drop_l2p_cache(&mut self) {
        self.cache.clear();
    }

    /// Tags this controller's L2P entries and SLC owners with namespace `ns`
    /// (ConZone+ shares one L2P cache between namespaces, §4 Fig. 7).
    pub fn set_namespace_id(&mut self, ns: u8) {
        self.ns_id = ns;
    }

    /// Checks that the mapping and both reverse maps agree (tests).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut mapped_reg = 0;
        let mut mapped_slc = 0;
        for (lpn, &e) in self.map.iter().enumerate() {
            if e == UNMAPPED {
                continue;
            }
            if e & REG_BIT != 0 {
                mapped_reg += 1;
                let ppn = e & !REG_BIT;
                if self.reg.p2l[ppn as usize] != lpn as u64 {
                    return Err(format!(
                        "lpn {lpn}: regular page {ppn} maps back to {}",
                        self.reg.p2l[ppn as usize]
                    ));
                }
            } else {
                mapped_slc += 1;
                if self.slc.owner_of(e) != owner(self.ns_id, lpn as u64) {
                    return Err(format!("lpn {lpn}: SLC page {e} owned by another page"));
                }
            }
        }
        let reg_valid: u64 = self.reg.valid.iter().sum();
        if reg_valid != mapped_reg || self.slc.valid_pages_total() != mapped_slc {
            return Err(format!(
                "valid counts {reg_valid}/{} != mapped {mapped_reg}/{mapped_slc}",
                self.slc.valid_pages_total()
            ));
        }
        Ok(())
    }

    /// Swaps the hardware and L2P cache with `hw` / `cache` (ConZone+ runs two
    /// namespaces' controllers on one shared medium, §4).
    pub fn swap_shared(&mut self, hw: &mut Hardware, cache: &mut L2pCache) {
        std::mem::swap(&mut self.hw, hw);
        std::mem::swap(&mut self.cache, cache);
    }

    fn move_payload(&mut self, from: u64, to: u64) {
        if let Some(d) = self.data.as_mut() {
            if let Some(b) = d.take(from) {
                d.put(to, b);
            }
        }
    }

    fn unmap(&mut self, lpn: u64) {
        let e = self.map[lpn as usize];
        if e == UNMAPPED {
            return;
        }
        if e & REG_BIT != 0 {
            self.reg.invalidate(e & !REG_BIT);
            if let Some(d) = self.data.as_mut() {
                d.take(KEY_REG | (e & !REG_BIT));
            }
        } else {
            if let Some(sb) = self.slc.invalidate(e) {
                self.slc.erase_done(sb, false);
                for chip in 0..self.g.chips {
                    self.hw.erase(0, chip, Cells::Slc);
                }
            }
            if let Some(d) = self.data.as_mut() {
                d.take(KEY_SLC | e);
            }
        }
        self.map[lpn as usize] = UNMAPPED;
    }

    #[inline]
    fn reg_chip(&self, ppn: u64) -> u32 {
        ((ppn % self.reg.sb_pages / self.g.unit_pages) % self.g.chips as u64) as u32
    }

    /// Accepts a write into the buffer; `bytes` (with payloads) are stored page
    /// by page as each page enters the buffer, so a flush in the middle of the
    /// request never takes a newer page's bytes for an older buffered copy.
    fn write(
        &mut self,
        now: Ns,
        lba: u64,
        blocks: u32,
        bytes: Option<&[u8]>,
    ) -> Result<Ns, DeviceError> {
        self.hw.advance(now);
        let mut t = self.hw.admit(now);
        let cap = self.buffer_pages as usize;
        let mut lpn = lba;
        let end = lba + blocks as u64;
        while lpn < end {
            let cur = 0;
            t = t.max(self.buffers[cur].1);
            let mut n = 0;
            while lpn < end && self.buffers[cur].0.len() < cap {
                if !self.buffers[cur].0.contains(&lpn) {
                    self.buffers[cur].0.push(lpn);
                }
                if let Some(b) = bytes {
                    let page = LOGICAL_PAGE_BYTES as usize;
                    let i = (lpn - lba) as usize;
                    let d = self
                        .data
                        .get_or_insert_with(|| BlockStore::new(LOGICAL_PAGE_BYTES as u32));
                    d.put(KEY_BUF | lpn, b[i * page..(i + 1) * page].into());
                }
                lpn += 1;
                n += 1;
            }
            t += self.g.fw_wbuf_ns + self.g.fw_wbuf_per_4kib_ns * n;
            t = self.hw.host_transfer(t, n * LOGICAL_PAGE_BYTES);
            if self.buffers[cur].0.len() == cap {
                self.counts.full_flushes += 1;
                self.flush(cur, t)?;
            }
        }
        self.counts.host_write_bytes += blocks as u64 * LOGICAL_PAGE_BYTES;
        self.hw.complete(t);
        Ok(t)
    }

    /// Flushes buffer `idx`: whole program units to regular blocks, the rest to SLC.
    fn flush(&mut self, idx: usize, ready: Ns) -> Result<Ns, DeviceError> {
        let pages = std::mem::take(&mut self.buffers[idx].0);
        let unit = self.g.unit_pages as usize;
        let whole = if self.slc_only {
            0
        } else {
            pages.len() / unit * unit
        };
        let mut done = ready;
        for chunk in pages[..whole].chunks(unit) {
            done = done.max(self.write_regular(chunk, 0, ready, true)?);
        }
        if whole < pages.len() {
            done = done.max(self.write_slc(&pages[whole..], ready)?);
        }
        self.buffers[idx].1 = self.buffers[idx].1.max(done);
        Ok(done)
    }

    /// Writes pages to a regular frontier (`stream` 0 = host, 1 = GC), grouping
    /// pages that land in one program unit into one program operation.
    fn write_regular(
        &mut self,
        lpns: &[u64],
        stream: usize,
        ready: Ns,
        from_buffer: bool,
    ) -> Result<Ns, DeviceError> {
        let mut done = ready;
        let mut group: Option<(u32, u64, u64)> = None;
        for &lpn in lpns {
            if from_buffer {
                self.unmap(lpn);
            }
            let ppn = self
                .reg
                .alloc(stream, lpn)
                .ok_or(DeviceError::NoSpace { command: "write" })?;
            self.map[lpn as usize] = REG_BIT | ppn;
            self.cache.insert(key(self.ns_id, Gran::Page, lpn), false);
            if from_buffer {
                self.move_payload(KEY_BUF | lpn, KEY_REG | ppn);
            }
            let (chip, u) = (self.reg_chip(ppn), ppn / self.g.unit_pages);
            match group.as_mut() {
                Some(gr) if gr.0 == chip && gr.1 == u => gr.2 += 1,
                _ => {
                    if let Some((c, _, p)) = group {
                        done = done.max(self.hw.program(ready, c, p, Cells::Regular));
                    }
                    group = Some((chip, u, 1));
                }
            }
        }
        if let Some((c, _, p)) = group {
            done = done.max(self.hw.program(ready, c, p, Cells::Regular));
        }
        if stream == 0 && self.reg.free.len() as u32 <= self.reg_gc_free {
            done = done.max(self.gc(ready)?);
        }
        Ok(done)
    }

    fn write_slc(&mut self, lpns: &[u64], ready: Ns) -> Result<Ns, DeviceError> {
        let mut done = ready;
        for &lpn in lpns {
            self.unmap(lpn);
            if self.slc.free_count() <= self.g.slc_gc_free {
                done = done.max(self.slc_gc(ready)?);
            }
            done = done.max(self.program_in_slc(lpn, KEY_BUF | lpn, ready, "flush")?);
        }
        Ok(done)
    }

    /// Maps `lpn` to a new SLC page, moves its payload there from `from_key` and books
    /// the program at `ready`; returns when the program ends.
    fn program_in_slc(
        &mut self,
        lpn: u64,
        from_key: u64,
        ready: Ns,
        command: &'static str,
    ) -> Result<Ns, DeviceError> {
        let ppn = self
            .slc
            .alloc(owner(self.ns_id, lpn), 0)
            .ok_or(DeviceError::NoSpace { command })?;
        self.map[lpn as usize] = ppn;
        self.cache.insert(key(self.ns_id, Gran::Page, lpn), false);
        self.move_payload(from_key, KEY_SLC | ppn);
        Ok(self.hw.program(ready, self.slc.chip_of(ppn), 1, Cells::Slc))
    }

    fn read(&mut self, now: Ns, lba: u64, blocks: u32) -> Result<Ns, DeviceError> {
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
        let mut fetched: Option<u64> = None;
        let mut batch = FlashReadBatch::new(t0);
        for lpn in lba..lba + blocks as u64 {
            if self.buffers.iter().any(|b| b.0.contains(&lpn)) {
                self.counts.buffer_read_hits += 1;
                continue;
            }
            let e = self.map[lpn as usize];
            if e == UNMAPPED {
                self.counts.unmapped_reads += 1;
                continue;
            }
            let k = key(self.ns_id, Gran::Page, lpn);
            if self.cache.lookup(k) {
                self.counts.l2p_hits += 1;
            } else {
                self.counts.l2p_misses += 1;
                // One fetch per mapping page (1024 entries) per request.
                let map_page = lpn / ENTRIES_PER_MAP_PAGE;
                if fetched != Some(map_page) {
                    fetched = Some(map_page);
                    let chip = (map_page % self.g.chips as u64) as u32;
                    map_t = self.hw.fetch_map(map_t, chip);
                }
                self.cache.insert(k, false);
            }
            let (chip, flash_page, cells) = if e & REG_BIT != 0 {
                let ppn = e & !REG_BIT;
                let flash_page = ppn / self.g.flash_page_pages;
                (self.reg_chip(ppn), flash_page, Cells::Regular)
            } else {
                (self.slc.chip_of(e), self.slc.flash_page_of(e), Cells::Slc)
            };
            batch.add(&mut self.hw, chip, flash_page, cells, map_t);
        }
        let done = batch.finish(&mut self.hw);
        let end = self.hw.host_transfer(done, bytes);
        self.counts.host_read_bytes += bytes;
        self.hw.complete(end);
        Ok(end)
    }

    fn store_read(&self, lba: u64, out: &mut [u8]) {
        let Some(d) = self.data.as_ref() else {
            out.fill(0);
            return;
        };
        for (i, chunk) in out
            .chunks_exact_mut(LOGICAL_PAGE_BYTES as usize)
            .enumerate()
        {
            let lpn = lba + i as u64;
            let k = if self.buffers.iter().any(|b| b.0.contains(&lpn)) {
                KEY_BUF | lpn
            } else {
                match self.map[lpn as usize] {
                    UNMAPPED => {
                        chunk.fill(0);
                        continue;
                    }
                    e if e & REG_BIT != 0 => KEY_REG | (e & !REG_BIT),
                    e => KEY_SLC | e,
                }
            };
            d.read(k, chunk);
        }
    }
}

impl ConZoneBlock {
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
            gc_runs: c.gc_runs + c.slc_gc_runs,
            gc_copied_bytes: (c.gc_copied_pages + c.migrated_pages) * LOGICAL_PAGE_BYTES,
            erases: ops.slc_erases + ops.regular_erases,
            // Acknowledged (early completion) but not yet flushed.
            buffered_write_bytes: self
                .buffers
                .iter()
                .map(|(pages, _)| pages.len() as u64)
                .sum::<u64>()
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
            ("regular_gc_runs", c.gc_runs),
            ("regular_gc_copied_pages", c.gc_copied_pages),
            ("slc_gc_runs", c.slc_gc_runs),
            ("migrated_pages", c.migrated_pages),
            ("slc_program_pages", ops.slc_program_pages),
            ("regular_program_pages", ops.regular_program_pages),
            ("slc_erases", ops.slc_erases),
            ("regular_erases", ops.regular_erases),
            ("slc_direct_erases", self.slc.direct_erases),
            ("host_flushes", c.host_flushes),
        ] {
            st.counters.insert(k.into(), v);
        }
        st.finish()
    }
}

impl Device for ConZoneBlock {
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
        let cap = self.info.capacity_blocks;
        match *cmd {
            Command::Read { lba, blocks } => {
                check_block_range("read", lba, blocks, cap)?;
                let done = self.read(now_ns, lba, blocks)?;
                if let Payload::Read(out) = payload {
                    self.store_read(lba, out);
                }
                Ok(Completion { done_ns: done, lba })
            }
            Command::Write { lba, blocks } => {
                check_block_range("write", lba, blocks, cap)?;
                let bytes = match payload {
                    Payload::Write(b) => Some(b),
                    _ => None,
                };
                let done = self.write(now_ns, lba, blocks, bytes)?;
                Ok(Completion { done_ns: done, lba })
            }
            Command::Trim { lba, blocks } => {
                check_block_range("trim", lba, blocks, cap)?;
                for lpn in lba..lba + blocks as u64 {
                    if self.buffers.iter().any(|b| b.0.contains(&lpn)) {
                        for b in &mut self.buffers {
                            b.0.retain(|&x| x != lpn);
                        }
                        if let Some(d) = self.data.as_mut() {
                            d.take(KEY_BUF | lpn);
                        }
                    }
                    self.unmap(lpn);
                    self.cache.remove(key(self.ns_id, Gran::Page, lpn));
                }
                Ok(Completion {
                    done_ns: now_ns + self.g.fw_wbuf_ns,
                    lba,
                })
            }
            Command::Flush => {
                self.hw.advance(now_ns);
                self.counts.host_flushes += 1;
                let mut done = now_ns + self.g.fw_wbuf_ns;
                for i in 0..self.buffers.len() {
                    if !self.buffers[i].0.is_empty() {
                        self.counts.premature_flushes += 1;
                        done = done.max(self.flush(i, now_ns)?);
                    }
                }
                let done = done.max(self.hw.idle_at_ns());
                Ok(Completion {
                    done_ns: done,
                    lba: 0,
                })
            }
            Command::Append { .. } | Command::Zone { .. } => Err(DeviceError::Unsupported {
                command: cmd.name(),
                device: self.info.name.clone(),
            }),
        }
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        self.stats_with(&self.hw, &self.cache, elapsed_ns)
    }
}
