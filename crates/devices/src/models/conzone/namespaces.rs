//! ConZone+ with two namespaces on one medium (§4, Algorithm 1, Fig. 7, §4.1):
//! namespace 0 is a block interface for file-system metadata — page-mapped, every
//! page in its own SLC pool, SLC GC within SLC, a dedicated write buffer — and
//! namespace 1 holds the data: the zoned namespace of [`ConZone`] (a profile with
//! `[zones]`), or the block namespace of [`ConZoneBlock`] (a profile with
//! `[block]`, the reference's `config-*-block`: `NS_SSD_TYPE_1 =
//! SSD_TYPE_CONZONE_BLOCK`, the ConZone+ block baseline of §6.3-§6.5). Each
//! namespace has its own
//! controller (mapping, allocation, GC, write buffers, SLC pool); both share one
//! storage complex (chips, channels, host link, queue depth) and one L2P cache
//! whose entries are tagged by namespace, so they contend as on a real device.
//!
//! The shared hardware and cache live here and are swapped into the controller
//! that handles a command (a pointer swap), so neither controller needs shared
//! ownership. Logical and physical sizes (§4.1): the zoned namespace's physical
//! size is its logical size plus its SLC blocks; the metadata namespace's is its
//! SLC pool, which includes its over-provisioning.
//!
//! As a [`Device`], `ConZonePlus` is the data namespace (so bench / replay work on
//! it); [`ConZonePlus::namespace`] gives either namespace as a `Device`.

use super::block::ConZoneBlock;
use super::config::{BlockSection, ConZoneProfile, LOGICAL_PAGE_BYTES};
use super::hardware::Hardware;
use super::l2p_cache::L2pCache;
use super::zoned::ConZone;
use crate::command::{Command, Completion, Payload};
use crate::device::{Device, DeviceInfo, DeviceStats};
use crate::error::DeviceError;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
use crate::zoned::ZoneDescriptor;
use zonelab_engine::{Ns, MIB};

/// Namespace ids (§4: namespace 0 is the block interface for metadata); the same
/// ids tag the shared L2P cache's entries.
pub use super::block::BLOCK_NS as META_NS;
pub use super::zoned::ZONED_NS;

/// The data namespace: zoned or block.
enum DataNs {
    Zoned(Box<ConZone>),
    Block(Box<ConZoneBlock>),
}

impl DataNs {
    fn device(&mut self) -> &mut dyn Device {
        match self {
            DataNs::Zoned(z) => z.as_mut(),
            DataNs::Block(b) => b.as_mut(),
        }
    }

    fn device_ref(&self) -> &dyn Device {
        match self {
            DataNs::Zoned(z) => z.as_ref(),
            DataNs::Block(b) => b.as_ref(),
        }
    }

    fn swap_shared(&mut self, hw: &mut Hardware, cache: &mut L2pCache) {
        match self {
            DataNs::Zoned(z) => z.swap_shared(hw, cache),
            DataNs::Block(b) => b.swap_shared(hw, cache),
        }
    }

    fn stats_with(&self, hw: &Hardware, cache: &L2pCache, elapsed_ns: Ns) -> DeviceStats {
        match self {
            DataNs::Zoned(z) => z.stats_with(hw, cache, elapsed_ns),
            DataNs::Block(b) => b.stats_with(hw, cache, elapsed_ns),
        }
    }
}

/// The two-namespace device.
pub struct ConZonePlus {
    hw: Hardware,
    cache: L2pCache,
    meta: ConZoneBlock,
    data: DataNs,
    /// Physical bytes of each namespace (§4.1).
    pub physical_bytes: [u64; 2],
}

impl ConZonePlus {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: ConZoneProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    /// Algorithm 1: one controller per namespace, then the shared SSD instance.
    pub fn new(p: ConZoneProfile, source_name: &str) -> Result<Self, ProfileError> {
        let v = Validator::new(source_name);
        let Some(m) = p.metadata.clone() else {
            return Err(v.out_of_range(
                "metadata",
                "missing",
                "a [metadata] section for model conzone-plus".into(),
            ));
        };
        v.range("metadata.logical_mib", m.logical_mib, 1, 1 << 20)?;
        v.range(
            "metadata.slc_blocks_per_chip",
            m.slc_blocks_per_chip,
            2,
            4096,
        )?;
        v.range(
            "metadata.gc_free_superblocks",
            m.gc_free_superblocks,
            1,
            m.slc_blocks_per_chip - 1,
        )?;
        v.check(
            "metadata.buffer_kib",
            m.buffer_kib,
            m.buffer_kib >= 4 && m.buffer_kib.is_multiple_of(4) && m.buffer_kib <= 1 << 20,
            "a multiple of 4 in 4..=1048576",
        )?;
        let g = p.validate(source_name)?;
        let slc_sb_bytes = g.slc_block_pages * g.chips as u64 * LOGICAL_PAGE_BYTES;
        let meta_physical = m.slc_blocks_per_chip as u64 * slc_sb_bytes;
        let gc_reserve = m.gc_free_superblocks as u64 * slc_sb_bytes;
        v.check(
            "metadata.logical_mib",
            m.logical_mib,
            m.logical_mib * MIB + gc_reserve <= meta_physical,
            &format!(
                "at most {} MiB: its {} SLC blocks per chip hold {} MiB, less {} MiB kept free for SLC GC",
                (meta_physical.saturating_sub(gc_reserve)) / MIB,
                m.slc_blocks_per_chip,
                meta_physical / MIB,
                gc_reserve / MIB
            ),
        )?;
        let data = match (&p.zones, &p.block) {
            (Some(_), None) => DataNs::Zoned(Box::new(ConZone::new(p.clone(), source_name)?)),
            (None, Some(_)) => {
                let mut b = ConZoneBlock::new(p.clone(), source_name)?;
                b.set_namespace_id(ZONED_NS);
                DataNs::Block(Box::new(b))
            }
            _ => {
                return Err(v.out_of_range(
                    "zones",
                    "a [zones] and a [block] section",
                    "exactly one of [zones] (zoned data namespace) or [block] (block data namespace) for model conzone-plus".into(),
                ))
            }
        };
        let mut mp = p.clone();
        mp.model = "conzone-plus/metadata".into();
        mp.name = format!("{}/ns0", p.name);
        mp.slc.blocks_per_chip = m.slc_blocks_per_chip;
        mp.slc.gc_free_superblocks = m.gc_free_superblocks;
        mp.write_buffer.count = 1;
        mp.write_buffer.kib = m.buffer_kib;
        mp.block = Some(BlockSection {
            capacity_mib: m.logical_mib,
            op_percent: 1,
            gc_free_superblocks: 1,
        });
        mp.zones = None;
        let meta = ConZoneBlock::with_mode(mp, source_name, true)?;
        let slc_bytes = g.slc_blocks_per_chip as u64 * slc_sb_bytes;
        let data_physical = match &data {
            DataNs::Zoned(z) => {
                let zone_count = z.info().zoned.as_ref().map_or(0, |z| z.zone_count) as u64;
                zone_count * z.zone_capacity_pages() * LOGICAL_PAGE_BYTES + slc_bytes
            }
            DataNs::Block(b) => {
                let op = p.block.as_ref().map_or(0, |b| b.op_percent) as u64;
                let logical = b.info().capacity_bytes();
                logical + logical * op / 100 + slc_bytes
            }
        };
        Ok(Self {
            hw: Hardware::new(&g),
            cache: L2pCache::new(g.cache_entries, g.cache_buckets),
            meta,
            data,
            physical_bytes: [meta_physical, data_physical],
        })
    }

    /// Runs `f` on namespace `ns`'s controller with the shared hardware in place.
    fn with<R>(&mut self, ns: u8, f: impl FnOnce(&mut dyn Device) -> R) -> R {
        match ns {
            META_NS => {
                self.meta.swap_shared(&mut self.hw, &mut self.cache);
                let r = f(&mut self.meta);
                self.meta.swap_shared(&mut self.hw, &mut self.cache);
                r
            }
            _ => {
                self.data.swap_shared(&mut self.hw, &mut self.cache);
                let r = f(self.data.device());
                self.data.swap_shared(&mut self.hw, &mut self.cache);
                r
            }
        }
    }

    /// Submits a command to namespace `ns` (0 metadata, 1 data).
    pub fn submit_ns(
        &mut self,
        ns: u8,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        self.with(ns, |d| d.submit(now_ns, cmd, payload))
    }

    /// Namespace `ns` as a device of its own.
    pub fn namespace(&mut self, ns: u8) -> NamespaceView<'_> {
        NamespaceView { dev: self, ns }
    }

    /// Identity and geometry of namespace `ns` (0 metadata, 1 data).
    pub fn namespace_info(&self, ns: u8) -> &DeviceInfo {
        if ns == META_NS {
            self.meta.info()
        } else {
            self.data.device_ref().info()
        }
    }

    /// Statistics of namespace `ns`: its own host counters and controller state,
    /// the shared medium's media counters and utilisation.
    pub fn namespace_stats(&self, ns: u8, elapsed_ns: Ns) -> DeviceStats {
        stats_of(self, ns, elapsed_ns)
    }

    /// Empties the shared volatile L2P cache, as a power cycle does.
    pub fn drop_l2p_cache(&mut self) {
        self.cache.clear();
    }

    /// Entries of the shared L2P cache.
    pub fn cache_len(&self) -> usize {
        self.cache.len()
    }
}

/// One namespace of a [`ConZonePlus`].
pub struct NamespaceView<'a> {
    dev: &'a mut ConZonePlus,
    ns: u8,
}

impl Device for NamespaceView<'_> {
    fn info(&self) -> &DeviceInfo {
        if self.ns == META_NS {
            self.dev.meta.info()
        } else {
            self.dev.data.device_ref().info()
        }
    }

    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        self.dev.submit_ns(self.ns, now_ns, cmd, payload)
    }

    fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        if self.ns == META_NS {
            self.dev.meta.report_zones(first, max)
        } else {
            self.dev.data.device_ref().report_zones(first, max)
        }
    }

    /// The namespace's own host counters and controller state; media counters
    /// and utilisation are the shared medium's.
    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        stats_of(self.dev, self.ns, elapsed_ns)
    }
}

fn stats_of(dev: &ConZonePlus, ns: u8, elapsed_ns: Ns) -> DeviceStats {
    let mut st = if ns == META_NS {
        dev.meta.stats_with(&dev.hw, &dev.cache, elapsed_ns)
    } else {
        dev.data.stats_with(&dev.hw, &dev.cache, elapsed_ns)
    };
    st.counters.insert(
        "physical_bytes".into(),
        dev.physical_bytes[ns.min(1) as usize],
    );
    st.counters
        .insert("shared_l2p_entries".into(), dev.cache.len() as u64);
    st
}

impl Device for ConZonePlus {
    fn info(&self) -> &DeviceInfo {
        self.data.device_ref().info()
    }

    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        self.submit_ns(ZONED_NS, now_ns, cmd, payload)
    }

    fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        self.data.device_ref().report_zones(first, max)
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        stats_of(self, ZONED_NS, elapsed_ns)
    }
}
