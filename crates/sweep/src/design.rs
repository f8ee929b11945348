//! The points of a sweep's design. Deterministic: the same spec and design seed
//! give the same points. Random and Latin-hypercube draws use one RNG stream per
//! parameter (named after it), so adding a parameter leaves the others' values
//! alone. Range values are rounded to 6 significant digits so they read well in
//! tables and hash the same wherever they are computed.

use crate::spec::{Design, Domain, SweepSpec};
use rand::RngCore;
use serde_json::Value;
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{RngStream, RngStreams};
use zonelab_experiments::reproduce_result::round_sig;

/// One point: a value per swept parameter, in the spec's parameter order.
pub type Point = Vec<(String, Value)>;

/// The grid values of a domain: the list, or `steps` evenly spaced values of a
/// range (in log space for `log`), integers deduplicated.
pub fn grid_values(d: &Domain) -> Vec<Value> {
    match d {
        Domain::Values(v) => v.clone(),
        Domain::Range {
            min,
            max,
            integer,
            log,
            steps,
        } => {
            let n = steps.unwrap_or(1).max(1);
            let mut out: Vec<Value> = Vec::new();
            for i in 0..n {
                let f = if n == 1 {
                    0.0
                } else {
                    i as f64 / (n - 1) as f64
                };
                let x = if *log {
                    (min.ln() + f * (max.ln() - min.ln())).exp()
                } else {
                    min + f * (max - min)
                };
                let v = number(x.clamp(*min, *max), *integer);
                if !out.contains(&v) {
                    out.push(v);
                }
            }
            out
        }
    }
}

fn number(x: f64, integer: bool) -> Value {
    if integer {
        Value::from(x.round() as i64)
    } else {
        Value::from(round_sig(x))
    }
}

/// A uniform number in [0, 1).
fn unit(rng: &mut RngStream) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// The value at position `u` ∈ [0, 1) of a domain (uniform over its values, or
/// over the range: integers each equally likely, log ranges uniform in log space).
fn at_position(d: &Domain, u: f64) -> Value {
    match d {
        Domain::Values(v) => v[((u * v.len() as f64) as usize).min(v.len() - 1)].clone(),
        Domain::Range {
            min,
            max,
            integer,
            log,
            ..
        } => {
            let hi = if *integer { max + 1.0 } else { *max };
            let x = if *log {
                (min.ln() + u * (hi.ln() - min.ln())).exp()
            } else {
                min + u * (hi - min)
            };
            if *integer {
                Value::from((x.floor()).clamp(*min, *max) as i64)
            } else {
                number(x.clamp(*min, *max), false)
            }
        }
    }
}

/// Every point of the spec's design, in a fixed order (a grid varies its last
/// parameter fastest).
pub fn points(spec: &SweepSpec) -> Vec<Point> {
    let streams = RngStreams::new(spec.design_seed);
    let stream = |key: &str| streams.stream(&format!("sweep.param.{key}"));
    match spec.design {
        Design::Grid => {
            let mut out: Vec<Point> = vec![Vec::new()];
            for (key, d) in &spec.params {
                let values = grid_values(d);
                out = out
                    .into_iter()
                    .flat_map(|p| {
                        values.iter().map(move |v| {
                            let mut p = p.clone();
                            p.push((key.clone(), v.clone()));
                            p
                        })
                    })
                    .collect();
            }
            out
        }
        Design::Random { samples } => {
            let mut columns: Vec<Vec<Value>> = Vec::new();
            for (key, d) in sampled(spec) {
                let mut rng = stream(key);
                columns.push(
                    (0..samples)
                        .map(|_| at_position(d, unit(&mut rng)))
                        .collect(),
                );
            }
            transpose(spec, columns, samples)
        }
        Design::LatinHypercube { samples } => {
            let mut columns: Vec<Vec<Value>> = Vec::new();
            for (key, d) in sampled(spec) {
                let mut rng = stream(key);
                // Stratum k of n covers [k/n, (k+1)/n); sample i takes stratum perm[i].
                let mut perm: Vec<usize> = (0..samples).collect();
                for i in (1..samples).rev() {
                    let j = uniform_below(&mut rng, (i + 1) as u64) as usize;
                    perm.swap(i, j);
                }
                columns.push(
                    perm.iter()
                        .map(|&k| {
                            let u = (k as f64 + unit(&mut rng)) / samples as f64;
                            at_position(d, u)
                        })
                        .collect(),
                );
            }
            transpose(spec, columns, samples)
        }
    }
}

/// The parameters a random or Latin-hypercube design samples (not crossed).
fn sampled(spec: &SweepSpec) -> impl Iterator<Item = &(String, Domain)> {
    spec.params.iter().filter(|(k, _)| !spec.cross.contains(k))
}

/// Sampled columns into points, each crossed with every combination of the
/// crossed parameters' values; values in the spec's parameter order.
fn transpose(spec: &SweepSpec, columns: Vec<Vec<Value>>, samples: usize) -> Vec<Point> {
    let sampled_keys: Vec<&String> = sampled(spec).map(|(k, _)| k).collect();
    let mut crossed: Vec<Vec<(String, Value)>> = vec![Vec::new()];
    for (key, d) in spec.params.iter().filter(|(k, _)| spec.cross.contains(k)) {
        let values = grid_values(d);
        crossed = crossed
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((key.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    let mut out = Vec::new();
    for i in 0..samples {
        for c in &crossed {
            let value = |key: &String| {
                sampled_keys
                    .iter()
                    .position(|k| *k == key)
                    .map(|j| columns[j][i].clone())
                    .or_else(|| c.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
                    .expect("every parameter is sampled or crossed")
            };
            out.push(
                spec.params
                    .iter()
                    .map(|(key, _)| (key.clone(), value(key)))
                    .collect(),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(v: Value) -> SweepSpec {
        SweepSpec::from_json(v, "t").unwrap()
    }

    #[test]
    fn grids_vary_the_last_parameter_fastest_and_space_ranges_evenly() {
        let s = spec(json!({"sweep": {"kind": "bench"},
            "params": {"a": ["x", "y"], "b": {"min": 1, "max": 100, "log": true, "steps": 3}}}));
        let p = points(&s);
        assert_eq!(p.len(), 6);
        assert_eq!(
            p[0],
            vec![("a".into(), json!("x")), ("b".into(), json!(1.0))]
        );
        assert_eq!(p[1][1].1, json!(10.0));
        assert_eq!(p[2][1].1, json!(100.0));
        assert_eq!(p[3][0].1, json!("y"));
        let ints = grid_values(&Domain::Range {
            min: 1.0,
            max: 4.0,
            integer: true,
            log: true,
            steps: Some(6),
        });
        assert_eq!(ints, vec![json!(1), json!(2), json!(3), json!(4)]);
    }

    #[test]
    fn latin_hypercube_uses_every_stratum_once() {
        let n = 10;
        let s = spec(
            json!({"sweep": {"kind": "bench", "design": "lhs", "samples": n, "design_seed": 7},
            "params": {"x": {"min": 0.0, "max": 1.0}, "k": {"min": 0, "max": 9, "integer": true}}}),
        );
        let p = points(&s);
        let mut strata: Vec<usize> = p
            .iter()
            .map(|pt| (pt[1].1.as_f64().unwrap() * n as f64) as usize)
            .collect();
        strata.sort();
        assert_eq!(strata, (0..n).collect::<Vec<_>>());
        let mut ks: Vec<i64> = p.iter().map(|pt| pt[0].1.as_i64().unwrap()).collect();
        ks.sort();
        assert_eq!(
            ks,
            (0..10).collect::<Vec<_>>(),
            "10 integers in 10 strata: each once"
        );
        assert_eq!(points(&s), p, "deterministic");
    }

    #[test]
    fn crossed_parameters_run_with_every_sampled_point() {
        let s = spec(
            json!({"sweep": {"kind": "ycsb", "design": "lhs", "samples": 3, "cross": ["scheme"]},
            "params": {"alpha": {"min": 0.5, "max": 1.5}, "scheme": ["b3", "hhzs"], "ssd_zones": {"min": 10, "max": 40, "integer": true}}}),
        );
        let p = points(&s);
        assert_eq!(p.len(), 6);
        assert_eq!(s.points_count(), 6);
        for pair in p.chunks(2) {
            assert_eq!(pair[0][1].1, json!("b3"));
            assert_eq!(pair[1][1].1, json!("hhzs"));
            assert_eq!(pair[0][0], pair[1][0], "same alpha for both schemes");
            assert_eq!(pair[0][2], pair[1][2], "same zones for both schemes");
        }
    }

    #[test]
    fn random_draws_stay_in_range_and_a_new_parameter_leaves_others_alone() {
        let a = spec(
            json!({"sweep": {"kind": "bench", "design": "random", "samples": 50},
            "params": {"x": {"min": 2.0, "max": 3.0}, "w": ["a", "b", "c"]}}),
        );
        let b = spec(
            json!({"sweep": {"kind": "bench", "design": "random", "samples": 50},
            "params": {"x": {"min": 2.0, "max": 3.0}, "w": ["a", "b", "c"], "y": {"min": 0, "max": 1}}}),
        );
        let (pa, pb) = (points(&a), points(&b));
        for (p, q) in pa.iter().zip(&pb) {
            let x = p
                .iter()
                .find(|(k, _)| k == "x")
                .unwrap()
                .1
                .as_f64()
                .unwrap();
            assert!((2.0..=3.0).contains(&x));
            assert_eq!(
                p.iter().find(|(k, _)| k == "x"),
                q.iter().find(|(k, _)| k == "x")
            );
        }
        let letters: std::collections::BTreeSet<_> =
            pa.iter().map(|p| p[0].1.to_string()).collect();
        assert_eq!(letters.len(), 3, "every value drawn in 50 samples");
    }
}
