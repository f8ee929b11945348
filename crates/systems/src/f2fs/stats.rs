//! What the file system did: bytes users wrote, blocks it wrote by kind (data,
//! in-place updates, nodes, metadata, GC moves), GC and checkpoint activity.
//! FS WAF (§6.4, Fig. 11) = blocks the file system wrote / blocks users wrote.

use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub struct FsStats {
    /// Bytes passed to write() (or direct writes) by users.
    pub user_write_bytes: u64,
    /// Data blocks written back for users (out of place and in place).
    pub data_blocks: u64,
    /// Of those, in-place updates (adaptive mode).
    pub ipu_blocks: u64,
    /// Node blocks written (fsync, checkpoint, GC excluded).
    pub node_blocks: u64,
    /// Metadata-area blocks written (NAT, SIT, SSA, checkpoint packs).
    pub meta_blocks: u64,
    /// Data / node blocks moved by GC (read and rewritten).
    pub gc_data_blocks: u64,
    pub gc_node_blocks: u64,
    /// GC rounds: background, and foreground (a write waited for them).
    pub bg_gc_rounds: u64,
    pub fg_gc_rounds: u64,
    /// Of the GC-moved blocks, those moved by foreground rounds (a writer
    /// cleaned before allocating; the rest the GC thread moved).
    pub fg_gc_blocks: u64,
    /// Blocks in the victim windows GC rounds examined: moved / window blocks
    /// is the mean valid fraction of what GC cleaned.
    pub gc_window_blocks: u64,
    /// Sections GC emptied.
    pub gc_sections: u64,
    pub checkpoints: u64,
    /// Zone resets (zoned) or trims (block) of freed sections.
    pub zone_resets: u64,
    pub trims: u64,
    pub fsyncs: u64,
    /// Fsyncs that had to take a checkpoint (new file not yet checkpointed).
    pub fsync_checkpoints: u64,
    pub ssr_switches: u64,
    /// Sections freed by checkpoints.
    pub freed_sections: u64,
}

impl FsStats {
    /// Blocks the file system wrote to its devices.
    pub fn fs_write_blocks(&self) -> u64 {
        self.data_blocks
            + self.node_blocks
            + self.meta_blocks
            + self.gc_data_blocks
            + self.gc_node_blocks
    }

    /// File-system write amplification: device writes / user writes (1 if
    /// nothing was written).
    pub fn fs_waf(&self) -> f64 {
        if self.user_write_bytes == 0 {
            1.0
        } else {
            self.fs_write_blocks() as f64 * 4096.0 / self.user_write_bytes as f64
        }
    }

    /// Bytes GC wrote.
    pub fn gc_write_bytes(&self) -> u64 {
        (self.gc_data_blocks + self.gc_node_blocks) * 4096
    }
}
