//! Read path of the zoned device (§3.3, Fig. 5): write-buffer hits, L2P cache
//! search (zone, chunk, page), mapping-page fetches on a miss (BITMAP or
//! MULTIPLE), flash reads grouped per flash page, host transfer.

use super::*;

impl ConZone {
    // ----------------------------------------------------------------- reads

    pub(super) fn read(&mut self, now: Ns, lba: u64, blocks: u32) -> Result<Ns, DeviceError> {
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
        let mut fetched: Vec<u64> = Vec::new();
        let mut batch = FlashReadBatch::new(t0);
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
            let (chip, flash_page, cells) = if e == REGULAR {
                let flash_page = self.lpn(zone, off) / self.g.flash_page_pages;
                (self.reg_chip(zone, off), flash_page, Cells::Regular)
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

    /// Looks `off` up in the L2P cache: zone, sub-zone, chunk, then page entries
    /// (§3.3 step I; reference `handle_read_request`, `zms_read_write.c:
    /// 3216-3233`, in `map_type` order). A hit needs the address and the
    /// granularity to match (§3.3); the reference matches the start page of each
    /// level whatever granularity its entry has, which §3.3 does not describe.
    /// Counts a hit or a miss.
    pub(super) fn l2p_lookup(&mut self, zone: u32, off: u64) -> bool {
        let lpn = self.lpn(zone, off);
        let hybrid = self.map.policy == MappingPolicy::Hybrid;
        let hit = if hybrid {
            [Gran::Zone, Gran::SubZone, Gran::Chunk, Gran::Page]
                .into_iter()
                .any(|g| {
                    let a = self.map.entry_address(zone, off, g);
                    self.cache.lookup(key(ZONED_NS, g, a))
                })
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
    /// it. BITMAP knows the granularity: one fetch. MULTIPLE tries zone, sub-zone,
    /// chunk and page entries in turn, one dependent fetch each, until the entry's
    /// granularity bits match (reference `map_read`, `zms_read_write.c:
    /// 3111-3159`: four levels, `MAP_READ_IO` at SLC latency). Returns when it is
    /// known.
    /// `fetched` lists the (search level, mapping page) pairs already read for the
    /// current request: a mapping page holds 1024 consecutive entries, so a large
    /// request pays one fetch per mapping page and level, not one per logical page.
    pub(super) fn l2p_miss(
        &mut self,
        zone: u32,
        off: u64,
        ready: Ns,
        fetched: &mut Vec<u64>,
    ) -> Ns {
        let gran = self.map.gran(zone, off);
        let first_of = |g: Gran| {
            let span = match g {
                Gran::Zone => self.map.cap,
                Gran::SubZone => self.map.subzone_pages,
                Gran::Chunk => self.map.chunk_pages,
                Gran::Page => 1,
            };
            self.lpn(zone, off / span * span)
        };
        let levels = [Gran::Zone, Gran::SubZone, Gran::Chunk, Gran::Page];
        let chain: Vec<u64> = match (self.map.policy, self.g.miss_handling) {
            (MappingPolicy::Page, _) => vec![first_of(Gran::Page)],
            (_, MissHandling::Bitmap) => vec![first_of(gran)],
            (_, MissHandling::Multiple) => levels
                .iter()
                .take_while(|&&g| g > gran)
                .chain(std::iter::once(&gran))
                .map(|&g| first_of(g))
                .collect(),
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
        self.cache_insert(zone, off, gran);
        t
    }
}
