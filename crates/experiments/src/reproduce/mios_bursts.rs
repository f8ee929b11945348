//! Sub-second burstiness as an ablation of the Pangu-like traces (issue #21,
//! docs/mios.md "Eleventh session"). The generator draws Poisson arrivals inside
//! one-second rate phases (Table 1 and Fig. 2 give rates per second, nothing finer);
//! this squeezes each window's arrivals into its first part, so the per-window
//! (hence per-second) counts and the order of requests stay as generated while the
//! rate inside a burst is `1 / on_fraction` times the window's.

use zonelab_engine::Ns;
use zonelab_systems::mios::node::UserRequest;

/// Squeezes, in order, the arrivals of each `period_ns` window (counted from the
/// first arrival) into the window's first `on_fraction`. `requests` must be sorted
/// by arrival, as the generator gives them; they stay sorted.
pub fn squeeze_into_bursts(
    requests: &mut [UserRequest],
    period_ns: Ns,
    on_fraction: f64,
) -> Result<(), String> {
    if period_ns == 0 {
        return Err("burst period must be above 0 ns".into());
    }
    if !(on_fraction > 0.0 && on_fraction <= 1.0) {
        return Err(format!(
            "burst on_fraction {on_fraction} is out of range (0, 1]"
        ));
    }
    let t0 = requests.first().map_or(0, |q| q.arrival_ns);
    for q in requests.iter_mut() {
        let since = q.arrival_ns - t0;
        let window_start = since / period_ns * period_ns;
        let into = ((since - window_start) as f64 * on_fraction) as Ns;
        q.arrival_ns = t0 + window_start + into;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_systems::mios::node::UserOp;

    fn arrivals(times_ns: &[Ns]) -> Vec<UserRequest> {
        times_ns
            .iter()
            .map(|&t| UserRequest {
                arrival_ns: t,
                op: UserOp::Write,
                offset_bytes: 0,
                size_bytes: 4096,
            })
            .collect()
    }

    fn times(reqs: &[UserRequest]) -> Vec<Ns> {
        reqs.iter().map(|q| q.arrival_ns).collect()
    }

    #[test]
    fn each_window_keeps_its_count_and_order_inside_its_first_part() {
        // Windows of 100 ns from t0 = 1000: [1000, 1100), [1100, 1200), ...
        let orig: Vec<Ns> = (0..50).map(|i| 1000 + i * 7).collect();
        let mut reqs = arrivals(&orig);
        squeeze_into_bursts(&mut reqs, 100, 0.25).unwrap();
        let got = times(&reqs);
        assert!(got.windows(2).all(|w| w[0] <= w[1]), "order kept: {got:?}");
        for (o, g) in orig.iter().zip(&got) {
            let window = (o - 1000) / 100;
            assert_eq!((g - 1000) / 100, window, "{o} stays in its window");
            assert!((g - 1000) % 100 < 25, "{o} -> {g} is in the first quarter");
        }
        assert_eq!(got[0], 1000, "the first arrival does not move");
    }

    #[test]
    fn an_on_fraction_of_one_changes_nothing() {
        let orig: Vec<Ns> = (0..20).map(|i| 5 + i * 13).collect();
        let mut reqs = arrivals(&orig);
        squeeze_into_bursts(&mut reqs, 40, 1.0).unwrap();
        assert_eq!(times(&reqs), orig);
    }

    #[test]
    fn bad_arguments_are_named_errors_and_change_nothing() {
        let orig = [10, 20, 30];
        for (period, on) in [(0, 0.5), (100, 0.0), (100, 1.5), (100, f64::NAN)] {
            let mut reqs = arrivals(&orig);
            let e = squeeze_into_bursts(&mut reqs, period, on).unwrap_err();
            assert!(e.contains("burst"), "{e}");
            assert_eq!(times(&reqs), orig, "nothing moved on a bad argument");
        }
    }
}
