//! Parts every NAND SSD model shares: the `[flash]` and `[controller]` profile
//! sections with their validation, the controller's timing (cores, per-command and
//! per-4-KiB costs, PCIe link) and the write buffer. The ZNS SSD and the FTL SSD
//! differ in their firmware, not in these.

mod controller;
mod flash_section;
mod write_buffer;

pub use controller::{Controller, ControllerSection};
pub use flash_section::FlashSection;
pub use write_buffer::WriteBuffer;

use crate::device::{round6, DeviceStats};
use zonelab_engine::Ns;
use zonelab_media::flash::FlashArray;

/// Fills the utilisation of channels, dies and controller cores.
pub fn add_utilisation(
    st: &mut DeviceStats,
    flash: &FlashArray,
    controller: &Controller,
    elapsed_ns: Ns,
) {
    let u = flash.utilisation(elapsed_ns);
    st.utilisation
        .insert("channel".into(), round6(u.channel_busy_fraction));
    st.utilisation
        .insert("die".into(), round6(u.die_busy_fraction));
    st.utilisation.insert(
        "controller".into(),
        round6(controller.core_utilisation(elapsed_ns)),
    );
}
