//! The node address table (F2FS NAT, node.c): node id → block address, the
//! address as of the last checkpoint, and which entries changed since. Node
//! blocks refer to their children by node id, so moving a node rewrites only its
//! NAT entry — F2FS's cure for the wandering-tree problem.

use super::error::FsError;
use super::layout::NULL_ADDR;

/// What a node block belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NodeSlot {
    /// The inode block (also holds the first 923 data addresses).
    Inode,
    /// Direct node number `n` of the file (1018 data addresses each).
    Direct(u32),
    /// Indirect node number `n` (1018 direct-node ids each).
    Indirect(u32),
    /// The double-indirect node (1018 indirect-node ids).
    DoubleIndirect,
}

/// Data addresses held by an inode (`DEF_ADDRS_PER_INODE`).
pub const ADDRS_PER_INODE: u64 = 923;
/// Addresses (or node ids) per direct / indirect node (`ADDRS_PER_BLOCK`,
/// `NIDS_PER_BLOCK`).
pub const ADDRS_PER_NODE: u64 = 1018;

impl NodeSlot {
    /// The node holding the address of data block `idx` of a file.
    pub fn of_block(idx: u64) -> NodeSlot {
        if idx < ADDRS_PER_INODE {
            NodeSlot::Inode
        } else {
            NodeSlot::Direct(((idx - ADDRS_PER_INODE) / ADDRS_PER_NODE) as u32)
        }
    }

    /// The node holding this node's id (its parent), `None` for the inode.
    pub fn parent(self) -> Option<NodeSlot> {
        const DIRECT_IN_INODE: u32 = 2;
        const INDIRECT_IN_INODE: u32 = 2;
        match self {
            NodeSlot::Inode => None,
            NodeSlot::Direct(n) if n < DIRECT_IN_INODE => Some(NodeSlot::Inode),
            NodeSlot::Direct(n) => Some(NodeSlot::Indirect(
                (n - DIRECT_IN_INODE) / ADDRS_PER_NODE as u32,
            )),
            NodeSlot::Indirect(k) if k < INDIRECT_IN_INODE => Some(NodeSlot::Inode),
            NodeSlot::Indirect(_) => Some(NodeSlot::DoubleIndirect),
            NodeSlot::DoubleIndirect => Some(NodeSlot::Inode),
        }
    }

    /// Whether this is a direct node (inode or direct node): written to the warm
    /// node log for regular files, an indirect node to the cold one
    /// (segment.c `__get_segment_type_6`).
    pub fn is_dnode(self) -> bool {
        matches!(self, NodeSlot::Inode | NodeSlot::Direct(_))
    }
}

/// Owner of a node id: file index and slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeOwner {
    pub file: u32,
    pub slot: NodeSlot,
}

#[derive(Debug)]
pub struct Nat {
    addr: Vec<u32>,
    ckpt_addr: Vec<u32>,
    owner: Vec<Option<NodeOwner>>,
    dirty: Vec<bool>,
    dirty_list: Vec<u32>,
    free: Vec<u32>,
    next: u32,
    cap: u32,
}

impl Nat {
    pub fn new(cap: u32) -> Self {
        Self {
            addr: Vec::new(),
            ckpt_addr: Vec::new(),
            owner: Vec::new(),
            dirty: Vec::new(),
            dirty_list: Vec::new(),
            free: Vec::new(),
            next: 0,
            cap,
        }
    }

    pub fn capacity(&self) -> u32 {
        self.cap
    }

    /// A free node id for `owner` (not yet written: address `NULL_ADDR`).
    pub fn alloc(&mut self, owner: NodeOwner) -> Result<u32, FsError> {
        let nid = match self.free.pop() {
            Some(n) => n,
            None => {
                if self.next >= self.cap {
                    return Err(FsError::NatFull(self.cap));
                }
                self.next += 1;
                self.addr.push(NULL_ADDR);
                self.ckpt_addr.push(NULL_ADDR);
                self.owner.push(None);
                self.dirty.push(false);
                self.next - 1
            }
        };
        self.owner[nid as usize] = Some(owner);
        self.touch(nid);
        Ok(nid)
    }

    /// Frees `nid` (its file was deleted); its entry is written at the next
    /// checkpoint.
    pub fn release(&mut self, nid: u32) {
        self.addr[nid as usize] = NULL_ADDR;
        self.owner[nid as usize] = None;
        self.touch(nid);
        self.free.push(nid);
    }

    #[inline]
    pub fn addr(&self, nid: u32) -> u32 {
        self.addr[nid as usize]
    }

    #[inline]
    pub fn ckpt_addr(&self, nid: u32) -> u32 {
        self.ckpt_addr[nid as usize]
    }

    #[inline]
    pub fn owner(&self, nid: u32) -> Option<NodeOwner> {
        self.owner[nid as usize]
    }

    pub fn set_addr(&mut self, nid: u32, blk: u32) {
        self.addr[nid as usize] = blk;
        self.touch(nid);
    }

    fn touch(&mut self, nid: u32) {
        if !self.dirty[nid as usize] {
            self.dirty[nid as usize] = true;
            self.dirty_list.push(nid);
        }
    }

    /// Node ids whose entries changed since the last checkpoint.
    pub fn dirty_nids(&self) -> &[u32] {
        &self.dirty_list
    }

    /// Whether `nid`'s latest address is the checkpointed one
    /// (`f2fs_is_checkpointed_node`).
    pub fn is_checkpointed(&self, nid: u32) -> bool {
        !self.dirty[nid as usize]
    }

    /// Checkpoint commit: the current entries become the checkpointed ones.
    pub fn commit_checkpoint(&mut self) {
        for nid in std::mem::take(&mut self.dirty_list) {
            self.ckpt_addr[nid as usize] = self.addr[nid as usize];
            self.dirty[nid as usize] = false;
        }
    }

    /// Node ids in use.
    pub fn live_nids(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.next).filter(move |&n| self.owner[n as usize].is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_to_node_and_parents() {
        assert_eq!(NodeSlot::of_block(0), NodeSlot::Inode);
        assert_eq!(NodeSlot::of_block(922), NodeSlot::Inode);
        assert_eq!(NodeSlot::of_block(923), NodeSlot::Direct(0));
        assert_eq!(NodeSlot::of_block(923 + 1018), NodeSlot::Direct(1));
        assert_eq!(NodeSlot::Direct(1).parent(), Some(NodeSlot::Inode));
        assert_eq!(NodeSlot::Direct(2).parent(), Some(NodeSlot::Indirect(0)));
        assert_eq!(
            NodeSlot::Direct(2 + 1018).parent(),
            Some(NodeSlot::Indirect(1))
        );
        assert_eq!(NodeSlot::Indirect(1).parent(), Some(NodeSlot::Inode));
        assert_eq!(
            NodeSlot::Indirect(2).parent(),
            Some(NodeSlot::DoubleIndirect)
        );
    }
}
