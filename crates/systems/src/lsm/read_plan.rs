//! Where a read must look: for a point lookup, the SSTs whose key range covers the
//! key, newest first (L0 files, then one file per level), stopping at the level that
//! holds the key; for a scan, the data blocks of every sorted run that the merged
//! iterator walks over. A Bloom filter (when configured) skips an SST without the
//! key, except for a false positive, decided by a hash of (SST, key) at the
//! layout's false-positive rate.

use super::hints::FileNo;
use super::layout::SstLayout;
use super::version::Version;

/// One data block to visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub sst: FileNo,
    pub block: u64,
    /// Whether the key is in this block (the lookup ends here).
    pub hit: bool,
}

fn bloom_false_positive(sst: FileNo, key: u64, rate: f64) -> bool {
    let mut x = key ^ sst.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^= x >> 31;
    ((x >> 11) as f64 / (1u64 << 53) as f64) < rate
}

/// Counts of what the filter did during planning.
#[derive(Debug, Clone, Copy, Default)]
pub struct FilterCounts {
    pub useful: u64,
    pub false_positives: u64,
}

/// Probes SST `f` for `key`: pushes the block a Get reads there (none when the
/// modelled Bloom filter rules the SST out) and says whether the key is there.
/// `bloom_fp_rate` is `layout.bloom_false_positive_rate()`, computed once per Get.
fn probe_sst(
    v: &Version,
    layout: &SstLayout,
    bloom_fp_rate: f64,
    f: FileNo,
    key: u64,
    out: &mut Vec<Probe>,
    fc: &mut FilterCounts,
) -> bool {
    let s = v.sst(f);
    if key < s.smallest() || key > s.largest() {
        return false;
    }
    let pos = s.lower_bound(key);
    let present = s.keys.get(pos) == Some(&key);
    if !present && layout.bloom_bits_per_key > 0 {
        if bloom_false_positive(f, key, bloom_fp_rate) {
            fc.false_positives += 1;
        } else {
            fc.useful += 1;
            return false;
        }
    }
    out.push(Probe {
        sst: f,
        block: pos as u64 / layout.entries_per_block,
        hit: present,
    });
    present
}

/// The blocks a Get of `key` visits, in order (excluding MemTables).
pub fn plan_get(v: &Version, layout: &SstLayout, key: u64, fc: &mut FilterCounts) -> Vec<Probe> {
    let mut out = Vec::new();
    let fp_rate = layout.bloom_false_positive_rate();
    for &f in &v.levels[0] {
        if probe_sst(v, layout, fp_rate, f, key, &mut out, fc) {
            return out;
        }
    }
    for level in 1..v.num_levels() {
        if let Some(f) = v.file_for_key(level, key) {
            if probe_sst(v, layout, fp_rate, f, key, &mut out, fc) {
                return out;
            }
        }
    }
    out
}

/// The blocks a scan of `len` entries from `key` visits: a k-way merge over every
/// sorted run (each L0 file, each level), reading each run's blocks in order.
pub fn plan_scan(v: &Version, layout: &SstLayout, key: u64, len: u64) -> Vec<Probe> {
    // A cursor per run: (file list of the run, file index, position in file).
    struct Cursor<'a> {
        files: &'a [FileNo],
        fi: usize,
        pos: usize,
        v: &'a Version,
    }
    impl Cursor<'_> {
        fn current(&self) -> Option<(u64, FileNo, usize)> {
            let f = *self.files.get(self.fi)?;
            let s = self.v.sst(f);
            s.keys.get(self.pos).map(|&k| (k, f, self.pos))
        }
        fn advance(&mut self) {
            self.pos += 1;
            if let Some(&f) = self.files.get(self.fi) {
                if self.pos >= self.v.sst(f).keys.len() {
                    self.fi += 1;
                    self.pos = 0;
                }
            }
        }
    }
    let mut cursors: Vec<Cursor> = Vec::new();
    for f in &v.levels[0] {
        let pos = v.sst(*f).lower_bound(key);
        cursors.push(Cursor {
            files: std::slice::from_ref(f),
            fi: 0,
            pos,
            v,
        });
    }
    for level in 1..v.num_levels() {
        let files = &v.levels[level];
        let fi = files.partition_point(|&f| v.sst(f).largest() < key);
        if fi >= files.len() {
            continue;
        }
        let pos = v.sst(files[fi]).lower_bound(key);
        cursors.push(Cursor { files, fi, pos, v });
    }
    let mut out: Vec<Probe> = Vec::new();
    let mut last_block: Vec<Option<(FileNo, u64)>> = vec![None; cursors.len()];
    // Seek positions every run's iterator, which reads the block it lands in.
    for (i, c) in cursors.iter().enumerate() {
        if let Some((_, f, pos)) = c.current() {
            let block = pos as u64 / layout.entries_per_block;
            last_block[i] = Some((f, block));
            out.push(Probe {
                sst: f,
                block,
                hit: false,
            });
        }
    }
    let mut emitted = 0;
    let mut last_key: Option<u64> = None;
    loop {
        let mut best: Option<(u64, usize)> = None;
        for (i, c) in cursors.iter().enumerate() {
            if let Some((k, _, _)) = c.current() {
                if best.is_none_or(|(bk, _)| k < bk) {
                    best = Some((k, i));
                }
            }
        }
        let Some((k, i)) = best else { break };
        let (_, f, pos) = cursors[i].current().expect("current");
        let block = pos as u64 / layout.entries_per_block;
        if last_block[i] != Some((f, block)) {
            last_block[i] = Some((f, block));
            out.push(Probe {
                sst: f,
                block,
                hit: false,
            });
        }
        cursors[i].advance();
        if last_key != Some(k) {
            emitted += 1;
            last_key = Some(k);
        }
        if emitted >= len {
            break;
        }
    }
    out
}
