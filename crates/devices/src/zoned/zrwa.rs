//! Zone Random Write Area (ZRWA, NVMe TP4076, in the ZNS command set 1.1+): the
//! shape of a namespace's ZRWAs and the window of one zone that has one.
//!
//! A zone opened with ZRWA allocation (Zone Management Send, Open Zone with the
//! ZRWAA bit) accepts writes anywhere in `[wp, wp + zrwas)` — the ZRWA — and in
//! the *implicit ZRWA flush range* `[wp + zrwas, wp + 2 × zrwas)` that follows it.
//! Writes inside the ZRWA do not move the write pointer and may overwrite each
//! other (the device absorbs overwrites in its buffer). A write that reaches into
//! the implicit flush range first moves the write pointer forward by the smallest
//! multiple of `zrwafg` that puts the whole write inside the new ZRWA (an
//! *implicit flush*); the host moves it explicitly with Zone Management Send
//! action 11h (Flush Explicit ZRWA Range), naming the last LBA to commit, which
//! must make the flushed length a multiple of `zrwafg`. Blocks below the write
//! pointer are committed: they can no longer be written.
//!
//! Followed: QEMU's implementation of TP4076 by the TP's co-author
//! (`hw/nvme/ctrl.c`, "hw/nvme: add support for zoned random write area", K.
//! Jensen, 2022): `nvme_check_zone_write` (window `[wp, wp + 2 × zrwas)`),
//! `nvme_finalize_zoned_write` / `nvme_zoned_zrwa_implicit_flush` (flush
//! rounded up to `zrwafg`), `nvme_zone_mgmt_send_zrwa_flush` (range and
//! granularity checks), `nvme_open_zone` (ZRWAA needs a `zrwafg`-aligned write
//! pointer and a free resource), and the release of the resource on finish and
//! reset; appends to a zone with a ZRWA are an Invalid Zone Operation.

use std::collections::VecDeque;

/// A namespace's ZRWA parameters (Identify Namespace, ZNS command set: ZRWASZ,
/// ZRWAFG, NUMZRWA), in logical blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZrwaConfig {
    /// ZRWASZ: blocks in one zone's random write area.
    pub size_blocks: u64,
    /// ZRWAFG: the write pointer moves in multiples of this (a divisor of the size).
    pub flush_granularity_blocks: u64,
    /// NUMZRWA: zones that may hold a ZRWA at once.
    pub resources: u32,
}

/// What committing blocks of a window did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Committed {
    /// Blocks the write pointer moved.
    pub blocks: u64,
    /// Of those, blocks never written since they entered the window (the device
    /// commits whatever it holds for them: zeros).
    pub holes: u64,
}

/// One zone's ZRWA: which blocks of `[wp, wp + 2 × size)` hold data written since
/// they entered the window (index 0 is the write pointer). After every accepted
/// command no written block lies at or beyond `size` (the implicit flush saw to it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZrwaWindow {
    written: VecDeque<bool>,
    written_count: u64,
}

impl ZrwaWindow {
    pub fn new(cfg: &ZrwaConfig) -> Self {
        Self {
            written: std::iter::repeat_n(false, 2 * cfg.size_blocks as usize).collect(),
            written_count: 0,
        }
    }

    /// Blocks holding data that is not committed yet.
    pub fn written_blocks(&self) -> u64 {
        self.written_count
    }

    /// One past the highest written offset (0 when nothing is written).
    pub fn written_end_offset(&self) -> u64 {
        self.written
            .iter()
            .rposition(|&w| w)
            .map_or(0, |i| i as u64 + 1)
    }

    /// Whether the block at `offset` from the write pointer holds data.
    pub fn is_written(&self, offset: u64) -> bool {
        self.written.get(offset as usize).copied().unwrap_or(false)
    }

    /// Marks `[offset, offset + blocks)` written; returns how many were not
    /// written before (the rest are overwrites). The range must lie in the window.
    pub fn mark_written(&mut self, offset: u64, blocks: u64) -> u64 {
        let mut fresh = 0;
        for w in self
            .written
            .range_mut(offset as usize..(offset + blocks) as usize)
        {
            if !*w {
                *w = true;
                fresh += 1;
            }
        }
        self.written_count += fresh;
        fresh
    }

    /// Moves the write pointer `blocks` forward: those blocks are committed.
    pub fn commit(&mut self, blocks: u64) -> Committed {
        let mut holes = 0;
        for _ in 0..blocks {
            let was = self.written.pop_front().unwrap_or(false);
            if was {
                self.written_count -= 1;
            } else {
                holes += 1;
            }
            self.written.push_back(false);
        }
        Committed { blocks, holes }
    }
}

/// Blocks an implicit flush must commit so that a write ending at offset
/// `end_offset` (exclusive, from the write pointer) lies inside the ZRWA: the
/// smallest multiple of the flush granularity (0 if it already does).
pub fn implicit_flush_blocks(cfg: &ZrwaConfig, end_offset: u64) -> u64 {
    let over = end_offset.saturating_sub(cfg.size_blocks);
    over.div_ceil(cfg.flush_granularity_blocks) * cfg.flush_granularity_blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    const CFG: ZrwaConfig = ZrwaConfig {
        size_blocks: 8,
        flush_granularity_blocks: 2,
        resources: 2,
    };

    #[test]
    fn overwrites_are_not_fresh_and_commits_count_holes() {
        let mut w = ZrwaWindow::new(&CFG);
        assert_eq!(w.mark_written(2, 3), 3);
        assert_eq!(w.mark_written(3, 3), 1, "two of three are overwrites");
        assert_eq!(w.written_blocks(), 4);
        assert_eq!(w.written_end_offset(), 6);
        let c = w.commit(4);
        assert_eq!(
            c,
            Committed {
                blocks: 4,
                holes: 2
            }
        );
        assert_eq!(w.written_blocks(), 2);
        assert!(w.is_written(0) && w.is_written(1) && !w.is_written(2));
    }

    #[test]
    fn implicit_flush_rounds_up_to_the_granularity() {
        assert_eq!(implicit_flush_blocks(&CFG, 8), 0);
        assert_eq!(implicit_flush_blocks(&CFG, 9), 2);
        assert_eq!(implicit_flush_blocks(&CFG, 10), 2);
        assert_eq!(implicit_flush_blocks(&CFG, 16), 8);
    }
}
