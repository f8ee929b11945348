//! Placement schemes by name, with the store set-up each implies — the same
//! schemes as the simulation's HHZS evaluation (`crates/experiments/src/hhzs_eval.rs`,
//! HHZS §2.3, §3.3–§3.5, §4.1).

use zonelab_systems::hhzs::{AutoPlacement, BasicPlacement, PlacementPolicy, WriteGuided};

/// A placement scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Basic(u32),
    Auto,
    B3M,
    P,
    PM,
    Hhzs,
}

/// What a scheme needs of the store.
pub struct SchemeSetup {
    pub policy: Box<dyn PlacementPolicy + Send>,
    /// Uses the WAL/cache zone pool (§3.2).
    pub wal_pool: bool,
    pub caching: bool,
    pub migration: bool,
}

impl Scheme {
    /// `hhzs` (or `p+m+c`), `p+m`, `p`, `b3+m`, `auto`, `b1`..`b9`; any case.
    pub fn parse(s: &str) -> Result<Scheme, String> {
        let l = s.to_ascii_lowercase();
        Ok(match l.as_str() {
            "hhzs" | "p+m+c" => Scheme::Hhzs,
            "p+m" => Scheme::PM,
            "p" => Scheme::P,
            "b3+m" => Scheme::B3M,
            "auto" => Scheme::Auto,
            _ => match l.strip_prefix('b').and_then(|h| h.parse::<u32>().ok()) {
                Some(h) if (1..=9).contains(&h) => Scheme::Basic(h),
                _ => {
                    return Err(format!(
                        "`policy` = \"{s}\" is unknown (allowed: hhzs, p+m, p, b3+m, auto, b1..b9)"
                    ))
                }
            },
        })
    }

    /// The policy object and store set-up (as `Scheme::store_config` of the
    /// simulation: the basic schemes keep §2.3's set-up without the WAL/cache pool).
    pub fn setup(self) -> SchemeSetup {
        let (policy, wal_pool, caching, migration): (Box<dyn PlacementPolicy + Send>, _, _, _) =
            match self {
                Scheme::Basic(h) => (Box::new(BasicPlacement { h }), false, false, false),
                Scheme::B3M => (
                    Box::new(WriteGuided::basic_with_migration(3)),
                    false,
                    false,
                    true,
                ),
                Scheme::Auto => (Box::new(AutoPlacement::default()), true, false, false),
                Scheme::P => (
                    Box::new(WriteGuided::hhzs(false, false)),
                    true,
                    false,
                    false,
                ),
                Scheme::PM => (Box::new(WriteGuided::hhzs(true, false)), true, false, true),
                Scheme::Hhzs => (Box::new(WriteGuided::hhzs(true, true)), true, true, true),
            };
        SchemeSetup {
            policy,
            wal_pool,
            caching,
            migration,
        }
    }
}
