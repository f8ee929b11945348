//! A simple storage for tests and calibration: one device with a fixed per-request
//! latency and a shared bandwidth (a single busy-until timeline), which keeps every
//! file's size, refuses I/O on missing files, and records the hints it gets.

use super::hints::{FileKind, FileNo, Hint, LsmStorage, StorageError};
use std::collections::BTreeMap;
use zonelab_engine::{time::transfer_ns, Ns};

#[derive(Debug, Clone)]
pub struct IdealStorage {
    latency_ns: Ns,
    bytes_per_s: u64,
    busy_until_ns: Ns,
    pub files: BTreeMap<FileNo, (FileKind, u64)>,
    pub appended_bytes: u64,
    pub read_bytes: u64,
    pub hints: Vec<Hint>,
    pub record_hints: bool,
    /// Deleted files, each with the number of hints recorded before its deletion
    /// (when hints are recorded), so tests can order deletions among the hints.
    pub deletions: Vec<(usize, FileNo)>,
}

impl IdealStorage {
    pub fn new(latency_ns: Ns, bytes_per_s: u64) -> Self {
        Self {
            latency_ns,
            bytes_per_s,
            busy_until_ns: 0,
            files: BTreeMap::new(),
            appended_bytes: 0,
            read_bytes: 0,
            hints: Vec::new(),
            record_hints: true,
            deletions: Vec::new(),
        }
    }

    fn io(&mut self, now: Ns, bytes: u64) -> Ns {
        let start = now.max(self.busy_until_ns);
        self.busy_until_ns = start + transfer_ns(bytes, self.bytes_per_s);
        self.busy_until_ns + self.latency_ns
    }

    fn missing(op: &str, file: FileNo) -> StorageError {
        StorageError(format!("{op} of file {file}, which does not exist"))
    }
}

impl LsmStorage for IdealStorage {
    fn create(&mut self, _now: Ns, file: FileNo, kind: FileKind) -> Result<(), StorageError> {
        if self.files.insert(file, (kind, 0)).is_some() {
            return Err(StorageError(format!("file {file} already exists")));
        }
        Ok(())
    }

    fn append(&mut self, now: Ns, file: FileNo, bytes: u64) -> Result<Ns, StorageError> {
        let f = self
            .files
            .get_mut(&file)
            .ok_or_else(|| Self::missing("append", file))?;
        f.1 += bytes;
        self.appended_bytes += bytes;
        Ok(self.io(now, bytes))
    }

    fn close(&mut self, now: Ns, file: FileNo) -> Result<Ns, StorageError> {
        if !self.files.contains_key(&file) {
            return Err(Self::missing("close", file));
        }
        Ok(now)
    }

    fn read(&mut self, now: Ns, file: FileNo, offset: u64, bytes: u64) -> Result<Ns, StorageError> {
        let size = self
            .files
            .get(&file)
            .ok_or_else(|| Self::missing("read", file))?
            .1;
        if offset + bytes > size.div_ceil(4096) * 4096 {
            return Err(StorageError(format!(
                "read of file {file} at {offset}+{bytes} beyond its {size} bytes"
            )));
        }
        self.read_bytes += bytes;
        Ok(self.io(now, bytes))
    }

    fn delete(&mut self, _now: Ns, file: FileNo) -> Result<(), StorageError> {
        self.files
            .remove(&file)
            .ok_or_else(|| Self::missing("delete", file))?;
        self.deletions.push((self.hints.len(), file));
        Ok(())
    }

    fn hint(&mut self, _now: Ns, hint: &Hint) -> Result<(), StorageError> {
        if self.record_hints {
            self.hints.push(hint.clone());
        }
        Ok(())
    }
}
