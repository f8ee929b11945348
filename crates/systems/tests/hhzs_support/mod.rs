//! Shared setup of the HHZS store tests: the paper's two devices (HHZS §4.1).

use zonelab_devices::open_device;
use zonelab_systems::hhzs::StoreDeviceSpec;

/// A ZN540-like ZNS SSD limited to `ssd_zones` and an ST14000NM0007-like HM-SMR
/// HDD limited to `hdd_zones`, in the store's device order (SSD first).
pub fn zn540_and_smr(ssd_zones: u32, hdd_zones: u32) -> Vec<StoreDeviceSpec> {
    vec![
        StoreDeviceSpec {
            device: open_device("zn540").unwrap(),
            zone_budget: Some(ssd_zones),
        },
        StoreDeviceSpec {
            device: open_device("st14000nm0007").unwrap(),
            zone_budget: Some(hdd_zones),
        },
    ]
}
