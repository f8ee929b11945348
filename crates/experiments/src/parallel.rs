//! Runs independent simulations on the machine's cores and hands back their
//! results in input order, so what a target writes does not depend on how many
//! threads ran it or which finished first. Used by the HHZS load tasks
//! (`hhzs_eval::run_load_jobs`) and the MIOS per-node runs (`reproduce::mios`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Threads to use: the machine's available parallelism (1 if unknown).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` over `items` on up to `threads` threads; results in `items`' order.
/// `on_done(i)` runs on the calling thread as item `i` finishes (for progress).
/// Every item runs; if any fails, the error of the first failed item in input
/// order is returned.
pub fn map_in_order<T, R, E>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> Result<R, E> + Sync,
    mut on_done: impl FnMut(usize),
) -> Result<Vec<R>, E>
where
    T: Sync,
    R: Send,
    E: Send,
{
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<Result<R, E>>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            let tx = tx.clone();
            let (next, f) = (&next, &f);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                if tx.send((i, f(item))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            on_done(i);
            slots[i] = Some(r);
        }
    });
    // A worker that panicked has propagated out of the scope above, so every
    // slot is filled here.
    slots
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn results_come_back_in_input_order_whatever_the_thread_count() {
        let items: Vec<u64> = (0..40).collect();
        // Uneven work so that items finish out of order on several threads.
        let work = |&x: &u64| -> Result<u64, String> {
            let spins = (40 - x) * 20_000;
            let mut acc = x;
            for k in 0..spins {
                acc = acc.wrapping_mul(6364136223846793005).wrapping_add(k);
            }
            std::hint::black_box(acc);
            Ok(x * x)
        };
        let want: Vec<u64> = items.iter().map(|x| x * x).collect();
        for threads in [1, 2, 3, 8] {
            let mut seen = BTreeSet::new();
            let got = map_in_order(&items, threads, work, |i| {
                assert!(seen.insert(i), "item {i} reported twice");
            })
            .unwrap();
            assert_eq!(got, want, "{threads} threads");
            assert_eq!(seen.len(), items.len(), "every item reported done");
        }
    }

    #[test]
    fn the_first_failure_in_input_order_is_returned() {
        let items: Vec<u32> = (0..10).collect();
        let r = map_in_order(
            &items,
            2,
            |&x| {
                if x == 3 || x == 7 {
                    Err(format!("item {x} failed"))
                } else {
                    Ok(x)
                }
            },
            |_| {},
        );
        assert_eq!(r, Err("item 3 failed".to_string()));
    }

    #[test]
    fn no_items_give_no_results() {
        let items: Vec<u8> = Vec::new();
        let r: Result<Vec<u8>, String> = map_in_order(&items, 4, |&x| Ok(x), |_| {});
        assert_eq!(r, Ok(vec![]));
    }
}
