//! A SQLite-like transactional writer in WAL mode, modelled on what mobibench's
//! database test does (ESOS-Lab/Mobibench `shell/mobibench.c`: table `tblMyList
//! (id INTEGER PRIMARY KEY autoincrement, Value TEXT, creation_date long)`, one
//! autocommit statement per transaction with a 100-byte value; inserts append
//! rows, updates set a random row among the `-n` rows; `synchronous = FULL`).
//!
//! What reaches the file system per transaction (SQLite 3.40, 4 KiB pages,
//! measured on this machine, docs/conzone.md): each modified page is appended to
//! the `-wal` file as a frame of a 24-byte header and the page (4,120 bytes), and
//! the WAL is fsync'ed at commit. An insert modifies the rightmost table leaf and
//! the `sqlite_sequence` page (AUTOINCREMENT): 2.05 frames per insert, the extra
//! 0.05 when a new leaf is started (page 1, the database size, and the parent
//! interior page also change; 36 rows fit a leaf). An update modifies the leaf
//! holding its row: 1 frame. After 1,000 frames (`wal_autocheckpoint`) the WAL is
//! checkpointed: every page it holds is written into the database file, which
//! is fsync'ed, and the next transaction restarts the WAL from its beginning
//! (overwriting it, header first). CPU per transaction outside the file system
//! (SQLite and syscalls) is a measured constant.

use super::{FileOp, FileWorkload, WriteHint};
use rand::RngCore;
use std::collections::{BTreeSet, VecDeque};
use zonelab_engine::{Ns, RngStream};

/// Database page size (SQLite's default since 3.12).
pub const PAGE_BYTES: u64 = 4096;
/// WAL frame: 24-byte frame header + page.
pub const FRAME_BYTES: u64 = 24 + PAGE_BYTES;
/// WAL file header.
pub const WAL_HEADER_BYTES: u64 = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqliteOp {
    Insert,
    Update,
}

/// Parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SqliteWalSpec {
    pub op: SqliteOp,
    /// Transactions to run (mobibench `-n`).
    pub transactions: u64,
    /// Rows present before the run (updates choose among them); loaded as one
    /// sequential write of the database file and an fsync.
    pub preload_rows: u64,
    /// Rows per table leaf (measured: 36 for 100-byte values, 4 KiB pages).
    pub rows_per_leaf: u64,
    /// Children per interior page (integer keys: about 400 on 4 KiB pages).
    pub children_per_interior: u64,
    /// `wal_autocheckpoint` (SQLite default 1000 frames).
    pub wal_autocheckpoint_frames: u64,
    /// Host CPU per transaction (SQLite + syscalls; measured, docs/conzone.md).
    pub cpu_per_tx_ns: Ns,
    /// File ids of the database and its WAL.
    pub db_file: u32,
    pub wal_file: u32,
}

impl SqliteWalSpec {
    pub fn new(op: SqliteOp, transactions: u64) -> Self {
        Self {
            op,
            transactions,
            preload_rows: if op == SqliteOp::Update {
                transactions
            } else {
                0
            },
            rows_per_leaf: 36,
            children_per_interior: 400,
            wal_autocheckpoint_frames: 1000,
            cpu_per_tx_ns: 9_200,
            db_file: 0,
            wal_file: 1,
        }
    }
}

/// The writer.
pub struct SqliteWal {
    spec: SqliteWalSpec,
    rng: RngStream,
    queue: VecDeque<FileOp>,
    started: bool,
    done_tx: u64,
    rows: u64,
    /// Pages of the database file.
    db_pages: u64,
    /// Frames in the WAL since it was last restarted.
    wal_frames: u64,
    /// Pages the WAL holds since the last checkpoint.
    wal_pages: BTreeSet<u64>,
    restart_pending: bool,
    pub frames_written: u64,
    pub checkpoints: u64,
}

/// Fixed pages: 1 header, 2 table root, 3 `sqlite_sequence`.
const FIRST_LEAF: u64 = 4;

impl SqliteWal {
    pub fn new(spec: SqliteWalSpec, rng: RngStream) -> Self {
        Self {
            rows: spec.preload_rows,
            spec,
            rng,
            queue: VecDeque::new(),
            started: false,
            done_tx: 0,
            db_pages: 3,
            wal_frames: 0,
            wal_pages: BTreeSet::new(),
            restart_pending: false,
            frames_written: 0,
            checkpoints: 0,
        }
    }

    pub fn transactions_done(&self) -> u64 {
        self.done_tx
    }

    fn leaves_for(&self, rows: u64) -> u64 {
        rows.div_ceil(self.spec.rows_per_leaf)
    }

    /// Page number of the leaf holding row `r` (0-based): leaves in allocation
    /// order, an interior page allocated after every `children_per_interior`
    /// leaves.
    fn leaf_page(&self, r: u64) -> u64 {
        let leaf = r / self.spec.rows_per_leaf;
        FIRST_LEAF + leaf + leaf / self.spec.children_per_interior
    }

    fn start(&mut self) {
        let (db, wal) = (self.spec.db_file, self.spec.wal_file);
        self.queue.push_back(FileOp::Create {
            file: db,
            hint: WriteHint::None,
        });
        let leaves = self.leaves_for(self.rows);
        self.db_pages = if leaves == 0 {
            3
        } else {
            self.leaf_page(self.rows - 1)
        };
        self.queue.push_back(FileOp::Write {
            file: db,
            offset: 0,
            len: self.db_pages * PAGE_BYTES,
            direct: false,
        });
        self.queue.push_back(FileOp::Fsync { file: db });
        self.queue.push_back(FileOp::Create {
            file: wal,
            hint: WriteHint::None,
        });
        self.restart_pending = true;
    }

    fn frame(&mut self, page: u64) {
        if self.restart_pending {
            self.queue.push_back(FileOp::Write {
                file: self.spec.wal_file,
                offset: 0,
                len: WAL_HEADER_BYTES,
                direct: false,
            });
            self.restart_pending = false;
        }
        let off = WAL_HEADER_BYTES + self.wal_frames * FRAME_BYTES;
        self.queue.push_back(FileOp::Write {
            file: self.spec.wal_file,
            offset: off,
            len: FRAME_BYTES,
            direct: false,
        });
        self.wal_frames += 1;
        self.frames_written += 1;
        self.wal_pages.insert(page);
    }

    fn transaction(&mut self) {
        self.queue.push_back(FileOp::Think {
            ns: self.spec.cpu_per_tx_ns,
        });
        match self.spec.op {
            SqliteOp::Insert => {
                let r = self.rows;
                self.rows += 1;
                let leaf = self.leaf_page(r);
                if r % self.spec.rows_per_leaf == 0 {
                    // A new leaf: the database grows (page 1) and the parent
                    // interior page gains a child.
                    let leaf_no = r / self.spec.rows_per_leaf;
                    let parent = if leaf_no < self.spec.children_per_interior {
                        2
                    } else {
                        FIRST_LEAF + leaf_no + leaf_no / self.spec.children_per_interior - 1
                    };
                    self.db_pages = self.db_pages.max(leaf);
                    self.frame(1);
                    self.frame(parent);
                }
                self.frame(leaf);
                self.frame(3);
            }
            SqliteOp::Update => {
                let r = self.rng.next_u64() % self.rows.max(1);
                let leaf = self.leaf_page(r);
                self.frame(leaf);
            }
        }
        self.queue.push_back(FileOp::Fsync {
            file: self.spec.wal_file,
        });
        self.queue.push_back(FileOp::Done);
        if self.wal_frames >= self.spec.wal_autocheckpoint_frames {
            self.checkpoint();
        }
    }

    /// Copies the WAL's pages into the database file, syncs it, and restarts the
    /// WAL at the next transaction.
    fn checkpoint(&mut self) {
        for &p in &self.wal_pages {
            self.queue.push_back(FileOp::Write {
                file: self.spec.db_file,
                offset: (p - 1) * PAGE_BYTES,
                len: PAGE_BYTES,
                direct: false,
            });
        }
        self.queue.push_back(FileOp::Fsync {
            file: self.spec.db_file,
        });
        self.wal_pages.clear();
        self.wal_frames = 0;
        self.restart_pending = true;
        self.checkpoints += 1;
    }
}

impl FileWorkload for SqliteWal {
    fn next_op(&mut self) -> Option<FileOp> {
        if !self.started {
            self.started = true;
            self.start();
        }
        if self.queue.is_empty() && self.done_tx < self.spec.transactions {
            self.done_tx += 1;
            self.transaction();
        }
        self.queue.pop_front()
    }

    fn name(&self) -> &str {
        match self.spec.op {
            SqliteOp::Insert => "sqlite-insert",
            SqliteOp::Update => "sqlite-update",
        }
    }

    fn files(&self) -> Vec<u32> {
        vec![self.spec.db_file, self.spec.wal_file]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_engine::RngStreams;

    fn run(op: SqliteOp, n: u64) -> (SqliteWal, Vec<FileOp>) {
        let mut w = SqliteWal::new(SqliteWalSpec::new(op, n), RngStreams::new(1).stream("s"));
        let mut ops = Vec::new();
        while let Some(o) = w.next_op() {
            ops.push(o);
        }
        (w, ops)
    }

    #[test]
    fn inserts_write_about_two_frames_and_checkpoint_every_thousand_frames() {
        let (w, ops) = run(SqliteOp::Insert, 3600);
        let per_tx = w.frames_written as f64 / 3600.0;
        // Measured with SQLite 3.40: 2.054 frames per insert.
        assert!((per_tx - 2.055).abs() < 0.01, "{per_tx}");
        assert_eq!(w.checkpoints, w.frames_written / 1000);
        let fsyncs = ops
            .iter()
            .filter(|o| matches!(o, FileOp::Fsync { .. }))
            .count();
        assert_eq!(fsyncs as u64, 3600 + w.checkpoints + 1);
        assert_eq!(ops.iter().filter(|o| **o == FileOp::Done).count(), 3600);
    }

    #[test]
    fn updates_write_one_frame_on_a_random_leaf_of_the_preloaded_rows() {
        let (w, ops) = run(SqliteOp::Update, 2000);
        assert_eq!(w.frames_written, 2000);
        let db_writes: Vec<u64> = ops
            .iter()
            .filter_map(|o| match o {
                FileOp::Write {
                    file: 0, offset, ..
                } if *offset > 0 => Some(*offset),
                _ => None,
            })
            .collect();
        assert!(!db_writes.is_empty());
        // Leaves of 2000 rows: pages 4..=59 hold the rows.
        assert!(db_writes.iter().all(|&o| o / 4096 + 1 <= 60));
    }
}
