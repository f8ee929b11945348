//! fio-like file jobs (fio's file I/O engine semantics, the subset ConZone+'s
//! experiments use): `nrfiles` files of `filesize`, created before the job runs
//! (write-only jobs are not laid out: fio's `extend_file` writes a file only for
//! reads or `overwrite=1`), then `io_size` bytes of `bs`-sized writes,
//! sequential or random — random offsets follow fio's random map, so each block
//! of a file is written once before any is written again — with an fsync
//! every `fsync` writes, a `file_service_type` choosing the file, `thinktime`
//! after every `thinktime_blocks` writes, and a lifetime hint. The authors' Fig.
//! 12 job file is DingcuiYu/ConZone `fioconfs/mot-gc.conf`.

use super::{FileOp, FileWorkload, WriteHint};
use rand::RngCore;
use std::collections::VecDeque;
use zonelab_engine::{Ns, RngStream};

/// Access pattern (`rw=write` / `rw=randwrite`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FioPattern {
    Sequential,
    Random,
}

/// `file_service_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileService {
    /// `roundrobin`: switch file after every I/O.
    RoundRobin,
    /// `random:N`: a random file for N I/Os, then another.
    Random(u32),
    /// `sequential`: finish a file before the next.
    Sequential,
}

/// A job description.
#[derive(Debug, Clone, PartialEq)]
pub struct FioFileSpec {
    pub name: String,
    pub nrfiles: u32,
    pub file_bytes: u64,
    pub bs: u64,
    pub pattern: FioPattern,
    /// Bytes to write (`io_size`; fio's default is the total file size).
    pub io_bytes: u64,
    /// fsync after this many writes (0: never).
    pub fsync_every: u32,
    pub direct: bool,
    pub service: FileService,
    /// `thinktime` after every `thinktime_blocks` writes.
    pub thinktime_ns: Ns,
    pub thinktime_blocks: u32,
    pub hint: WriteHint,
    /// Id of the job's first file; files are `first_file..first_file + nrfiles`.
    pub first_file: u32,
    /// Create the files (false: they exist from an earlier job).
    pub create: bool,
}

impl FioFileSpec {
    pub fn new(name: &str, nrfiles: u32, file_bytes: u64, bs: u64, pattern: FioPattern) -> Self {
        Self {
            name: name.into(),
            nrfiles,
            file_bytes,
            bs,
            pattern,
            io_bytes: nrfiles as u64 * file_bytes,
            fsync_every: 0,
            direct: false,
            service: FileService::RoundRobin,
            thinktime_ns: 0,
            thinktime_blocks: 1,
            hint: WriteHint::None,
            first_file: 0,
            create: true,
        }
    }
}

/// The job.
pub struct FioFileJob {
    spec: FioFileSpec,
    rng: RngStream,
    queue: VecDeque<FileOp>,
    started: bool,
    written: u64,
    writes: u64,
    /// Per file: blocks in write order (the random map), and the next position.
    order: Vec<Vec<u32>>,
    pos: Vec<usize>,
    cur_file: u32,
    left_on_file: u32,
}

impl FioFileJob {
    pub fn new(spec: FioFileSpec, rng: RngStream) -> Self {
        let n = spec.nrfiles as usize;
        Self {
            spec,
            rng,
            queue: VecDeque::new(),
            started: false,
            written: 0,
            writes: 0,
            order: vec![Vec::new(); n],
            pos: vec![0; n],
            cur_file: 0,
            left_on_file: 0,
        }
    }

    pub fn spec(&self) -> &FioFileSpec {
        &self.spec
    }

    fn blocks_per_file(&self) -> u32 {
        (self.spec.file_bytes / self.spec.bs).max(1) as u32
    }

    fn pick_file(&mut self) -> u32 {
        let n = self.spec.nrfiles;
        match self.spec.service {
            FileService::RoundRobin => {
                let f = self.cur_file;
                self.cur_file = (self.cur_file + 1) % n;
                f
            }
            FileService::Sequential => {
                let f = self.cur_file;
                if self.pos[f as usize] + 1 >= self.blocks_per_file() as usize {
                    self.cur_file = (self.cur_file + 1) % n;
                }
                f
            }
            FileService::Random(k) => {
                if self.left_on_file == 0 {
                    self.cur_file = (self.rng.next_u64() % n as u64) as u32;
                    self.left_on_file = k.max(1);
                }
                self.left_on_file -= 1;
                self.cur_file
            }
        }
    }

    /// Next block of file `f`: sequential, or the next of its random map
    /// (regenerated once every block was written).
    fn next_block(&mut self, f: u32) -> u32 {
        let blocks = self.blocks_per_file();
        let fi = f as usize;
        if self.order[fi].is_empty() || self.pos[fi] >= self.order[fi].len() {
            let mut o: Vec<u32> = (0..blocks).collect();
            if self.spec.pattern == FioPattern::Random {
                for i in (1..o.len()).rev() {
                    let j = (self.rng.next_u64() % (i as u64 + 1)) as usize;
                    o.swap(i, j);
                }
            }
            self.order[fi] = o;
            self.pos[fi] = 0;
        }
        let b = self.order[fi][self.pos[fi]];
        self.pos[fi] += 1;
        b
    }

    fn one_write(&mut self) {
        let f = self.pick_file();
        let b = self.next_block(f);
        let file = self.spec.first_file + f;
        self.queue.push_back(FileOp::Write {
            file,
            offset: b as u64 * self.spec.bs,
            len: self.spec.bs,
            direct: self.spec.direct,
        });
        self.writes += 1;
        self.written += self.spec.bs;
        if self.spec.fsync_every > 0 && self.writes % self.spec.fsync_every as u64 == 0 {
            self.queue.push_back(FileOp::Fsync { file });
        }
        self.queue.push_back(FileOp::Done);
        if self.spec.thinktime_ns > 0 && self.writes % self.spec.thinktime_blocks.max(1) as u64 == 0
        {
            self.queue.push_back(FileOp::Think {
                ns: self.spec.thinktime_ns,
            });
        }
    }
}

impl FileWorkload for FioFileJob {
    fn next_op(&mut self) -> Option<FileOp> {
        if !self.started {
            self.started = true;
            if self.spec.create {
                for f in 0..self.spec.nrfiles {
                    self.queue.push_back(FileOp::Create {
                        file: self.spec.first_file + f,
                        hint: self.spec.hint,
                    });
                }
            }
        }
        if self.queue.is_empty() && self.written < self.spec.io_bytes {
            self.one_write();
        }
        self.queue.pop_front()
    }

    fn name(&self) -> &str {
        &self.spec.name
    }

    fn files(&self) -> Vec<u32> {
        (0..self.spec.nrfiles)
            .map(|f| self.spec.first_file + f)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_engine::RngStreams;

    #[test]
    fn random_map_writes_every_block_once_per_pass() {
        let mut s = FioFileSpec::new("j", 2, 64 * 4096, 4096, FioPattern::Random);
        s.service = FileService::Random(8);
        s.fsync_every = 1;
        let mut j = FioFileJob::new(s, RngStreams::new(3).stream("j"));
        let mut seen = std::collections::BTreeMap::new();
        let mut fsyncs = 0;
        while let Some(op) = j.next_op() {
            match op {
                FileOp::Write { file, offset, .. } => {
                    *seen.entry((file, offset)).or_insert(0) += 1;
                }
                FileOp::Fsync { .. } => fsyncs += 1,
                _ => {}
            }
        }
        assert_eq!(seen.len(), 128);
        assert!(seen.values().all(|&c| c == 1));
        assert_eq!(fsyncs, 128);
    }

    #[test]
    fn io_size_beyond_the_files_starts_a_second_pass() {
        let mut s = FioFileSpec::new("j", 1, 16 * 4096, 4096, FioPattern::Random);
        s.io_bytes = 40 * 4096;
        let mut j = FioFileJob::new(s, RngStreams::new(3).stream("j"));
        let writes = std::iter::from_fn(|| j.next_op())
            .filter(|o| matches!(o, FileOp::Write { .. }))
            .count();
        assert_eq!(writes, 40);
    }
}
