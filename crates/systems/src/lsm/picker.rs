//! Compaction picking, after RocksDB 6.22's `LevelCompactionPicker`
//! (`db/compaction/compaction_picker_level.cc`) and
//! `VersionStorageInfo::ComputeCompactionScore`:
//! - scores: L0 = max(files not being compacted ÷ trigger, their bytes ÷ L1 target);
//!   Ln = bytes not being compacted ÷ target(n); levels tried by descending score;
//! - L0 → L1 takes every overlapping L0 file and every overlapping L1 file, and only
//!   one L0 compaction runs at a time; when L0 → L1 cannot start (an L0 compaction
//!   runs, or L1 is busy), an intra-L0 compaction of the newest ≥ 4 files not being
//!   compacted (`FindIntraL0Compaction`) may run instead, and L1 is not picked as a
//!   start level in that round (`skipped_l0_to_base`);
//! - Ln → Ln+1 takes one file, chosen by `kMinOverlappingRatio` (least next-level
//!   overlap per byte), skipping files being compacted, files whose next-level
//!   overlap is being compacted, and ranges a running compaction is writing into;
//! - a single file with no next-level overlap is moved down (a trivial move).

use super::hints::FileNo;
use super::options::LsmOptions;
use super::version::Version;

/// A compaction in progress, as the picker must know it.
#[derive(Debug, Clone)]
pub struct Running {
    pub start_level: u32,
    pub output_level: u32,
    pub lo: u64,
    pub hi: u64,
}

/// What the picker chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pick {
    Compact {
        start_level: u32,
        output_level: u32,
        /// Start-level inputs (L0: newest first), then output-level inputs.
        start_inputs: Vec<FileNo>,
        output_inputs: Vec<FileNo>,
    },
    TrivialMove {
        file: FileNo,
        from_level: u32,
    },
}

/// `kMinFilesForIntraL0Compaction`.
const MIN_FILES_FOR_INTRA_L0: usize = 4;

/// Compaction scores of levels 0..num_levels−1 (the last level has none).
pub fn scores(v: &Version, o: &LsmOptions) -> Vec<(u32, f64)> {
    let mut out = Vec::new();
    for level in 0..v.num_levels() - 1 {
        let files = v.levels[level]
            .iter()
            .map(|&f| v.sst(f))
            .filter(|s| !s.being_compacted);
        let (n, bytes) = files.fold((0u64, 0u64), |(n, b), s| (n + 1, b + s.file_bytes));
        let score = if level == 0 {
            (n as f64 / o.l0_compaction_trigger_files as f64)
                .max(bytes as f64 / o.level_base_bytes as f64)
        } else {
            bytes as f64 / o.level_target_bytes(level) as f64
        };
        out.push((level as u32, score));
    }
    // Descending score; ties keep the lower level first (stable sort).
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

fn range_of(v: &Version, files: &[FileNo]) -> (u64, u64) {
    let lo = files
        .iter()
        .map(|&f| v.sst(f).smallest())
        .min()
        .unwrap_or(0);
    let hi = files.iter().map(|&f| v.sst(f).largest()).max().unwrap_or(0);
    (lo, hi)
}

fn output_range_busy(running: &[Running], output_level: u32, lo: u64, hi: u64) -> bool {
    running
        .iter()
        .any(|r| r.output_level == output_level && r.lo <= hi && r.hi >= lo)
}

/// Picks the next compaction, or `None` when no level needs one that can run now
/// (`LevelCompactionBuilder::SetupInitialFiles`).
pub fn pick(v: &Version, o: &LsmOptions, running: &[Running]) -> Option<Pick> {
    let l0_running = running.iter().any(|r| r.start_level == 0);
    let mut skipped_l0_to_base = false;
    for (level, score) in scores(v, o) {
        if score < 1.0 {
            break;
        }
        // "If L0->base_level compaction is pending, don't schedule further
        // compaction from base level. Otherwise L0->base_level compaction may
        // starve."
        if skipped_l0_to_base && level == 1 {
            continue;
        }
        let found = if level == 0 {
            // Only one L0 -> L1 compaction at a time; when it cannot run (another
            // L0 compaction is in progress, or L1 is busy), RocksDB tries an
            // intra-L0 compaction of the newest files that are not being compacted.
            let to_base = if l0_running {
                None
            } else {
                pick_l0(v, o, running)
            };
            if to_base.is_none() {
                skipped_l0_to_base = true;
                pick_intra_l0(v, o)
            } else {
                to_base
            }
        } else {
            pick_level(v, o, running, level as usize)
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn pick_l0(v: &Version, o: &LsmOptions, running: &[Running]) -> Option<Pick> {
    let l0 = &v.levels[0];
    if l0.is_empty() || l0.iter().any(|&f| v.sst(f).being_compacted) {
        return None;
    }
    // Expanding to a clean cut pulls in every L0 file overlapping the range; grow to
    // a fixed point.
    let first = *l0.iter().last()?;
    let mut inputs = vec![first];
    let (mut lo, mut hi) = range_of(v, &inputs);
    loop {
        let grown: Vec<FileNo> = l0
            .iter()
            .copied()
            .filter(|&f| v.sst(f).overlaps(lo, hi))
            .collect();
        let (nlo, nhi) = range_of(v, &grown);
        let done = grown.len() == inputs.len();
        inputs = grown;
        lo = nlo;
        hi = nhi;
        if done {
            break;
        }
    }
    let output_level = 1u32;
    let outputs = v.overlapping(1, lo, hi).to_vec();
    if outputs.iter().any(|&f| v.sst(f).being_compacted)
        || output_range_busy(running, output_level, lo, hi)
    {
        return None;
    }
    let _ = o;
    Some(Pick::Compact {
        start_level: 0,
        output_level,
        start_inputs: inputs,
        output_inputs: outputs,
    })
}

fn pick_intra_l0(v: &Version, o: &LsmOptions) -> Option<Pick> {
    let l0 = &v.levels[0];
    if l0.len() < o.l0_compaction_trigger_files as usize + 2 || v.sst(l0[0]).being_compacted {
        return None;
    }
    let mut compact_bytes = v.sst(l0[0]).file_bytes;
    let mut per_del_file = u64::MAX;
    let mut span = 1;
    while span < l0.len() {
        let s = v.sst(l0[span]);
        if s.being_compacted {
            break;
        }
        let bytes = compact_bytes + s.file_bytes;
        let new_per_del = bytes / span as u64;
        if new_per_del > per_del_file || bytes > o.max_compaction_bytes {
            break;
        }
        compact_bytes = bytes;
        per_del_file = new_per_del;
        span += 1;
    }
    if span >= MIN_FILES_FOR_INTRA_L0 && per_del_file < u64::MAX {
        Some(Pick::Compact {
            start_level: 0,
            output_level: 0,
            start_inputs: l0[..span].to_vec(),
            output_inputs: Vec::new(),
        })
    } else {
        None
    }
}

fn pick_level(v: &Version, o: &LsmOptions, running: &[Running], level: usize) -> Option<Pick> {
    let next = level + 1;
    // kMinOverlappingRatio: next-level overlapping bytes × 1024 ÷ file bytes.
    let mut order: Vec<(u64, FileNo)> = v.levels[level]
        .iter()
        .map(|&f| {
            let s = v.sst(f);
            let overlap: u64 = v
                .overlapping(next, s.smallest(), s.largest())
                .iter()
                .map(|&g| v.sst(g).file_bytes)
                .sum();
            (overlap.saturating_mul(1024) / s.file_bytes.max(1), f)
        })
        .collect();
    order.sort_by_key(|&(ratio, _)| ratio);
    for (_, f) in order {
        let s = v.sst(f);
        if s.being_compacted {
            continue;
        }
        let (lo, hi) = (s.smallest(), s.largest());
        if output_range_busy(running, next as u32, lo, hi) {
            continue;
        }
        let outputs = v.overlapping(next, lo, hi);
        if outputs.iter().any(|&g| v.sst(g).being_compacted) {
            continue;
        }
        if outputs.is_empty() {
            let grandparents: u64 = if next + 1 < v.num_levels() {
                v.overlapping(next + 1, lo, hi)
                    .iter()
                    .map(|&g| v.sst(g).file_bytes)
                    .sum()
            } else {
                0
            };
            if grandparents <= o.max_compaction_bytes {
                return Some(Pick::TrivialMove {
                    file: f,
                    from_level: level as u32,
                });
            }
        }
        return Some(Pick::Compact {
            start_level: level as u32,
            output_level: next as u32,
            start_inputs: vec![f],
            output_inputs: outputs.to_vec(),
        });
    }
    None
}

/// RocksDB's `EstimateCompactionBytesNeeded`: bytes compactions must still rewrite
/// to bring every level under its target (drives the pending-bytes write stalls).
pub fn estimated_pending_compaction_bytes(v: &Version, o: &LsmOptions) -> u64 {
    let mut estimate: u64 = 0;
    let l0_files = v.levels[0].len() as u64;
    let l0_bytes = v.level_bytes(0);
    let l0_triggered =
        l0_files >= o.l0_compaction_trigger_files as u64 || l0_bytes >= o.level_base_bytes;
    let mut bytes_compact_to_next = 0u64;
    if l0_triggered {
        bytes_compact_to_next = l0_bytes;
        estimate = l0_bytes;
    }
    let mut bytes_next_level = 0u64;
    for level in 1..v.num_levels() - 1 {
        let mut level_size = if bytes_next_level > 0 {
            bytes_next_level
        } else {
            v.level_bytes(level)
        };
        bytes_next_level = 0;
        if level == 1 && l0_triggered {
            estimate += level_size;
        }
        level_size += bytes_compact_to_next;
        bytes_compact_to_next = 0;
        let target = o.level_target_bytes(level);
        if level_size > target {
            bytes_compact_to_next = level_size - target;
            bytes_next_level = v.level_bytes(level + 1);
            if bytes_next_level > 0 {
                estimate += (bytes_compact_to_next as f64
                    * (bytes_next_level as f64 / level_size as f64 + 1.0))
                    as u64;
            }
        }
    }
    estimate
}
