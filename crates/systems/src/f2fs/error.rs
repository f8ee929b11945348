//! Errors of the F2FS-like file system: bad configuration, devices it cannot use,
//! a metadata area too small for the main area, running out of space or node
//! ids, unknown files, and device errors on its I/O paths.

use thiserror::Error;
use zonelab_devices::DeviceError;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum FsError {
    #[error("f2fs config: {field} = {value} is out of range (allowed: {allowed})")]
    BadConfig {
        field: &'static str,
        value: String,
        allowed: String,
    },
    #[error("f2fs: {area} device `{device}` is not usable: {reason}")]
    UnsupportedDevice {
        area: &'static str,
        device: String,
        reason: String,
    },
    #[error("f2fs: the metadata area needs {needed_blocks} blocks (CP {cp}, SIT {sit}, NAT {nat}, SSA {ssa}) but the metadata device has {have_blocks}")]
    MetaTooSmall {
        needed_blocks: u64,
        have_blocks: u64,
        cp: u64,
        sit: u64,
        nat: u64,
        ssa: u64,
    },
    #[error("f2fs: no space: {0}")]
    NoSpace(String),
    #[error("f2fs: node table full ({0} node ids)")]
    NatFull(u32),
    #[error("f2fs: file {0} does not exist")]
    NoSuchFile(u32),
    #[error("f2fs: file {0} already exists")]
    FileExists(u32),
    #[error("f2fs: invariant broken: {0}")]
    Invariant(String),
    #[error("f2fs: {area} device error: {source}")]
    Device {
        area: &'static str,
        source: DeviceError,
    },
}

/// Helper for `BadConfig`.
pub fn bad_config(field: &'static str, value: impl std::fmt::Display, allowed: &str) -> FsError {
    FsError::BadConfig {
        field,
        value: value.to_string(),
        allowed: allowed.to_string(),
    }
}
