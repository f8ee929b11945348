//! A target's experiments run under several seeds, each claim judged on the median
//! over the draws, with every draw's value in the claim's spread.
//!
//! A claim read off one seed rests on one draw of the generated workload: at scale 1,
//! seeds 1 / 2 / 3 of `reproduce mios` held 10 / 8 / 9 of its 28 claims, and two of
//! seed 1's holds were single-draw holds (docs/mios.md, "Eleventh session"). This is
//! the same rule `reproduce hhzs` follows for its loads (issue 14 item 5,
//! `hhzs_load_draws`): a claim holds on the median, and the report shows the range.
//!
//! The first draw runs with the user's `--seed`, so its figures and notes are the
//! single-seed run's; the others' seeds are chained from it with splitmix64, so two
//! nearby `--seed`s do not share draws.

use crate::parallel::{default_threads, map_in_order};
use crate::reproduce::{ProgressSink, ReproduceError};
use crate::reproduce_result::{median, Claim, ReproduceResult};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;
use zonelab_engine::rng::splitmix64;

/// The seeds of `count` draws from `seed`: `seed` itself, then each the splitmix64
/// of the one before it.
pub fn draw_seeds(seed: u64, count: usize) -> Vec<u64> {
    let mut seeds = Vec::with_capacity(count);
    let mut next = seed;
    for _ in 0..count {
        seeds.push(next);
        next = splitmix64(next ^ 0xd4a3_5eed);
    }
    seeds
}

/// Runs `run_one(seed, progress)` for every seed of [`draw_seeds`] side by side on
/// the machine's cores, reporting the draws' combined progress to `progress`, and
/// combines them with [`median_over_draws`].
pub fn run_draws(
    seed: u64,
    count: usize,
    run_one: impl Fn(u64, &mut dyn ProgressSink) -> Result<ReproduceResult, ReproduceError> + Sync,
    progress: &mut dyn ProgressSink,
) -> Result<ReproduceResult, ReproduceError> {
    if count == 0 {
        return Err(ReproduceError::Run(
            "draws: count must be at least 1".into(),
        ));
    }
    let seeds = draw_seeds(seed, count);
    if count == 1 {
        return run_one(seed, progress);
    }
    let shared = SharedProgress::new(count);
    let draws = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            map_in_order(
                &(0..count).collect::<Vec<_>>(),
                default_threads(),
                |&i| {
                    run_one(
                        seeds[i],
                        &mut DrawProgress {
                            shared: &shared,
                            draw: i,
                        },
                    )
                },
                |_| {},
            )
        });
        // The draws report from their own threads; this thread passes their sum on.
        while !worker.is_finished() {
            shared.report(progress);
            std::thread::sleep(Duration::from_millis(200));
        }
        shared.report(progress);
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })?;
    median_over_draws(draws, &seeds).map_err(ReproduceError::Run)
}

/// One result whose claims are the medians of `draws`' (each with its spread), and
/// whose figures and notes are the first draw's, after a note naming the draws.
/// Every draw must have the same claims in the same order.
pub fn median_over_draws(
    draws: Vec<ReproduceResult>,
    seeds: &[u64],
) -> Result<ReproduceResult, String> {
    let mut draws = draws.into_iter();
    let Some(first) = draws.next() else {
        return Err("draws: no draw to combine".into());
    };
    let rest: Vec<ReproduceResult> = draws.collect();
    for (k, other) in rest.iter().enumerate() {
        let ids = |r: &ReproduceResult| r.claims.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
        if ids(other) != ids(&first) {
            return Err(format!(
                "draws: draw {} (seed {}) has other claims than draw 1",
                k + 2,
                seeds.get(k + 1).copied().unwrap_or_default()
            ));
        }
    }
    let held: Vec<usize> = std::iter::once(&first)
        .chain(&rest)
        .map(|r| r.claims.iter().filter(|c| c.holds).count())
        .collect();
    let claims: Vec<Claim> = first
        .claims
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let values: Vec<f64> = std::iter::once(c.measured)
                .chain(rest.iter().map(|r| r.claims[i].measured))
                .collect();
            c.judged_on(median(&values)).with_spread(&values)
        })
        .collect();
    let mut notes = vec![format!(
        "Every claim is the median over {} draws of the generated workloads (seeds {}), with their range; claims held per draw: {} of {}. Figures and the notes below are the first draw's (seed {}).",
        held.len(),
        seeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
        held.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(" / "),
        first.claims.len(),
        first.seed
    )];
    notes.extend(first.notes);
    Ok(ReproduceResult {
        claims,
        notes,
        ..first
    })
}

/// Each draw's latest progress, summed for the user's sink.
struct SharedProgress {
    done: Vec<AtomicU64>,
    total: Vec<AtomicU64>,
    label: Mutex<String>,
    reported: AtomicU64,
}

impl SharedProgress {
    fn new(count: usize) -> Self {
        Self {
            done: (0..count).map(|_| AtomicU64::new(0)).collect(),
            total: (0..count).map(|_| AtomicU64::new(0)).collect(),
            label: Mutex::new(String::new()),
            reported: AtomicU64::new(u64::MAX),
        }
    }

    /// Passes the draws' summed progress on when it has moved. A draw that has not
    /// reported yet counts with the largest total seen, so the total is stable.
    fn report(&self, progress: &mut dyn ProgressSink) {
        let done: u64 = self.done.iter().map(|d| d.load(Ordering::Relaxed)).sum();
        let known = self.total.iter().map(|t| t.load(Ordering::Relaxed)).max();
        let total = known.unwrap_or(0) * self.total.len() as u64;
        if total == 0 || self.reported.swap(done, Ordering::Relaxed) == done {
            return;
        }
        let label = self.label.lock().map(|l| l.clone()).unwrap_or_default();
        progress.step(done.min(total), total, &label);
    }
}

/// The sink one draw reports to.
struct DrawProgress<'a> {
    shared: &'a SharedProgress,
    draw: usize,
}

impl ProgressSink for DrawProgress<'_> {
    fn step(&mut self, done: u64, total: u64, label: &str) {
        self.shared.done[self.draw].store(done, Ordering::Relaxed);
        self.shared.total[self.draw].store(total, Ordering::Relaxed);
        if let Ok(mut l) = self.shared.label.lock() {
            *l = format!("draw {}: {label}", self.draw + 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(seed: u64, measured: &[f64]) -> ReproduceResult {
        ReproduceResult {
            target: "t".into(),
            scale: 0.1,
            seed,
            version: "v".into(),
            claims: measured
                .iter()
                .enumerate()
                .map(|(i, &m)| Claim::within(&format!("c{i}"), "", 100.0, m, "%", 0.1))
                .collect(),
            figures: vec![],
            notes: vec![format!("note of seed {seed}")],
        }
    }

    #[test]
    fn draw_seeds_start_at_the_seed_and_do_not_overlap_for_nearby_seeds() {
        let a = draw_seeds(1, 3);
        let b = draw_seeds(2, 3);
        assert_eq!(a[0], 1);
        assert_eq!(b[0], 2);
        assert_eq!(a, draw_seeds(1, 3), "deterministic");
        for s in &a {
            assert!(!b.contains(s), "seed {s} drawn for both --seed 1 and 2");
        }
    }

    #[test]
    fn claims_are_judged_on_the_median_and_keep_every_draw() {
        // c0: one draw holds, the median does not; c1: one draw misses, the median holds.
        let draws = vec![
            result(1, &[105.0, 80.0]),
            result(7, &[130.0, 95.0]),
            result(9, &[125.0, 104.0]),
        ];
        let r = median_over_draws(draws, &[1, 7, 9]).unwrap();
        assert_eq!(r.seed, 1);
        assert_eq!((r.claims[0].measured, r.claims[0].holds), (125.0, false));
        assert_eq!((r.claims[1].measured, r.claims[1].holds), (95.0, true));
        let sp = r.claims[0].spread.as_ref().unwrap();
        assert_eq!((sp.min, sp.max, sp.draws), (105.0, 130.0, 3));
        assert_eq!(sp.values, vec![105.0, 130.0, 125.0]);
        assert!(r.notes[0].contains("seeds 1, 7, 9"), "{}", r.notes[0]);
        assert!(r.notes[0].contains("1 / 1 / 1 of 2"), "{}", r.notes[0]);
        assert_eq!(r.notes[1], "note of seed 1");
    }

    #[test]
    fn draws_with_other_claims_are_an_error() {
        let draws = vec![result(1, &[100.0, 100.0]), result(2, &[100.0])];
        let e = median_over_draws(draws, &[1, 2]).unwrap_err();
        assert!(e.contains("draw 2 (seed 2)"), "{e}");
        assert!(median_over_draws(vec![], &[]).is_err());
    }

    #[test]
    fn run_draws_gives_the_same_result_whatever_finishes_first() {
        struct Count(u64);
        impl ProgressSink for Count {
            fn step(&mut self, done: u64, total: u64, _: &str) {
                assert!(done <= total);
                self.0 = done;
            }
        }
        let run_one = |seed: u64, p: &mut dyn ProgressSink| {
            // Uneven work so the draws finish out of order.
            std::thread::sleep(Duration::from_millis(seed % 7 * 60));
            p.step(1, 2, "half");
            p.step(2, 2, "done");
            Ok(result(seed, &[(seed % 50) as f64 + 80.0]))
        };
        let mut sink = Count(0);
        let a = run_draws(3, 3, run_one, &mut sink).unwrap();
        assert_eq!(sink.0, 6, "every draw's last step reported");
        let b = run_draws(3, 3, run_one, &mut Count(0)).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.claims[0].spread.as_ref().unwrap().draws, 3);
        let one = run_draws(3, 1, run_one, &mut Count(0)).unwrap();
        assert_eq!(one, result(3, &[83.0]), "one draw is the plain run");
        assert!(run_draws(3, 0, run_one, &mut Count(0)).is_err());
    }
}
