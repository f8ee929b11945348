//! Records of the metadata journal and their on-device encoding (issue 9 part 3;
//! the layout follows ZenFS's metadata log: length- and CRC-framed records in
//! dedicated zones, each log zone starting with a snapshot).
//!
//! A frame is `len: u32 LE`, `crc: u32 LE` (CRC-32/IEEE of the body), then `len`
//! body bytes. A `len` of 0 means "padding up to the next block" (every commit is
//! written as whole blocks). Decoding stops at the first frame whose CRC does not
//! match or that runs past the data (a torn write). Integers are little-endian;
//! strings are a `u32` length and UTF-8 bytes.

use crate::lsm::FileNo;

/// Frame header bytes (length + CRC).
pub const FRAME_HEADER_BYTES: usize = 8;
/// Level value of an SST whose level is not known yet (the C API's -1).
pub const LEVEL_UNKNOWN: i32 = -1;
/// Kind codes (the C API's `ZL_FILE_WAL` / `ZL_FILE_SST`).
pub const KIND_WAL: u8 = 1;
pub const KIND_SST: u8 = 2;

/// One extent as recorded: where a piece of a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtentRecord {
    pub device: u32,
    /// Index in the store's zone list of the device.
    pub zone: u32,
    pub zone_offset: u64,
    pub file_offset: u64,
    pub len: u64,
    pub physical: u64,
}

/// A metadata change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    /// A log zone starts with a snapshot: `SnapshotBegin`, the records that
    /// recreate every file, `SnapshotEnd` with the same sequence number.
    SnapshotBegin {
        seq: u64,
    },
    SnapshotEnd {
        seq: u64,
    },
    Create {
        file: FileNo,
        name: String,
        kind: u8,
        level: i32,
    },
    SetLevel {
        file: FileNo,
        level: i32,
    },
    Extent {
        file: FileNo,
        extent: ExtentRecord,
    },
    /// The file's extents were replaced (a migration finished); its new extents
    /// follow as `Extent` records.
    ClearExtents {
        file: FileNo,
    },
    /// The file was synced at `size` bytes.
    Sync {
        file: FileNo,
        size: u64,
    },
    Close {
        file: FileNo,
    },
    Delete {
        file: FileNo,
    },
    Rename {
        file: FileNo,
        name: String,
    },
}

const T_SNAP_BEGIN: u8 = 1;
const T_SNAP_END: u8 = 2;
const T_CREATE: u8 = 3;
const T_SET_LEVEL: u8 = 4;
const T_EXTENT: u8 = 5;
const T_CLEAR: u8 = 6;
const T_SYNC: u8 = 7;
const T_CLOSE: u8 = 8;
const T_DELETE: u8 = 9;
const T_RENAME: u8 = 10;

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as zlib computes it.
pub fn crc32(data: &[u8]) -> u32 {
    const POLY: u32 = 0xEDB8_8320;
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ POLY
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

impl Record {
    fn body(&self) -> Vec<u8> {
        let mut b = Vec::new();
        let u64s = |b: &mut Vec<u8>, t: u8, v: &[u64]| {
            b.push(t);
            for x in v {
                b.extend_from_slice(&x.to_le_bytes());
            }
        };
        match self {
            Record::SnapshotBegin { seq } => u64s(&mut b, T_SNAP_BEGIN, &[*seq]),
            Record::SnapshotEnd { seq } => u64s(&mut b, T_SNAP_END, &[*seq]),
            Record::Create {
                file,
                name,
                kind,
                level,
            } => {
                u64s(&mut b, T_CREATE, &[*file]);
                b.push(*kind);
                b.extend_from_slice(&level.to_le_bytes());
                put_str(&mut b, name);
            }
            Record::SetLevel { file, level } => {
                u64s(&mut b, T_SET_LEVEL, &[*file]);
                b.extend_from_slice(&level.to_le_bytes());
            }
            Record::Extent { file, extent: e } => u64s(
                &mut b,
                T_EXTENT,
                &[
                    *file,
                    e.device as u64,
                    e.zone as u64,
                    e.zone_offset,
                    e.file_offset,
                    e.len,
                    e.physical,
                ],
            ),
            Record::ClearExtents { file } => u64s(&mut b, T_CLEAR, &[*file]),
            Record::Sync { file, size } => u64s(&mut b, T_SYNC, &[*file, *size]),
            Record::Close { file } => u64s(&mut b, T_CLOSE, &[*file]),
            Record::Delete { file } => u64s(&mut b, T_DELETE, &[*file]),
            Record::Rename { file, name } => {
                u64s(&mut b, T_RENAME, &[*file]);
                put_str(&mut b, name);
            }
        }
        b
    }

    /// Appends the framed record to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let body = self.body();
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32(&body).to_le_bytes());
        out.extend_from_slice(&body);
    }

    fn decode_body(b: &[u8]) -> Option<Record> {
        let mut r = Reader { b, pos: 1 };
        let t = *b.first()?;
        let rec = match t {
            T_SNAP_BEGIN => Record::SnapshotBegin { seq: r.u64()? },
            T_SNAP_END => Record::SnapshotEnd { seq: r.u64()? },
            T_CREATE => {
                let file = r.u64()?;
                let kind = r.u8()?;
                let level = r.i32()?;
                Record::Create {
                    file,
                    kind,
                    level,
                    name: r.string()?,
                }
            }
            T_SET_LEVEL => Record::SetLevel {
                file: r.u64()?,
                level: r.i32()?,
            },
            T_EXTENT => Record::Extent {
                file: r.u64()?,
                extent: ExtentRecord {
                    device: u32::try_from(r.u64()?).ok()?,
                    zone: u32::try_from(r.u64()?).ok()?,
                    zone_offset: r.u64()?,
                    file_offset: r.u64()?,
                    len: r.u64()?,
                    physical: r.u64()?,
                },
            },
            T_CLEAR => Record::ClearExtents { file: r.u64()? },
            T_SYNC => Record::Sync {
                file: r.u64()?,
                size: r.u64()?,
            },
            T_CLOSE => Record::Close { file: r.u64()? },
            T_DELETE => Record::Delete { file: r.u64()? },
            T_RENAME => Record::Rename {
                file: r.u64()?,
                name: r.string()?,
            },
            _ => return None,
        };
        (r.pos == b.len()).then_some(rec)
    }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let s = self.b.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn string(&mut self) -> Option<String> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

/// Decodes the records in `data` (a log zone up to its write pointer), skipping
/// block padding; stops at the first torn or corrupt frame. Returns the records
/// and whether the data ended cleanly (false: a bad frame stopped decoding).
pub fn decode_all(data: &[u8], block_bytes: usize) -> (Vec<Record>, bool) {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos + FRAME_HEADER_BYTES <= data.len() {
        let len = u32::from_le_bytes(data[pos..pos + 4].try_into().expect("4 bytes")) as usize;
        if len == 0 {
            // Padding: continue at the next block.
            pos = (pos / block_bytes + 1) * block_bytes;
            continue;
        }
        let crc = u32::from_le_bytes(data[pos + 4..pos + 8].try_into().expect("4 bytes"));
        let Some(body) = data.get(pos + FRAME_HEADER_BYTES..pos + FRAME_HEADER_BYTES + len) else {
            return (out, false);
        };
        if crc32(body) != crc {
            return (out, false);
        }
        match Record::decode_body(body) {
            Some(r) => out.push(r),
            None => return (out, false),
        }
        pos += FRAME_HEADER_BYTES + len;
    }
    (out, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_standard_check_value() {
        // The CRC-32/ISO-HDLC check value of "123456789".
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn records_round_trip_and_a_flipped_bit_stops_decoding() {
        let recs = vec![
            Record::SnapshotBegin { seq: 3 },
            Record::Create {
                file: 7,
                name: "000007.sst".into(),
                kind: KIND_SST,
                level: LEVEL_UNKNOWN,
            },
            Record::Extent {
                file: 7,
                extent: ExtentRecord {
                    device: 1,
                    zone: 4,
                    zone_offset: 8192,
                    file_offset: 0,
                    len: 5000,
                    physical: 8192,
                },
            },
            Record::SnapshotEnd { seq: 3 },
            Record::Rename {
                file: 7,
                name: "x".into(),
            },
        ];
        let mut buf = Vec::new();
        for r in &recs[..2] {
            r.encode(&mut buf);
        }
        buf.resize(4096, 0);
        for r in &recs[2..] {
            r.encode(&mut buf);
        }
        assert_eq!(decode_all(&buf, 4096), (recs.clone(), true));
        let last = buf.len() - 1;
        buf[last] ^= 1;
        let (got, clean) = decode_all(&buf, 4096);
        assert!(!clean);
        assert_eq!(got, recs[..4].to_vec());
    }
}
