//! The file system's state and its write paths (mechanism only: *when* to clean
//! and checkpoint is decided by [`super::policy`] and the runner in
//! [`super::sim`]). Every method takes the virtual time it runs at, submits its
//! I/O then, and returns when that I/O completes.
//!
//! - buffered writes dirty page-cache blocks; direct writes go to the device at
//!   once (on zoned storage F2FS turns them into buffered writes written back at
//!   once, §6.4 — the same I/O here);
//! - data write-back puts a block in place (adaptive mode, `F2FS_IPU_FSYNC` for
//!   fsync'ed overwrites, direct overwrites, or under SSR) or out of place in its
//!   temperature's data log, which dirties the node holding its address;
//! - node write-back appends dirty nodes to the node logs and updates the NAT;
//! - file creation adds a dentry to the root directory (hot data + hot node).

use super::config::{FsConfig, FsMode};
use super::error::FsError;
use super::inode::{DataTemp, Inode, WriteHint};
use super::io::{submit_one, submit_runs, IoKind};
use super::layout::{MainGeometry, MetaLayout, BLOCKS_PER_SEG, NULL_ADDR};
use super::logs::{LogType, Logs};
use super::nat::{Nat, NodeOwner, NodeSlot};
use super::sit::Sit;
use super::stats::FsStats;
use super::storage::{Area, FsStorage};
use zonelab_devices::Command;
use zonelab_engine::Ns;

/// Dentries per dentry block (`NR_DENTRY_IN_BLOCK`).
const DENTRIES_PER_BLOCK: u64 = 214;
/// Internal file index of the root directory.
pub(super) const ROOT: u32 = 0;

/// Who is writing data back, which decides in-place updates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writeback {
    /// fsync(): `FI_NEED_IPU` is set while its data is written.
    Fsync,
    /// A direct write.
    Direct,
    /// Any other write-back (checkpoint, background).
    Background,
}

/// Reverse map entry: what a main-area block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    Free,
    Data { file: u32, idx: u64 },
    Node { nid: u32 },
}

const RMAP_DATA: u64 = 1 << 62;
const RMAP_NODE: u64 = 2 << 62;

#[inline]
fn pack_data(file: u32, idx: u64) -> u64 {
    debug_assert!(idx < 1 << 38 && (file as u64) < 1 << 24);
    RMAP_DATA | (file as u64) << 38 | idx
}

#[inline]
fn unpack(e: u64) -> Owner {
    match e >> 62 {
        1 => Owner::Data {
            file: ((e >> 38) & ((1 << 24) - 1)) as u32,
            idx: e & ((1 << 38) - 1),
        },
        2 => Owner::Node {
            nid: (e & 0xffff_ffff) as u32,
        },
        _ => Owner::Free,
    }
}

/// The F2FS-like file system.
pub struct F2fs {
    pub cfg: FsConfig,
    pub geo: MainGeometry,
    pub meta: MetaLayout,
    pub sit: Sit,
    pub nat: Nat,
    pub logs: Logs,
    /// Files by internal index (user id + 1); index 0 is the root directory.
    pub(super) files: Vec<Option<Inode>>,
    rmap: Vec<u64>,
    rmap_ver: Vec<u32>,
    pub reserved_segments: u32,
    pub ovp_segments: u32,
    /// Blocks users may fill (`user_block_count`).
    pub user_blocks: u64,
    /// Checkpoints committed so far.
    pub cp_epoch: u64,
    pub last_cp_ns: Ns,
    /// Last time a user operation ran (for block-storage idle GC).
    pub last_user_op_ns: Ns,
    root_entries: u64,
    /// Data blocks and nodes allocated to files (`valid_block_count`).
    allocated_blocks: u64,
    pub stats: FsStats,
    pub gc: super::gc::GcState,
}

impl F2fs {
    /// Formats the file system on `st` (mkfs): lays out both areas and creates
    /// the root directory.
    pub fn format(cfg: FsConfig, st: &dyn FsStorage) -> Result<Self, FsError> {
        cfg.validate()?;
        let main_info = st.info(Area::Main);
        let geo = MainGeometry::new(&main_info, st.lba_base(Area::Main))?;
        if geo.zoned && cfg.mode != FsMode::Lfs {
            return Err(FsError::UnsupportedDevice {
                area: "data",
                device: main_info.name.clone(),
                reason: "zoned storage supports only mode=lfs (§6.4)".into(),
            });
        }
        // Room for a node per 8 data blocks, far beyond what files of 4 KiB+ need.
        let max_nodes = (geo.usable_segments() as u64 * BLOCKS_PER_SEG as u64 / 8) as u32;
        let meta = MetaLayout::new(
            &geo,
            max_nodes,
            st.lba_base(Area::Meta),
            st.area_blocks(Area::Meta),
        )?;
        let (reserved, ovp) = geo.reserve(cfg.reserved_segments);
        if ovp >= geo.usable_segments() {
            return Err(FsError::NoSpace(format!(
                "{ovp} over-provisioned segments leave nothing of {} usable",
                geo.usable_segments()
            )));
        }
        let user_blocks = (geo.usable_segments() - ovp) as u64 * BLOCKS_PER_SEG as u64;
        let main_blocks = geo.segments as usize * BLOCKS_PER_SEG as usize;
        let mut fs = Self {
            sit: Sit::new(&geo),
            nat: Nat::new(max_nodes),
            logs: Logs::new(&geo),
            files: Vec::new(),
            rmap: vec![0; main_blocks],
            rmap_ver: vec![0; main_blocks],
            reserved_segments: reserved,
            ovp_segments: ovp,
            user_blocks,
            cp_epoch: 0,
            last_cp_ns: 0,
            last_user_op_ns: 0,
            root_entries: 0,
            allocated_blocks: 1,
            stats: FsStats::default(),
            gc: Default::default(),
            geo,
            meta,
            cfg,
        };
        let nid = fs.nat.alloc(NodeOwner {
            file: ROOT,
            slot: NodeSlot::Inode,
        })?;
        fs.files.push(Some(Inode::new(nid, DataTemp::Hot, true, 0)));
        fs.logs.open_all(&fs.geo, &mut fs.sit)?;
        Ok(fs)
    }

    #[inline]
    fn internal(id: u32) -> usize {
        id as usize + 1
    }

    pub fn file(&self, id: u32) -> Option<&Inode> {
        self.files.get(Self::internal(id)).and_then(|f| f.as_ref())
    }

    pub(super) fn file_at(&self, idx: u32) -> Option<&Inode> {
        self.files.get(idx as usize).and_then(|f| f.as_ref())
    }

    pub fn owner(&self, blk: u32) -> Owner {
        unpack(self.rmap[blk as usize])
    }

    pub fn owner_version(&self, blk: u32) -> u32 {
        self.rmap_ver[blk as usize]
    }

    /// Sections reserved for GC (`reserved_sections`).
    pub fn reserved_sections(&self) -> u32 {
        self.reserved_segments
            .div_ceil(self.geo.usable_segs_per_sec)
    }

    /// Blocks free for users (`free_user_blocks`: free sections less the
    /// over-provisioned space).
    pub fn free_user_blocks(&self) -> u64 {
        let free = self.sit.free_sections() as u64 * self.geo.blocks_per_sec() as u64;
        free.saturating_sub(self.ovp_segments as u64 * BLOCKS_PER_SEG as u64)
    }

    /// Slack-space recycling applies (adaptive mode, free sections low:
    /// `need_SSR` = free sections ≤ 2 × reserved sections).
    pub fn need_ssr(&self) -> bool {
        self.cfg.mode == FsMode::Adaptive
            && self.sit.free_sections() <= 2 * self.reserved_sections().max(1)
    }

    // ------------------------------------------------------------- namespace

    /// Creates file `id` (its inode and a dentry in the root directory).
    pub fn create(&mut self, id: u32, hint: WriteHint) -> Result<(), FsError> {
        let idx = Self::internal(id);
        if self.files.get(idx).is_some_and(|f| f.is_some()) {
            return Err(FsError::FileExists(id));
        }
        if idx >= self.files.len() {
            self.files.resize(idx + 1, None);
        }
        self.reserve_user_block()?;
        let nid = self.nat.alloc(NodeOwner {
            file: idx as u32,
            slot: NodeSlot::Inode,
        })?;
        self.files[idx] = Some(Inode::new(
            nid,
            DataTemp::of_hint(hint),
            false,
            self.cp_epoch,
        ));
        self.dentry_changed();
        Ok(())
    }

    /// Deletes file `id`: its blocks and nodes die, its node ids are freed.
    pub fn delete(&mut self, id: u32) -> Result<(), FsError> {
        let idx = Self::internal(id);
        let f = self
            .files
            .get_mut(idx)
            .and_then(|f| f.take())
            .ok_or(FsError::NoSuchFile(id))?;
        for &a in &f.addrs {
            if a != NULL_ADDR {
                self.kill_block(a);
            }
        }
        let slots = f.node_slots();
        self.allocated_blocks -= f.allocated_blocks + slots.len() as u64;
        for (_, nid) in slots {
            let a = self.nat.addr(nid);
            if a != NULL_ADDR {
                self.kill_block(a);
            }
            self.nat.release(nid);
        }
        self.dentry_changed();
        Ok(())
    }

    /// A root-directory entry was added or removed: its dentry block and its
    /// inode are dirty (written by the next checkpoint).
    fn dentry_changed(&mut self) {
        let e = self.root_entries;
        self.root_entries += 1;
        let root = self.files[ROOT as usize].as_mut().expect("root");
        let blk = e / DENTRIES_PER_BLOCK;
        root.cover(blk);
        root.versions[blk as usize] += 1;
        root.dirty_data.insert(blk);
        if blk >= root.size_blocks {
            root.size_blocks = blk + 1;
        }
        root.dirty_nodes.insert(NodeSlot::Inode);
    }

    // ------------------------------------------------------------- data

    /// A buffered write of `len` bytes at `offset`: page-cache blocks become
    /// dirty; a larger file dirties its inode.
    pub fn buffered_write(&mut self, id: u32, offset: u64, len: u64) -> Result<(), FsError> {
        if len == 0 {
            return Ok(());
        }
        let f = self
            .files
            .get_mut(Self::internal(id))
            .and_then(|f| f.as_mut())
            .ok_or(FsError::NoSuchFile(id))?;
        let (first, last) = (offset / 4096, (offset + len - 1) / 4096);
        f.cover(last);
        for b in first..=last {
            f.versions[b as usize] += 1;
            f.dirty_data.insert(b);
        }
        if last + 1 > f.size_blocks {
            f.size_blocks = last + 1;
            f.dirty_nodes.insert(NodeSlot::Inode);
        }
        self.stats.user_write_bytes += len;
        Ok(())
    }

    /// Dirty data blocks of file `id`, in order.
    pub fn dirty_blocks(&self, id: u32) -> Vec<u64> {
        self.file(id)
            .map_or_else(Vec::new, |f| f.dirty_data.iter().copied().collect())
    }

    /// A direct write: the blocks are written at `now` (in place when adaptive
    /// mode allows it); returns when they are on the device.
    pub fn direct_write(
        &mut self,
        st: &mut dyn FsStorage,
        id: u32,
        offset: u64,
        len: u64,
        now: Ns,
    ) -> Result<Ns, FsError> {
        self.buffered_write(id, offset, len)?;
        let (first, last) = (offset / 4096, (offset + len.max(1) - 1) / 4096);
        let idxs: Vec<u64> = (first..=last).collect();
        self.write_back_file(st, Self::internal(id) as u32, &idxs, Writeback::Direct, now)
    }

    /// Writes back all dirty data of file `id` (fsync's first step).
    pub fn write_back(
        &mut self,
        st: &mut dyn FsStorage,
        id: u32,
        how: Writeback,
        now: Ns,
    ) -> Result<Ns, FsError> {
        let idx = Self::internal(id) as u32;
        let blocks: Vec<u64> = self
            .file_at(idx)
            .ok_or(FsError::NoSuchFile(id))?
            .dirty_data
            .iter()
            .copied()
            .collect();
        self.write_back_file(st, idx, &blocks, how, now)
    }

    /// Writes data blocks `idxs` of internal file `fi` at `now`.
    pub(super) fn write_back_file(
        &mut self,
        st: &mut dyn FsStorage,
        fi: u32,
        idxs: &[u64],
        how: Writeback,
        now: Ns,
    ) -> Result<Ns, FsError> {
        let ssr = self.need_ssr();
        let mut lbas = Vec::with_capacity(idxs.len());
        for &i in idxs {
            let (old, temp, is_dir, ver) = {
                let f = self.files[fi as usize].as_ref().expect("file");
                (
                    f.addrs[i as usize],
                    f.temp,
                    f.is_dir,
                    f.versions[i as usize],
                )
            };
            let ipu = self.cfg.mode == FsMode::Adaptive
                && old != NULL_ADDR
                && (how == Writeback::Direct
                    || (how == Writeback::Fsync && self.cfg.ipu_fsync)
                    || ssr);
            let blk = if ipu {
                self.stats.ipu_blocks += 1;
                old
            } else {
                let log = if is_dir {
                    LogType::HotData
                } else {
                    match temp {
                        DataTemp::Hot => LogType::HotData,
                        DataTemp::Warm => LogType::WarmData,
                        DataTemp::Cold => LogType::ColdData,
                    }
                };
                self.ensure_node(fi, NodeSlot::of_block(i))?;
                if old == NULL_ADDR {
                    self.reserve_user_block()?;
                }
                let blk = self.alloc_block(log, ssr)?;
                if old != NULL_ADDR {
                    self.kill_block(old);
                } else {
                    self.files[fi as usize]
                        .as_mut()
                        .expect("file")
                        .allocated_blocks += 1;
                }
                self.place_block(blk, pack_data(fi, i), ver, now);
                let f = self.files[fi as usize].as_mut().expect("file");
                f.addrs[i as usize] = blk;
                f.dirty_nodes.insert(NodeSlot::of_block(i));
                blk
            };
            self.rmap_ver[blk as usize] = ver;
            self.files[fi as usize]
                .as_mut()
                .expect("file")
                .dirty_data
                .remove(&i);
            lbas.push(self.geo.lba(blk));
        }
        self.stats.data_blocks += lbas.len() as u64;
        submit_runs(
            st,
            Area::Main,
            IoKind::Write,
            &lbas,
            self.cfg.max_io_blocks,
            now,
        )
    }

    /// Allocates `slot` of internal file `fi` (and its parents) if it has no
    /// node id yet; a new node dirties its parent, which records its id.
    fn ensure_node(&mut self, fi: u32, slot: NodeSlot) -> Result<(), FsError> {
        if self.files[fi as usize].as_ref().expect("file").nid_of(slot) != NULL_ADDR {
            return Ok(());
        }
        self.reserve_user_block()?;
        let nid = self.nat.alloc(NodeOwner { file: fi, slot })?;
        let f = self.files[fi as usize].as_mut().expect("file");
        f.set_nid(slot, nid);
        f.dirty_nodes.insert(slot);
        if let Some(p) = slot.parent() {
            self.ensure_node(fi, p)?;
            self.files[fi as usize]
                .as_mut()
                .expect("file")
                .dirty_nodes
                .insert(p);
        }
        Ok(())
    }

    // ------------------------------------------------------------- nodes

    /// Writes the dirty nodes of internal file `fi` (or of every file, `None`).
    pub(super) fn write_nodes(
        &mut self,
        st: &mut dyn FsStorage,
        fi: Option<u32>,
        now: Ns,
    ) -> Result<Ns, FsError> {
        let targets: Vec<u32> = match fi {
            Some(f) => vec![f],
            None => (0..self.files.len() as u32)
                .filter(|&f| {
                    self.files[f as usize]
                        .as_ref()
                        .is_some_and(|x| !x.dirty_nodes.is_empty())
                })
                .collect(),
        };
        let ssr = self.need_ssr();
        let mut lbas = Vec::new();
        for f in targets {
            let Some(file) = self.files[f as usize].as_mut() else {
                continue;
            };
            let slots: Vec<NodeSlot> = std::mem::take(&mut file.dirty_nodes).into_iter().collect();
            let is_dir = file.is_dir;
            for slot in slots {
                let nid = self.files[f as usize].as_ref().expect("file").nid_of(slot);
                if nid == NULL_ADDR {
                    continue;
                }
                let blk = self.relocate_node(nid, slot, is_dir, ssr, now)?;
                lbas.push(self.geo.lba(blk));
            }
        }
        self.stats.node_blocks += lbas.len() as u64;
        submit_runs(
            st,
            Area::Main,
            IoKind::Write,
            &lbas,
            self.cfg.max_io_blocks,
            now,
        )
    }

    /// Writes node `nid` to a new block of its node log; returns the block.
    pub(super) fn relocate_node(
        &mut self,
        nid: u32,
        slot: NodeSlot,
        is_dir: bool,
        ssr: bool,
        now: Ns,
    ) -> Result<u32, FsError> {
        let log = match (slot.is_dnode(), is_dir) {
            (true, true) => LogType::HotNode,
            (true, false) => LogType::WarmNode,
            (false, _) => LogType::ColdNode,
        };
        let blk = self.alloc_block(log, ssr)?;
        let old = self.nat.addr(nid);
        if old != NULL_ADDR {
            self.kill_block(old);
        }
        self.place_block(blk, RMAP_NODE | nid as u64, 0, now);
        self.nat.set_addr(nid, blk);
        Ok(blk)
    }

    /// Whether internal file `fi` has dirty nodes.
    pub(super) fn has_dirty_nodes(&self, fi: u32) -> bool {
        self.file_at(fi).is_some_and(|f| !f.dirty_nodes.is_empty())
    }

    // ------------------------------------------------------------- blocks

    /// One more block (a new data block or node) must fit the user space
    /// (`inc_valid_block_count`: ENOSPC beyond `user_block_count`). Blocks
    /// allocated but not yet written count as well.
    fn reserve_user_block(&mut self) -> Result<(), FsError> {
        if self.allocated_blocks + 1 > self.user_blocks {
            return Err(FsError::NoSpace(format!(
                "file system full: {} of {} user blocks in use",
                self.allocated_blocks, self.user_blocks
            )));
        }
        self.allocated_blocks += 1;
        Ok(())
    }

    pub(super) fn alloc_block(&mut self, log: LogType, ssr: bool) -> Result<u32, FsError> {
        let before = self.logs.ssr_switches;
        let blk = self.logs.alloc(log, &self.geo, &mut self.sit, ssr)?;
        self.stats.ssr_switches += self.logs.ssr_switches - before;
        Ok(blk)
    }

    pub(super) fn place_block(&mut self, blk: u32, owner: u64, ver: u32, now: Ns) {
        debug_assert_eq!(self.rmap[blk as usize], 0, "block {blk} still owned");
        self.rmap[blk as usize] = owner;
        self.rmap_ver[blk as usize] = ver;
        self.sit.mark_valid(blk, now);
    }

    pub(super) fn kill_block(&mut self, blk: u32) {
        self.rmap[blk as usize] = 0;
        self.sit.mark_invalid(blk);
    }

    /// Moves a live block to `new` (GC): owner and version follow.
    pub(super) fn move_block(&mut self, old: u32, new: u32, now: Ns) {
        let (owner, ver) = (self.rmap[old as usize], self.rmap_ver[old as usize]);
        self.kill_block(old);
        self.place_block(new, owner, ver, now);
    }

    /// Device flush of the data device (and the metadata device if `meta` and
    /// it is a different device).
    pub fn flush(&mut self, st: &mut dyn FsStorage, meta: bool, now: Ns) -> Result<Ns, FsError> {
        let mut done = submit_one(st, Area::Main, &Command::Flush, now)?;
        if meta && !st.shared() {
            done = done.max(submit_one(st, Area::Meta, &Command::Flush, now)?);
        }
        Ok(done)
    }
}
