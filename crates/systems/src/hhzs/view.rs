//! What placement and migration policies see of the store: per-device zone counts,
//! every SST with its level, device, reads, age and whether a compaction holds it,
//! and the HDD's recent point-read rate (HHZS §3.3, §3.4).

use crate::lsm::FileNo;
use zonelab_engine::Ns;

/// Zones of one device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceView {
    /// Empty zones SSTs may take now (0 when the active-zone limit is reached).
    pub free_zones: u32,
    /// Empty zones outside the WAL/cache pool, whether or not one can be opened
    /// right now: "the number of empty SSD zones" popularity migration weighs
    /// against the demand below L_t (§3.4; H2Zone `GetSsdFreeZones` counts unused
    /// non-WAL SSD zones and ignores the active-zone limit).
    pub empty_zones: u32,
    /// Zones SSTs may use in all (the budget minus WAL/cache zones).
    pub sst_zones: u32,
    pub zone_capacity_bytes: u64,
}

/// One SST as policies see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SstView {
    pub file: FileNo,
    pub level: u32,
    /// The device holding it (an SST lives on one device).
    pub device: usize,
    /// Its size in SSD zones: the zones it holds on the SSD (written or reserved),
    /// or would take there (1 for an SST that fits a zone) — what write-guided
    /// placement counts as the level's allocation (§3.3).
    pub zones: u32,
    pub reads: u64,
    pub age_ns: Ns,
    /// Selected by a running compaction (never migrated).
    pub compacting: bool,
    /// Consumed by a finished compaction, still on storage until RocksDB deletes
    /// it (pinned by an older running job): in no level, but holding its zones.
    pub obsolete: bool,
    /// Still being written.
    pub open: bool,
    /// Reached its level by a trivial move (H2Zone: `ZoneFile::trivial_moved`).
    pub trivially_moved: bool,
}

impl SstView {
    /// Reads per second of age (the read rate of §3.4).
    pub fn read_rate(&self) -> f64 {
        self.reads as f64 / (self.age_ns.max(1) as f64 / 1e9)
    }
}

/// A policy's view of the store at `now`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoreView {
    pub now: Ns,
    pub devices: Vec<DeviceView>,
    pub ssts: Vec<SstView>,
    /// Zones holding WAL data, on any device (HHZS's storage demand of L0,
    /// §3.3 step 1).
    pub wal_zones: u32,
    /// Point reads per second the HDD (device 1) served since the last look.
    pub hdd_point_reads_per_s: f64,
    /// Bytes per second read from and written to the SSD (device 0) since the
    /// last look — the "SSD throughput" AUTO tunes by (H2Zone
    /// `ZenStat::AddStatBytes` adds every read and write to `ssd_rwtotal`, which
    /// `ExtractThpt` turns into `ssd_thpt` for `CheckSpanDBMaxLevel`).
    pub ssd_io_bytes_per_s: f64,
    /// Capacity migration may not start yet: H2Zone's daemon starts it only 32 s
    /// (× scale) after the mount ([`super::H2ZONE_CAPACITY_MIGRATION_DELAY_NS`]).
    pub capacity_migration_held: bool,
}

/// A migration a policy asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MigrationPlan {
    /// Copy `file` to device `to`, then drop the old copy.
    Move { file: FileNo, to: usize },
    /// Move `down` from the SSD to the HDD, then `up` from the HDD to the SSD.
    Swap { up: FileNo, down: FileNo },
}

/// Read rates within this factor of each other rank the same (H2Zone
/// `ZenFS::ComparePriority`: `rt1 > rt2 * 1.01 ? 1 : rt1 * 1.01 < rt2 ? -1 : 0`),
/// so two SSTs of one level read about equally often are not swapped back and forth.
pub const READ_RATE_TIE_FACTOR: f64 = 1.01;

/// How SSTs of one level are ranked for migration (§3.4; lower level first
/// under every order).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PriorityOrder {
    /// §3.4's order, then H2Zone's rule where §3.4 leaves two SSTs equal: a higher
    /// read rate (by more than [`READ_RATE_TIE_FACTOR`]) first; between SSTs read
    /// about equally often (all of them during a load) one not trivially moved
    /// before one that was (H2Zone's "not moved is better").
    #[default]
    PaperThenTrivialMove,
    /// H2Zone's `ZenFS::ComparePriority` (`src/zenfs/fs/fs_mig_zenfs.cc`, lines
    /// 43–81): "not moved is better" (lines 61–64) before the read counts, so an
    /// unmoved SST outranks a trivially moved one read far more often — against
    /// §3.4's "(ii) X and Y are at the same level while X has a higher read rate".
    H2Zone,
    /// §3.4's order alone: trivial moves ignored.
    Paper,
    /// Placebo ablation, no source: §3.4's order, then the *reverse* of H2Zone's
    /// rule where read rates tie (a trivially moved SST before an unmoved one).
    /// It perturbs as many tie decisions as the default, in the other direction —
    /// what any change of the tie-break does to a load (docs/hhzs.md, "What the
    /// trivial-move rank costs").
    PaperThenTrivialMoveFirst,
    /// Ablation, no source: §3.4's order, then, where read rates tie, the newest
    /// SST (highest file number) ranks lowest — the reverse of the order ties
    /// otherwise fall to (the oldest SST first, H2Zone's `files_` order). Tests
    /// whether the age order of ties matters to read-latest workloads
    /// (docs/hhzs.md, "What the trivial-move rank costs").
    PaperThenNewestDown,
}

impl std::str::FromStr for PriorityOrder {
    type Err = String;

    /// The names the examples take: `default`, `paper`, `h2zone`, `moved-first`,
    /// `newest-down`.
    fn from_str(name: &str) -> Result<Self, String> {
        Ok(match name {
            "default" => Self::default(),
            "paper" => Self::Paper,
            "h2zone" => Self::H2Zone,
            "moved-first" => Self::PaperThenTrivialMoveFirst,
            "newest-down" => Self::PaperThenNewestDown,
            other => {
                return Err(format!(
                    "priority order `{other}` is not default, paper, h2zone, moved-first or newest-down"
                ))
            }
        })
    }
}

/// `true` when `a` has a higher priority than `b` under `order`.
pub fn higher_priority(a: &SstView, b: &SstView, order: PriorityOrder) -> bool {
    if a.level != b.level {
        return a.level < b.level;
    }
    let unmoved_first = a.trivially_moved != b.trivially_moved && b.trivially_moved;
    let moved_first = a.trivially_moved != b.trivially_moved && a.trivially_moved;
    let hotter = a.read_rate() > b.read_rate() * READ_RATE_TIE_FACTOR;
    let colder = b.read_rate() > a.read_rate() * READ_RATE_TIE_FACTOR;
    match order {
        PriorityOrder::Paper => hotter,
        PriorityOrder::H2Zone => match a.trivially_moved == b.trivially_moved {
            true => hotter,
            false => unmoved_first,
        },
        PriorityOrder::PaperThenTrivialMove => hotter || (!colder && unmoved_first),
        PriorityOrder::PaperThenTrivialMoveFirst => hotter || (!colder && moved_first),
        PriorityOrder::PaperThenNewestDown => hotter || (!colder && a.file < b.file),
    }
}

#[cfg(test)]
mod tests {
    use super::PriorityOrder;

    #[test]
    fn priority_orders_parse_by_name_and_a_bad_name_is_named() {
        assert_eq!("default".parse(), Ok(PriorityOrder::PaperThenTrivialMove));
        assert_eq!("paper".parse(), Ok(PriorityOrder::Paper));
        assert_eq!("h2zone".parse(), Ok(PriorityOrder::H2Zone));
        assert_eq!(
            "moved-first".parse(),
            Ok(PriorityOrder::PaperThenTrivialMoveFirst)
        );
        assert_eq!(
            "newest-down".parse(),
            Ok(PriorityOrder::PaperThenNewestDown)
        );
        let e = "sideways".parse::<PriorityOrder>().unwrap_err();
        assert!(e.contains("`sideways`") && e.contains("h2zone"), "{e}");
    }
}
