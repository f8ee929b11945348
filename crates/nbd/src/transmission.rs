//! The transmission phase of one connection (proto.md "Transmission", "Request
//! types"): each request is read, handed to the model at once, and its simple
//! reply queued for the modelled completion time (see [`crate::replies`]).
//!
//! Mapping to the model: READ and WRITE are reads and writes of whole logical
//! blocks (unaligned ones read the partial end blocks first and write the whole
//! blocks back, as a 512e drive does); FLUSH is the model's Flush, which with a
//! backing file also fsyncs it and saves the zone states; the FUA flag adds a
//! Flush after the write; TRIM is the model's Trim of the whole blocks inside
//! the range (a hint: a model without trim ignores it); WRITE_ZEROES writes
//! zeros. Errors: a model's refusal is EIO (logged with its message), a range
//! past the export EINVAL (ENOSPC for writes), writes to a read-only export
//! EPERM.

use crate::device::DeviceHandle;
use crate::export::Export;
use crate::proto::*;
use crate::replies::{Reply, ToWriter};
use std::io::{self, Read};
use std::sync::mpsc::Sender;
use std::time::Instant;
use zonelab_devices::{Command, DeviceError};

/// Largest write payload read (and then refused) rather than hanging up: the
/// stream must be consumed to stay in step with the client.
const MAX_DRAIN_BYTES: u32 = 256 << 20;
/// WRITE_ZEROES is done in pieces of this many bytes.
const ZERO_CHUNK_BYTES: u64 = 8 << 20;

/// Counts of what one connection did, for the server's log.
#[derive(Debug, Default, Clone, Copy)]
pub struct ConnStats {
    pub requests: u64,
    pub errors: u64,
}

pub struct Connection<'a> {
    pub export: &'a Export,
    pub device: &'a DeviceHandle,
    pub replies: Sender<ToWriter>,
    /// Prefix of log lines ("nbd client 3").
    pub who: String,
    pub stats: ConnStats,
}

type Done = Result<(Instant, Vec<u8>), u32>;

impl Connection<'_> {
    /// Serves requests until the client disconnects (`NBD_CMD_DISC` or EOF);
    /// an `Err` is a protocol violation or a broken socket.
    pub fn serve(&mut self, input: &mut impl Read) -> io::Result<()> {
        while let Some(req) = read_request(input)? {
            self.stats.requests += 1;
            let outcome = match req.kind {
                CMD_DISC => return Ok(()),
                CMD_READ => self.read(&req),
                CMD_WRITE => {
                    if req.length > MAX_DRAIN_BYTES {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!(
                                "write of {} bytes exceeds the 32 MiB payload limit",
                                req.length
                            ),
                        ));
                    }
                    let mut data = vec![0u8; req.length as usize];
                    input.read_exact(&mut data)?;
                    self.write(&req, data)
                }
                CMD_FLUSH => self.flush(Instant::now()),
                CMD_TRIM => self.trim(&req),
                CMD_WRITE_ZEROES => self.write_zeroes(&req),
                other => {
                    self.log(&format!("unknown command {other}"));
                    Err(EINVAL)
                }
            };
            let bytes = match outcome {
                Ok((due, data)) => {
                    let mut b = simple_reply_header(0, req.cookie).to_vec();
                    b.extend_from_slice(&data);
                    Reply { due, bytes: b }
                }
                Err(code) => {
                    self.stats.errors += 1;
                    Reply {
                        due: Instant::now(),
                        bytes: simple_reply_header(code, req.cookie).to_vec(),
                    }
                }
            };
            if self.replies.send(ToWriter::Reply(bytes)).is_err() {
                return Err(io::ErrorKind::BrokenPipe.into());
            }
        }
        Ok(())
    }

    fn log(&self, what: &str) {
        eprintln!("zonelab serve: {}: {what}", self.who);
    }

    /// Checks `offset + length` against the export and the command flags.
    fn check(&self, req: &Request, allowed_flags: u16, past_end: u32) -> Result<(), u32> {
        if req.flags & !allowed_flags != 0 {
            return Err(EINVAL);
        }
        match req.offset.checked_add(req.length as u64) {
            Some(end) if end <= self.export.size_bytes => Ok(()),
            _ => Err(past_end),
        }
    }

    fn device_error(&self, what: &str, req_offset: u64, e: DeviceError) -> u32 {
        self.log(&format!("{what} at byte {req_offset}: {e}"));
        match e {
            DeviceError::NoSpace { .. } => ENOSPC,
            DeviceError::OutOfRange { .. } => EINVAL,
            _ => EIO,
        }
    }

    fn bs(&self) -> u64 {
        self.export.block_bytes as u64
    }

    /// Reads the whole blocks covering `[offset, offset + len)`; returns the
    /// deadline and the covered bytes with the offset of `offset` in them.
    fn read_blocks(&self, offset: u64, len: u64) -> Result<(Instant, Vec<u8>, usize), DeviceError> {
        let bs = self.bs();
        let first = offset / bs;
        let end = (offset + len).div_ceil(bs);
        let blocks = (end - first) as u32;
        let (due, data) = self.device.submit(
            Command::Read { lba: first, blocks },
            vec![0u8; (blocks as u64 * bs) as usize],
        )?;
        Ok((due, data, (offset - first * bs) as usize))
    }

    fn read(&self, req: &Request) -> Done {
        if req.length > MAX_PAYLOAD_BYTES {
            return Err(EINVAL);
        }
        self.check(req, CMD_FLAG_FUA, EINVAL)?;
        if req.length == 0 {
            return Ok((Instant::now(), Vec::new()));
        }
        let (due, mut data, skip) = self
            .read_blocks(req.offset, req.length as u64)
            .map_err(|e| self.device_error("read", req.offset, e))?;
        if skip != 0 || data.len() != req.length as usize {
            data = data[skip..skip + req.length as usize].to_vec();
        }
        Ok((due, data))
    }

    fn write(&self, req: &Request, data: Vec<u8>) -> Done {
        if self.export.read_only {
            return Err(EPERM);
        }
        self.check(req, CMD_FLAG_FUA, ENOSPC)?;
        let due = self.write_at(req.offset, data)?;
        self.fua(req, due)
    }

    /// Writes `data` at byte `offset`; unaligned ends are read first.
    fn write_at(&self, offset: u64, data: Vec<u8>) -> Result<Instant, u32> {
        let bs = self.bs();
        let len = data.len() as u64;
        if len == 0 {
            return Ok(Instant::now());
        }
        let aligned = offset % bs == 0 && len % bs == 0;
        let (lba, blocks) = if aligned {
            (offset / bs, data)
        } else {
            // Read-modify-write: the covered blocks come back when the model has
            // read them, then the merged blocks are written.
            let (due, mut covered, skip) = self
                .read_blocks(offset, len)
                .map_err(|e| self.device_error("read (read-modify-write)", offset, e))?;
            zonelab_emulation::Pacer::default().wait_until(due);
            covered[skip..skip + data.len()].copy_from_slice(&data);
            (offset / bs, covered)
        };
        let n = (blocks.len() as u64 / bs) as u32;
        self.device
            .submit(Command::Write { lba, blocks: n }, blocks)
            .map(|(due, _)| due)
            .map_err(|e| self.device_error("write", offset, e))
    }

    /// With FUA the reply waits for a Flush after the command.
    fn fua(&self, req: &Request, due: Instant) -> Done {
        if req.flags & CMD_FLAG_FUA == 0 {
            return Ok((due, Vec::new()));
        }
        let (flushed, _) = self.flush(due)?;
        Ok((flushed.max(due), Vec::new()))
    }

    fn flush(&self, not_before: Instant) -> Done {
        let (due, _) = self
            .device
            .submit(Command::Flush, Vec::new())
            .map_err(|e| self.device_error("flush", 0, e))?;
        Ok((due.max(not_before), Vec::new()))
    }

    fn trim(&self, req: &Request) -> Done {
        if self.export.read_only {
            return Err(EPERM);
        }
        self.check(req, CMD_FLAG_FUA, EINVAL)?;
        let bs = self.bs();
        // Only whole blocks inside the range (proto.md: the server may round).
        let first = req.offset.div_ceil(bs);
        let end = (req.offset + req.length as u64) / bs;
        let mut due = Instant::now();
        let mut lba = first;
        while lba < end {
            let blocks = (end - lba).min(u32::MAX as u64) as u32;
            match self
                .device
                .submit(Command::Trim { lba, blocks }, Vec::new())
            {
                Ok((d, _)) => due = due.max(d),
                // A hint the model cannot take: nothing to do.
                Err(DeviceError::Unsupported { .. }) => break,
                Err(e) => return Err(self.device_error("trim", req.offset, e)),
            }
            lba += blocks as u64;
        }
        self.fua(req, due)
    }

    fn write_zeroes(&self, req: &Request) -> Done {
        if self.export.read_only {
            return Err(EPERM);
        }
        self.check(req, CMD_FLAG_FUA | CMD_FLAG_NO_HOLE, ENOSPC)?;
        let mut due = Instant::now();
        let mut pos = req.offset;
        let end = req.offset + req.length as u64;
        while pos < end {
            // Chunks end on block boundaries, so only the range's ends can be partial.
            let bs = self.bs();
            let chunk_end = ((pos / bs) * bs + ZERO_CHUNK_BYTES).min(end);
            let n = chunk_end - pos;
            due = due.max(self.write_at(pos, vec![0u8; n as usize])?);
            pos = chunk_end;
        }
        self.fua(req, due)
    }
}
