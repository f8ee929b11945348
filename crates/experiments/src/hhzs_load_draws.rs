//! How `reproduce hhzs` draws each scheme's load several times (issue 14 item 5:
//! "one load is one draw").
//!
//! The paper loads before every workload (`papers/hhzs.txt` §4.1; H2Zone's
//! `scripts/single_exp.sh` runs `ycsb load` then `ycsb run`), so each of its results
//! rests on a load of its own, and two real loads differ: the HDD's platters stand
//! wherever they stand when a request reaches the head. The drive's spindle and the
//! host's clock run from independent crystals some tens of ppm apart, so at 7,200 rpm
//! their relative angle slips a whole revolution within minutes, and the rotational
//! wait of any request of a long load is not repeatable between runs. The simulated
//! disk is exact instead (`DiskMechanics`: angle = time mod rotation), so without a
//! draw every load of a scheme is the same load.
//!
//! Three ways to draw, each seeded by `--seed`:
//! - [`LoadDraws::IndependentLoads`] (the default, 3 loads): each load runs from
//!   the empty store to the paper's record count with a spindle phase of its own.
//! - [`LoadDraws::Branches`]: one load to a branch point, then branches from forks
//!   of that state, each with a spindle phase of its own, to the record count. A
//!   measurement, not a saving: branches from 50 % or 90 % of the load barely
//!   diverge (`hhzs_load_draws`, docs/hhzs.md), because a phase changes rotational
//!   waits, which move the LSM tree's compactions only over a long run.
//! - [`LoadDraws::EndPointsOfOneLoad`] (the ablation, the behaviour before): one
//!   load, stopped at `count` record counts within ±`spread` of the paper's.
//!   Its end points share the whole trajectory up to the first of them, and they
//!   vary what the paper held fixed: how much was loaded.

use zonelab_engine::rng::splitmix64;
use zonelab_engine::Ns;

/// Draws of a load per (scheme, SSD size) in `reproduce hhzs`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadDraws {
    /// `count` loads from the empty store, each with a spindle phase of its own:
    /// the first to the record count, the others to record counts drawn within
    /// ±`record_spread` (a fraction) of it (0: the paper's procedure repeated).
    IndependentLoads { count: usize, record_spread: f64 },
    /// One load to `branch_fraction` of the record count, then `count` branches,
    /// each with its own spindle phase, to the record count (fraction 0 is
    /// `IndependentLoads`).
    Branches { count: usize, branch_fraction: f64 },
    /// One load stopped at `count` end points: the record count, and `count − 1`
    /// drawn within ±`spread` (a fraction) of it.
    EndPointsOfOneLoad { count: usize, spread: f64 },
}

impl Default for LoadDraws {
    /// Three independent loads: `hhzs_load_draws` measured that their medians give
    /// the same verdicts across seeds far more often than 5 end points of one load
    /// (docs/hhzs.md, "One load is one draw"), and that 3 draws give the verdicts
    /// of 5 on 62–66 of 64–66 claims at 1.6× less load time.
    fn default() -> Self {
        LoadDraws::IndependentLoads {
            count: 3,
            record_spread: 0.0,
        }
    }
}

impl LoadDraws {
    /// The same kind of draw, `count` times.
    pub fn with_count(self, count: usize) -> Self {
        match self {
            LoadDraws::IndependentLoads { record_spread, .. } => LoadDraws::IndependentLoads {
                count,
                record_spread,
            },
            LoadDraws::Branches {
                branch_fraction, ..
            } => LoadDraws::Branches {
                count,
                branch_fraction,
            },
            LoadDraws::EndPointsOfOneLoad { spread, .. } => {
                LoadDraws::EndPointsOfOneLoad { count, spread }
            }
        }
    }

    pub fn count(&self) -> usize {
        match *self {
            LoadDraws::IndependentLoads { count, .. }
            | LoadDraws::Branches { count, .. }
            | LoadDraws::EndPointsOfOneLoad { count, .. } => count,
        }
    }

    /// Checks the parameters: at least one draw, a fraction in (0, 1), a spread in
    /// [0, 0.5).
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            _ if self.count() == 0 => Err("load draws: count must be at least 1".into()),
            LoadDraws::Branches {
                branch_fraction, ..
            } if !(0.0..1.0).contains(&branch_fraction) => Err(format!(
                "load draws: branch fraction {branch_fraction} is not in [0, 1)"
            )),
            LoadDraws::EndPointsOfOneLoad { spread, .. }
            | LoadDraws::IndependentLoads {
                record_spread: spread,
                ..
            } if !(0.0..0.5).contains(&spread) => {
                Err(format!("load draws: spread {spread} is not in [0, 0.5)"))
            }
            _ => Ok(()),
        }
    }

    /// Short description for the notes of a run.
    pub fn describe(&self) -> String {
        match *self {
            LoadDraws::Branches {
                count,
                branch_fraction,
            } if branch_fraction == 0.0 => LoadDraws::IndependentLoads {
                count,
                record_spread: 0.0,
            }
            .describe(),
            LoadDraws::IndependentLoads {
                count,
                record_spread,
            } if record_spread > 0.0 => format!(
                "{count} independent loads, each with a spindle phase of its own, to record counts within ±{:.1} %",
                100.0 * record_spread
            ),
            LoadDraws::IndependentLoads { count, .. } => {
                format!("{count} independent loads, each with a spindle phase of its own")
            }
            LoadDraws::Branches {
                count,
                branch_fraction,
            } => format!(
                "{count} branches of one load from {:.0} % of its records, each with a spindle phase of its own",
                100.0 * branch_fraction
            ),
            LoadDraws::EndPointsOfOneLoad { count, spread } => format!(
                "one load stopped at {count} end points within ±{:.1} % of the record count",
                100.0 * spread
            ),
        }
    }
}

/// Parses `independent:COUNT[:SPREAD]`, `branches:COUNT:FRACTION` or
/// `endpoints:COUNT:SPREAD` (the examples' DRAWS argument), checked by
/// [`LoadDraws::validate`].
impl std::str::FromStr for LoadDraws {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            format!(
                "load draws `{s}`: expected independent:COUNT[:SPREAD], branches:COUNT:FRACTION or endpoints:COUNT:SPREAD"
            )
        };
        let parts: Vec<&str> = s.split(':').collect();
        let count: usize = parts.get(1).ok_or_else(bad)?.parse().map_err(|_| bad())?;
        let x: f64 = match (parts[0], parts.len()) {
            ("independent", 2) => 0.0,
            (_, 3) => parts[2].parse().map_err(|_| bad())?,
            _ => return Err(bad()),
        };
        let draws = match parts[0] {
            "independent" => LoadDraws::IndependentLoads {
                count,
                record_spread: x,
            },
            "branches" => LoadDraws::Branches {
                count,
                branch_fraction: x,
            },
            "endpoints" => LoadDraws::EndPointsOfOneLoad { count, spread: x },
            _ => return Err(bad()),
        };
        draws.validate()?;
        Ok(draws)
    }
}

/// Where one draw of a load stops and how the workloads from there draw their
/// operations: `records` loaded, then every workload with `record_count = records`
/// and its run phase seeded with `run_seed`. A branch runs its part of the load
/// with the spindle phase `spindle_phase_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndPoint {
    pub records: u64,
    pub run_seed: u64,
    pub spindle_phase_ns: Ns,
}

/// Everything a load job needs to draw its load: the spindle phase the load starts
/// with, where it branches (if it does) and its end points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadPlan {
    pub load_spindle_phase_ns: Ns,
    /// Records loaded before the branches fork (0: independent loads); `None`:
    /// one load, stopped at every end point in turn.
    pub branch_at_records: Option<u64>,
    pub ends: Vec<EndPoint>,
}

/// A spindle phase drawn uniformly within one second: many revolutions of any
/// disk, so uniform over its angle.
fn phase_draw(x: u64) -> Ns {
    splitmix64(x) % 1_000_000_000
}

impl LoadPlan {
    /// The plan of `draws` for loads of `records` records, drawn from `seed`. The
    /// first draw's run seed is `seed` itself; the same plan serves every scheme,
    /// so ratios between schemes are paired draw by draw.
    pub fn new(draws: LoadDraws, records: u64, seed: u64) -> Self {
        let load_spindle_phase_ns = phase_draw(seed ^ 0x5a1d_1e00);
        let mut x = seed;
        let mut next = || {
            x = splitmix64(x ^ 0x5eed_e4d5);
            x
        };
        // Each load draws its own spindle phase; the end points of one load share
        // the load's. The end points keep the draws they had before the other
        // kinds existed: the first at the record count with `seed`, then one each.
        let (count, spread, first_draw, shared_phase_ns) = match draws {
            LoadDraws::IndependentLoads {
                count,
                record_spread,
            } => (count, record_spread, splitmix64(seed ^ 0xb4a9_c0de), None),
            LoadDraws::Branches { count, .. } => (count, 0.0, splitmix64(seed ^ 0xb4a9_c0de), None),
            LoadDraws::EndPointsOfOneLoad { count, spread } => {
                (count, spread, seed, Some(load_spindle_phase_ns))
            }
        };
        let mut ends = Vec::with_capacity(count);
        for i in 0..count {
            let r = if i == 0 { first_draw } else { next() };
            let u = (r >> 11) as f64 / (1u64 << 53) as f64;
            let delta = if i == 0 {
                0.0
            } else {
                spread * (2.0 * u - 1.0)
            };
            ends.push(EndPoint {
                records: ((records as f64) * (1.0 + delta)).round().max(1.0) as u64,
                run_seed: if i == 0 { seed } else { splitmix64(r) },
                spindle_phase_ns: shared_phase_ns.unwrap_or_else(|| phase_draw(r ^ 0x0b7a_4c4e)),
            });
        }
        let branch_at_records = match draws {
            LoadDraws::IndependentLoads { .. } => Some(0),
            LoadDraws::Branches {
                branch_fraction, ..
            } => Some(((records as f64 * branch_fraction).round() as u64).min(records)),
            LoadDraws::EndPointsOfOneLoad { .. } => None,
        };
        LoadPlan {
            load_spindle_phase_ns,
            branch_at_records,
            ends,
        }
    }

    /// One load to `records` with `seed`'s spindle phase and run seed (no
    /// branches): `zonelab ycsb`'s single run.
    pub fn single(records: u64, seed: u64) -> Self {
        LoadPlan::new(
            LoadDraws::EndPointsOfOneLoad {
                count: 1,
                spread: 0.0,
            },
            records,
            seed,
        )
    }

    /// The run seeds of the end points, for the notes.
    pub fn run_seeds(&self) -> Vec<u64> {
        self.ends.iter().map(|e| e.run_seed).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_count_keeps_the_kind_of_draw() {
        let cases = [
            LoadDraws::default(),
            LoadDraws::Branches {
                count: 3,
                branch_fraction: 0.5,
            },
            LoadDraws::EndPointsOfOneLoad {
                count: 5,
                spread: 0.02,
            },
        ];
        for d in cases {
            let one = d.with_count(1);
            assert_eq!(one.count(), 1);
            assert_eq!(one.with_count(d.count()), d, "only the count changes");
        }
    }

    #[test]
    fn end_points_of_one_load_spread_around_the_record_count_and_follow_the_seed() {
        let draws = LoadDraws::EndPointsOfOneLoad {
            count: 5,
            spread: 0.02,
        };
        let a = LoadPlan::new(draws, 1_000_000, 7);
        assert_eq!(a.branch_at_records, None);
        assert_eq!((a.ends[0].records, a.ends[0].run_seed), (1_000_000, 7));
        assert!(a
            .ends
            .iter()
            .all(|e| (980_000..=1_020_000).contains(&e.records)));
        let distinct: std::collections::BTreeSet<u64> = a.ends.iter().map(|e| e.records).collect();
        assert_eq!(distinct.len(), 5);
        // One load: every end point shares its spindle phase.
        assert!(a
            .ends
            .iter()
            .all(|e| e.spindle_phase_ns == a.load_spindle_phase_ns));
        assert_eq!(a, LoadPlan::new(draws, 1_000_000, 7));
        let b = LoadPlan::new(draws, 1_000_000, 8);
        assert_ne!(a.ends[1..], b.ends[1..]);
        assert_ne!(a.load_spindle_phase_ns, b.load_spindle_phase_ns);
    }

    #[test]
    fn branches_end_at_the_record_count_with_phases_of_their_own() {
        let draws = LoadDraws::Branches {
            count: 5,
            branch_fraction: 0.9,
        };
        let a = LoadPlan::new(draws, 1_000_000, 7);
        assert_eq!(a.branch_at_records, Some(900_000));
        assert_eq!(a.ends.len(), 5);
        assert!(a.ends.iter().all(|e| e.records == 1_000_000));
        assert_eq!(a.ends[0].run_seed, 7);
        let phases: std::collections::BTreeSet<Ns> =
            a.ends.iter().map(|e| e.spindle_phase_ns).collect();
        assert_eq!(phases.len(), 5);
        assert!(phases.iter().all(|&p| p < 1_000_000_000));
        assert_eq!(a, LoadPlan::new(draws, 1_000_000, 7));
        assert_ne!(a, LoadPlan::new(draws, 1_000_000, 8));
    }

    #[test]
    fn independent_loads_branch_at_the_empty_store_and_share_their_first_draws() {
        let three = LoadPlan::new(LoadDraws::default(), 1_000_000, 7);
        assert_eq!(
            LoadDraws::default(),
            LoadDraws::IndependentLoads {
                count: 3,
                record_spread: 0.0,
            }
        );
        assert_eq!(three.branch_at_records, Some(0));
        assert!(three.ends.iter().all(|e| e.records == 1_000_000));
        // Five loads begin with the same three: a plan can grow without redrawing.
        let five = LoadPlan::new(
            LoadDraws::IndependentLoads {
                count: 5,
                record_spread: 0.0,
            },
            1_000_000,
            7,
        );
        assert_eq!(five.ends[..3], three.ends[..]);
        let as_branches = LoadDraws::Branches {
            count: 3,
            branch_fraction: 0.0,
        };
        assert_eq!(LoadPlan::new(as_branches, 1_000_000, 7), three);
    }

    #[test]
    fn independent_loads_may_draw_their_record_counts_too() {
        let draws = LoadDraws::IndependentLoads {
            count: 5,
            record_spread: 0.02,
        };
        let a = LoadPlan::new(draws, 1_000_000, 7);
        assert_eq!(a.branch_at_records, Some(0));
        assert_eq!(a.ends[0].records, 1_000_000);
        assert!(a
            .ends
            .iter()
            .all(|e| (980_000..=1_020_000).contains(&e.records)));
        let records: std::collections::BTreeSet<u64> = a.ends.iter().map(|e| e.records).collect();
        assert_eq!(records.len(), 5);
        // The same phases and run seeds as without the spread: only the counts move.
        let fixed = LoadPlan::new(
            LoadDraws::IndependentLoads {
                count: 5,
                record_spread: 0.0,
            },
            1_000_000,
            7,
        );
        for (x, y) in a.ends.iter().zip(&fixed.ends) {
            assert_eq!(
                (x.run_seed, x.spindle_phase_ns),
                (y.run_seed, y.spindle_phase_ns)
            );
        }
        assert!(LoadDraws::IndependentLoads {
            count: 3,
            record_spread: 0.6
        }
        .validate()
        .is_err());
    }

    #[test]
    fn draws_parse_from_their_names_and_bad_ones_are_named() {
        assert_eq!("independent:3".parse(), Ok(LoadDraws::default()));
        assert_eq!(
            "endpoints:5:0.02".parse(),
            Ok(LoadDraws::EndPointsOfOneLoad {
                count: 5,
                spread: 0.02
            })
        );
        assert_eq!(
            "branches:5:0.9".parse(),
            Ok(LoadDraws::Branches {
                count: 5,
                branch_fraction: 0.9
            })
        );
        assert_eq!(
            "independent:3:0.02".parse(),
            Ok(LoadDraws::IndependentLoads {
                count: 3,
                record_spread: 0.02
            })
        );
        for bad in [
            "",
            "independent",
            "independent:x",
            "branches:5",
            "loads:3:0.1",
            "endpoints:5:a",
        ] {
            let e = bad.parse::<LoadDraws>().unwrap_err();
            assert!(
                e.contains(&format!("`{bad}`")) && e.contains("expected"),
                "{e}"
            );
        }
        let e = "branches:5:1.5".parse::<LoadDraws>().unwrap_err();
        assert!(e.contains("branch fraction 1.5"), "{e}");
    }

    #[test]
    fn bad_draw_parameters_are_named() {
        let bad = [
            LoadDraws::Branches {
                count: 0,
                branch_fraction: 0.9,
            },
            LoadDraws::Branches {
                count: 3,
                branch_fraction: 1.0,
            },
            LoadDraws::EndPointsOfOneLoad {
                count: 3,
                spread: 0.7,
            },
        ];
        let errors: Vec<String> = bad.iter().map(|d| d.validate().unwrap_err()).collect();
        assert!(errors[0].contains("count"), "{}", errors[0]);
        assert!(errors[1].contains("branch fraction 1"), "{}", errors[1]);
        assert!(errors[2].contains("spread 0.7"), "{}", errors[2]);
        assert!(LoadDraws::default().validate().is_ok());
    }
}
