//! Mount-time parameters of the F2FS-like file system, each default with its
//! source in Linux `fs/f2fs` (6.12, the kernel of ConZone+ §6.1) or in the
//! authors' `mkfs.f2fs` (DingcuiYu/ConZone `f2fs-tools-1.14.0`).

use super::error::{bad_config, FsError};
use zonelab_engine::{Ns, NS_PER_S};

/// How data is updated (F2FS mount option `mode=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsMode {
    /// `mode=lfs`: every update is written out of place; no slack-space
    /// recycling. The only mode F2FS allows on zoned storage (§6.4).
    Lfs,
    /// `mode=adaptive` (the default on block storage): in-place updates by the
    /// IPU policy and slack-space recycling (SSR) when free sections run low.
    Adaptive,
}

/// File-system parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct FsConfig {
    pub mode: FsMode,
    /// Periodic checkpoint (`DEF_CP_INTERVAL` 60 s, f2fs.h).
    pub cp_interval_ns: Ns,
    /// A checkpoint is taken when prefree segments exceed this share of the main
    /// segments, to turn them free (`DEF_RECLAIM_PREFREE_SEGMENTS` 5 %,
    /// segment.h; `excess_prefree_segs`).
    pub reclaim_prefree_percent: u32,
    /// In-place update of fsync'ed overwrites (`F2FS_IPU_FSYNC`, the default
    /// `ipu_policy`, segment.c `build_segment_manager`); adaptive mode only.
    pub ipu_fsync: bool,
    /// Largest request the file system submits, in 4 KiB blocks (256 KiB: the
    /// reference device's `MDTS` 6, `ssd_config.h`).
    pub max_io_blocks: u32,
    /// Segments reserved for GC; `None` applies mkfs's rule: on zoned storage the
    /// authors' `mkfs.f2fs` reserves `1 + NR_CURSEG_TYPE` = 7 segments
    /// (f2fs_format.c:407-411), on block storage `get_best_overprovision`
    /// (f2fs_fs.h:1376-1403).
    pub reserved_segments: Option<u32>,
    /// Time without user requests before block-storage background GC may run
    /// (`DEF_IDLE_INTERVAL` 5 s, f2fs.h; `is_idle(sbi, GC_TIME)`).
    pub idle_interval_ns: Ns,
}

impl FsConfig {
    /// F2FS's defaults for `mode`.
    pub fn new(mode: FsMode) -> Self {
        Self {
            mode,
            cp_interval_ns: 60 * NS_PER_S,
            reclaim_prefree_percent: 5,
            ipu_fsync: true,
            max_io_blocks: 64,
            reserved_segments: None,
            idle_interval_ns: 5 * NS_PER_S,
        }
    }

    pub fn validate(&self) -> Result<(), FsError> {
        if self.cp_interval_ns == 0 {
            return Err(bad_config("cp_interval_ns", 0, "> 0"));
        }
        if self.reclaim_prefree_percent == 0 || self.reclaim_prefree_percent > 100 {
            return Err(bad_config(
                "reclaim_prefree_percent",
                self.reclaim_prefree_percent,
                "1..=100",
            ));
        }
        if self.max_io_blocks == 0 || self.max_io_blocks > 4096 {
            return Err(bad_config("max_io_blocks", self.max_io_blocks, "1..=4096"));
        }
        Ok(())
    }
}
