//! HHZS's write-guided data placement (§3.3) with optional workload-aware
//! migration (§3.4), and the B3+M variant of Exp#2 (basic placement + migration).
//!
//! Placement: storage demand per level from the hints (L0 = WAL zones in use; Li
//! += selected SSTs when a compaction into Li is triggered, −1 per SST it writes,
//! −(selected − generated) when it ends); tiering level t = the lowest i with
//! Σ_{j≤i}(A_j + D_j) ≥ C_ssd, where A_j is the *actual size* of L_j in SSD zones
//! — all its SSTs, on either device ("HHZS monitors the actual sizes of the
//! LSM-tree levels", §3.3; H2Zone `ZenFS::ComputeCurrentAllocation` counts every
//! file of the level) — and C_ssd the SSD zones for SSTs; L_t may use
//! C_ssd − Σ_{j<t}(A_j + D_j) SSD zones. A new SST goes to an empty SSD zone if it
//! comes from a flush, from a compaction into a level below t, or into t while SSD
//! zones reserved for L_t are still available (H2Zone `LevelMAvailableZones`: the
//! reservation less the SSD zones SSTs of L_t and above hold); else to the HDD.
//!
//! Migration: capacity migration moves the lowest-priority SSD SST to the HDD when
//! L_t holds more SSD zones than reserved or an SST above L_t sits on the SSD;
//! popularity migration, when the HDD serves more than half its maximum random-read
//! IOPS, moves the highest-priority HDD SST to the SSD if the empty SSD zones exceed
//! the demand of the levels below t, else swaps it with the lowest-priority SSD SST.
//! SSTs selected by a running compaction (or still being written) never move.
//! While the HDD is read-bound, popularity migration is tried first and capacity
//! migration only when it has nothing to move (H2Zone `MigrationDaemonRun`).

use super::placement::PlacementPolicy;
use super::view::{higher_priority, MigrationPlan, PriorityOrder, SstView, StoreView};
use crate::lsm::{FileKind, Hint};
use std::collections::BTreeMap;
use zonelab_engine::Ns;

/// The ST14000NM0007's random-read IOPS (HHZS Table 1: 115): popularity migration
/// starts above half of it.
pub const HDD_MAX_RANDOM_READ_IOPS: f64 = 115.0;

#[derive(Debug, Clone, Copy, Default)]
struct JobDemand {
    level: u32,
    selected: i64,
    generated: i64,
}

/// Write-guided placement (P), with migration (P+M) or, restricted to levels below
/// `basic_h`, the basic scheme with migration (B3+M).
#[derive(Debug, Clone, Default)]
pub struct WriteGuided {
    /// Run workload-aware migration.
    pub migrate: bool,
    /// `Some(h)`: place like Bh (no write guidance) and migrate only levels < h.
    pub basic_h: Option<u32>,
    demand: BTreeMap<u32, i64>,
    jobs: BTreeMap<u64, JobDemand>,
    /// Name suffix (`+C` when the store caches).
    pub caching_label: bool,
    /// Ablation (issue 14, docs/hhzs.md "Obsolete SSTs in the reservation"): SSTs
    /// a finished compaction consumed but RocksDB has not deleted yet (pinned by an
    /// older running job) count in no level, and their SSD zones come off C_ssd.
    /// Off, as in the authors' code: H2Zone's `ZenFS::ComputeCurrentAllocation`
    /// counts every file ZenFS holds in its level's A_i. Measured: not better.
    pub exclude_obsolete: bool,
    /// Ablation (docs/hhzs.md, "P's rule against H2Zone's"): count a running
    /// intra-L0 compaction's remaining outputs in L0's demand, as H2Zone's
    /// `ZenFS::ComputeStorageDemands` does (`storage_demands_[0] =
    /// total_lvl_generated_[0] - lvl_generated_[0] + wal_sizes_ / sst_size + 1`).
    /// Off: the paper defines L0's demand as the current number of WAL zones
    /// (§3.3 step 1). Measured at scale 0.05: HHZS's load 3 % slower, P / B3 on
    /// W1 no better.
    pub intra_l0_demand: bool,
    /// Ablation (docs/hhzs.md, "P+M against P"): no capacity migration.
    pub no_capacity_migration: bool,
    /// Ablation: no popularity migration.
    pub no_popularity_migration: bool,
    /// Ablation (docs/hhzs.md, "The read side"): capacity migration before
    /// popularity migration, as this model did before; H2Zone tries popularity
    /// migration first.
    pub capacity_first: bool,
    /// Capacity migrations started, by the moved SST's level relative to the
    /// tiering level at the time: [below t, at t, above t] (docs/hhzs.md, "The
    /// load at larger SSDs").
    pub capacity_moves_by_rank: [u64; 3],
    /// Of those, moves of an SST RocksDB had trivially moved.
    pub capacity_moves_trivially_moved: u64,
    /// Of those, moves of another SST than §3.4's order alone
    /// ([`PriorityOrder::Paper`]) would have taken from the same view: the
    /// decisions the priority order made (docs/hhzs.md, "What the trivial-move
    /// rank costs"; always 0 under `Paper`).
    pub capacity_moves_order_decided: u64,
    /// Ablation (docs/hhzs.md, "The load at larger SSDs"): capacity migration
    /// moves the lowest-priority movable SSD SST only when it is itself misplaced
    /// — above L_t, or at L_t while L_t and above hold more SSD zones than
    /// reserved — as H2Zone's `ZenFS::MaybeCapacityCalibration` does (`s_zf =
    /// nullptr` when `s_zf->level() < level_m_` or `== level_m_ &&
    /// LevelMAvailableZones() >= 0`). Off: §3.4 moves "the SST with the lowest
    /// priority" among the SSD's SSTs once either condition holds, and excludes the
    /// SSTs of running compactions, so the SST moved can sit below L_t. Measured:
    /// the guard changes only 20-zone loads (4–6 moves of 70) and slows HHZS's
    /// load there by 1.6–2.7 %.
    pub h2zone_capacity_guard: bool,
    /// Ablation (docs/hhzs.md, "Write-heavy runs: where P's gain goes"): SSTs of
    /// this level and above always go to the HDD, so L_t never reaches them (as
    /// B3 keeps L3 and up on the HDD). Off (`None`): §3.3 lets the tiering level
    /// be any level, so L3 SSTs take SSD zones whenever L0–L2 and their demands
    /// fit. Used only to measure what those L3 SSTs cost L2 on write-heavy runs.
    pub hdd_from_level: Option<u32>,
    /// How SSTs of one level rank ([`PriorityOrder`]; docs/hhzs.md, "H2Zone's
    /// migration details"): by default §3.4's read rate, then H2Zone's "not
    /// trivially moved is better" where the rates tie; the ablations H2Zone's own
    /// order and §3.4's alone.
    pub priority_order: PriorityOrder,
}

/// The tiering level and the SSD zones L_t may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiering {
    pub level: u32,
    /// SSD zones reserved for L_t: C_ssd − Σ_{j<t}(A_j + D_j).
    pub reserved_zones: i64,
    /// SSD zones SSTs of L_t hold.
    pub ssd_zones_at_t: i64,
    /// SSD zones SSTs above L_t hold (capacity migration moves them down).
    pub ssd_zones_above_t: i64,
    /// Demand of the levels below t (Σ_{j<t} D_j).
    pub demand_below: i64,
}

impl Tiering {
    /// SSD zones still available to new SSTs of L_t.
    pub fn available_at_t(&self) -> i64 {
        self.reserved_zones - self.ssd_zones_at_t - self.ssd_zones_above_t
    }
}

impl WriteGuided {
    pub fn hhzs(migrate: bool, caching: bool) -> Self {
        Self {
            migrate,
            caching_label: caching,
            ..Default::default()
        }
    }

    pub fn basic_with_migration(h: u32) -> Self {
        Self {
            migrate: true,
            basic_h: Some(h),
            ..Default::default()
        }
    }

    /// Storage demand of `level` in SSTs (zones).
    pub fn demand(&self, level: u32) -> i64 {
        self.demand.get(&level).copied().unwrap_or(0).max(0)
    }

    /// Steps 1–3 of §3.3 on `view`.
    pub fn tiering(&self, view: &StoreView) -> Tiering {
        let c_ssd = view.devices.first().map_or(0, |d| d.sst_zones) as i64;
        let max_level = view
            .ssts
            .iter()
            .map(|s| s.level)
            .max()
            .unwrap_or(0)
            .max(self.demand.keys().copied().max().unwrap_or(0))
            + 1;
        // A_i: the level's size in SSD zones, wherever its SSTs are; and the SSD
        // zones its SSTs hold.
        let mut allocated = vec![0i64; max_level as usize + 1];
        let mut on_ssd = vec![0i64; max_level as usize + 1];
        let mut c_ssd = c_ssd;
        for s in &view.ssts {
            if s.obsolete && self.exclude_obsolete {
                // Consumed by a finished compaction, awaiting deletion: in no level
                // (§3.3 counts a compaction's SSTs only until it ends), but its SSD
                // zones are not "available SSD zones for SSTs" (C_ssd).
                if s.device == 0 {
                    c_ssd -= s.zones as i64;
                }
                continue;
            }
            allocated[s.level as usize] += s.zones as i64;
            if s.device == 0 {
                on_ssd[s.level as usize] += s.zones as i64;
            }
        }
        // L0's demand: the WAL zones (§3.3 step 1); with `intra_l0_demand`, also
        // what running intra-L0 compactions will still write (H2Zone's count).
        let intra_l0 = if self.intra_l0_demand {
            self.demand(0)
        } else {
            0
        };
        let demand_of = |l: u32| {
            if l == 0 {
                view.wal_zones as i64 + intra_l0
            } else {
                self.demand(l)
            }
        };
        let mut below = 0i64;
        let mut demand_below = 0i64;
        let mut t = max_level;
        for l in 0..=max_level {
            let here = allocated[l as usize] + demand_of(l);
            if below + here >= c_ssd {
                t = l;
                break;
            }
            below += here;
            demand_below += demand_of(l);
        }
        Tiering {
            level: t,
            reserved_zones: c_ssd - below,
            ssd_zones_at_t: on_ssd[t as usize],
            ssd_zones_above_t: on_ssd[t as usize + 1..].iter().sum(),
            demand_below,
        }
    }

    /// Popularity migration (§3.4): the highest-priority HDD SST moves to the SSD
    /// when the empty SSD zones exceed the demand of the levels below t, else it is
    /// swapped with the lowest-priority SSD SST if it ranks higher.
    fn popularity_plan(
        &self,
        view: &StoreView,
        highest_on_hdd: Option<&SstView>,
        lowest_on_ssd: Option<&SstView>,
    ) -> Option<MigrationPlan> {
        let up = highest_on_hdd?;
        // Empty SSD zones, even while the active-zone limit keeps them from being
        // opened this instant (the move then waits for a zone to close).
        let free = view.devices[0].empty_zones as i64;
        let demand_below = match self.basic_h {
            Some(_) => 0,
            None => self.tiering(view).demand_below,
        };
        if free > demand_below {
            return Some(MigrationPlan::Move {
                file: up.file,
                to: 0,
            });
        }
        let down = lowest_on_ssd?;
        self.ranks_higher(up, down).then_some(MigrationPlan::Swap {
            up: up.file,
            down: down.file,
        })
    }

    fn ranks_higher(&self, a: &SstView, b: &SstView) -> bool {
        higher_priority(a, b, self.priority_order)
    }

    fn movable(s: &SstView) -> bool {
        !s.compacting && !s.open
    }
}

impl PlacementPolicy for WriteGuided {
    fn name(&self) -> String {
        match (self.basic_h, self.migrate, self.caching_label) {
            (Some(h), _, _) => format!("B{h}+M"),
            (None, false, _) => "P".into(),
            (None, true, false) => "P+M".into(),
            (None, true, true) => "P+M+C".into(),
        }
    }

    fn boxed_clone(&self) -> Box<dyn PlacementPolicy> {
        Box::new(self.clone())
    }

    /// H2Zone's placement puts metadata files on the HDD ("Put meta in HDD",
    /// `CheckRotationalH2Zone`); Bh+M keeps the basic schemes' placement
    /// (`CheckRotationalTrivial`), which leaves them on the SSD.
    fn metadata_files_device(&self) -> usize {
        if self.basic_h.is_some() {
            0
        } else {
            1
        }
    }

    fn devices_for(&mut self, kind: FileKind, view: &StoreView) -> Vec<usize> {
        let all: Vec<usize> = (0..view.devices.len()).collect();
        let hdd_only: Vec<usize> = (1..view.devices.len()).collect();
        let level = match kind {
            FileKind::Wal => return all,
            FileKind::Sst { level } => level,
        };
        if let Some(h) = self.basic_h {
            return if level < h { all } else { hdd_only };
        }
        if level == 0 {
            return all;
        }
        if self.hdd_from_level.is_some_and(|h| level >= h) {
            return hdd_only;
        }
        let t = self.tiering(view);
        if level < t.level || (level == t.level && t.available_at_t() > 0) {
            all
        } else {
            hdd_only
        }
    }

    fn describe(&self, view: &StoreView) -> String {
        let t = self.tiering(view);
        let demands: Vec<i64> = (1..=4).map(|l| self.demand(l)).collect();
        format!(
            "t={} R={} ssd@t={} ssd>t={} D0={} D1-4={demands:?} capacity moves <t/=t/>t {:?} (trivially moved {}, other than §3.4's order alone {})",
            t.level,
            t.reserved_zones,
            t.ssd_zones_at_t,
            t.ssd_zones_above_t,
            view.wal_zones,
            self.capacity_moves_by_rank,
            self.capacity_moves_trivially_moved,
            self.capacity_moves_order_decided
        )
    }

    fn remount(&mut self) {
        self.demand.clear();
        self.jobs.clear();
    }

    fn on_hint(&mut self, _now: Ns, hint: &Hint) {
        match hint {
            Hint::CompactionStarted {
                job,
                inputs,
                output_level,
                ..
            } => {
                let selected = inputs.len() as i64;
                *self.demand.entry(*output_level).or_insert(0) += selected;
                self.jobs.insert(
                    *job,
                    JobDemand {
                        level: *output_level,
                        selected,
                        generated: 0,
                    },
                );
            }
            Hint::SstGenerated { job, level, .. } => {
                *self.demand.entry(*level).or_insert(0) -= 1;
                if let Some(j) = self.jobs.get_mut(job) {
                    j.generated += 1;
                }
            }
            Hint::CompactionFinished { job, .. } => {
                if let Some(j) = self.jobs.remove(job) {
                    *self.demand.entry(j.level).or_insert(0) -= j.selected - j.generated;
                }
            }
            _ => {}
        }
    }

    fn plan_migration(&mut self, view: &StoreView) -> Option<MigrationPlan> {
        if !self.migrate || view.devices.len() < 2 {
            return None;
        }
        let lowest_on_ssd = view
            .ssts
            .iter()
            .filter(|s| s.device == 0 && Self::movable(s))
            .fold(None::<&SstView>, |lo, s| match lo {
                Some(l) if !self.ranks_higher(l, s) => Some(l),
                _ => Some(s),
            });
        let eligible_up = |s: &&SstView| match self.basic_h {
            Some(h) => s.level < h,
            None => true,
        };
        let highest_on_hdd = view
            .ssts
            .iter()
            .filter(|s| s.device != 0 && Self::movable(s))
            .filter(eligible_up)
            .fold(None::<&SstView>, |hi, s| match hi {
                Some(h) if !self.ranks_higher(s, h) => Some(h),
                _ => Some(s),
            });
        // Popularity migration first while the HDD is read-bound; capacity
        // migration only when popularity migration has nothing to do (H2Zone
        // `ZenFS::MigrationDaemonRun`: `flag = MaybePopularityCalibration(); if
        // (!flag) flag = MaybeCapacityCalibration();`).
        if !self.no_popularity_migration
            && view.hdd_point_reads_per_s > HDD_MAX_RANDOM_READ_IOPS / 2.0
            && !self.capacity_first
        {
            if let Some(plan) = self.popularity_plan(view, highest_on_hdd, lowest_on_ssd) {
                return Some(plan);
            }
        }
        // Capacity migration.
        if self.basic_h.is_none() && !self.no_capacity_migration && !view.capacity_migration_held {
            let t = self.tiering(view);
            let above_t = view
                .ssts
                .iter()
                .any(|s| s.device == 0 && s.level > t.level && Self::movable(s));
            if t.ssd_zones_at_t > t.reserved_zones.max(0) || above_t {
                // §3.4: the SSD's lowest-priority SST (not in a running
                // compaction) moves down. With SSTs of running compactions
                // excluded, it can sit below L_t; H2Zone's guard (ablation) keeps
                // such an SST on the SSD.
                let misplaced = |lo: &&SstView| {
                    !self.h2zone_capacity_guard
                        || lo.level > t.level
                        || (lo.level == t.level && t.available_at_t() < 0)
                };
                if let Some(lo) = lowest_on_ssd.filter(misplaced) {
                    let rank = (lo.level.cmp(&t.level) as i8 + 1) as usize;
                    self.capacity_moves_by_rank[rank] += 1;
                    self.capacity_moves_trivially_moved += lo.trivially_moved as u64;
                    let paper_lowest = view
                        .ssts
                        .iter()
                        .filter(|s| s.device == 0 && Self::movable(s))
                        .fold(None::<&SstView>, |l, s| match l {
                            Some(l) if !higher_priority(l, s, PriorityOrder::Paper) => Some(l),
                            _ => Some(s),
                        });
                    self.capacity_moves_order_decided +=
                        (paper_lowest.map(|p| p.file) != Some(lo.file)) as u64;
                    return Some(MigrationPlan::Move {
                        file: lo.file,
                        to: 1,
                    });
                }
            }
        }
        if !self.no_popularity_migration
            && view.hdd_point_reads_per_s > HDD_MAX_RANDOM_READ_IOPS / 2.0
            && self.capacity_first
        {
            return self.popularity_plan(view, highest_on_hdd, lowest_on_ssd);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hhzs::view::DeviceView;

    fn sst(file: u64, level: u32, device: usize, reads: u64) -> SstView {
        SstView {
            file,
            level,
            device,
            zones: 1,
            reads,
            age_ns: 1_000_000_000,
            compacting: false,
            obsolete: false,
            open: false,
            trivially_moved: false,
        }
    }

    fn view(ssts: Vec<SstView>, wal_zones: u32, free: u32) -> StoreView {
        StoreView {
            devices: vec![
                DeviceView {
                    free_zones: free,
                    empty_zones: free,
                    sst_zones: 18,
                    zone_capacity_bytes: 1,
                },
                DeviceView {
                    free_zones: 1000,
                    empty_zones: 1000,
                    sst_zones: 1000,
                    zone_capacity_bytes: 1,
                },
            ],
            ssts,
            wal_zones,
            ..Default::default()
        }
    }

    /// The paper: L0's demand is the WAL zones (§3.3 step 1). H2Zone
    /// `ZenFS::ComputeStorageDemands` also counts a running intra-L0 compaction's
    /// selected SSTs (less those written) — the `intra_l0_demand` ablation.
    #[test]
    fn intra_l0_compactions_count_in_l0s_demand_only_in_the_h2zone_ablation() {
        // C_ssd = 18: L0 4 SSTs, L1 8, L2 9; 2 WAL zones.
        // Σ L0 = 6, Σ L1 = 14, Σ L2 = 23 ≥ 18 → t = 2, R = 4.
        let mut ssts = Vec::new();
        let mut n = 0;
        for (level, count) in [(0, 4), (1, 8), (2, 9)] {
            for _ in 0..count {
                n += 1;
                ssts.push(sst(n, level, if level < 2 { 0 } else { 1 }, 0));
            }
        }
        let v = view(ssts, 2, 6);
        let intra_l0_start = Hint::CompactionStarted {
            job: 3,
            inputs: vec![1, 2, 3, 4],
            output_level: 0,
            planned_outputs: 1,
        };
        // The paper's rule: an intra-L0 compaction does not change L0's demand.
        let mut paper = WriteGuided::hhzs(false, false);
        paper.on_hint(0, &intra_l0_start);
        let t = paper.tiering(&v);
        assert_eq!((t.level, t.reserved_zones, t.demand_below), (2, 4, 2));
        // H2Zone's count: Σ L0 = 4 + 2 + 4 = 10, Σ L1 = 18 ≥ 18 → t = 1, R = 8.
        let mut p = WriteGuided {
            intra_l0_demand: true,
            ..WriteGuided::hhzs(false, false)
        };
        assert_eq!(p.tiering(&v).reserved_zones, 4);
        p.on_hint(0, &intra_l0_start);
        let t = p.tiering(&v);
        assert_eq!((t.level, t.reserved_zones, t.demand_below), (1, 8, 6));
        // It writes its one output (demand 3: t = 2, R = 18 − 17 = 1), then ends.
        p.on_hint(
            0,
            &Hint::SstGenerated {
                job: 3,
                sst: 50,
                level: 0,
                expected_bytes: 0,
            },
        );
        assert_eq!(p.tiering(&v).reserved_zones, 1);
        p.on_hint(
            0,
            &Hint::CompactionFinished {
                job: 3,
                outputs: vec![50],
                output_level: 0,
            },
        );
        assert_eq!(p.tiering(&v).reserved_zones, 4);
    }

    #[test]
    fn tiering_level_by_hand() {
        // C_ssd = 18. Levels by actual size (A, SSTs on either device): L0 3 (all on
        // the SSD), L1 4 (2 on the SSD), L2 9 (6 on the SSD); one stale L3 SST on the
        // SSD. D_0 = 2 WAL zones; a compaction into L2 selected 3 SSTs and wrote 1 so
        // far (D_2 = 2).
        let mut p = WriteGuided::hhzs(false, false);
        let mut ssts = Vec::new();
        let mut n = 0;
        for (level, ssd, hdd) in [(0, 3, 0), (1, 2, 2), (2, 6, 3), (3, 1, 0)] {
            for device in std::iter::repeat_n(0, ssd).chain(std::iter::repeat_n(1, hdd)) {
                n += 1;
                ssts.push(sst(n, level, device, 0));
            }
        }
        p.on_hint(
            0,
            &Hint::CompactionStarted {
                job: 7,
                inputs: vec![1, 2, 3],
                output_level: 2,
                planned_outputs: 3,
            },
        );
        p.on_hint(
            0,
            &Hint::SstGenerated {
                job: 7,
                sst: 99,
                level: 2,
                expected_bytes: 0,
            },
        );
        let mut v = view(ssts, 2, 2);
        // Σ L0 = 3 + 2 = 5, Σ L1 = 9, Σ L2 = 9 + 9 + 2 = 20 ≥ 18 → t = 2, R = 18 − 9 = 9;
        // L2 holds 6 SSD zones and L3 1, so 2 are still available to L2.
        let t = p.tiering(&v);
        assert_eq!(
            (
                t.level,
                t.reserved_zones,
                t.ssd_zones_at_t,
                t.ssd_zones_above_t,
                t.demand_below
            ),
            (2, 9, 6, 1, 2)
        );
        assert_eq!(t.available_at_t(), 2);
        // L1 output → SSD; L2 output → SSD while zones are available; L3 → HDD;
        // flush → SSD.
        assert_eq!(p.devices_for(FileKind::Sst { level: 1 }, &v), vec![0, 1]);
        assert_eq!(p.devices_for(FileKind::Sst { level: 2 }, &v), vec![0, 1]);
        assert_eq!(p.devices_for(FileKind::Sst { level: 3 }, &v), vec![1]);
        assert_eq!(p.devices_for(FileKind::Sst { level: 0 }, &v), vec![0, 1]);
        // Two HDD SSTs of L2 migrated to the SSD use them up (A_2 is unchanged): the
        // next L2 output goes to the HDD.
        for s in v
            .ssts
            .iter_mut()
            .filter(|s| s.level == 2 && s.device == 1)
            .take(2)
        {
            s.device = 0;
        }
        let t = p.tiering(&v);
        assert_eq!((t.level, t.reserved_zones, t.available_at_t()), (2, 9, 0));
        assert_eq!(p.devices_for(FileKind::Sst { level: 2 }, &v), vec![1]);
        // The compaction ends having written 2 of 3: D_2 back to 0.
        p.on_hint(
            0,
            &Hint::SstGenerated {
                job: 7,
                sst: 100,
                level: 2,
                expected_bytes: 0,
            },
        );
        p.on_hint(
            0,
            &Hint::CompactionFinished {
                job: 7,
                outputs: vec![99, 100],
                output_level: 2,
            },
        );
        assert_eq!(p.demand(2), 0);
    }

    /// With L0–L2 small, §3.3 makes L3 the tiering level and gives its SSTs the
    /// SSD zones left; the `hdd_from_level` ablation sends them to the HDD instead
    /// and changes nothing below.
    #[test]
    fn l3_ssts_take_ssd_zones_at_the_tiering_level_unless_the_ablation_bars_them() {
        // C_ssd = 18: L0 1, L1 1, L2 10 (all on the SSD), L3 100 on the HDD; 1 WAL
        // zone. Σ L0..L2 = 13 < 18 → t = 3, R = 5, none used yet.
        let mut ssts = vec![sst(1, 0, 0, 0), sst(2, 1, 0, 0)];
        ssts.extend((0..10).map(|i| sst(10 + i, 2, 0, 0)));
        ssts.extend((0..100).map(|i| sst(100 + i, 3, 1, 0)));
        let v = view(ssts, 1, 6);
        let mut p = WriteGuided::hhzs(false, false);
        let t = p.tiering(&v);
        assert_eq!((t.level, t.reserved_zones, t.available_at_t()), (3, 5, 5));
        assert_eq!(p.devices_for(FileKind::Sst { level: 3 }, &v), vec![0, 1]);
        assert_eq!(p.devices_for(FileKind::Sst { level: 4 }, &v), vec![1]);
        p.hdd_from_level = Some(3);
        assert_eq!(p.devices_for(FileKind::Sst { level: 3 }, &v), vec![1]);
        assert_eq!(p.devices_for(FileKind::Sst { level: 2 }, &v), vec![0, 1]);
        assert_eq!(p.devices_for(FileKind::Sst { level: 0 }, &v), vec![0, 1]);
    }

    #[test]
    fn obsolete_ssts_count_in_their_level_unless_excluded() {
        // C_ssd = 18. L0: 4 live SSD SSTs; L1: 6 live SSD SSTs plus 3 obsolete
        // (pinned) SSD SSTs and 2 obsolete HDD SSTs; L2: 3 on the SSD; D_0 = 2.
        let mut ssts: Vec<SstView> = (0..4).map(|i| sst(i, 0, 0, 0)).collect();
        ssts.extend((10..16).map(|i| sst(i, 1, 0, 0)));
        for (i, device) in [(20, 0), (21, 0), (22, 0), (23, 1), (24, 1)] {
            let mut s = sst(i, 1, device, 0);
            s.obsolete = true;
            s.compacting = true;
            ssts.push(s);
        }
        ssts.extend((30..33).map(|i| sst(i, 2, 0, 0)));
        let v = view(ssts, 2, 2);
        // H2Zone's accounting: A_1 = 11, Σ_{j≤1} = 4 + 2 + 11 = 17 < 18, so t = 2,
        // R = 1, and L2's 3 SSD zones leave nothing: L2 outputs go to the HDD.
        let h2zone = WriteGuided::hhzs(false, false);
        let t = h2zone.tiering(&v);
        assert_eq!((t.level, t.reserved_zones, t.available_at_t()), (2, 1, -2));
        assert_eq!(
            h2zone.clone().devices_for(FileKind::Sst { level: 2 }, &v),
            vec![1]
        );
        // Excluded: C_ssd = 18 − 3 pinned SSD zones = 15, A_1 = 6,
        // Σ_{j≤1} = 4 + 2 + 6 = 12 < 15, t = 2, R = 3, fully used by L2's 3 zones.
        let mut excl = WriteGuided::hhzs(false, false);
        excl.exclude_obsolete = true;
        let t = excl.tiering(&v);
        assert_eq!((t.level, t.reserved_zones, t.available_at_t()), (2, 3, 0));
        // One fewer L2 SST: L0–L2 fit in the 15 zones, t moves above L2 and L2
        // outputs go to the SSD; H2Zone's accounting still denies them.
        let mut v2 = v.clone();
        v2.ssts.retain(|s| s.file != 32);
        assert_eq!(excl.tiering(&v2).available_at_t(), 1);
        assert_eq!(
            excl.devices_for(FileKind::Sst { level: 2 }, &v2),
            vec![0, 1]
        );
        assert_eq!(h2zone.tiering(&v2).available_at_t(), -1);
    }

    #[test]
    fn capacity_migration_moves_the_lowest_priority_ssd_sst_down() {
        let mut p = WriteGuided::hhzs(true, false);
        // Everything fits (t beyond L3) except an L3 SST sitting above... make t = 1:
        // L0 = 10 + 2 WAL zones, L1 = 6 → 18 ≥ 18 at L1; an L2 SST on the SSD is above t.
        let mut ssts: Vec<SstView> = (0..10).map(|i| sst(i, 0, 0, 5)).collect();
        ssts.extend((10..16).map(|i| sst(i, 1, 0, 5)));
        ssts.push(sst(50, 2, 0, 1000));
        let mut compacting = sst(51, 2, 0, 0);
        compacting.compacting = true;
        ssts.push(compacting);
        let v = view(ssts, 2, 0);
        assert_eq!(p.tiering(&v).level, 1);
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 50, to: 1 })
        );
    }

    /// §3.4 moves the SSD's lowest-priority SST not held by a running compaction,
    /// even below L_t; H2Zone's guard (`MaybeCapacityCalibration`, the
    /// `h2zone_capacity_guard` ablation) moves only a misplaced one.
    #[test]
    fn capacity_migration_below_the_tiering_level_only_without_h2zones_guard() {
        // L0 = 10 SSTs + 2 WAL zones = 12, L1 = 7 SSD SSTs: 19 ≥ 18 → t = 1, R = 6,
        // and L1 holds 7 > 6 SSD zones, so capacity migration is due. Every L1 SST
        // is in a running compaction (never migrated, §3.4), so the lowest-priority
        // movable SSD SST is an L0 SST, below t.
        let mut ssts: Vec<SstView> = (0..10).map(|i| sst(i, 0, 0, 5)).collect();
        ssts.extend((10..17).map(|i| {
            let mut s = sst(i, 1, 0, 5);
            s.compacting = true;
            s
        }));
        let v = view(ssts.clone(), 2, 0);
        let mut paper = WriteGuided::hhzs(true, false);
        let t = paper.tiering(&v);
        assert_eq!((t.level, t.reserved_zones, t.ssd_zones_at_t), (1, 6, 7));
        assert!(matches!(
            paper.plan_migration(&v),
            Some(MigrationPlan::Move { file, to: 1 }) if file < 10
        ));
        assert_eq!(paper.capacity_moves_by_rank, [1, 0, 0]);
        let mut guarded = WriteGuided::hhzs(true, false);
        guarded.h2zone_capacity_guard = true;
        assert_eq!(guarded.plan_migration(&v), None);
        // One L1 SST free to move: L1 is over its reservation, so it goes down
        // under both rules.
        ssts[10].compacting = false;
        let v = view(ssts, 2, 0);
        for p in [&mut paper, &mut guarded] {
            assert_eq!(
                p.plan_migration(&v),
                Some(MigrationPlan::Move { file: 10, to: 1 })
            );
        }
        assert_eq!(guarded.capacity_moves_by_rank, [0, 1, 0]);
    }

    #[test]
    fn popularity_migration_moves_or_swaps_hot_hdd_ssts() {
        let mut p = WriteGuided::hhzs(true, false);
        let ssts = vec![
            sst(1, 1, 0, 10),
            sst(2, 3, 1, 500),
            sst(3, 3, 1, 100),
            sst(4, 2, 0, 1),
        ];
        let mut v = view(ssts, 0, 5);
        v.hdd_point_reads_per_s = 30.0; // below 57.5: no popularity migration
        assert_eq!(p.plan_migration(&v), None);
        v.hdd_point_reads_per_s = 80.0;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 2, to: 0 })
        );
        // No empty SSD zone: swap the hottest HDD SST with the lowest-priority SSD one
        // (an L3 SST ranks below L2, so no swap with L2; with an L3 SST on the SSD, yes).
        v.devices[0].free_zones = 0;
        v.devices[0].empty_zones = 0;
        assert_eq!(p.plan_migration(&v), None);
        v.ssts.push(sst(5, 3, 0, 1));
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Swap { up: 2, down: 5 })
        );
    }

    /// §3.4 weighs "the number of empty SSD zones" against the demand below L_t
    /// (H2Zone `GetSsdFreeZones`: unused non-WAL SSD zones). While compactions hold
    /// the SSD's active zones, the SSD still has those empty zones: the hot HDD SST
    /// is moved up (once a zone can be opened), not swapped with an SSD SST.
    #[test]
    fn popularity_migration_counts_empty_ssd_zones_at_the_active_zone_limit() {
        let mut p = WriteGuided::hhzs(true, false);
        let ssts = vec![sst(1, 2, 0, 10), sst(2, 2, 1, 500), sst(3, 3, 0, 1)];
        let mut v = view(ssts, 1, 3);
        v.hdd_point_reads_per_s = 80.0;
        // Active-zone limit reached: no zone can be opened this instant.
        v.devices[0].free_zones = 0;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 2, to: 0 })
        );
        // No empty zone at all: the swap with the lowest-priority SSD SST.
        v.devices[0].empty_zones = 0;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Swap { up: 2, down: 3 })
        );
    }

    #[test]
    fn popularity_migration_goes_before_capacity_migration_while_reads_bind() {
        // t = 1 (L0 10 + 2 WAL zones, L1 6): the L2 SST on the SSD is above t, so
        // capacity migration wants it down; 3 empty SSD zones exceed the demand of
        // the levels below t (D_0 = 2 WAL zones).
        let mut p = WriteGuided::hhzs(true, false);
        let mut v = t1_store_with(&[sst(50, 2, 0, 1), sst(60, 2, 1, 900)], 3);
        assert_eq!(p.tiering(&v).level, 1);
        // Writes only: capacity migration.
        v.hdd_point_reads_per_s = 10.0;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 50, to: 1 })
        );
        // Read-bound HDD: the hot HDD SST moves up first (H2Zone's order) ...
        v.hdd_point_reads_per_s = 80.0;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 60, to: 0 })
        );
        // ... which the old order (the ablation) did not do.
        p.capacity_first = true;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 50, to: 1 })
        );
        // With nothing to gain by popularity (no room, the HDD SST ranks below the
        // SSD's lowest), capacity migration runs even while reads bind.
        p.capacity_first = false;
        v.devices[0].free_zones = 0;
        v.devices[0].empty_zones = 0;
        v.ssts.retain(|s| s.file != 60);
        v.ssts.push(sst(61, 3, 1, 900));
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 50, to: 1 })
        );
    }

    /// H2Zone's `MaybeCapacityCalibration` does nothing in the first 32 s after a
    /// mount (the store sets `capacity_migration_held`); popularity migration has
    /// no such delay.
    #[test]
    fn capacity_migration_waits_while_held_and_popularity_migration_does_not() {
        let mut p = WriteGuided::hhzs(true, false);
        let mut v = t1_store_with(&[sst(50, 2, 0, 1), sst(60, 2, 1, 900)], 3);
        v.capacity_migration_held = true;
        assert_eq!(p.plan_migration(&v), None);
        v.hdd_point_reads_per_s = 80.0;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 60, to: 0 })
        );
        v.hdd_point_reads_per_s = 0.0;
        v.capacity_migration_held = false;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 50, to: 1 })
        );
    }

    fn hhzs_with_order(order: PriorityOrder) -> WriteGuided {
        let mut p = WriteGuided::hhzs(true, false);
        p.priority_order = order;
        p
    }

    /// t = 1 (ten L0 and six L1 SSTs on the SSD) and two unread L2 SSTs, files 50
    /// and 51, on the SSD above it: capacity migration must move one down.
    fn two_unread_l2_ssts_above_t1_on_the_ssd() -> StoreView {
        t1_store_with(&[sst(50, 2, 0, 0), sst(51, 2, 0, 0)], 0)
    }

    /// Ten L0 and six L1 SSTs on the SSD and two WAL zones (t = 1), then
    /// `extra`, with `free` free SSD zones.
    fn t1_store_with(extra: &[SstView], free: u32) -> StoreView {
        let mut ssts: Vec<SstView> = (0..10).map(|i| sst(i, 0, 0, 5)).collect();
        ssts.extend((10..16).map(|i| sst(i, 1, 0, 5)));
        ssts.extend_from_slice(extra);
        view(ssts, 2, free)
    }

    /// H2Zone's `ComparePriority` ranks an SST RocksDB trivially moved below an
    /// unmoved one of its level before it compares read counts ("not moved is
    /// better"). By default that rule decides only where §3.4's read rates tie
    /// (a load: no reads); `PriorityOrder::H2Zone` puts it before the rates.
    #[test]
    fn trivially_moved_ssts_rank_below_unmoved_ones_where_read_rates_tie() {
        let with = hhzs_with_order;
        // t = 1; two unread L2 SSTs on the SSD sit above it. Unmarked, the first
        // (file 50) moves down; with file 51 trivially moved, file 51 — except
        // under §3.4's order alone.
        let mut v = two_unread_l2_ssts_above_t1_on_the_ssd();
        let down = |file| Some(MigrationPlan::Move { file, to: 1 });
        assert_eq!(
            with(PriorityOrder::PaperThenTrivialMove).plan_migration(&v),
            down(50)
        );
        v.ssts.last_mut().unwrap().trivially_moved = true;
        assert_eq!(
            with(PriorityOrder::PaperThenTrivialMove).plan_migration(&v),
            down(51)
        );
        assert_eq!(with(PriorityOrder::H2Zone).plan_migration(&v), down(51));
        assert_eq!(with(PriorityOrder::Paper).plan_migration(&v), down(50));
        // The moved SST read far more often: §3.4 keeps it (the colder 50 goes);
        // H2Zone's order still takes the moved one.
        v.ssts.last_mut().unwrap().reads = 500;
        assert_eq!(
            with(PriorityOrder::PaperThenTrivialMove).plan_migration(&v),
            down(50)
        );
        assert_eq!(with(PriorityOrder::H2Zone).plan_migration(&v), down(51));
        assert_eq!(with(PriorityOrder::Paper).plan_migration(&v), down(50));
        // The level comes first under every order.
        let (mut moved_l1, unmoved_l2) = (sst(1, 1, 0, 0), sst(2, 2, 0, 900));
        moved_l1.trivially_moved = true;
        for order in [
            PriorityOrder::PaperThenTrivialMove,
            PriorityOrder::H2Zone,
            PriorityOrder::Paper,
        ] {
            assert!(higher_priority(&moved_l1, &unmoved_l2, order));
        }
        // Popularity migration: of two L3 HDD SSTs, H2Zone's order lifts the
        // unmoved one though the moved one is read more; the default the hotter.
        let (mut hot_moved, cool) = (sst(70, 3, 1, 900), sst(71, 3, 1, 300));
        hot_moved.trivially_moved = true;
        let mut u = view(vec![sst(1, 1, 0, 10), hot_moved, cool], 0, 5);
        u.hdd_point_reads_per_s = 80.0;
        let up = |file| Some(MigrationPlan::Move { file, to: 0 });
        assert_eq!(with(PriorityOrder::H2Zone).plan_migration(&u), up(71));
        assert_eq!(
            with(PriorityOrder::PaperThenTrivialMove).plan_migration(&u),
            up(70)
        );
    }

    /// The placebo orders (the rule reversed; ties to the newest SST) decide ties
    /// as documented, and the counter of capacity moves the order decided counts
    /// only moves §3.4's order alone would not have made.
    #[test]
    fn the_placebo_tie_breaks_and_the_decided_move_counter() {
        let with = hhzs_with_order;
        let mut v = two_unread_l2_ssts_above_t1_on_the_ssd();
        let down = |file| Some(MigrationPlan::Move { file, to: 1 });
        let n = v.ssts.len();
        v.ssts[n - 2].trivially_moved = true; // file 50
        let mut default = with(PriorityOrder::PaperThenTrivialMove);
        let mut reversed = with(PriorityOrder::PaperThenTrivialMoveFirst);
        let mut paper = with(PriorityOrder::Paper);
        assert_eq!(default.plan_migration(&v), down(50));
        assert_eq!(paper.plan_migration(&v), down(50));
        assert_eq!(reversed.plan_migration(&v), down(51));
        assert_eq!(default.capacity_moves_order_decided, 0);
        assert_eq!(paper.capacity_moves_order_decided, 0);
        assert_eq!(reversed.capacity_moves_order_decided, 1);
        v.ssts[n - 2].trivially_moved = false;
        v.ssts[n - 1].trivially_moved = true; // file 51
        assert_eq!(default.plan_migration(&v), down(51));
        assert_eq!(reversed.plan_migration(&v), down(50));
        assert_eq!(default.capacity_moves_order_decided, 1);
        assert_eq!(reversed.capacity_moves_order_decided, 1);
        assert!(default
            .describe(&v)
            .contains("other than §3.4's order alone 1"));
        // Ties to the newest SST: file 51 (the newer) goes down, marks ignored.
        let mut newest = with(PriorityOrder::PaperThenNewestDown);
        assert_eq!(newest.plan_migration(&v), down(51));
        v.ssts[n - 1].trivially_moved = false;
        assert_eq!(newest.plan_migration(&v), down(51));
        assert_eq!(with(PriorityOrder::Paper).plan_migration(&v), down(50));
    }

    #[test]
    fn ssts_read_about_equally_often_are_not_swapped() {
        // No empty SSD zone; an L3 SST on the HDD read 0.5 % more often than the
        // coldest L3 SST on the SSD ranks the same (H2Zone's 1 % tie), so no swap;
        // 2 % more often, a swap.
        let mut p = WriteGuided::hhzs(true, false);
        let mut v = view(vec![sst(1, 3, 0, 1000), sst(2, 3, 1, 1005)], 0, 0);
        v.hdd_point_reads_per_s = 80.0;
        assert_eq!(p.plan_migration(&v), None);
        v.ssts[1].reads = 1020;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Swap { up: 2, down: 1 })
        );
    }

    #[test]
    fn b3_plus_m_only_lifts_levels_below_three() {
        let mut p = WriteGuided::basic_with_migration(3);
        let mut v = view(vec![sst(1, 3, 1, 900), sst(2, 2, 1, 10)], 0, 5);
        v.hdd_point_reads_per_s = 80.0;
        assert_eq!(
            p.plan_migration(&v),
            Some(MigrationPlan::Move { file: 2, to: 0 })
        );
        assert_eq!(p.devices_for(FileKind::Sst { level: 3 }, &v), vec![1]);
        assert_eq!(p.name(), "B3+M");
    }
}
