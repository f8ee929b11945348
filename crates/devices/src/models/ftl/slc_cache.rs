//! The SLC write cache of a consumer TLC/QLC SSD (`[slc_cache]` profile section of
//! `ftl-ssd`): Samsung's TurboWrite, Intel's dynamic SLC on the 660p. The SSDs of
//! BCW/MIOS §5 (960 EVO, 660p) have one; it sets how fast they write in a burst and
//! how slowly once it is full, which is what the paper's SSD queues rest on (§2.3).
//!
//! Mechanism (cited values are in the profiles):
//! - **Capacity.** A *static* region (dedicated blocks in SLC mode, always there)
//!   plus a *dynamic* one taken from free user space in SLC mode, so at most
//!   `free user bytes / bits per cell`, capped by `dynamic_max_gb` (Samsung:
//!   "Intelligent TurboWrite" buffer; Intel: "grows up to 76 GB if enough QLC is
//!   free"). A full drive has only the static part. The static blocks are outside
//!   the FTL's physical space: `capacity.over_provisioning_percent` is the spare
//!   area left after them.
//! - **Writes.** A host program unit (page × bits × planes of data) goes to SLC
//!   while the cache has room: `bits` SLC-mode page programs (page × planes each,
//!   `program_us`) on the die the FTL chose for it. The unit keeps its TLC/QLC
//!   destination in the mapping (allocated when written, as the FTL's space
//!   accounting needs); only the program into it is deferred to the fold.
//! - **Full cache**, per `fold`:
//!   - `"idle"` (TurboWrite; AnandTech, 850 EVO review: "All writes hit the SLC
//!     buffer first, from which they then get moved to the TLC array during idle
//!     time. The only exception is a case of long, sustained period of writes that
//!     exceeds the buffer"): new data is programmed straight into TLC/QLC, and the
//!     cache is folded in the background once the drive has been idle for
//!     `idle_fold_ms`; a host command arriving stops it (a fold step under way
//!     finishes: no program suspend).
//!   - `"when-full"` (660p; AnandTech, 660p review: "the 660p keeps most of the
//!     data as SLC until the capacity of QLC becomes necessary ... when the SLC
//!     cache does eventually fill up, there's a large backlog of work to be done
//!     migrating data in to QLC blocks"): no idle folding; a unit entering a full
//!     cache first folds the oldest one on its die, in the write path.
//! - **Fold** of one unit: `bits` SLC page reads (`read_us` each, then the channel)
//!   and one TLC/QLC program of the unit on the same die (each die keeps its SLC
//!   data in write order and folds its oldest first); each time a die has
//!   folded an SLC block's worth of pages (`pages_per_block / bits`), that block is
//!   erased. A unit whose superblock GC has since erased (its data moved) is
//!   dropped without flash work.
//! - **Reads** of data still in SLC sense with `read_us`.
//!
//! With a `[scheduling]` section (`ftl/scheduling.rs`), host reads go before a
//! fold's queued programs and may suspend them, as they do host programs.

use super::super::ssd_common::FlashSection;
use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use std::collections::VecDeque;
use zonelab_engine::{ms_to_ns, us_to_ns, Ns};
use zonelab_media::flash::FlashArray;

/// When the cache is folded into TLC/QLC (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FoldPolicy {
    /// In the background after `idle_fold_ms` of host idleness; a full cache
    /// sends new data straight to TLC/QLC.
    Idle,
    /// Only when room is needed, in the write path.
    WhenFull,
}

/// `[slc_cache]` profile section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlcCacheSection {
    /// Static SLC capacity (GB of data, 10^9 bytes, as vendors state it).
    pub static_gb: f64,
    /// Largest dynamic SLC capacity (GB of data) on an empty drive.
    pub dynamic_max_gb: f64,
    /// tPROG of one SLC-mode multi-plane page.
    pub program_us: f64,
    /// tR of an SLC-mode page.
    pub read_us: f64,
    pub fold: FoldPolicy,
    /// Host idle time before background folding starts (`fold = "idle"` only).
    #[serde(default)]
    pub idle_fold_ms: Option<f64>,
}

/// Validated parameters in base units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlcParams {
    pub static_bytes: u64,
    pub dynamic_max_bytes: u64,
    pub program_ns: Ns,
    pub read_ns: Ns,
    pub fold: FoldPolicy,
    pub idle_fold_ns: Ns,
    pub bits_per_cell: u64,
    pub program_unit_bytes: u64,
    /// SLC-mode pages (one per word line) per block.
    pub slc_pages_per_block: u32,
}

impl SlcCacheSection {
    /// Checks the section against the flash it caches; errors name `slc_cache.<field>`.
    pub(crate) fn validate(
        &self,
        v: &Validator<'_>,
        flash: &FlashSection,
        program_unit_bytes: u64,
    ) -> Result<SlcParams, ProfileError> {
        for (field, value) in [
            ("slc_cache.static_gb", self.static_gb),
            ("slc_cache.dynamic_max_gb", self.dynamic_max_gb),
            ("slc_cache.program_us", self.program_us),
            ("slc_cache.read_us", self.read_us),
        ] {
            v.check(field, value, value.is_finite(), "a finite number")?;
        }
        let bits = flash.cell_type.bits_per_cell();
        v.check(
            "flash.cell_type",
            format!("{:?}", flash.cell_type),
            bits > 1,
            "a multi-bit cell type (an SLC cache caches MLC/TLC/QLC flash)",
        )?;
        v.range("slc_cache.static_gb", self.static_gb, 0.0, 4096.0)?;
        v.range("slc_cache.dynamic_max_gb", self.dynamic_max_gb, 0.0, 4096.0)?;
        v.check(
            "slc_cache.static_gb",
            self.static_gb,
            self.static_gb + self.dynamic_max_gb > 0.0,
            "static_gb + dynamic_max_gb > 0 (leave the section out for no SLC cache)",
        )?;
        v.range(
            "slc_cache.program_us",
            self.program_us,
            1.0,
            flash.program_us,
        )?;
        v.range("slc_cache.read_us", self.read_us, 0.1, flash.read_us)?;
        let idle_fold_ns = match (self.fold, self.idle_fold_ms) {
            (FoldPolicy::Idle, Some(ms)) => {
                v.check(
                    "slc_cache.idle_fold_ms",
                    ms,
                    ms.is_finite(),
                    "a finite number",
                )?;
                v.range("slc_cache.idle_fold_ms", ms, 0.0, 3_600_000.0)?;
                ms_to_ns(ms)
            }
            (FoldPolicy::Idle, None) => {
                return Err(v.out_of_range(
                    "slc_cache.idle_fold_ms",
                    "(missing)",
                    "a value in ms when fold = \"idle\"".into(),
                ))
            }
            (FoldPolicy::WhenFull, Some(ms)) => {
                return Err(v.out_of_range(
                    "slc_cache.idle_fold_ms",
                    ms,
                    "nothing: fold = \"when-full\" never folds in idle time".into(),
                ))
            }
            (FoldPolicy::WhenFull, None) => 0,
        };
        let units = |gb: f64| (gb * 1e9 / program_unit_bytes as f64).floor() as u64;
        Ok(SlcParams {
            static_bytes: units(self.static_gb) * program_unit_bytes,
            dynamic_max_bytes: units(self.dynamic_max_gb) * program_unit_bytes,
            program_ns: us_to_ns(self.program_us),
            read_ns: us_to_ns(self.read_us),
            fold: self.fold,
            idle_fold_ns,
            bits_per_cell: bits as u64,
            program_unit_bytes,
            slc_pages_per_block: (flash.pages_per_block / bits).max(1),
        })
    }
}

/// A TLC/QLC program unit whose data is in SLC, waiting to be folded.
#[derive(Debug, Clone, Copy)]
struct Cached {
    /// Physical program unit (first slot / units per program unit).
    program_unit: u32,
    superblock: u32,
    /// The superblock's epoch when the data was written (stale once GC erased it).
    epoch: u32,
    die: u32,
}

/// What the cache did (reported in the device's counters).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlcCounters {
    /// Host data programmed into SLC.
    pub slc_written_bytes: u64,
    /// Host data programmed straight into TLC/QLC because the cache was full.
    pub direct_written_bytes: u64,
    /// Data folded from SLC into TLC/QLC.
    pub folded_bytes: u64,
    pub background_folds: u64,
    pub write_path_folds: u64,
    /// Cached units dropped unfolded because GC had moved their data.
    pub stale_drops: u64,
    pub media_read_bytes: u64,
    pub media_write_bytes: u64,
    pub erases: u64,
}

/// The cache's state.
#[derive(Debug, Clone)]
pub(crate) struct SlcCache {
    p: SlcParams,
    /// Per die: its cached units, oldest first (the fold order).
    cached: Vec<VecDeque<Cached>>,
    /// Per physical program unit: superblock epoch + 1 while its data is in SLC,
    /// else 0.
    cached_epoch: Vec<u32>,
    held_bytes: u64,
    /// Per die: SLC pages folded since that die last erased an SLC block.
    folded_pages: Vec<u32>,
    pub counters: SlcCounters,
}

impl SlcCache {
    pub fn new(p: SlcParams, physical_program_units: u64, dies: u32) -> Self {
        Self {
            p,
            cached: vec![VecDeque::new(); dies as usize],
            cached_epoch: vec![0; physical_program_units as usize],
            held_bytes: 0,
            folded_pages: vec![0; dies as usize],
            counters: SlcCounters::default(),
        }
    }

    /// Data in SLC now.
    pub fn held_bytes(&self) -> u64 {
        self.held_bytes
    }

    /// Capacity with `free_user_bytes` of unwritten user space (module docs).
    pub fn capacity_bytes(&self, free_user_bytes: u64) -> u64 {
        let pu = self.p.program_unit_bytes;
        let dynamic = (free_user_bytes / self.p.bits_per_cell).min(self.p.dynamic_max_bytes);
        self.p.static_bytes + dynamic / pu * pu
    }

    /// Whether program unit `program_unit` of a superblock now at `epoch` is in SLC.
    #[inline]
    pub fn is_cached(&self, program_unit: u32, epoch: u32) -> bool {
        self.cached_epoch[program_unit as usize] == epoch.wrapping_add(1)
    }

    /// tR of an SLC-mode page.
    #[inline]
    pub fn read_ns(&self) -> Ns {
        self.p.read_ns
    }

    /// A full host program unit, ready at `ready_ns`, for `die`: programs it into
    /// SLC if the cache takes it (folding first under `when-full`) and returns when
    /// that completes; `None` when it must go straight to TLC/QLC.
    #[allow(clippy::too_many_arguments)]
    pub fn place(
        &mut self,
        flash: &mut FlashArray,
        ready_ns: Ns,
        die: u32,
        program_unit: u32,
        superblock: u32,
        epoch: u32,
        free_user_bytes: u64,
        epoch_of: impl Fn(u32) -> u32,
    ) -> Option<Ns> {
        let pu = self.p.program_unit_bytes;
        let capacity = self.capacity_bytes(free_user_bytes);
        let mut start = ready_ns;
        if self.held_bytes + pu > capacity {
            if self.p.fold != FoldPolicy::WhenFull {
                self.counters.direct_written_bytes += pu;
                return None;
            }
            // Make room by folding the oldest data on this die (or, if it has none,
            // on the die holding the most); stale units free room for nothing.
            while self.held_bytes + pu > capacity {
                let from = if self.cached[die as usize].is_empty() {
                    (0..self.cached.len())
                        .max_by_key(|&d| (self.cached[d].len(), std::cmp::Reverse(d)))
                        .filter(|&d| !self.cached[d].is_empty())
                } else {
                    Some(die as usize)
                };
                let Some(from) = from else {
                    self.counters.direct_written_bytes += pu;
                    return None;
                };
                start = start.max(self.fold_oldest(flash, from, ready_ns, &epoch_of));
                self.counters.write_path_folds += 1;
            }
        }
        let page_bytes = pu / self.p.bits_per_cell;
        let mut done = start;
        for _ in 0..self.p.bits_per_cell {
            done = flash.program_with(start, die, page_bytes, self.p.program_ns);
        }
        self.held_bytes += pu;
        self.cached_epoch[program_unit as usize] = epoch.wrapping_add(1);
        self.cached[die as usize].push_back(Cached {
            program_unit,
            superblock,
            epoch,
            die,
        });
        self.counters.slc_written_bytes += pu;
        self.counters.media_write_bytes += pu;
        Some(done)
    }

    /// `fold = "idle"`: folds each die's oldest units, in the order the dies can
    /// start them, while the next can start before `now_ns`, the drive having been
    /// idle since `idle_from_ns`.
    pub fn fold_while_idle(
        &mut self,
        flash: &mut FlashArray,
        idle_from_ns: Ns,
        now_ns: Ns,
        epoch_of: impl Fn(u32) -> u32,
    ) {
        if self.p.fold != FoldPolicy::Idle || self.held_bytes == 0 {
            return;
        }
        let start = idle_from_ns.saturating_add(self.p.idle_fold_ns);
        if start >= now_ns {
            return;
        }
        // In time order across dies (the die that can start its next fold first
        // goes next), so the channels' timelines are booked in order.
        loop {
            let next = (0..self.cached.len())
                .filter(|&d| !self.cached[d].is_empty())
                .map(|d| (start.max(flash.die_free_at_ns(d as u32)), d))
                .min();
            let Some((t, die)) = next else { break };
            if t >= now_ns {
                break;
            }
            self.fold_oldest(flash, die, t, &epoch_of);
            self.counters.background_folds += 1;
        }
    }

    /// Folds the oldest cached unit of `die` from `ready_ns`; returns when its SLC
    /// space is free again (after the TLC/QLC program and, if one is due, the SLC
    /// erase).
    fn fold_oldest(
        &mut self,
        flash: &mut FlashArray,
        die: usize,
        ready_ns: Ns,
        epoch_of: &impl Fn(u32) -> u32,
    ) -> Ns {
        let Some(c) = self.cached[die].pop_front() else {
            return ready_ns;
        };
        let pu = self.p.program_unit_bytes;
        self.held_bytes -= pu;
        if epoch_of(c.superblock) != c.epoch {
            self.counters.stale_drops += 1;
            return ready_ns;
        }
        self.cached_epoch[c.program_unit as usize] = 0;
        let page_bytes = pu / self.p.bits_per_cell;
        let mut data_ready = ready_ns;
        for _ in 0..self.p.bits_per_cell {
            data_ready =
                data_ready.max(flash.read_with(ready_ns, c.die, page_bytes, self.p.read_ns));
        }
        let mut done = flash.program(data_ready, c.die, pu);
        self.counters.folded_bytes += pu;
        self.counters.media_read_bytes += pu;
        self.counters.media_write_bytes += pu;
        let folded = &mut self.folded_pages[c.die as usize];
        *folded += self.p.bits_per_cell as u32;
        if *folded >= self.p.slc_pages_per_block {
            *folded -= self.p.slc_pages_per_block;
            done = flash.erase(done, c.die);
            self.counters.erases += 1;
        }
        done
    }

    /// Checks the cache's bookkeeping.
    #[cfg(test)]
    pub fn check_invariants(&self) -> Result<(), String> {
        let units: usize = self.cached.iter().map(|q| q.len()).sum();
        if units as u64 * self.p.program_unit_bytes != self.held_bytes {
            return Err(format!(
                "{units} cached units but {} bytes held",
                self.held_bytes
            ));
        }
        for (d, q) in self.cached.iter().enumerate() {
            if let Some(c) = q.iter().find(|c| c.die as usize != d) {
                return Err(format!("die {d} lists a unit of die {}", c.die));
            }
        }
        Ok(())
    }
}
