//! Closing the database and opening it again in a new process, as the HHZS
//! experiments do between loading and running a workload: `ycsb load` and
//! `ycsb run` are separate processes (H2Zone `scripts/single_exp.sh` →
//! `ycsb_load.sh` / `ycsb_run.sh`), so RocksDB — and ZenFS/HHZS, a plugin in the same
//! process — is closed after the load and opened for the run.
//!
//! What RocksDB 6.22 does: `DBImpl::CloseHelper` sets `shutting_down_`, so running
//! compactions stop and their outputs are discarded (inputs stay); MemTables are not
//! flushed (the WAL is enabled, `has_unpersisted_data_` is false), they live in the
//! WAL. `DB::Open` replays every WAL file into MemTables and, with
//! `avoid_flush_during_recovery` false (the default), writes them to L0
//! (`RecoverLogFiles` → `WriteLevel0TableForRecovery`, one table per MemTable's worth)
//! before it returns, then deletes the old WAL files and starts a new one. The block
//! cache starts empty and the write controller starts from the recovered version.
//! The file system below loses its in-memory state too ([`LsmStorage::reopened`]).

use super::{Ev, Immutable, LsmDb, LsmError, MemTable, Step};
use crate::lsm::block_cache::BlockCache;
use crate::lsm::hints::{FileKind, Hint, LsmStorage};
use crate::lsm::stall::WriteController;
use crate::lsm::version::Sst;
use std::sync::Arc;
use zonelab_engine::{EventQueue, Ns};

impl<S: LsmStorage> LsmDb<S> {
    /// Closes and reopens the database (a new process); returns the virtual time
    /// at which the open returns, after the WAL's MemTables are written to L0.
    pub fn reopen(&mut self) -> Result<Ns, LsmError> {
        let now = self.now_ns();
        // Close: running compactions stop, their outputs go.
        for slot in 0..self.compactions.len() {
            let Some(j) = self.compactions[slot].take() else {
                continue;
            };
            for &no in &j.output_nos {
                self.storage.delete(now, no)?;
            }
            for &f in &j.inputs {
                self.version.sst_mut(f).being_compacted = false;
            }
            self.storage.hint(
                now,
                &Hint::CompactionFinished {
                    job: j.job,
                    outputs: Vec::new(),
                    output_level: j.output_level,
                },
            )?;
        }
        // A flush in progress is abandoned: its MemTables are in the WAL.
        for slot in 0..self.flushes.len() {
            if let Some(j) = self.flushes[slot].take() {
                self.storage.delete(now, j.sst)?;
            }
        }
        // Open deletes every file no Version references (`DeleteObsoleteFiles`).
        self.purge_obsolete(now)?;
        self.queue = EventQueue::new();
        self.queue.advance_to(now);
        self.storage.reopened(now);
        // Open: replay the WAL, one L0 table per MemTable, oldest first.
        let mems: Vec<MemTable> = std::mem::take(&mut self.imm)
            .into_iter()
            .map(|m: Immutable| m.mem)
            .chain(std::iter::once(std::mem::replace(
                &mut self.active,
                MemTable::new(0, self.o.arena_block_bytes_effective()),
            )))
            .collect();
        let mut t = now;
        for mem in mems.iter().filter(|m| !m.is_empty()) {
            t = self.write_recovered_table(t, mem)?;
        }
        for (wal, _) in std::mem::take(&mut self.wal_files) {
            self.storage.delete(t, wal)?;
        }
        let wal = self.new_file_no();
        self.storage.create(t, wal, FileKind::Wal)?;
        self.wal_files = vec![(wal, 0)];
        self.active = MemTable::new(wal, self.o.arena_block_bytes_effective());
        self.wal_buffer_bytes = 0;
        self.flush_requested = false;
        self.wal_getting_flushed = None;
        self.cache = BlockCache::new(self.o.block_cache_bytes, self.o.block_cache_shard_bits);
        self.wc = WriteController::new(&self.o);
        self.client.time = t;
        self.client.step = Step::Finished;
        self.client.in_queue = false;
        if self.samples.is_some() {
            self.queue.schedule(t, Ev::Sample);
        }
        self.after_change(t)?;
        Ok(t)
    }

    /// `WriteLevel0TableForRecovery`: one MemTable written as an L0 table.
    fn write_recovered_table(&mut self, now: Ns, mem: &MemTable) -> Result<Ns, LsmError> {
        let keys: Arc<[u64]> = mem.sorted_keys().into();
        let n = keys.len() as u64;
        let bytes = self.layout.file_bytes(n);
        let sst = self.new_file_no();
        let job = self.new_job();
        self.storage.create(now, sst, FileKind::Sst { level: 0 })?;
        self.storage.hint(
            now,
            &Hint::FlushStarted {
                job,
                sst,
                expected_bytes: bytes,
            },
        )?;
        let mut t = now;
        let mut written = 0;
        while written < bytes {
            let chunk = self.o.file_write_chunk_bytes.min(bytes - written);
            t = self.storage.append(t, sst, chunk)? + self.o.cpu.flush_ns(0, chunk);
            written += chunk;
        }
        t = self.storage.close(t, sst)? + n * self.o.cpu.flush_ns_per_key;
        let tail = self.layout.tail_bytes(n);
        t = self.storage.read(t, sst, self.layout.data_bytes(n), tail)?;
        self.version.add(Sst::new(sst, 0, keys, bytes));
        self.counters.flushes += 1;
        self.counters.flush_bytes += bytes;
        self.counters.level_write_bytes[0] += bytes;
        Ok(t)
    }
}
