//! Headline metrics of a run: the few numbers per run kind a sweep tabulates and
//! plots, picked from the run's JSON by path. Missing values (a latency of an
//! operation the run did not do) are `None`.

use serde_json::Value;

/// (metric name, JSON path) of bench and replay runs.
const DEVICE_RUN: &[(&str, &str)] = &[
    ("throughput_mib_s", "throughput_mib_s"),
    ("iops", "iops"),
    ("ops", "ops"),
    ("bytes", "bytes"),
    ("duration_ns", "duration_ns"),
    ("latency_mean_ns", "latency.mean_ns"),
    ("latency_p50_ns", "latency.p50_ns"),
    ("latency_p99_ns", "latency.p99_ns"),
    ("latency_p999_ns", "latency.p999_ns"),
    ("latency_max_ns", "latency.max_ns"),
    ("read_ops", "read.ops"),
    ("read_p99_ns", "read.latency.p99_ns"),
    ("write_ops", "write.ops"),
    ("write_p99_ns", "write.latency.p99_ns"),
    ("waf", "device_stats.write_amplification"),
    ("host_write_bytes", "device_stats.host_write_bytes"),
    ("media_write_bytes", "device_stats.media_write_bytes"),
    ("gc_runs", "device_stats.gc_runs"),
    ("gc_copied_bytes", "device_stats.gc_copied_bytes"),
    ("erases", "device_stats.erases"),
    ("zone_resets", "device_stats.zone_resets"),
];

/// (metric name, JSON path) of YCSB runs.
const YCSB_RUN: &[(&str, &str)] = &[
    ("load_ops_per_s", "load.ops_per_s"),
    ("load_elapsed_s", "load.elapsed_s"),
    ("load_stopped_s", "load.stopped_s"),
    ("load_delayed_s", "load.delayed_s"),
    ("run_ops_per_s", "run.summary.ops_per_s"),
    ("run_elapsed_s", "run.summary.elapsed_s"),
    ("run_stopped_s", "run.summary.stopped_s"),
    ("run_delayed_s", "run.summary.delayed_s"),
    ("run_get_mean_ns", "run.summary.get_latency.mean_ns"),
    ("run_get_p99_ns", "run.summary.get_latency.p99_ns"),
    ("run_put_mean_ns", "run.summary.put_latency.mean_ns"),
    ("run_put_p99_ns", "run.summary.put_latency.p99_ns"),
    ("run_cache_hits", "run.cache_hits"),
    ("run_migrations", "run.migrations"),
];

/// The metric names of `kind` (`None` for reproduce, whose claims vary by target:
/// `claims_held`, `claims` and `claim.<id>`).
pub fn names(kind: &str) -> Option<Vec<&'static str>> {
    match kind {
        "bench" | "replay" => Some(DEVICE_RUN.iter().map(|m| m.0).collect()),
        "ycsb" => Some(YCSB_RUN.iter().map(|m| m.0).collect()),
        _ => None,
    }
}

fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, k| v.get(k))
}

/// The headline metrics of a run of `kind` whose JSON is `result`, in a fixed
/// order (reproduce: `claims_held`, `claims`, then `claim.<id>` per claim).
pub fn headline(kind: &str, result: &Value) -> Vec<(String, Option<f64>)> {
    let pick = |table: &[(&str, &str)]| {
        table
            .iter()
            .map(|(name, path)| (name.to_string(), at(result, path).and_then(Value::as_f64)))
            .collect()
    };
    match kind {
        "bench" | "replay" => pick(DEVICE_RUN),
        "ycsb" => pick(YCSB_RUN),
        "reproduce" => {
            let claims = result["claims"].as_array().cloned().unwrap_or_default();
            let held = claims.iter().filter(|c| c["holds"] == true).count();
            let mut out = vec![
                ("claims_held".to_string(), Some(held as f64)),
                ("claims".to_string(), Some(claims.len() as f64)),
            ];
            out.extend(claims.iter().map(|c| {
                (
                    format!("claim.{}", c["id"].as_str().unwrap_or("?")),
                    c["measured"].as_f64(),
                )
            }));
            out
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metrics_are_picked_by_path_and_missing_ones_are_none() {
        let r = json!({"throughput_mib_s": 12.5, "latency": {"p99_ns": 900},
                       "device_stats": {"write_amplification": 1.25}});
        let m = headline("bench", &r);
        let get = |n: &str| m.iter().find(|(k, _)| k == n).unwrap().1;
        assert_eq!(get("throughput_mib_s"), Some(12.5));
        assert_eq!(get("latency_p99_ns"), Some(900.0));
        assert_eq!(get("waf"), Some(1.25));
        assert_eq!(get("read_p99_ns"), None);
        let r = json!({"claims": [{"id": "a.b", "measured": 3.0, "holds": true},
                                  {"id": "c", "measured": 1.0, "holds": false}]});
        let m = headline("reproduce", &r);
        assert_eq!(m[0], ("claims_held".into(), Some(1.0)));
        assert_eq!(m[3], ("claim.c".into(), Some(1.0)));
    }
}
