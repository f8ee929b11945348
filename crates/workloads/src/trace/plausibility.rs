//! Warnings for traces whose timing is implausible for the format they were read
//! as — the sign of a time column read in the wrong unit (an MQSim trace of
//! nanoseconds read as DiskSim milliseconds spans years and replays at 0 IOPS).
//! A warning, not an error: the trace may really be like that.

use super::TraceFormat;
use zonelab_engine::NS_PER_S;

/// The longest span a real block trace is expected to cover: published traces span
/// a week (MSR Cambridge), 9 days (Tencent CBS 2018) or a month (Alibaba 2020, 31
/// days); a year leaves room for all of them.
pub const PLAUSIBLE_MAX_SPAN_NS: u64 = 366 * 24 * 3600 * NS_PER_S;

/// The highest plausible mean arrival rate of a recorded trace, requests per second:
/// above what a host issues to one volume (a fast NVMe SSD sustains ~1-2 M IOPS).
pub const PLAUSIBLE_MAX_RATE_PER_S: f64 = 10e6;

/// Rates are judged only over at least this many records (a handful of records at
/// the same instant is normal).
pub const RATE_CHECK_MIN_RECORDS: u64 = 1000;

/// A one-line warning if `records` spanning `span_ns` (time of the last record
/// relative to the first, as read with `format`) look like a misread time unit.
pub fn timing_warning(format: TraceFormat, records: u64, span_ns: u64) -> Option<String> {
    let others = || {
        TraceFormat::ALL
            .iter()
            .filter(|f| **f != format)
            .map(|f| format!("{} {}", f.name(), f.time_unit()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if span_ns > PLAUSIBLE_MAX_SPAN_NS {
        let days = span_ns as f64 / (24.0 * 3600.0 * NS_PER_S as f64);
        return Some(format!(
            "the trace spans {days:.0} days with times read as {} (--format {}); real traces span days to weeks: is the time column in a finer unit? (formats: {})",
            format.time_unit(),
            format.name(),
            others()
        ));
    }
    if records >= RATE_CHECK_MIN_RECORDS {
        let rate = if span_ns == 0 {
            f64::INFINITY
        } else {
            records as f64 / (span_ns as f64 / NS_PER_S as f64)
        };
        if rate > PLAUSIBLE_MAX_RATE_PER_S {
            return Some(format!(
                "{records} records arrive within {span_ns} ns with times read as {} (--format {}), more than {:.0} M requests/s: is the time column in a coarser unit? (formats: {})",
                format.time_unit(),
                format.name(),
                PLAUSIBLE_MAX_RATE_PER_S / 1e6,
                others()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_week_of_msr_is_plausible() {
        let week_ns = 7 * 24 * 3600 * NS_PER_S;
        assert_eq!(timing_warning(TraceFormat::Msr, 1_400_000, week_ns), None);
    }

    #[test]
    fn nanoseconds_read_as_milliseconds_span_years() {
        // 60 M s, as an MQSim trace of ~1 minute read with --format disksim.
        let w = timing_warning(TraceFormat::DiskSim, 1_000_000, 60_000_000 * NS_PER_S).unwrap();
        assert!(w.contains("694 days"), "{w}");
        assert!(
            w.contains("milliseconds") && w.contains("mqsim nanoseconds"),
            "{w}"
        );
    }

    #[test]
    fn seconds_read_as_nanoseconds_arrive_too_fast() {
        // 100 k records over 3600 "ns": a trace of seconds read as nanoseconds.
        let w = timing_warning(TraceFormat::Csv, 100_000, 3600).unwrap();
        assert!(w.contains("coarser unit"), "{w}");
        // A few records at one instant are fine.
        assert_eq!(timing_warning(TraceFormat::Csv, 10, 0), None);
    }
}
