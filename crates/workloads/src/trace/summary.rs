//! What a trace contains, in one pass: counts, bytes, time span and the highest byte
//! address touched (to check that the trace fits the device it is replayed on).

use serde::{Deserialize, Serialize};

use super::{TraceError, TraceOp, TraceRecord};

/// Totals over a trace's records. Byte totals saturate at `u64::MAX` (16 EiB).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceSummary {
    pub records: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub trim_bytes: u64,
    /// Earliest and latest `time_ns` seen (both 0 for an empty trace).
    pub min_time_ns: u64,
    pub max_time_ns: u64,
    /// The largest `offset_bytes + size_bytes`: the device must have at least this
    /// many bytes for the trace to fit.
    pub max_end_bytes: u64,
}

impl TraceSummary {
    pub fn new() -> Self {
        Self::default()
    }

    /// Counts one record.
    pub fn add(&mut self, record: &TraceRecord) {
        if self.records == 0 {
            self.min_time_ns = record.time_ns;
            self.max_time_ns = record.time_ns;
        } else {
            self.min_time_ns = self.min_time_ns.min(record.time_ns);
            self.max_time_ns = self.max_time_ns.max(record.time_ns);
        }
        self.records += 1;
        let (count, bytes) = match record.op {
            TraceOp::Read => (&mut self.reads, &mut self.read_bytes),
            TraceOp::Write => (&mut self.writes, &mut self.write_bytes),
            TraceOp::Trim => (&mut self.trims, &mut self.trim_bytes),
        };
        *count += 1;
        *bytes = bytes.saturating_add(record.size_bytes);
        self.max_end_bytes = self.max_end_bytes.max(record.end_bytes());
    }

    /// The summary of some records.
    pub fn from_records<'a>(records: impl IntoIterator<Item = &'a TraceRecord>) -> Self {
        let mut summary = Self::new();
        for record in records {
            summary.add(record);
        }
        summary
    }

    /// Reads a whole trace (streaming) and summarises it; stops at the first error.
    pub fn from_reader(
        records: impl IntoIterator<Item = Result<TraceRecord, TraceError>>,
    ) -> Result<Self, TraceError> {
        let mut summary = Self::new();
        for record in records {
            summary.add(&record?);
        }
        Ok(summary)
    }

    /// The time from the earliest to the latest record.
    pub fn span_ns(&self) -> u64 {
        self.max_time_ns - self.min_time_ns
    }

    /// Bytes of all requests together (saturating).
    pub fn total_bytes(&self) -> u64 {
        self.read_bytes
            .saturating_add(self.write_bytes)
            .saturating_add(self.trim_bytes)
    }

    /// Whether every request lies within a device of `capacity_bytes`.
    pub fn fits_in(&self, capacity_bytes: u64) -> bool {
        self.max_end_bytes <= capacity_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(time_ns: u64, op: TraceOp, offset_bytes: u64, size_bytes: u64) -> TraceRecord {
        TraceRecord {
            time_ns,
            op,
            offset_bytes,
            size_bytes,
        }
    }

    #[test]
    fn counts_bytes_span_and_extent() {
        let records = [
            record(0, TraceOp::Write, 0, 4096),
            record(500, TraceOp::Read, 8192, 512),
            record(300, TraceOp::Trim, 1 << 20, 1 << 20),
            record(1_000, TraceOp::Write, 4096, 4096),
        ];
        let s = TraceSummary::from_records(&records);
        assert_eq!(s.records, 4);
        assert_eq!((s.reads, s.writes, s.trims), (1, 2, 1));
        assert_eq!(
            (s.read_bytes, s.write_bytes, s.trim_bytes),
            (512, 8192, 1 << 20)
        );
        assert_eq!(s.total_bytes(), 512 + 8192 + (1 << 20));
        assert_eq!(s.span_ns(), 1_000);
        assert_eq!(s.max_end_bytes, 2 << 20);
        assert!(s.fits_in(2 << 20));
        assert!(!s.fits_in((2 << 20) - 1));
    }

    #[test]
    fn empty_trace() {
        let s = TraceSummary::new();
        assert_eq!(s.span_ns(), 0);
        assert!(s.fits_in(0));
    }

    #[test]
    fn byte_totals_saturate() {
        let big = record(0, TraceOp::Write, 0, u64::MAX);
        let s = TraceSummary::from_records(&[big, big]);
        assert_eq!(s.write_bytes, u64::MAX);
    }
}
