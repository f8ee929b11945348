//! Errors of the zone file system: a kind (mapped to a C status code by
//! `crates/capi`) and a one-line message naming the file, key or cause.

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsErrorKind {
    /// The config file is unreadable, has an unknown key or a value out of range.
    Config,
    /// A device profile is unknown or invalid.
    Profile,
    /// A backing file cannot be opened or belongs to another geometry.
    Backing,
    /// No file of that name.
    NotFound,
    /// A file of that name exists already.
    Exists,
    /// The metadata journal or the zones are inconsistent.
    Corrupt,
    /// A bad argument (file kind, level, ...).
    Invalid,
    /// The store failed (no empty zone left, a device error).
    Store,
}

/// An error with its kind and a one-line message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FsError {
    pub kind: FsErrorKind,
    pub message: String,
}

impl FsError {
    pub fn new(kind: FsErrorKind, message: impl Into<String>) -> Self {
        FsError {
            kind,
            message: message.into(),
        }
    }

    pub fn not_found(name: &str) -> Self {
        Self::new(FsErrorKind::NotFound, format!("no file named `{name}`"))
    }
}

impl From<zonelab_systems::lsm::StorageError> for FsError {
    fn from(e: zonelab_systems::lsm::StorageError) -> Self {
        FsError::new(FsErrorKind::Store, e.0)
    }
}

impl From<zonelab_emulation::EmulationError> for FsError {
    fn from(e: zonelab_emulation::EmulationError) -> Self {
        use zonelab_emulation::EmulationError as E;
        let kind = match &e {
            E::Profile(_) | E::NotSend { .. } => FsErrorKind::Profile,
            E::InvalidDilation(_) => FsErrorKind::Config,
            _ => FsErrorKind::Backing,
        };
        FsError::new(kind, e.to_string())
    }
}

impl From<zonelab_devices::ProfileError> for FsError {
    fn from(e: zonelab_devices::ProfileError) -> Self {
        FsError::new(FsErrorKind::Profile, e.to_string())
    }
}
