//! Submitting the file system's I/O: block addresses become device commands,
//! consecutive addresses of one area merged into requests of at most
//! `max_io_blocks`, all submitted at one time; the batch completes when its last
//! command does.

use super::error::FsError;
use super::storage::{Area, FsStorage};
use zonelab_devices::Command;
use zonelab_engine::Ns;

/// Kind of request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoKind {
    Read,
    Write,
}

/// Submits `lbas` (in order) of `area` at `now`; returns the last completion.
pub fn submit_runs(
    st: &mut dyn FsStorage,
    area: Area,
    kind: IoKind,
    lbas: &[u64],
    max_blocks: u32,
    now: Ns,
) -> Result<Ns, FsError> {
    let mut done = now;
    let mut i = 0;
    while i < lbas.len() {
        let start = lbas[i];
        let mut n = 1;
        while i + n < lbas.len() && lbas[i + n] == start + n as u64 && n < max_blocks as usize {
            n += 1;
        }
        let cmd = match kind {
            IoKind::Read => Command::Read {
                lba: start,
                blocks: n as u32,
            },
            IoKind::Write => Command::Write {
                lba: start,
                blocks: n as u32,
            },
        };
        let t = st.submit(area, now, &cmd).map_err(|e| FsError::Device {
            area: area.name(),
            source: e,
        })?;
        done = done.max(t);
        i += n;
    }
    Ok(done)
}

/// Submits one command; maps the error to its area.
pub fn submit_one(
    st: &mut dyn FsStorage,
    area: Area,
    cmd: &Command,
    now: Ns,
) -> Result<Ns, FsError> {
    st.submit(area, now, cmd).map_err(|e| FsError::Device {
        area: area.name(),
        source: e,
    })
}
