//! Checkpoints (checkpoint.c `f2fs_write_checkpoint` / `do_checkpoint`), in the
//! steps the runner executes one after another while every other file-system
//! operation waits (`cp_rwsem`):
//!
//! 1. [`F2fs::cp_write_nodes`] — `block_operations`: dirty dentry blocks of the
//!    directory and every dirty node are written;
//! 2. [`F2fs::cp_write_tables`] — dirty NAT entries (NAT blocks, or the summary
//!    journal for up to 38 entries), dirty SIT entries (SIT blocks, or the journal
//!    for up to 6) and the summary blocks of segments logs left since the last
//!    checkpoint, to the alternate copy of each area on the metadata device;
//! 3. a flush of both devices, then [`F2fs::cp_write_pack`] — the checkpoint pack
//!    (two CP blocks and compacted summaries) — and a flush of the metadata device;
//! 4. [`F2fs::cp_commit`] — the new NAT and SIT become the checkpointed ones;
//!    prefree sections become free and are reset (zoned) or trimmed (block,
//!    F2FS's default `discard`).

use super::error::FsError;
use super::fs::Writeback;
use super::fs::{F2fs, ROOT};
use super::io::{submit_one, submit_runs, IoKind};
use super::layout::{
    BLOCKS_PER_SEG, CP_PACK_BLOCKS, NAT_ENTRIES_PER_BLOCK, NAT_JOURNAL_ENTRIES,
    SIT_ENTRIES_PER_BLOCK, SIT_JOURNAL_ENTRIES,
};
use super::storage::{Area, FsStorage};
use zonelab_devices::{Command, ZoneAction};
use zonelab_engine::Ns;

impl F2fs {
    /// Step 1: dentry blocks and all dirty nodes.
    pub(super) fn cp_write_nodes(
        &mut self,
        st: &mut dyn FsStorage,
        now: Ns,
    ) -> Result<Ns, FsError> {
        let dentries: Vec<u64> = self
            .file_at(ROOT)
            .map_or_else(Vec::new, |r| r.dirty_data.iter().copied().collect());
        let d = self.write_back_file(st, ROOT, &dentries, Writeback::Background, now)?;
        let n = self.write_nodes(st, None, now)?;
        Ok(d.max(n))
    }

    /// Step 2: NAT, SIT and summary blocks.
    pub(super) fn cp_write_tables(
        &mut self,
        st: &mut dyn FsStorage,
        now: Ns,
    ) -> Result<Ns, FsError> {
        let copy = self.cp_epoch % 2;
        let mut lbas = Vec::new();
        lbas.extend(dirty_table_blocks(
            self.nat.dirty_nids(),
            NAT_JOURNAL_ENTRIES,
            NAT_ENTRIES_PER_BLOCK,
            self.meta.nat_lba + copy * self.meta.nat_blocks,
        ));
        lbas.extend(dirty_table_blocks(
            self.sit.dirty_segments(),
            SIT_JOURNAL_ENTRIES,
            SIT_ENTRIES_PER_BLOCK,
            self.meta.sit_lba + copy * self.meta.sit_blocks,
        ));
        let mut closed = self.logs.take_closed();
        closed.sort_unstable();
        closed.dedup();
        lbas.extend(closed.iter().map(|&s| self.meta.ssa_lba + s as u64));
        lbas.sort_unstable();
        self.stats.meta_blocks += lbas.len() as u64;
        submit_runs(
            st,
            Area::Meta,
            IoKind::Write,
            &lbas,
            self.cfg.max_io_blocks,
            now,
        )
    }

    /// Step 3: the checkpoint pack (after a flush of both devices).
    pub(super) fn cp_write_pack(&mut self, st: &mut dyn FsStorage, now: Ns) -> Result<Ns, FsError> {
        let base = self.meta.cp_lba + (self.cp_epoch % 2) * BLOCKS_PER_SEG as u64;
        let lbas: Vec<u64> = (base..base + CP_PACK_BLOCKS).collect();
        self.stats.meta_blocks += lbas.len() as u64;
        submit_runs(
            st,
            Area::Meta,
            IoKind::Write,
            &lbas,
            self.cfg.max_io_blocks,
            now,
        )
    }

    /// Step 4: the checkpoint is durable. Prefree sections become free and are
    /// reset or trimmed (asynchronously: `now` is when the commands are sent).
    pub(super) fn cp_commit(&mut self, st: &mut dyn FsStorage, now: Ns) -> Result<(), FsError> {
        self.nat.commit_checkpoint();
        let freed = self.sit.commit_checkpoint();
        self.stats.freed_sections += freed.len() as u64;
        for sec in freed {
            let first_seg = sec * self.geo.segs_per_sec;
            let lba = self.geo.lba(first_seg * BLOCKS_PER_SEG);
            if self.geo.zoned {
                let cmd = Command::Zone {
                    action: ZoneAction::Reset,
                    zone_lba: lba,
                };
                submit_one(st, Area::Main, &cmd, now)?;
                self.stats.zone_resets += 1;
            } else {
                let cmd = Command::Trim {
                    lba,
                    blocks: self.geo.blocks_per_sec(),
                };
                submit_one(st, Area::Main, &cmd, now)?;
                self.stats.trims += 1;
            }
        }
        self.cp_epoch += 1;
        self.last_cp_ns = now;
        self.stats.checkpoints += 1;
        Ok(())
    }

    /// Whether fsync of file `id` must take a checkpoint instead of writing its
    /// nodes for roll-forward: the file was created after the last checkpoint,
    /// so its dentry is not yet checkpointed (`need_do_checkpoint`:
    /// `CP_NODE_NEED_CP` / dentry recovery, approximated).
    pub fn fsync_needs_checkpoint(&self, id: u32) -> bool {
        self.file(id)
            .is_some_and(|f| f.created_epoch == self.cp_epoch)
    }

    /// Whether prefree segments exceed the reclaim threshold
    /// (`excess_prefree_segs`).
    pub fn excess_prefree(&self) -> bool {
        let limit =
            self.geo.usable_segments() as u64 * self.cfg.reclaim_prefree_percent as u64 / 100;
        self.sit.prefree_segments() as u64 > limit
    }
}

/// The table blocks (NAT or SIT) a checkpoint writes for its dirty entries, as LBAs
/// of the copy starting at `copy_lba`: none while the summary journal holds them
/// (up to `journal_entries`), else each block holding a dirty entry, once, in order.
fn dirty_table_blocks(
    dirty_entries: &[u32],
    journal_entries: usize,
    entries_per_block: u32,
    copy_lba: u64,
) -> Vec<u64> {
    if dirty_entries.len() <= journal_entries {
        return Vec::new();
    }
    let mut blocks: Vec<u64> = dirty_entries
        .iter()
        .map(|&e| copy_lba + (e / entries_per_block) as u64)
        .collect();
    blocks.sort_unstable();
    blocks.dedup();
    blocks
}
