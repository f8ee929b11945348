//! Files: an inode with its data-block addresses, the node ids of its direct and
//! indirect nodes, the page cache's dirty blocks, and which of its nodes are dirty
//! (changed in memory, not yet written). Size-only: a block's content is a
//! version number, enough to check that no live block is lost.

use super::layout::NULL_ADDR;
use super::nat::NodeSlot;
use std::collections::BTreeSet;

/// Data temperature, chosen by the write hint (segment.c
/// `f2fs_rw_hint_to_seg_type`: short-lived → hot, extreme → cold, else warm).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataTemp {
    Hot,
    Warm,
    Cold,
}

pub use zonelab_workloads::files::WriteHint;

impl DataTemp {
    /// The data log a write hint selects.
    pub fn of_hint(hint: WriteHint) -> DataTemp {
        match hint {
            WriteHint::Short => DataTemp::Hot,
            WriteHint::Extreme => DataTemp::Cold,
            _ => DataTemp::Warm,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Inode {
    /// Node id of the inode block.
    pub nid: u32,
    pub size_blocks: u64,
    /// Block address of each data block (`NULL_ADDR` if none).
    pub addrs: Vec<u32>,
    /// Version of each data block's latest write.
    pub versions: Vec<u32>,
    /// Node ids of direct nodes 0, 1, ... (`NULL_ADDR` if not allocated).
    pub direct: Vec<u32>,
    pub indirect: Vec<u32>,
    pub double_indirect: u32,
    pub temp: DataTemp,
    pub is_dir: bool,
    /// Blocks written into the page cache, not yet to the device.
    pub dirty_data: BTreeSet<u64>,
    /// Nodes changed in memory since they were last written.
    pub dirty_nodes: BTreeSet<NodeSlot>,
    /// Checkpoint epoch in which the file was created.
    pub created_epoch: u64,
    /// Data blocks allocated (address not `NULL_ADDR`).
    pub allocated_blocks: u64,
}

impl Inode {
    pub fn new(nid: u32, temp: DataTemp, is_dir: bool, epoch: u64) -> Self {
        let mut dirty_nodes = BTreeSet::new();
        dirty_nodes.insert(NodeSlot::Inode);
        Self {
            nid,
            size_blocks: 0,
            addrs: Vec::new(),
            versions: Vec::new(),
            direct: Vec::new(),
            indirect: Vec::new(),
            double_indirect: NULL_ADDR,
            temp,
            is_dir,
            dirty_data: BTreeSet::new(),
            dirty_nodes,
            created_epoch: epoch,
            allocated_blocks: 0,
        }
    }

    /// Grows the per-block tables to cover block `idx`.
    pub fn cover(&mut self, idx: u64) {
        if idx as usize >= self.addrs.len() {
            let n = idx as usize + 1;
            self.addrs.resize(n, NULL_ADDR);
            self.versions.resize(n, 0);
        }
    }

    /// Node id of `slot` (`NULL_ADDR` if not allocated).
    pub fn nid_of(&self, slot: NodeSlot) -> u32 {
        match slot {
            NodeSlot::Inode => self.nid,
            NodeSlot::Direct(n) => *self.direct.get(n as usize).unwrap_or(&NULL_ADDR),
            NodeSlot::Indirect(n) => *self.indirect.get(n as usize).unwrap_or(&NULL_ADDR),
            NodeSlot::DoubleIndirect => self.double_indirect,
        }
    }

    pub fn set_nid(&mut self, slot: NodeSlot, nid: u32) {
        match slot {
            NodeSlot::Inode => self.nid = nid,
            NodeSlot::Direct(n) => {
                if n as usize >= self.direct.len() {
                    self.direct.resize(n as usize + 1, NULL_ADDR);
                }
                self.direct[n as usize] = nid;
            }
            NodeSlot::Indirect(n) => {
                if n as usize >= self.indirect.len() {
                    self.indirect.resize(n as usize + 1, NULL_ADDR);
                }
                self.indirect[n as usize] = nid;
            }
            NodeSlot::DoubleIndirect => self.double_indirect = nid,
        }
    }

    /// All allocated node slots with their ids (inode first).
    pub fn node_slots(&self) -> Vec<(NodeSlot, u32)> {
        let mut v = vec![(NodeSlot::Inode, self.nid)];
        for (i, &n) in self.direct.iter().enumerate() {
            if n != NULL_ADDR {
                v.push((NodeSlot::Direct(i as u32), n));
            }
        }
        for (i, &n) in self.indirect.iter().enumerate() {
            if n != NULL_ADDR {
                v.push((NodeSlot::Indirect(i as u32), n));
            }
        }
        if self.double_indirect != NULL_ADDR {
            v.push((NodeSlot::DoubleIndirect, self.double_indirect));
        }
        v
    }
}
