//! The fixed newstyle handshake and option haggling (proto.md "Fixed newstyle
//! negotiation", "Option types"): `NBD_OPT_GO`/`NBD_OPT_INFO` with
//! `NBD_INFO_EXPORT`, `NBD_INFO_NAME`, `NBD_INFO_DESCRIPTION` and
//! `NBD_INFO_BLOCK_SIZE`; `NBD_OPT_EXPORT_NAME` for old clients; `NBD_OPT_LIST`;
//! `NBD_OPT_ABORT`. Everything else (structured replies, TLS, metadata
//! contexts) is answered with an error reply and the client carries on, as the
//! baseline of "Compatibility and interoperability" asks.

use crate::export::Export;
use crate::proto::*;
use std::io::{self, Read, Write};

/// Largest option payload read; longer ones end the session (a client sends at
/// most an export name and a few information requests).
const MAX_OPTION_BYTES: u32 = 64 * 1024;

/// How option haggling ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Negotiated {
    /// Go on to the transmission phase.
    Transmission,
    /// The client aborted (`NBD_OPT_ABORT`).
    Aborted,
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Runs the handshake on `s` for `export`. An `Err` means the session must end
/// (a protocol violation, an unknown export by `NBD_OPT_EXPORT_NAME`, or the
/// connection closed); its message says why.
pub fn negotiate<S: Read + Write>(s: &mut S, export: &Export) -> io::Result<Negotiated> {
    let mut hello = Vec::with_capacity(18);
    hello.extend_from_slice(&NBD_MAGIC.to_be_bytes());
    hello.extend_from_slice(&IHAVEOPT.to_be_bytes());
    hello.extend_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    s.write_all(&hello)?;
    s.flush()?;
    let client_flags = read_u32(s)?;
    if client_flags & !(FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES) != 0 {
        return Err(invalid(format!("unknown client flags {client_flags:#x}")));
    }
    let no_zeroes = client_flags & FLAG_C_NO_ZEROES != 0;
    loop {
        let magic = read_u64(s)?;
        if magic != IHAVEOPT {
            return Err(invalid(format!("bad option magic {magic:#x}")));
        }
        let option = read_u32(s)?;
        let len = read_u32(s)?;
        if len > MAX_OPTION_BYTES {
            return Err(invalid(format!(
                "option {option} of {len} bytes is too long"
            )));
        }
        let mut data = vec![0u8; len as usize];
        s.read_exact(&mut data)?;
        match option {
            OPT_EXPORT_NAME => {
                if !export.answers_to(&data) {
                    // This option cannot return an error: the session ends.
                    return Err(invalid(format!(
                        "client asked for export `{}`; this server exports `{}`",
                        String::from_utf8_lossy(&data),
                        export.name
                    )));
                }
                let mut reply = Vec::with_capacity(134);
                reply.extend_from_slice(&export.size_bytes.to_be_bytes());
                reply.extend_from_slice(&export.transmission_flags().to_be_bytes());
                if !no_zeroes {
                    reply.extend_from_slice(&[0u8; 124]);
                }
                s.write_all(&reply)?;
                s.flush()?;
                return Ok(Negotiated::Transmission);
            }
            OPT_ABORT => {
                let _ = write_option_reply(s, option, REP_ACK, &[]);
                let _ = s.flush();
                return Ok(Negotiated::Aborted);
            }
            OPT_LIST if !data.is_empty() => {
                write_option_reply(s, option, REP_ERR_INVALID, b"NBD_OPT_LIST takes no data")?
            }
            OPT_LIST => {
                let mut entry = (export.name.len() as u32).to_be_bytes().to_vec();
                entry.extend_from_slice(export.name.as_bytes());
                entry.extend_from_slice(export.description.as_bytes());
                write_option_reply(s, option, REP_SERVER, &entry)?;
                write_option_reply(s, option, REP_ACK, &[])?;
            }
            OPT_INFO | OPT_GO => {
                if info_or_go(s, option, &data, export)? && option == OPT_GO {
                    s.flush()?;
                    return Ok(Negotiated::Transmission);
                }
            }
            OPT_STARTTLS => write_option_reply(
                s,
                option,
                REP_ERR_POLICY,
                b"TLS is not supported; this server listens on a Unix socket or 127.0.0.1 only",
            )?,
            _ => write_option_reply(s, option, REP_ERR_UNSUP, b"option not supported")?,
        }
        s.flush()?;
    }
}

/// Answers `NBD_OPT_INFO`/`NBD_OPT_GO`; `Ok(true)` when it ended with ACK.
fn info_or_go<S: Write>(s: &mut S, option: u32, data: &[u8], export: &Export) -> io::Result<bool> {
    let bad = |s: &mut S, why: &str| write_option_reply(s, option, REP_ERR_INVALID, why.as_bytes());
    if data.len() < 6 {
        bad(s, "option data shorter than 6 bytes")?;
        return Ok(false);
    }
    let name_len = u32::from_be_bytes(data[..4].try_into().unwrap()) as usize;
    if name_len > data.len() - 6 {
        bad(s, "export name length exceeds the option data")?;
        return Ok(false);
    }
    let name = &data[4..4 + name_len];
    let rest = &data[4 + name_len..];
    let n = u16::from_be_bytes(rest[..2].try_into().unwrap()) as usize;
    if rest.len() != 2 + 2 * n {
        bad(
            s,
            "information request count does not match the option length",
        )?;
        return Ok(false);
    }
    let requests: Vec<u16> = rest[2..]
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    if !export.answers_to(name) {
        let msg = format!(
            "unknown export `{}`; this server exports `{}` (or the default, empty name)",
            String::from_utf8_lossy(name),
            export.name
        );
        write_option_reply(s, option, REP_ERR_UNKNOWN, msg.as_bytes())?;
        return Ok(false);
    }
    let mut info = INFO_EXPORT.to_be_bytes().to_vec();
    info.extend_from_slice(&export.size_bytes.to_be_bytes());
    info.extend_from_slice(&export.transmission_flags().to_be_bytes());
    write_option_reply(s, option, REP_INFO, &info)?;
    if requests.contains(&INFO_NAME) {
        let mut info = INFO_NAME.to_be_bytes().to_vec();
        info.extend_from_slice(export.name.as_bytes());
        write_option_reply(s, option, REP_INFO, &info)?;
    }
    if requests.contains(&INFO_DESCRIPTION) {
        let mut info = INFO_DESCRIPTION.to_be_bytes().to_vec();
        info.extend_from_slice(export.description.as_bytes());
        write_option_reply(s, option, REP_INFO, &info)?;
    }
    // Sent whether asked or not: clients that did not ask may ignore it, and
    // unaligned requests still work (read-modify-write).
    let (min, preferred, max) = export.block_size_info();
    let mut info = INFO_BLOCK_SIZE.to_be_bytes().to_vec();
    for v in [min, preferred, max] {
        info.extend_from_slice(&v.to_be_bytes());
    }
    write_option_reply(s, option, REP_INFO, &info)?;
    write_option_reply(s, option, REP_ACK, &[])?;
    Ok(true)
}
