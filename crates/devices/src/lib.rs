//! ZoneLab devices (DESIGN.md layer 3): complete devices — media + firmware + host
//! interface — built from TOML profiles.
//!
//! - [`command`]: the host commands (block and zoned) and completions.
//! - [`zoned`]: the NVMe ZNS / ZBC zone rules, shared by every zoned model.
//! - [`device`]: the [`Device`] trait and what devices report.
//! - [`fdp`]: NVMe Flexible Data Placement as the host sees it (placement
//!   identifiers, log pages, events).
//! - [`models`]: the device models, chosen by a profile's `model` field.
//! - [`profile`]: finding, parsing and validating profiles.
//! - [`profile_overrides`]: changing profile fields by dotted path (`--set`).

pub mod block_store;
pub mod command;
pub mod device;
pub mod error;
pub mod fdp;
pub mod models;
pub mod profile;
pub mod profile_overrides;
pub mod zoned;

pub use command::{Command, Completion, Lba, Payload, ZoneAction};
pub use device::{check_payload, Device, DeviceInfo, DeviceStats, ZonedInfo};
pub use error::DeviceError;
pub use profile::{open_device, ProfileError};
pub use profile_overrides::{open_device_with, ProfileOverride};
