//! A large generated trace streams; plain-CSV records round-trip.

use std::io::{BufWriter, Write};

use proptest::prelude::*;
use zonelab_workloads::trace::{
    TraceFormat, TraceOp, TraceOptions, TraceReader, TraceRecord, TraceSummary, CSV_HEADER,
};

#[test]
fn a_large_msr_trace_streams() {
    const LINES: u64 = 200_000;
    const T0: u64 = 128_166_372_003_061_629;
    let mut file = tempfile::NamedTempFile::new().unwrap();
    {
        let mut out = BufWriter::new(file.as_file_mut());
        for i in 0..LINES {
            let kind = if i % 3 == 0 { "Read" } else { "Write" };
            let disk = i % 2;
            writeln!(
                out,
                "{},src1,{disk},{kind},{},{},{}",
                T0 + i * 37,
                (i % 1000) * 4096,
                4096 + (i % 4) * 512,
                i % 5000
            )
            .unwrap();
        }
        out.flush().unwrap();
    }

    // Every record, streamed: nothing is collected.
    let reader = TraceReader::open(file.path(), TraceFormat::Msr, TraceOptions::default()).unwrap();
    let summary = TraceSummary::from_reader(reader).unwrap();
    assert_eq!(summary.records, LINES);
    assert_eq!(summary.reads, LINES.div_ceil(3));
    assert_eq!(summary.writes, LINES - LINES.div_ceil(3));
    assert_eq!(summary.trims, 0);
    assert_eq!(summary.span_ns(), (LINES - 1) * 37 * 100);
    assert_eq!(summary.max_end_bytes, 999 * 4096 + 4096 + 3 * 512);
    let expected_bytes: u64 = (0..LINES).map(|i| 4096 + (i % 4) * 512).sum();
    assert_eq!(summary.total_bytes(), expected_bytes);

    // One disk of the two.
    let options = TraceOptions {
        device: Some(1),
        ..TraceOptions::default()
    };
    let mut reader = TraceReader::open(file.path(), TraceFormat::Msr, options).unwrap();
    let mut count = 0u64;
    let mut last_time = 0;
    for record in reader.by_ref() {
        let record = record.unwrap();
        assert!(record.time_ns >= last_time);
        last_time = record.time_ns;
        count += 1;
    }
    assert_eq!(count, LINES / 2);
    assert_eq!(reader.line_number(), LINES);
    assert_eq!(last_time, (LINES - 2) * 37 * 100);
}

fn op_strategy() -> impl Strategy<Value = TraceOp> {
    prop_oneof![
        Just(TraceOp::Read),
        Just(TraceOp::Write),
        Just(TraceOp::Trim)
    ]
}

/// A record with a time step (not an absolute time) and an address that fits.
fn step_strategy() -> impl Strategy<Value = (u64, TraceOp, u64, u64)> {
    (0u64..1 << 40, op_strategy(), any::<u64>(), any::<u64>()).prop_map(
        |(step, op, offset, size)| {
            let size = size.min(u64::MAX - offset);
            (step, op, offset, size)
        },
    )
}

proptest! {
    #[test]
    fn plain_csv_round_trips(
        start in 0u64..1 << 50,
        steps in prop::collection::vec(step_strategy(), 0..64),
        header in any::<bool>(),
        comment_every in 1usize..8,
    ) {
        let mut time = start;
        let mut written = Vec::new();
        for (step, op, offset_bytes, size_bytes) in steps {
            time += step;
            written.push(TraceRecord { time_ns: time, op, offset_bytes, size_bytes });
        }
        let mut text = Vec::new();
        if header {
            writeln!(text, "{CSV_HEADER}").unwrap();
        }
        for (i, record) in written.iter().enumerate() {
            if i % comment_every == 0 {
                writeln!(text, "# record {i}\n").unwrap();
            }
            record.write_csv(&mut text).unwrap();
        }
        let read: Vec<TraceRecord> = TraceReader::new(&text[..], "p.csv", TraceFormat::Csv, TraceOptions::default())
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // Times come back relative to the first record.
        let expected: Vec<TraceRecord> = written
            .iter()
            .map(|r| TraceRecord { time_ns: r.time_ns - written[0].time_ns, ..*r })
            .collect();
        prop_assert_eq!(read, expected);
    }
}
