//! Invariants the tests check after every step (TigerBeetle-style: the model
//! states what must hold, and a property test drives it through random histories):
//!
//! - **no live block is lost**: every allocated data block of every file and
//!   every written node is valid in the SIT, its reverse-map entry names it, and
//!   a data block carries the version last written back; the SIT's valid count
//!   equals the live blocks;
//! - **the last checkpoint stays intact**: every block the checkpointed NAT or a
//!   checkpointed file mapping refers to still holds what it held at the
//!   checkpoint (or is dead, never reused) until the next checkpoint commits,
//!   and no free section holds a block valid at the checkpoint.

use super::fs::{F2fs, Owner};
use super::layout::NULL_ADDR;
use super::sit::SecState;

/// What the last checkpoint recorded: each data block's address and owner, and
/// each node's address.
#[derive(Debug, Clone, Default)]
pub struct CheckpointImage {
    pub data: Vec<(u32, u64, u32)>,
    pub nodes: Vec<(u32, u32)>,
}

impl F2fs {
    /// Checks the live-block invariants.
    pub fn check_live_blocks(&self) -> Result<(), String> {
        let mut live = 0u64;
        for (fi, f) in self.files.iter().enumerate() {
            let Some(f) = f else { continue };
            for (idx, &a) in f.addrs.iter().enumerate() {
                if a == NULL_ADDR {
                    continue;
                }
                live += 1;
                if !self.sit.is_valid(a) {
                    return Err(format!("file {fi} block {idx}: address {a} is not valid"));
                }
                let want = Owner::Data {
                    file: fi as u32,
                    idx: idx as u64,
                };
                if self.owner(a) != want {
                    return Err(format!(
                        "file {fi} block {idx}: address {a} holds {:?}",
                        self.owner(a)
                    ));
                }
                let dirty = f.dirty_data.contains(&(idx as u64));
                if !dirty && self.owner_version(a) != f.versions[idx] {
                    return Err(format!(
                        "file {fi} block {idx}: version {} on flash, {} written",
                        self.owner_version(a),
                        f.versions[idx]
                    ));
                }
            }
            for (slot, nid) in f.node_slots() {
                let a = self.nat.addr(nid);
                if a == NULL_ADDR {
                    if !f.dirty_nodes.contains(&slot) {
                        return Err(format!("file {fi} node {slot:?} never written nor dirty"));
                    }
                    continue;
                }
                live += 1;
                if !self.sit.is_valid(a) || self.owner(a) != (Owner::Node { nid }) {
                    return Err(format!(
                        "node {nid} ({slot:?} of file {fi}) at {a}: valid {} owner {:?}",
                        self.sit.is_valid(a),
                        self.owner(a)
                    ));
                }
            }
        }
        if live != self.sit.valid_blocks() {
            return Err(format!(
                "{live} live blocks but the SIT counts {} valid",
                self.sit.valid_blocks()
            ));
        }
        Ok(())
    }

    /// The image of the checkpoint just committed (call right after a commit).
    pub fn checkpoint_image(&self) -> CheckpointImage {
        let mut img = CheckpointImage::default();
        for (fi, f) in self.files.iter().enumerate() {
            let Some(f) = f else { continue };
            for (idx, &a) in f.addrs.iter().enumerate() {
                if a != NULL_ADDR && self.sit.is_ckpt_valid(a) {
                    img.data.push((fi as u32, idx as u64, a));
                }
            }
        }
        for nid in self.nat.live_nids() {
            let a = self.nat.ckpt_addr(nid);
            if a != NULL_ADDR {
                img.nodes.push((nid, a));
            }
        }
        img
    }

    /// Checks that `img` (the last checkpoint) is still readable.
    pub fn check_checkpoint(&self, img: &CheckpointImage) -> Result<(), String> {
        for &(fi, idx, a) in &img.data {
            if !self.sit.is_ckpt_valid(a) {
                return Err(format!(
                    "checkpointed block {a} of file {fi} lost its checkpoint bit"
                ));
            }
            match self.owner(a) {
                Owner::Free => {}
                Owner::Data { file, idx: i } if file == fi && i == idx => {}
                o => {
                    return Err(format!(
                        "checkpointed block {a} of file {fi}/{idx} reused for {o:?} before the next checkpoint"
                    ))
                }
            }
        }
        for &(nid, a) in &img.nodes {
            match self.owner(a) {
                Owner::Free => {}
                Owner::Node { nid: n } if n == nid => {}
                o => {
                    return Err(format!(
                        "checkpointed node {nid} at {a} reused for {o:?} before the next checkpoint"
                    ))
                }
            }
        }
        for sec in 0..self.sit.sections() {
            if self.sit.sec_state(sec) == SecState::Free && self.sit.sec_ckpt_blocks(sec) != 0 {
                return Err(format!(
                    "free section {sec} holds {} checkpointed blocks",
                    self.sit.sec_ckpt_blocks(sec)
                ));
            }
        }
        Ok(())
    }
}
