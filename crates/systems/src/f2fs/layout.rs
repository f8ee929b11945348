//! On-device layout, as `mkfs.f2fs -c <data> <meta>` formats ConZone+'s two
//! namespaces (§4.1): the metadata area (checkpoint packs, SIT, NAT, SSA) on the
//! metadata device, the main area (segments of 2 MiB grouped into sections) on the
//! data device. On a zoned data device a section is a zone and only the
//! segments inside the zone capacity are usable; on a block device a section is
//! one segment (F2FS's default `segs_per_sec = 1`).

use super::error::FsError;
use zonelab_devices::DeviceInfo;

/// 4 KiB blocks per 2 MiB segment (`BLKS_PER_SEG`).
pub const BLOCKS_PER_SEG: u32 = 512;
/// Block address meaning "none" (`NULL_ADDR`).
pub const NULL_ADDR: u32 = u32::MAX;
/// NAT entries per NAT block (`NAT_ENTRY_PER_BLOCK` = 4096 / 9).
pub const NAT_ENTRIES_PER_BLOCK: u32 = 455;
/// SIT entries per SIT block (`SIT_ENTRY_PER_BLOCK`).
pub const SIT_ENTRIES_PER_BLOCK: u32 = 55;
/// NAT / SIT entries a checkpoint keeps in its summary journal instead of
/// writing their blocks (`NAT_JOURNAL_ENTRIES` 38, `SIT_JOURNAL_ENTRIES` 6).
pub const NAT_JOURNAL_ENTRIES: usize = 38;
pub const SIT_JOURNAL_ENTRIES: usize = 6;
/// Blocks of a checkpoint pack: two CP blocks and compacted data summaries
/// (`cp_pack_total_block_count` = 2 + summaries, at most 3 compacted blocks).
pub const CP_PACK_BLOCKS: u64 = 5;

/// Main-area geometry.
#[derive(Debug, Clone, PartialEq)]
pub struct MainGeometry {
    /// Segments, unusable ones (beyond a zone's capacity) included.
    pub segments: u32,
    pub segs_per_sec: u32,
    /// Usable segments at the start of each section.
    pub usable_segs_per_sec: u32,
    pub sections: u32,
    pub zoned: bool,
    /// First LBA of the main area on the data device.
    pub lba_base: u64,
}

impl MainGeometry {
    /// Lays the main area out on `info` (4 KiB blocks), from LBA `lba_base`.
    pub fn new(info: &DeviceInfo, lba_base: u64) -> Result<Self, FsError> {
        if info.block_bytes != 4096 {
            return Err(FsError::UnsupportedDevice {
                area: "data",
                device: info.name.clone(),
                reason: format!(
                    "{} B blocks; the file system needs 4096 B",
                    info.block_bytes
                ),
            });
        }
        let g = match &info.zoned {
            Some(z) => {
                if z.conventional_zones > 0 {
                    return Err(FsError::UnsupportedDevice {
                        area: "data",
                        device: info.name.clone(),
                        reason: "conventional zones in the data namespace (put metadata on its own namespace)".into(),
                    });
                }
                if z.zone_size_blocks % BLOCKS_PER_SEG as u64 != 0
                    || z.zone_capacity_blocks < BLOCKS_PER_SEG as u64
                {
                    return Err(FsError::UnsupportedDevice {
                        area: "data",
                        device: info.name.clone(),
                        reason: format!(
                            "zone size {} blocks is not whole 2 MiB segments or capacity {} is below one",
                            z.zone_size_blocks, z.zone_capacity_blocks
                        ),
                    });
                }
                if z.max_open_zones != 0 && z.max_open_zones < 6 {
                    return Err(FsError::UnsupportedDevice {
                        area: "data",
                        device: info.name.clone(),
                        reason: format!(
                            "{} open zones; F2FS keeps six logs open",
                            z.max_open_zones
                        ),
                    });
                }
                let spp = (z.zone_size_blocks / BLOCKS_PER_SEG as u64) as u32;
                Self {
                    segments: z.zone_count * spp,
                    segs_per_sec: spp,
                    usable_segs_per_sec: (z.zone_capacity_blocks / BLOCKS_PER_SEG as u64) as u32,
                    sections: z.zone_count,
                    zoned: true,
                    lba_base,
                }
            }
            None => {
                let blocks = info.capacity_blocks.saturating_sub(lba_base);
                let segs = (blocks / BLOCKS_PER_SEG as u64) as u32;
                Self {
                    segments: segs,
                    segs_per_sec: 1,
                    usable_segs_per_sec: 1,
                    sections: segs,
                    zoned: false,
                    lba_base,
                }
            }
        };
        if g.sections < 8 {
            return Err(FsError::UnsupportedDevice {
                area: "data",
                device: info.name.clone(),
                reason: format!("{} sections; at least 8 are needed", g.sections),
            });
        }
        Ok(g)
    }

    pub fn usable_segments(&self) -> u32 {
        self.sections * self.usable_segs_per_sec
    }

    pub fn blocks_per_sec(&self) -> u32 {
        self.usable_segs_per_sec * BLOCKS_PER_SEG
    }

    #[inline]
    pub fn sec_of_seg(&self, seg: u32) -> u32 {
        seg / self.segs_per_sec
    }

    #[inline]
    pub fn seg_usable(&self, seg: u32) -> bool {
        seg % self.segs_per_sec < self.usable_segs_per_sec
    }

    /// Device LBA of main-area block `blk`.
    #[inline]
    pub fn lba(&self, blk: u32) -> u64 {
        self.lba_base + blk as u64
    }

    /// Segments reserved for GC and over-provisioned segments (mkfs).
    pub fn reserve(&self, reserved_override: Option<u32>) -> (u32, u32) {
        let usable = self.usable_segments();
        if self.zoned {
            // Authors' mkfs.f2fs, zoned mode ("MISAO: ref OPPO"):
            // reserved = 1 + NR_CURSEG_TYPE, overprovision = reserved / usable
            // (a fraction used as a percentage, so it adds nothing).
            let reserved = reserved_override.unwrap_or(7);
            let ovp_ratio = reserved as f64 / usable as f64;
            let ovp =
                ((usable - reserved.min(usable)) as f64 * ovp_ratio / 100.0) as u32 + reserved;
            (reserved, ovp)
        } else {
            let ovp_pct = best_overprovision(usable, self.segs_per_sec);
            let reserved = reserved_override.unwrap_or_else(|| {
                ((2.0 * (100.0 / ovp_pct + 1.0) + 6.0) * self.segs_per_sec as f64) as u32
            });
            let ovp =
                ((usable.saturating_sub(reserved)) as f64 * ovp_pct / 100.0) as u32 + reserved;
            (reserved, ovp)
        }
    }
}

/// `get_best_overprovision` (f2fs_fs.h:1376-1403): the over-provisioning
/// percentage that leaves the most user space.
fn best_overprovision(usable_segs: u32, segs_per_sec: u32) -> f64 {
    let (mut cand, end, diff) = if usable_segs < 256 {
        (10.0, 95.0, 5.0)
    } else {
        (0.01, 10.0, 0.01)
    };
    let (mut best, mut best_space) = (0.0, 0.0);
    let usable = usable_segs as f64;
    while cand <= end {
        let reserved = (2.0 * (100.0 / cand + 1.0) + 6.0) * segs_per_sec as f64;
        let ovp = (usable - reserved) * cand / 100.0;
        let space = usable - reserved - ovp;
        if space > best_space {
            best_space = space;
            best = cand;
        }
        cand += diff;
    }
    best
}

/// Metadata-area layout on the metadata device, in blocks from its LBA base.
#[derive(Debug, Clone, PartialEq)]
pub struct MetaLayout {
    pub lba_base: u64,
    /// Two checkpoint segments; pack `k` goes to segment `k mod 2`.
    pub cp_lba: u64,
    pub sit_lba: u64,
    pub sit_blocks: u64,
    pub nat_lba: u64,
    pub nat_blocks: u64,
    pub ssa_lba: u64,
    pub total_blocks: u64,
}

impl MetaLayout {
    /// Sizes the areas for `main` with room for `max_nodes` node ids; SIT and NAT
    /// keep two copies each, as F2FS does.
    pub fn new(
        main: &MainGeometry,
        max_nodes: u32,
        lba_base: u64,
        have_blocks: u64,
    ) -> Result<Self, FsError> {
        let seg = BLOCKS_PER_SEG as u64;
        let cp = 2 * seg;
        let sit_blocks = (main.segments as u64).div_ceil(SIT_ENTRIES_PER_BLOCK as u64);
        let nat_blocks = (max_nodes as u64).div_ceil(NAT_ENTRIES_PER_BLOCK as u64);
        let ssa = main.segments as u64;
        let total = cp + 2 * sit_blocks + 2 * nat_blocks + ssa;
        if total > have_blocks {
            return Err(FsError::MetaTooSmall {
                needed_blocks: total,
                have_blocks,
                cp,
                sit: 2 * sit_blocks,
                nat: 2 * nat_blocks,
                ssa,
            });
        }
        Ok(Self {
            lba_base,
            cp_lba: lba_base,
            sit_lba: lba_base + cp,
            sit_blocks,
            nat_lba: lba_base + cp + 2 * sit_blocks,
            nat_blocks,
            ssa_lba: lba_base + cp + 2 * sit_blocks + 2 * nat_blocks,
            total_blocks: total,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_overprovision_of_a_4_gib_block_device_is_a_few_percent() {
        let p = best_overprovision(2016, 1);
        assert!((2.5..4.0).contains(&p), "{p}");
    }
}
