//! Skylight's STL (`policy = "skylight"`): the set-associative persistent cache of
//! Aghayev et al. (FAST'15), as MU-RMW §II-A/§II-B (Fig. 1, Fig. 2a) describes it
//! and as its STL emulator `dm-sadc.c` ("set-associative disk cache",
//! github.com/agayev/skylight) implements it, with the cache moved to flash.
//!
//! - **PC zones.** The flash cache is split into `pc_zones` zones of equal block
//!   count (block `z·B .. (z+1)·B` for zone `z`); in the paper's setup two zones,
//!   each the size of a band (§IV-A). `dm-sadc.c` calls them cache bands.
//! - **Static association.** Band `b` belongs to zone `b mod pc_zones`
//!   (`cache_band()` in `dm-sadc.c`: `&sc->cache_bands[band % sc->nr_cache_bands]`).
//! - **Mapping.** A sector-level table LSN → PPN in RAM, 4 B per sector
//!   ([`SectorMap`]; `pba_map` in `dm-sadc.c`), plus a per-band count of cached
//!   sectors standing in for the emulator's per-cache-band bitmap of bands with
//!   data.
//! - **Writes** append to the zone's current block (`current_pba++` in
//!   `map_pba_range`); a zone fills its blocks in order, so data of all its bands
//!   mix inside blocks (Fig. 2a). An overwrite appends a new copy and leaves the
//!   old one invalid, as the emulator does.
//! - **Reads** return the cached copy if there is one (one page read), else read
//!   the sector from its band (`lookup_pba`).
//! - **Cleaning.** When the zone a write maps to has no free page left
//!   (`cache_band_to_gc`), the write waits while the whole zone is cleaned
//!   (`do_gc_cache_band`): for every associated band with cached data, in
//!   ascending band order (`for_each_set_bit`), its valid sectors are read from
//!   the flash and written back with one band read-modify-write (`do_rmw_band`),
//!   then the band is unmapped; finally every programmed block of the zone is
//!   erased (`reset_cache_band`). One cleaning therefore costs up to
//!   `bands / pc_zones` RMWs — the K+1 of §II-B.
//!
//! Decisions: band write-backs run one after another (the emulator's GC is
//! synchronous: read band, merge, write band, next band), each starting with the
//! flash reads of that band's cached sectors; the erases follow the last RMW (a
//! block may hold the last copy of any of the zone's bands until then). Blocks
//! never programmed since the last cleaning are not erased again.
//! `mapping_memory_bytes` counts the sector table, the per-band and per-block
//! counts and one 4-byte cursor per zone (≈ 10 MB for 256 × 10,240 sectors, §III-E).

use super::hardware::{Hardware, NONE};
use super::sector_map::SectorMap;
use super::stl::{sector_chunk, Stl};
use zonelab_engine::Ns;

pub struct Skylight {
    map: SectorMap,
    zones: u32,
    blocks_per_zone: u32,
    /// The block each zone is filling; the blocks before it are full, the ones
    /// after it erased. The zone is full when its last block is full.
    cursor: Vec<u32>,
}

impl Skylight {
    pub fn new(hw: &Hardware, pc_zones: u32) -> Self {
        let blocks = hw.flash.params.blocks;
        assert!(
            pc_zones >= 1 && blocks.is_multiple_of(pc_zones),
            "{pc_zones} PC zones must divide {blocks} flash blocks"
        );
        let blocks_per_zone = blocks / pc_zones;
        Self {
            map: SectorMap::new(hw),
            zones: pc_zones,
            blocks_per_zone,
            cursor: (0..pc_zones).map(|z| z * blocks_per_zone).collect(),
        }
    }

    /// PC zone of `band`.
    #[inline]
    pub fn zone_of_band(&self, band: u32) -> u32 {
        band % self.zones
    }

    fn zone_blocks(&self, zone: u32) -> std::ops::Range<u32> {
        zone * self.blocks_per_zone..(zone + 1) * self.blocks_per_zone
    }

    /// Cleans `zone`: one RMW per associated band with cached data, then erases
    /// the zone's blocks. Returns when the last erase completes.
    fn clean(&mut self, hw: &mut Hardware, start_ns: Ns, zone: u32) -> Ns {
        let blocks = self.zone_blocks(zone);
        let groups = self.map.gather(hw, blocks.clone(), |_| true);
        let mut t = start_ns;
        for (band, pages) in groups.iter() {
            t = self.map.write_back(hw, t, band, pages);
        }
        let mut end = t;
        for block in blocks.clone() {
            if hw.flash.programmed_pages(block) > 0 {
                end = end.max(hw.flash.erase(t, block));
            }
        }
        self.cursor[zone as usize] = blocks.start;
        hw.record_cleaning(start_ns, end, groups.bands.len() as u64);
        end
    }
}

impl Stl for Skylight {
    fn name(&self) -> &'static str {
        "skylight"
    }

    fn write(
        &mut self,
        hw: &mut Hardware,
        ready_ns: Ns,
        first: u32,
        count: u32,
        data: Option<&[u8]>,
    ) -> Ns {
        let sb = hw.flash.params.page_bytes as usize;
        // Pages are issued at `ready`, or after a cleaning one of them triggered.
        let mut ready = ready_ns;
        let mut done = ready_ns;
        for i in 0..count {
            let sector = first + i;
            let zone = self.zone_of_band(self.map.band_of(sector));
            let mut block = self.cursor[zone as usize];
            if hw.flash.next_free_page(block).is_none() {
                // The cursor only rests on a full block when it is the zone's last.
                ready = self.clean(hw, ready, zone);
                block = self.cursor[zone as usize];
            }
            let chunk = sector_chunk(data, i, sb);
            done = done.max(self.map.program(hw, ready, block, sector, chunk));
            if hw.flash.next_free_page(block).is_none() && block + 1 < self.zone_blocks(zone).end {
                self.cursor[zone as usize] = block + 1;
            }
        }
        done.max(ready)
    }

    fn read(
        &mut self,
        hw: &mut Hardware,
        ready_ns: Ns,
        first: u32,
        count: u32,
        out: Option<&mut [u8]>,
    ) -> Ns {
        self.map.read_request(hw, ready_ns, first, count, out)
    }

    fn mapping_memory_bytes(&self) -> u64 {
        self.map.memory_bytes() + 4 * self.cursor.len() as u64
    }

    fn check_invariants(&self, hw: &Hardware) -> Result<(), String> {
        self.map.check(hw)?;
        let ppb = hw.flash.params.pages_per_block;
        for zone in 0..self.zones {
            let blocks = self.zone_blocks(zone);
            let cursor = self.cursor[zone as usize];
            if !blocks.contains(&cursor) {
                return Err(format!(
                    "zone {zone}: cursor {cursor} outside its blocks {blocks:?}"
                ));
            }
            for block in blocks.clone() {
                let programmed = hw.flash.programmed_pages(block);
                if block < cursor && programmed != ppb {
                    return Err(format!(
                        "zone {zone}: block {block} before the cursor has {programmed}/{ppb} pages"
                    ));
                }
                if block > cursor && programmed != 0 {
                    return Err(format!("zone {zone}: free block {block} after the cursor is not erased ({programmed} pages)"));
                }
                if block == cursor && programmed == ppb && block + 1 != blocks.end {
                    return Err(format!(
                        "zone {zone}: cursor rests on full block {block} with free blocks after it"
                    ));
                }
                for ppn in block * ppb..block * ppb + programmed {
                    let tag = hw.flash.sector_tag(ppn);
                    if tag == NONE || self.zone_of_band(self.map.band_of(tag)) != zone {
                        return Err(format!("zone {zone}: page {ppn} holds sector {tag} of a band not associated with it"));
                    }
                }
            }
        }
        Ok(())
    }
}
