//! SpanDB's automated placement (AUTO), as HHZS re-implemented it for hybrid zoned
//! storage (§4.1; H2Zone `fzbd_zenfs.cc: CheckSpanDBMaxLevel`): SSTs of levels up to
//! a maximum level go to the SSD; once a second the level goes down when the SSD's
//! throughput — bytes read and written, as H2Zone's `ExtractThpt` measures it — is
//! above 65 % of its sequential write throughput and up below 40 % (kept in
//! −1..=4); with less than 13.33 % of the SSD's SST space free the level is capped
//! at 1, below 8 % no SST goes to the SSD. The WAL stays on the SSD's WAL zones.

use super::placement::PlacementPolicy;
use super::view::StoreView;
use crate::lsm::FileKind;

/// ZN540 sequential write throughput (HHZS Table 1: 1,002.8 MiB/s).
pub const ZN540_SEQ_WRITE_BYTES_PER_S: f64 = 1002.8 * 1024.0 * 1024.0;

#[derive(Debug, Clone)]
pub struct AutoPlacement {
    /// Highest level on the SSD (H2Zone's `level_m_`, initially 1).
    pub max_level: i32,
    pub ssd_write_bound_bytes_per_s: f64,
}

impl Default for AutoPlacement {
    fn default() -> Self {
        Self {
            max_level: 1,
            ssd_write_bound_bytes_per_s: ZN540_SEQ_WRITE_BYTES_PER_S,
        }
    }
}

impl PlacementPolicy for AutoPlacement {
    fn name(&self) -> String {
        "AUTO".into()
    }

    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }

    fn devices_for(&mut self, kind: FileKind, view: &StoreView) -> Vec<usize> {
        match kind {
            FileKind::Sst { level } if level as i32 > self.max_level => {
                (1..view.devices.len()).collect()
            }
            _ => (0..view.devices.len()).collect(),
        }
    }

    fn describe(&self, _view: &StoreView) -> String {
        format!("max_level={}", self.max_level)
    }

    fn remount(&mut self) {
        // H2Zone's `level_m_` starts at 1 when the file system is mounted.
        self.max_level = 1;
    }

    fn tick(&mut self, view: &StoreView) {
        let thpt = view.ssd_io_bytes_per_s;
        if thpt > self.ssd_write_bound_bytes_per_s * 0.65 {
            self.max_level = (self.max_level - 1).max(-1);
        }
        if thpt < self.ssd_write_bound_bytes_per_s * 0.4 {
            self.max_level = (self.max_level + 1).min(4);
        }
        if let Some(ssd) = view.devices.first() {
            let free_pct = ssd.free_zones as f64 / ssd.sst_zones.max(1) as f64;
            if free_pct < 0.1333 && self.max_level > 1 {
                self.max_level = 1;
            } else if free_pct < 0.08 {
                self.max_level = -2;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hhzs::view::DeviceView;

    #[test]
    fn level_follows_ssd_throughput_and_space() {
        let mut a = AutoPlacement::default();
        let mut v = StoreView {
            devices: vec![
                DeviceView {
                    free_zones: 10,
                    empty_zones: 10,
                    sst_zones: 18,
                    zone_capacity_bytes: 1,
                },
                DeviceView::default(),
            ],
            ..Default::default()
        };
        v.ssd_io_bytes_per_s = 0.1 * a.ssd_write_bound_bytes_per_s;
        a.tick(&v);
        assert_eq!(a.max_level, 2);
        assert_eq!(a.devices_for(FileKind::Sst { level: 2 }, &v), vec![0, 1]);
        assert_eq!(a.devices_for(FileKind::Sst { level: 3 }, &v), vec![1]);
        v.ssd_io_bytes_per_s = 0.9 * a.ssd_write_bound_bytes_per_s;
        a.tick(&v);
        assert_eq!(a.max_level, 1);
        v.devices[0].free_zones = 1; // 5.6 % free: nothing to the SSD
        a.tick(&v);
        assert_eq!(a.max_level, -2);
        assert_eq!(a.devices_for(FileKind::Sst { level: 0 }, &v), vec![1]);
        assert_eq!(a.devices_for(FileKind::Wal, &v), vec![0, 1]);
    }
}
