//! The `conzone` / `conzone-block` profile (ConZone+ §3, §4, §6.1) and the geometry
//! derived from it. Every field is validated on load; errors name the field, the
//! value and the allowed range. Defaults the paper leaves out come from the
//! authors' reference code (DingcuiYu/ConZone `ssd_config.h`, `ssdconfigs/*`) and
//! are cited in the built-in profiles.

use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use zonelab_engine::{us_to_ns, Ns, KIB, MIB};

/// Logical page (mapping unit) size: 4 KiB (§3.3, "LPA for 4 KiB pages").
pub const LOGICAL_PAGE_BYTES: u64 = 4 * KIB;

/// Cell type of the regular (non-SLC) blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RegularCell {
    Tlc,
    Qlc,
}

impl RegularCell {
    pub fn bits_per_cell(self) -> u32 {
        match self {
            RegularCell::Tlc => 3,
            RegularCell::Qlc => 4,
        }
    }
}

/// Zone → write-buffer mapping (§3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferMapping {
    /// Any zone may use any buffer; on a conflict the fullest is flushed.
    Associative,
    /// Buffer = zone id mod buffer count.
    Modulo,
}

/// Mapping granularity policy of the zoned namespace (§3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MappingPolicy {
    /// 4 KiB page mapping only.
    Page,
    /// Page, chunk and zone entries aggregated when contiguous and aligned.
    Hybrid,
}

/// How an L2P cache miss finds the mapping granularity (§3.3, §6.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MissHandling {
    /// A granularity bitmap in memory: one mapping-page fetch per miss.
    Bitmap,
    /// Zone, then chunk, then page entries fetched until one matches.
    Multiple,
}

/// Where user data is staged (§2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SlcStaging {
    /// Full program units go to regular blocks; only premature flushes use SLC (TLC).
    Bypass,
    /// Every write goes to SLC first and is migrated later (QLC, two-step program).
    All,
}

/// How SLC space is managed (§6.5): shared by all zones page by page, or in
/// superblocks dedicated to one zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SlcManagement {
    /// `pageslc`: one shared SLC write frontier; GC migrates per victim's pages.
    Page,
    /// `zonedslc`: each zone's SLC data in its own superblocks; migration moves a
    /// zone's whole SLC run, a reset zone's superblocks are erased directly.
    Zone,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlashSection {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub planes_per_chip: u32,
    pub page_kib: u32,
    pub cell_type: RegularCell,
    /// Capacity of one chip's regular block over all its planes.
    pub block_mib: u32,
    pub read_slc_us: f64,
    pub read_regular_us: f64,
    pub program_slc_us: f64,
    pub program_regular_us: f64,
    pub erase_us: f64,
    pub channel_mib_s: f64,
    pub host_link_mb_s: f64,
    pub queue_depth: u32,
    /// §4.2: other commands preempt queued SLC→regular migration commands. On
    /// unless a profile turns it off: the reference always queues per plane with
    /// migration-only preemption (`ssd.c:729-811`).
    #[serde(default = "preempt_by_default")]
    pub preempt_migration: bool,
}

fn preempt_by_default() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FirmwareSection {
    pub read_4kib_us: f64,
    pub read_us: f64,
    pub write_buffer_us: f64,
    pub write_buffer_per_4kib_us: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteBufferSection {
    pub count: u32,
    pub kib: u32,
    pub mapping: BufferMapping,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct L2pSection {
    pub cache_kib: u32,
    pub entry_bytes: u32,
    pub buckets: u32,
    pub mapping: MappingPolicy,
    pub miss_handling: MissHandling,
    pub pin_aggregated: bool,
    pub chunk_mib: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlcSection {
    /// SLC-mode blocks per chip for data (the first n blocks of each chip).
    pub blocks_per_chip: u32,
    pub staging: SlcStaging,
    pub management: SlcManagement,
    /// SLC GC runs when free SLC superblocks drop to this many.
    pub gc_free_superblocks: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZonesSection {
    pub zone_count: u32,
    /// Chips a zone spans: all chips (zone = superblock) or 1 (sub-block mode, §4.3).
    pub zone_chips: u32,
    pub max_open_zones: u32,
    pub max_active_zones: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSection {
    /// Logical capacity of the block-interface device.
    pub capacity_mib: u64,
    /// Over-provisioning of regular blocks, percent of the logical capacity.
    pub op_percent: u32,
    /// Regular-block GC runs when free superblocks drop to this many.
    pub gc_free_superblocks: u32,
}

/// The metadata (block) namespace of `model = "conzone-plus"` (§4, §4.1).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetadataSection {
    /// Logical size of the namespace (LOGICAL_NS_SIZE[0]).
    pub logical_mib: u64,
    /// SLC blocks per chip of this namespace's SLC pool (its physical size).
    pub slc_blocks_per_chip: u32,
    /// Its dedicated write buffer.
    pub buffer_kib: u32,
    pub gc_free_superblocks: u32,
}

/// `model = "conzone"` (zoned), `"conzone-block"` or `"conzone-plus"` profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConZoneProfile {
    pub name: String,
    pub model: String,
    pub description: String,
    pub flash: FlashSection,
    pub firmware: FirmwareSection,
    pub write_buffer: WriteBufferSection,
    pub l2p: L2pSection,
    pub slc: SlcSection,
    /// Required by `conzone`.
    pub zones: Option<ZonesSection>,
    /// Required by `conzone-block`.
    pub block: Option<BlockSection>,
    /// Required by `conzone-plus`.
    pub metadata: Option<MetadataSection>,
}

/// Derived geometry and timings, all in 4 KiB logical pages and nanoseconds.
#[derive(Debug, Clone)]
pub struct Geometry {
    pub channels: u32,
    pub chips: u32,
    /// Pages one flash read senses on a chip (page × planes, multi-plane).
    pub flash_page_pages: u64,
    /// Pages of one regular program unit on a chip (page × bits × planes).
    pub unit_pages: u64,
    /// Pages of one SLC program (page × planes); partial programs allowed.
    pub slc_unit_pages: u64,
    /// Pages of one regular block on one chip (all planes).
    pub block_pages: u64,
    /// Pages of one SLC block on one chip.
    pub slc_block_pages: u64,
    /// Pages of one sub-zone mapping unit: an SLC superblock's capacity
    /// (reference `SUB_ZONE_MAP` = `pslc_pgs_per_line`, `zms_read_write.c:199-201`).
    pub subzone_pages: u64,
    pub slc_blocks_per_chip: u32,
    pub chunk_pages: u64,
    pub read_slc_ns: Ns,
    pub read_regular_ns: Ns,
    pub program_slc_ns: Ns,
    pub program_regular_ns: Ns,
    pub erase_ns: Ns,
    pub channel_bytes_per_s: u64,
    pub link_bytes_per_s: u64,
    pub queue_depth: u32,
    pub preempt_migration: bool,
    pub fw_read_4kib_ns: Ns,
    pub fw_read_ns: Ns,
    pub fw_wbuf_ns: Ns,
    pub fw_wbuf_per_4kib_ns: Ns,
    pub buffer_count: u32,
    pub buffer_pages: u64,
    pub buffer_mapping: BufferMapping,
    pub cache_entries: u64,
    pub cache_buckets: u32,
    pub mapping: MappingPolicy,
    pub miss_handling: MissHandling,
    pub pin_aggregated: bool,
    pub staging: SlcStaging,
    pub slc_management: SlcManagement,
    pub slc_gc_free: u32,
    pub regular: RegularCell,
}

impl ConZoneProfile {
    /// Validates every field and derives the geometry.
    pub fn validate(&self, source: &str) -> Result<Geometry, ProfileError> {
        let v = Validator::new(source);
        let f = &self.flash;
        for (field, value) in [
            ("flash.read_slc_us", f.read_slc_us),
            ("flash.read_regular_us", f.read_regular_us),
            ("flash.program_slc_us", f.program_slc_us),
            ("flash.program_regular_us", f.program_regular_us),
            ("flash.erase_us", f.erase_us),
            ("flash.channel_mib_s", f.channel_mib_s),
            ("flash.host_link_mb_s", f.host_link_mb_s),
            ("firmware.read_4kib_us", self.firmware.read_4kib_us),
            ("firmware.read_us", self.firmware.read_us),
            ("firmware.write_buffer_us", self.firmware.write_buffer_us),
            (
                "firmware.write_buffer_per_4kib_us",
                self.firmware.write_buffer_per_4kib_us,
            ),
        ] {
            v.check(field, value, !value.is_nan(), "a number")?;
        }
        v.range("flash.channels", f.channels, 1, 32)?;
        v.range("flash.chips_per_channel", f.chips_per_channel, 1, 32)?;
        v.range("flash.planes_per_chip", f.planes_per_chip, 1, 8)?;
        v.check(
            "flash.page_kib",
            f.page_kib,
            f.page_kib.is_power_of_two() && (4..=64).contains(&f.page_kib),
            "a power of two in 4..=64",
        )?;
        v.range("flash.read_slc_us", f.read_slc_us, 0.1, 10_000.0)?;
        v.range("flash.read_regular_us", f.read_regular_us, 0.1, 10_000.0)?;
        v.range("flash.program_slc_us", f.program_slc_us, 1.0, 100_000.0)?;
        v.range(
            "flash.program_regular_us",
            f.program_regular_us,
            1.0,
            100_000.0,
        )?;
        v.range("flash.erase_us", f.erase_us, 1.0, 100_000.0)?;
        v.range("flash.channel_mib_s", f.channel_mib_s, 1.0, 100_000.0)?;
        v.range("flash.host_link_mb_s", f.host_link_mb_s, 1.0, 100_000.0)?;
        v.range("flash.queue_depth", f.queue_depth, 1, 65_536)?;
        let fw = &self.firmware;
        v.range("firmware.read_4kib_us", fw.read_4kib_us, 0.0, 10_000.0)?;
        v.range("firmware.read_us", fw.read_us, 0.0, 10_000.0)?;
        v.range(
            "firmware.write_buffer_us",
            fw.write_buffer_us,
            0.0,
            10_000.0,
        )?;
        v.range(
            "firmware.write_buffer_per_4kib_us",
            fw.write_buffer_per_4kib_us,
            0.0,
            1_000.0,
        )?;
        let bits = f.cell_type.bits_per_cell() as u64;
        let flash_page_pages =
            f.page_kib as u64 * KIB * f.planes_per_chip as u64 / LOGICAL_PAGE_BYTES;
        let unit_pages = flash_page_pages * bits;
        let unit_kib = unit_pages * 4;
        v.check(
            "flash.block_mib",
            f.block_mib,
            f.block_mib >= 1
                && f.block_mib <= 4096
                && (f.block_mib as u64 * MIB).is_multiple_of(unit_kib * KIB),
            &format!("1..=4096 and a multiple of the {unit_kib} KiB program unit"),
        )?;
        let block_pages = f.block_mib as u64 * MIB / LOGICAL_PAGE_BYTES;
        let wb = &self.write_buffer;
        v.range("write_buffer.count", wb.count, 1, 64)?;
        v.check(
            "write_buffer.kib",
            wb.kib,
            wb.kib >= 4 && wb.kib.is_multiple_of(4) && wb.kib <= 1 << 20,
            "a multiple of 4 in 4..=1048576",
        )?;
        let l = &self.l2p;
        v.range("l2p.entry_bytes", l.entry_bytes, 1, 64)?;
        v.range("l2p.cache_kib", l.cache_kib, 1, 1 << 20)?;
        let cache_entries = l.cache_kib as u64 * KIB / l.entry_bytes as u64;
        v.range(
            "l2p.buckets",
            l.buckets as u64,
            1,
            cache_entries.min(1 << 20),
        )?;
        v.check(
            "l2p.chunk_mib",
            l.chunk_mib,
            l.chunk_mib >= 1 && l.chunk_mib <= 1024,
            "1..=1024",
        )?;
        let s = &self.slc;
        v.range("slc.blocks_per_chip", s.blocks_per_chip, 2, 4096)?;
        v.range(
            "slc.gc_free_superblocks",
            s.gc_free_superblocks,
            1,
            s.blocks_per_chip - 1,
        )?;
        let chips = f.channels * f.chips_per_channel;
        if let Some(z) = &self.zones {
            v.range("zones.zone_count", z.zone_count, 1, 1 << 20)?;
            v.check(
                "zones.zone_chips",
                z.zone_chips,
                z.zone_chips == 1 || z.zone_chips == chips,
                &format!("1 (sub-block mode) or {chips} (zone = superblock)"),
            )?;
            v.range("zones.max_open_zones", z.max_open_zones, 0, z.zone_count)?;
            v.range(
                "zones.max_active_zones",
                z.max_active_zones,
                0,
                z.zone_count,
            )?;
            if z.max_active_zones > 0 {
                v.range(
                    "zones.max_open_zones",
                    z.max_open_zones,
                    1,
                    z.max_active_zones,
                )?;
            }
        }
        if let Some(b) = &self.block {
            v.range("block.capacity_mib", b.capacity_mib, 1, 1 << 24)?;
            v.range("block.op_percent", b.op_percent, 1, 100)?;
            v.range("block.gc_free_superblocks", b.gc_free_superblocks, 1, 64)?;
        }
        Ok(Geometry {
            channels: f.channels,
            chips,
            flash_page_pages,
            unit_pages,
            slc_unit_pages: flash_page_pages,
            block_pages,
            slc_block_pages: block_pages / bits,
            subzone_pages: block_pages / bits * chips as u64,
            slc_blocks_per_chip: s.blocks_per_chip,
            chunk_pages: l.chunk_mib as u64 * MIB / LOGICAL_PAGE_BYTES,
            read_slc_ns: us_to_ns(f.read_slc_us),
            read_regular_ns: us_to_ns(f.read_regular_us),
            program_slc_ns: us_to_ns(f.program_slc_us),
            program_regular_ns: us_to_ns(f.program_regular_us),
            erase_ns: us_to_ns(f.erase_us),
            channel_bytes_per_s: (f.channel_mib_s * MIB as f64) as u64,
            link_bytes_per_s: (f.host_link_mb_s * 1e6) as u64,
            queue_depth: f.queue_depth,
            preempt_migration: f.preempt_migration,
            fw_read_4kib_ns: us_to_ns(fw.read_4kib_us),
            fw_read_ns: us_to_ns(fw.read_us),
            fw_wbuf_ns: us_to_ns(fw.write_buffer_us),
            fw_wbuf_per_4kib_ns: us_to_ns(fw.write_buffer_per_4kib_us),
            buffer_count: wb.count,
            buffer_pages: wb.kib as u64 * KIB / LOGICAL_PAGE_BYTES,
            buffer_mapping: wb.mapping,
            cache_entries,
            cache_buckets: l.buckets,
            mapping: l.mapping,
            miss_handling: l.miss_handling,
            pin_aggregated: l.pin_aggregated,
            staging: s.staging,
            slc_management: s.management,
            slc_gc_free: s.gc_free_superblocks,
            regular: f.cell_type,
        })
    }
}
