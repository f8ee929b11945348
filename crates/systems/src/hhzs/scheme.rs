//! The data management schemes of HHZS by name, each with the store set-up it
//! implies: the basic schemes Bh of §2.3, SpanDB's AUTO (§4.1), and Exp#2's
//! B3+M, P, P+M and P+M+C (= HHZS). One definition for the simulation
//! (`crates/experiments`) and the real-time store (`crates/zonefs`).

use super::{AutoPlacement, BasicPlacement, PlacementPolicy, WriteGuided};
use serde::Serialize;

/// A data management scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Scheme {
    /// Bh of §2.3: SSTs of levels below h on the SSD while it has room.
    Basic(u32),
    /// SpanDB's automated placement (§4.1).
    Auto,
    /// B3 with workload-aware migration (Exp#2).
    B3M,
    /// Write-guided placement (§3.3).
    P,
    /// P with migration (§3.4).
    PM,
    /// P + migration + caching (§3.5) = HHZS.
    Hhzs,
}

/// What a scheme needs of the store besides its policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemeStore {
    /// Keeps the WAL/cache zone pool (§3.2). The basic schemes keep §2.3's set-up
    /// (the WAL competes for SSD zones); AUTO reserves the pool as HHZS does (§4.1).
    pub wal_cache_pool: bool,
    /// Caches evicted blocks on the SSD (§3.5).
    pub caching: bool,
    /// Migrates SSTs (§3.4).
    pub migration: bool,
}

impl Scheme {
    /// The names `from_str` accepts, as help texts and errors list them.
    pub const NAMES: &'static str = "b1-b9, auto, b3+m, p, p+m, hhzs";
}

impl std::str::FromStr for Scheme {
    type Err = String;

    /// `b1`..`b9`, `auto`, `b3+m`, `p`, `p+m`, `hhzs` (or `p+m+c`), any case.
    fn from_str(s: &str) -> Result<Self, String> {
        let l = s.to_ascii_lowercase();
        Ok(match l.as_str() {
            "auto" => Scheme::Auto,
            "b3+m" => Scheme::B3M,
            "p" => Scheme::P,
            "p+m" => Scheme::PM,
            "hhzs" | "p+m+c" => Scheme::Hhzs,
            _ => match l.strip_prefix('b').and_then(|h| h.parse::<u32>().ok()) {
                Some(h) if (1..=9).contains(&h) => Scheme::Basic(h),
                _ => return Err(format!("unknown scheme `{s}` (known: {})", Scheme::NAMES)),
            },
        })
    }
}

impl Scheme {
    pub fn name(self) -> String {
        match self {
            Scheme::Basic(h) => format!("B{h}"),
            Scheme::Auto => "AUTO".into(),
            Scheme::B3M => "B3+M".into(),
            Scheme::P => "P".into(),
            Scheme::PM => "P+M".into(),
            Scheme::Hhzs => "HHZS".into(),
        }
    }

    /// A fresh placement policy for this scheme.
    pub fn policy(self) -> Box<dyn PlacementPolicy + Send> {
        match self {
            Scheme::Basic(h) => Box::new(BasicPlacement { h }),
            Scheme::Auto => Box::new(AutoPlacement::default()),
            Scheme::B3M => Box::new(WriteGuided::basic_with_migration(3)),
            Scheme::P => Box::new(WriteGuided::hhzs(false, false)),
            Scheme::PM => Box::new(WriteGuided::hhzs(true, false)),
            Scheme::Hhzs => Box::new(WriteGuided::hhzs(true, true)),
        }
    }

    /// What the scheme needs of the store.
    pub fn store(self) -> SchemeStore {
        let (wal_cache_pool, caching, migration) = match self {
            Scheme::Basic(_) => (false, false, false),
            Scheme::B3M => (false, false, true),
            Scheme::Auto | Scheme::P => (true, false, false),
            Scheme::PM => (true, false, true),
            Scheme::Hhzs => (true, true, true),
        };
        SchemeStore {
            wal_cache_pool,
            caching,
            migration,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_unknown_names_are_rejected() {
        let all = [
            Scheme::Basic(1),
            Scheme::Basic(4),
            Scheme::Auto,
            Scheme::B3M,
            Scheme::P,
            Scheme::PM,
            Scheme::Hhzs,
        ];
        for s in all {
            assert_eq!(s.name().parse::<Scheme>(), Ok(s));
        }
        assert_eq!("P+M+C".parse::<Scheme>(), Ok(Scheme::Hhzs));
        for bad in ["b0", "b10", "hhz", ""] {
            let e = bad.parse::<Scheme>().unwrap_err();
            assert!(e.contains(&format!("`{bad}`")), "{e}");
        }
        // Only HHZS caches; the basic schemes have no pool.
        assert!(Scheme::Hhzs.store().caching && !Scheme::PM.store().caching);
        assert!(!Scheme::Basic(3).store().wal_cache_pool && Scheme::Auto.store().wal_cache_pool);
    }

    #[test]
    fn metadata_files_go_where_the_authors_placement_functions_send_them() {
        // `CheckRotationalTrivial` / `CheckRotationalSpanDB`: the SSD; H2Zone's: the HDD.
        for s in [
            Scheme::Basic(3),
            Scheme::Basic(4),
            Scheme::Auto,
            Scheme::B3M,
        ] {
            assert_eq!(s.policy().metadata_files_device(), 0, "{}", s.name());
        }
        for s in [Scheme::P, Scheme::PM, Scheme::Hhzs] {
            assert_eq!(s.policy().metadata_files_device(), 1, "{}", s.name());
        }
    }
}
