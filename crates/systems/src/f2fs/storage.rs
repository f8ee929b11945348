//! The devices a file system is formatted on: a metadata area and a main area,
//! on two namespaces of one ConZone+ device (§4: namespace 0 block for metadata,
//! namespace 1 zoned or block for data), on two separate devices, or on one
//! block device (metadata at its start, F2FS's single-device layout).

use zonelab_devices::models::conzone::ConZonePlus;
use zonelab_devices::{Command, Device, DeviceError, DeviceInfo, DeviceStats, Payload};
use zonelab_engine::Ns;

/// Which area a command is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    Meta,
    Main,
}

impl Area {
    pub fn name(self) -> &'static str {
        match self {
            Area::Meta => "metadata",
            Area::Main => "data",
        }
    }
}

/// Devices under a file system. LBAs are the device's own; each area reports
/// the first LBA it may use.
pub trait FsStorage {
    fn submit(&mut self, area: Area, now_ns: Ns, cmd: &Command) -> Result<Ns, DeviceError>;
    fn info(&self, area: Area) -> DeviceInfo;
    /// First LBA of `area` on its device.
    fn lba_base(&self, area: Area) -> u64;
    /// Blocks `area` may use from its base.
    fn area_blocks(&self, area: Area) -> u64;
    fn stats(&self, area: Area, elapsed_ns: Ns) -> DeviceStats;
    /// Whether the two areas share one device (one flush covers both).
    fn shared(&self) -> bool;
}

/// ConZone+: metadata on namespace 0, data on namespace 1, one medium.
pub struct ConZonePlusStorage {
    pub dev: ConZonePlus,
}

impl ConZonePlusStorage {
    fn ns(area: Area) -> u8 {
        match area {
            Area::Meta => 0,
            Area::Main => 1,
        }
    }
}

impl FsStorage for ConZonePlusStorage {
    fn submit(&mut self, area: Area, now_ns: Ns, cmd: &Command) -> Result<Ns, DeviceError> {
        Ok(self
            .dev
            .submit_ns(Self::ns(area), now_ns, cmd, Payload::SizeOnly)?
            .done_ns)
    }

    fn info(&self, area: Area) -> DeviceInfo {
        self.dev.namespace_info(Self::ns(area)).clone()
    }

    fn lba_base(&self, _area: Area) -> u64 {
        0
    }

    fn area_blocks(&self, area: Area) -> u64 {
        self.info(area).capacity_blocks
    }

    fn stats(&self, area: Area, elapsed_ns: Ns) -> DeviceStats {
        self.dev.namespace_stats(Self::ns(area), elapsed_ns)
    }

    fn shared(&self) -> bool {
        false
    }
}

/// Metadata and data on two separate devices.
pub struct SplitStorage {
    pub meta: Box<dyn Device>,
    pub main: Box<dyn Device>,
}

impl FsStorage for SplitStorage {
    fn submit(&mut self, area: Area, now_ns: Ns, cmd: &Command) -> Result<Ns, DeviceError> {
        let d = match area {
            Area::Meta => &mut self.meta,
            Area::Main => &mut self.main,
        };
        Ok(d.submit(now_ns, cmd, Payload::SizeOnly)?.done_ns)
    }

    fn info(&self, area: Area) -> DeviceInfo {
        match area {
            Area::Meta => self.meta.info().clone(),
            Area::Main => self.main.info().clone(),
        }
    }

    fn lba_base(&self, _area: Area) -> u64 {
        0
    }

    fn area_blocks(&self, area: Area) -> u64 {
        self.info(area).capacity_blocks
    }

    fn stats(&self, area: Area, elapsed_ns: Ns) -> DeviceStats {
        match area {
            Area::Meta => self.meta.stats(elapsed_ns),
            Area::Main => self.main.stats(elapsed_ns),
        }
    }

    fn shared(&self) -> bool {
        false
    }
}

/// One block device: the metadata area at its start, the main area after it
/// (segment aligned).
pub struct SingleBlockStorage {
    pub dev: Box<dyn Device>,
    /// Blocks set aside for metadata at the start of the device.
    pub meta_blocks: u64,
}

impl FsStorage for SingleBlockStorage {
    fn submit(&mut self, _area: Area, now_ns: Ns, cmd: &Command) -> Result<Ns, DeviceError> {
        Ok(self.dev.submit(now_ns, cmd, Payload::SizeOnly)?.done_ns)
    }

    fn info(&self, _area: Area) -> DeviceInfo {
        self.dev.info().clone()
    }

    fn lba_base(&self, area: Area) -> u64 {
        match area {
            Area::Meta => 0,
            Area::Main => self.meta_blocks.div_ceil(512) * 512,
        }
    }

    fn area_blocks(&self, area: Area) -> u64 {
        match area {
            Area::Meta => self.meta_blocks,
            Area::Main => self
                .dev
                .info()
                .capacity_blocks
                .saturating_sub(self.lba_base(Area::Main)),
        }
    }

    fn stats(&self, _area: Area, elapsed_ns: Ns) -> DeviceStats {
        self.dev.stats(elapsed_ns)
    }

    fn shared(&self) -> bool {
        true
    }
}
