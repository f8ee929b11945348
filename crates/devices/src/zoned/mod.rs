//! Zoned host interface (NVMe Zoned Namespace command set / ZBC): zone states,
//! write-pointer rules, zone append, open/close/finish/reset, report zones and the
//! max-open / max-active limits, and the zone random write area (ZRWA, `zrwa`). [`ZoneSet`] holds the rules and no timing, so every
//! zoned device model (ZNS SSD, HM-SMR disk, consumer zoned flash) shares them.

mod state;
mod zone_set;
pub mod zrwa;

pub use state::{ZoneDescriptor, ZoneState, ZoneType};
pub use zone_set::{ZoneLayout, ZoneSet, ZoneWrite, ZrwaFlush};
pub use zrwa::ZrwaConfig;
