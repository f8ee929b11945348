//! Emulation-mode storage for payload bytes and zone state (issue 9 part 1).
//!
//! - **Payload bytes** go to a *sparse* backing file of the device's capacity: the
//!   byte of LBA `l` lives at offset `l × block_bytes`. Unwritten ranges are holes
//!   and read as zeros, so a data set larger than RAM works and a mostly-empty
//!   4 TB device costs only what is written. Zone resets and trims punch holes
//!   (`fallocate(PUNCH_HOLE)`, falling back to writing zeros where the file system
//!   cannot punch), so reads above a write pointer return zeros as the in-memory
//!   store does (ZNS/ZBC "read unwritten returns zeros").
//! - **Zone state** (every sequential zone's condition and write pointer) is kept in
//!   a small text sidecar next to the backing file, `<backing>.zones`. It is
//!   rewritten atomically (write a temporary file, fsync, rename) after the data
//!   file is fsynced, on every Flush command, on [`crate::EmulatedDevice::sync`] and
//!   when the emulator is dropped. Like a device's volatile write cache, what was
//!   written after the last flush may be lost by a crash (kill -9): on reopen the
//!   zones come back as of the last flush, and bytes above those write pointers
//!   are punched out again so stale data never reappears.
//! - The sidecar also records the geometry (block size, capacity, zone count and
//!   size). Reopening a backing file with a profile of another geometry is a typed
//!   error ([`crate::EmulationError::BackingMismatch`]).

use crate::emulated::EmulationError;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use zonelab_devices::zoned::{ZoneDescriptor, ZoneState, ZoneType};
use zonelab_devices::DeviceInfo;

/// First line of the sidecar; bump the version when the format changes.
const SIDECAR_MAGIC: &str = "zonelab-emulation-zone-state v1";
/// Suffix appended to the backing file's name for the zone-state sidecar.
pub const SIDECAR_SUFFIX: &str = ".zones";
/// Zeros written per call where holes cannot be punched.
const ZERO_CHUNK_BYTES: usize = 1 << 20;

/// The sidecar path of a backing file: `<backing>.zones`.
pub fn sidecar_path(backing: &Path) -> PathBuf {
    let mut s = backing.as_os_str().to_owned();
    s.push(SIDECAR_SUFFIX);
    PathBuf::from(s)
}

/// The geometry fields recorded in the sidecar, in file order.
fn geometry(info: &DeviceInfo) -> [(&'static str, u64); 4] {
    let z = info.zoned.as_ref();
    [
        ("block_bytes", info.block_bytes as u64),
        ("capacity_blocks", info.capacity_blocks),
        ("zone_count", z.map_or(0, |z| z.zone_count as u64)),
        ("zone_size_blocks", z.map_or(0, |z| z.zone_size_blocks)),
    ]
}

/// One saved sequential zone: index, condition, write pointer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SavedZone {
    pub index: u32,
    pub state: ZoneState,
    pub write_pointer: u64,
}

/// An open backing file with the emulator's mirror of the zone states.
pub struct Backing {
    file: File,
    path: PathBuf,
    block_bytes: u64,
    /// Profile name and geometry written to the sidecar.
    info: DeviceInfo,
    /// Every zone's descriptor as the model last reported it (empty for block
    /// devices); saved to the sidecar.
    pub(crate) zones: Vec<ZoneDescriptor>,
    /// Set once the saved state was restored into the model and the mirror
    /// loaded; until then a drop must not overwrite the sidecar (a failed restore
    /// would otherwise save an empty zone list and lose the zone states).
    pub(crate) restored: bool,
}

impl Backing {
    /// Opens (creating if needed) the backing file at `path` for a device with
    /// `info`, and reads the saved zone states if a sidecar exists.
    pub fn open(
        path: &Path,
        info: &DeviceInfo,
    ) -> Result<(Backing, Vec<SavedZone>), EmulationError> {
        let io = |e: std::io::Error| EmulationError::Backing {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(io)?;
        let capacity_bytes = info.capacity_bytes();
        let len = file.metadata().map_err(io)?.len();
        if len != 0 && len != capacity_bytes {
            return Err(EmulationError::BackingMismatch {
                path: path.display().to_string(),
                field: "file size (bytes)",
                saved: len,
                device: capacity_bytes,
            });
        }
        if len == 0 {
            // Sparse: no blocks are allocated until written.
            file.set_len(capacity_bytes).map_err(io)?;
        }
        let meta = sidecar_path(path);
        let saved = match std::fs::read_to_string(&meta) {
            Ok(text) => parse_sidecar(&meta, &text, info)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                return Err(EmulationError::Backing {
                    path: meta.display().to_string(),
                    message: e.to_string(),
                })
            }
        };
        Ok((
            Backing {
                file,
                path: path.to_path_buf(),
                block_bytes: info.block_bytes as u64,
                info: info.clone(),
                zones: Vec::new(),
                restored: false,
            },
            saved,
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `data` at `lba`.
    pub fn write_at(&self, lba: u64, data: &[u8]) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.file.write_all_at(data, lba * self.block_bytes)
    }

    /// Reads `out.len()` bytes from `lba` (holes read as zeros).
    pub fn read_at(&self, lba: u64, out: &mut [u8]) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        self.file.read_exact_at(out, lba * self.block_bytes)
    }

    /// Forgets `blocks` blocks from `lba`: they read as zeros afterwards.
    pub fn discard(&self, lba: u64, blocks: u64) -> std::io::Result<()> {
        let offset = lba * self.block_bytes;
        let len = blocks * self.block_bytes;
        if len == 0 || punch_hole(&self.file, offset, len) {
            return Ok(());
        }
        use std::os::unix::fs::FileExt;
        let zeros = vec![0u8; ZERO_CHUNK_BYTES.min(len as usize)];
        let mut done = 0;
        while done < len {
            let n = (len - done).min(zeros.len() as u64) as usize;
            self.file.write_all_at(&zeros[..n], offset + done)?;
            done += n as u64;
        }
        Ok(())
    }

    /// Makes the data durable, then atomically replaces the sidecar with the
    /// current zone states.
    pub fn save(&self) -> std::io::Result<()> {
        self.file.sync_data()?;
        let meta = sidecar_path(&self.path);
        let mut tmp_name = meta.as_os_str().to_owned();
        tmp_name.push(".tmp");
        let tmp = PathBuf::from(tmp_name);
        let mut text = format!("{SIDECAR_MAGIC}\nprofile {}\n", self.info.name);
        for (k, v) in geometry(&self.info) {
            text.push_str(&format!("{k} {v}\n"));
        }
        for z in &self.zones {
            let untouched = z.state == ZoneState::Empty && z.write_pointer == z.start_lba;
            if z.zone_type == ZoneType::Conventional || untouched {
                continue;
            }
            text.push_str(&format!(
                "zone {} {} {}\n",
                z.index, z.state, z.write_pointer
            ));
        }
        let mut f = File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, &meta)?;
        if let Some(dir) = meta.parent().filter(|d| !d.as_os_str().is_empty()) {
            // Best effort: make the rename itself durable.
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Drop for Backing {
    fn drop(&mut self) {
        // Nothing can report an error from a drop; `EmulatedDevice::sync` (or a
        // Flush command) is the checked way to persist.
        if self.restored {
            let _ = self.save();
        }
    }
}

#[cfg(target_os = "linux")]
fn punch_hole(file: &File, offset: u64, len: u64) -> bool {
    use std::os::unix::io::AsRawFd;
    let (Ok(off), Ok(l)) = (i64::try_from(offset), i64::try_from(len)) else {
        return false;
    };
    // SAFETY: fallocate on a valid, owned file descriptor; no memory is passed.
    let rc = unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
            off,
            l,
        )
    };
    rc == 0
}

#[cfg(not(target_os = "linux"))]
fn punch_hole(_: &File, _: u64, _: u64) -> bool {
    false
}

fn parse_state(s: &str) -> Option<ZoneState> {
    Some(match s {
        "empty" => ZoneState::Empty,
        "implicitly-open" => ZoneState::ImplicitlyOpen,
        "explicitly-open" => ZoneState::ExplicitlyOpen,
        "closed" => ZoneState::Closed,
        "full" => ZoneState::Full,
        "read-only" => ZoneState::ReadOnly,
        "offline" => ZoneState::Offline,
        _ => return None,
    })
}

/// Parses a sidecar and checks it against the device's geometry.
fn parse_sidecar(
    meta: &Path,
    text: &str,
    info: &DeviceInfo,
) -> Result<Vec<SavedZone>, EmulationError> {
    let bad = |line: usize, reason: String| EmulationError::BadSidecar {
        path: meta.display().to_string(),
        line,
        reason,
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, l)) if l == SIDECAR_MAGIC => {}
        _ => return Err(bad(1, format!("first line must be `{SIDECAR_MAGIC}`"))),
    }
    let expected = geometry(info);
    let mut seen = 0;
    let mut zones = Vec::new();
    for (n, line) in lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            [] | ["profile", ..] => {}
            ["zone", idx, state, wp] => {
                let index: u32 = idx
                    .parse()
                    .map_err(|_| bad(n, format!("zone index `{idx}` is not a number")))?;
                let state = parse_state(state)
                    .ok_or_else(|| bad(n, format!("unknown zone state `{state}`")))?;
                let write_pointer: u64 = wp
                    .parse()
                    .map_err(|_| bad(n, format!("write pointer `{wp}` is not a number")))?;
                let z = info.zoned.as_ref().ok_or_else(|| {
                    bad(n, "zone state saved for a device that is not zoned".into())
                })?;
                let start = index as u64 * z.zone_size_blocks;
                if index >= z.zone_count
                    || write_pointer < start
                    || write_pointer > start + z.zone_capacity_blocks
                {
                    return Err(bad(
                        n,
                        format!("zone {index} write pointer {write_pointer} is outside the zone"),
                    ));
                }
                zones.push(SavedZone {
                    index,
                    state,
                    write_pointer,
                });
            }
            [key, value] => {
                let Some(&(field, device)) = expected.iter().find(|(k, _)| k == key) else {
                    return Err(bad(n, format!("unknown key `{key}`")));
                };
                let saved: u64 = value
                    .parse()
                    .map_err(|_| bad(n, format!("`{key}` value `{value}` is not a number")))?;
                if saved != device {
                    return Err(EmulationError::BackingMismatch {
                        path: meta.display().to_string(),
                        field,
                        saved,
                        device,
                    });
                }
                seen += 1;
            }
            _ => return Err(bad(n, format!("cannot parse `{line}`"))),
        }
    }
    if seen != expected.len() {
        return Err(bad(0, "geometry lines are missing".into()));
    }
    Ok(zones)
}
