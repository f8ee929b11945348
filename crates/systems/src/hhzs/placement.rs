//! Placement policies: which device a file's next zone comes from, given the hint
//! its creator passed (WAL, or an SST and its level). Mechanism (zones, extents,
//! resets) is in [`super::zone_store`]; every scheme is a [`PlacementPolicy`].
//!
//! [`BasicPlacement`] is the paper's Bh (`papers/hhzs.txt` §2.3): the WAL and the
//! SSTs of L0..L(h−1) go to the SSD while it has an empty zone, else to the HDD;
//! SSTs of Lh and above go to the HDD.

use super::view::{MigrationPlan, StoreView};
use crate::lsm::{FileKind, Hint};
use zonelab_engine::Ns;

/// A data placement scheme.
pub trait PlacementPolicy {
    /// Display name, e.g. `B3`.
    fn name(&self) -> String;
    /// Devices to take a new zone for a file of `kind` from, in order of
    /// preference; the store uses the first with an empty zone it may open.
    fn devices_for(&mut self, kind: FileKind, view: &StoreView) -> Vec<usize>;
    /// The device RocksDB's metadata files (MANIFEST, CURRENT, IDENTITY, OPTIONS)
    /// go to. The authors' placement functions send every file that is neither a
    /// WAL nor an SST to the SSD under the basic schemes and AUTO
    /// (`CheckRotationalTrivial`, `CheckRotationalSpanDB`: the HDD only for SSTs)
    /// and to the HDD under H2Zone's ("Put meta in HDD", `CheckRotationalH2Zone`;
    /// H2Zone `src/zenfs/fs/fzbd_zenfs.cc`).
    fn metadata_files_device(&self) -> usize {
        0
    }
    /// A hint from the LSM-tree (basic schemes ignore hints).
    fn on_hint(&mut self, _now: Ns, _hint: &Hint) {}
    /// Called about once a second of virtual time while no migration runs: a
    /// migration to start, if any (basic schemes never migrate).
    fn plan_migration(&mut self, _view: &StoreView) -> Option<MigrationPlan> {
        None
    }
    /// Called about once a second of virtual time (AUTO retunes its level here).
    fn tick(&mut self, _view: &StoreView) {}
    /// The file system was mounted again (a new process): in-memory state such as
    /// storage demands of running compactions is gone.
    fn remount(&mut self) {}
    /// The policy's state on `view` in a line, for diagnostics (write-guided
    /// placement: the tiering level, its reservation and the demands).
    fn describe(&self, _view: &StoreView) -> String {
        String::new()
    }
    /// A copy of the policy in its current state (for snapshots).
    fn boxed_clone(&self) -> Box<dyn PlacementPolicy>;
}

/// Bh: the WAL and levels below `h` on the SSD (device 0) while it has room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BasicPlacement {
    pub h: u32,
}

impl PlacementPolicy for BasicPlacement {
    fn name(&self) -> String {
        format!("B{}", self.h)
    }

    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(*self)
    }

    fn devices_for(&mut self, kind: FileKind, view: &StoreView) -> Vec<usize> {
        let fast_first = match kind {
            FileKind::Wal => true,
            FileKind::Sst { level } => level < self.h,
        };
        if fast_first {
            (0..view.devices.len()).collect()
        } else {
            (1..view.devices.len()).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hhzs::view::DeviceView;

    #[test]
    fn bh_splits_levels_at_h() {
        let views = StoreView {
            devices: vec![DeviceView::default(); 2],
            ..Default::default()
        };
        let mut b3 = BasicPlacement { h: 3 };
        assert_eq!(b3.devices_for(FileKind::Wal, &views), vec![0, 1]);
        assert_eq!(
            b3.devices_for(FileKind::Sst { level: 2 }, &views),
            vec![0, 1]
        );
        assert_eq!(b3.devices_for(FileKind::Sst { level: 3 }, &views), vec![1]);
        assert_eq!(b3.name(), "B3");
    }
}
