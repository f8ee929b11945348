//! Errors of the swap subsystem: bad configuration, a device a back end cannot use,
//! a full swap area, and device errors on the swap path.

use thiserror::Error;
use zonelab_devices::DeviceError;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum SwapError {
    #[error("swap config: {field} = {value} is out of range (allowed: {allowed})")]
    BadConfig {
        field: &'static str,
        value: String,
        allowed: String,
    },
    #[error("znswap: device `{device}` is formatted with {metadata_bytes} B of per-LBA metadata; ZNSwap needs at least {needed_bytes} B for its reverse map (format an LBA format with >= {needed_bytes} B metadata, e.g. zn540 lbaf 4, or use znsage)")]
    MetadataTooSmall {
        device: String,
        metadata_bytes: u32,
        needed_bytes: u32,
    },
    #[error("{backend}: device `{device}` is not usable: {reason}")]
    UnsupportedDevice {
        backend: &'static str,
        device: String,
        reason: String,
    },
    #[error("{0}")]
    Profile(String),
    #[error("{backend}: swap area full ({valid} of {usable} usable slots valid)")]
    SwapFull {
        backend: &'static str,
        valid: u64,
        usable: u64,
    },
    #[error("{backend}: swap-zone GC cannot free a zone (every full zone is entirely valid)")]
    GcStuck { backend: &'static str },
    #[error("{backend}: device error: {source}")]
    Device {
        backend: &'static str,
        source: DeviceError,
    },
}

/// Helper for `BadConfig`.
pub fn bad_config(field: &'static str, value: impl std::fmt::Display, allowed: &str) -> SwapError {
    SwapError::BadConfig {
        field,
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}
