//! Measures trace parsing throughput: writes a generated trace of each format to a
//! temporary file, then streams it through `TraceReader` and reports lines per second.
//!
//! `cargo run --release -p zonelab-workloads --example trace_parse_speed [lines]`
//!
//! (A measurement for docs/PERFORMANCE.md, not a test: nothing here asserts a speed.)

use std::io::{BufWriter, Write};
use std::time::Instant;

use zonelab_workloads::trace::{TraceFormat, TraceOptions, TraceReader, TraceSummary};

fn write_trace(format: TraceFormat, lines: u64) -> std::io::Result<tempfile::NamedTempFile> {
    let mut file = tempfile::NamedTempFile::new()?;
    {
        let mut out = BufWriter::new(file.as_file_mut());
        for i in 0..lines {
            let offset = (i * 7919 % 1_000_000) * 4096;
            let size = 4096 + (i % 8) * 512;
            let read = i % 3 == 0;
            match format {
                TraceFormat::Msr => writeln!(
                    out,
                    "{},usr,{},{},{offset},{size},{}",
                    128_166_372_003_061_629 + i * 113,
                    i % 2,
                    if read { "Read" } else { "Write" },
                    1000 + i % 9000
                )?,
                TraceFormat::DiskSim => writeln!(
                    out,
                    "{}.{:06} 0 {} {} {}",
                    i / 100,
                    (i % 100) * 10_000,
                    offset / 512,
                    size / 512,
                    u8::from(read)
                )?,
                TraceFormat::Mqsim => writeln!(
                    out,
                    "{} 0 {} {} {}",
                    i * 11_300,
                    offset / 512,
                    size / 512,
                    u8::from(read)
                )?,
                TraceFormat::Csv => writeln!(
                    out,
                    "{},{},{offset},{size}",
                    i * 11_300,
                    if read { 'R' } else { 'W' }
                )?,
                TraceFormat::Alibaba => writeln!(
                    out,
                    "{},{},{offset},{size},{}",
                    i % 4,
                    if read { 'R' } else { 'W' },
                    1_577_808_000_000_626 + i * 11
                )?,
                // One event of the replayed action per line (a real blkparse file also
                // holds the other actions' events, which are skipped).
                TraceFormat::Blkparse | TraceFormat::BlkparseQueue => writeln!(
                    out,
                    "8,0 {} {} {}.{:09} {} {} {} {} + {} [app]",
                    i % 2,
                    i + 1,
                    i / 100_000,
                    (i % 100_000) * 10_000,
                    1000 + i % 9000,
                    if format == TraceFormat::Blkparse {
                        'D'
                    } else {
                        'Q'
                    },
                    if read { "R" } else { "WS" },
                    offset / 512,
                    size / 512
                )?,
                TraceFormat::Tencent => writeln!(
                    out,
                    "{},{},{},{},{}",
                    1_538_323_199 + i / 1_000,
                    offset / 512,
                    size / 512,
                    u8::from(!read),
                    i % 4
                )?,
            }
        }
        out.flush()?;
    }
    Ok(file)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let lines: u64 = match std::env::args().nth(1) {
        Some(n) => n.parse()?,
        None => 2_000_000,
    };
    for format in TraceFormat::ALL {
        let file = write_trace(format, lines)?;
        let bytes = file.as_file().metadata()?.len();
        let start = Instant::now();
        let reader = TraceReader::open(file.path(), format, TraceOptions::default())?;
        let summary = TraceSummary::from_reader(reader)?;
        let seconds = start.elapsed().as_secs_f64();
        assert_eq!(summary.records, lines);
        println!(
            "{:8} {lines} lines, {:.1} MiB: {:.3} s, {:.2} M lines/s, {:.0} MiB/s",
            format.name(),
            bytes as f64 / (1 << 20) as f64,
            seconds,
            lines as f64 / seconds / 1e6,
            bytes as f64 / (1 << 20) as f64 / seconds
        );
    }
    Ok(())
}
