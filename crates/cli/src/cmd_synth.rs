//! `zonelab synth-trace`: writes a look-alike trace with the published
//! characteristics of an MSR Cambridge trace (MU-RMW Table I) or a Pangu node
//! (MIOS Table 1) as plain CSV (`time_ns,op,offset_bytes,size_bytes`, replayable
//! with `--format csv`) or in the published MSR layout (`--format msr`).

use crate::args::SynthArgs;
use crate::table;
use crate::units::parse_size;
use std::io::Write;
use zonelab_engine::RngStreams;
use zonelab_workloads::pangu::{find_node, PanguTrace, PANGU_TABLE_1};
use zonelab_workloads::synth::{
    find_profile, LookalikeOptions, RequestSizes, SynthTrace, MSR_TABLE_I,
};
use zonelab_workloads::trace::msr::{write_record, MSR_START_FILETIME};
use zonelab_workloads::trace::{TraceOp, TraceRecord, CSV_HEADER};

/// How records are written.
#[derive(Clone, Copy)]
enum Layout<'a> {
    Csv,
    /// MSR Cambridge CSV with this host name and disk number.
    Msr(&'a str, u32),
}

pub fn run(a: SynthArgs) -> Result<(), String> {
    if a.list {
        let rows: Vec<Vec<String>> = MSR_TABLE_I
            .iter()
            .map(|p| {
                vec![
                    p.name.to_string(),
                    p.written_gb.to_string(),
                    p.read_gb.to_string(),
                    format!("{:.2}%", p.write_ratio * 100.0),
                    format!("{:.2}%", p.update_ratio * 100.0),
                ]
            })
            .collect();
        print!(
            "{}",
            table::render(
                &[
                    "trace",
                    "written GB",
                    "read GB",
                    "write ratio",
                    "update ratio"
                ],
                &rows
            )
        );
        let rows: Vec<Vec<String>> = PANGU_TABLE_1
            .iter()
            .map(|n| {
                vec![
                    n.name.to_string(),
                    n.duration_min.to_string(),
                    n.avg_request_kb.to_string(),
                    format!("{:.1}", n.volume_per_request_bytes() / 1e3),
                    n.avg_krps.to_string(),
                    n.peak_krps.to_string(),
                ]
            })
            .collect();
        println!("\nPangu nodes (MIOS Table 1):");
        print!(
            "{}",
            table::render(
                &[
                    "trace",
                    "minutes",
                    "avg request KB",
                    "KB per request (volumes; generated)",
                    "avg KRPS",
                    "peak KRPS"
                ],
                &rows
            )
        );
        return Ok(());
    }
    let Some(name) = a.like.as_deref() else {
        return Err("synth-trace needs --like <trace> (see --list)".to_string());
    };
    let known = || {
        MSR_TABLE_I
            .iter()
            .map(|p| p.name)
            .chain(PANGU_TABLE_1.iter().map(|n| n.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !(a.scale.is_finite() && a.scale > 0.0 && a.scale <= 10.0) {
        return Err(format!(
            "--scale {} is out of range (0 < scale <= 10)",
            a.scale
        ));
    }
    let capacity = parse_size(&a.capacity).map_err(|e| format!("--capacity: {e}"))?;
    if capacity < 64 << 20 {
        return Err(format!(
            "--capacity {capacity} bytes is too small (at least 64 MiB)"
        ));
    }
    let sizes = match a.sizes.as_str() {
        "paper" => RequestSizes::Paper,
        "mix" => RequestSizes::Mix,
        other => return Err(format!("--sizes: unknown `{other}` (allowed: paper, mix)")),
    };
    // An MSR name is host_disk (rsrch_0); Pangu nodes are named likewise.
    let (host, disk) = name
        .rsplit_once('_')
        .and_then(|(h, d)| Some((h, d.parse::<u32>().ok()?)))
        .unwrap_or((name, 0));
    let layout = match a.format.as_str() {
        "csv" => Layout::Csv,
        "msr" => Layout::Msr(host, disk),
        other => return Err(format!("--format: unknown `{other}` (allowed: csv, msr)")),
    };
    let rng = RngStreams::new(a.seed).stream("synth-trace");
    let header = |source: &str| {
        format!(
            "# look-alike of {source} {name}, scale {}, seed {}, capacity {capacity} bytes",
            a.scale, a.seed
        )
    };
    let summary = if let Some(p) = find_profile(name) {
        let options = LookalikeOptions {
            sizes,
            popularity_theta: a.popularity_theta,
        };
        let mut trace = SynthTrace::with_options(*p, a.scale, capacity, options, rng)
            .map_err(|e| format!("--popularity-theta/--capacity: {e}"))?;
        write_trace(
            a.out.as_deref(),
            &header("MSR Cambridge (MU-RMW Table I)"),
            layout,
            trace.by_ref(),
        )?;
        let s = trace.summary;
        format!(
            "{} requests, {:.3} GiB written, {:.3} GiB read, write ratio {:.2}%, update ratio {:.2}%, footprint {} pages on {} of {} 40 MiB bands",
            s.requests,
            s.written_bytes as f64 / (1u64 << 30) as f64,
            s.read_bytes as f64 / (1u64 << 30) as f64,
            s.write_ratio() * 100.0,
            s.update_ratio() * 100.0,
            s.footprint_pages,
            trace.bands_written(40 << 20),
            capacity.div_ceil(40 << 20)
        )
    } else if let Some(n) = find_node(name) {
        let mut trace = PanguTrace::new(*n, a.scale, capacity, rng);
        write_trace(
            a.out.as_deref(),
            &header("Pangu node (MIOS Table 1)"),
            layout,
            trace.by_ref(),
        )?;
        let s = trace.summary;
        format!(
            "{} requests over {:.1} s, {:.3} GB written, {:.3} GB read, {:.1}% writes, {:.1}% of writes <= 10 KiB, peak {} req/s, {} chunk trims ({:.3} GB; CSV only)",
            s.requests,
            s.span_ns as f64 / 1e9,
            s.written_bytes as f64 / 1e9,
            s.read_bytes as f64 / 1e9,
            s.writes as f64 * 100.0 / s.requests.max(1) as f64,
            s.small_writes as f64 * 100.0 / s.writes.max(1) as f64,
            s.peak_rps,
            s.trims,
            s.trimmed_bytes as f64 / 1e9
        )
    } else {
        return Err(format!(
            "--like: unknown trace `{name}` (known: {})",
            known()
        ));
    };
    eprintln!("{name}: {summary}");
    Ok(())
}

/// Writes every record to `out` (stdout if none): for CSV after a comment line
/// and the column line; in the MSR layout bare, as the published files are.
fn write_trace(
    out: Option<&std::path::Path>,
    header: &str,
    layout: Layout<'_>,
    records: impl Iterator<Item = TraceRecord>,
) -> Result<(), String> {
    let sink: Box<dyn Write> = match out {
        Some(p) => Box::new(
            std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))?,
        ),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut w = std::io::BufWriter::new(sink);
    let io = |e: std::io::Error| format!("cannot write the trace: {e}");
    match layout {
        Layout::Csv => {
            writeln!(w, "{header}").map_err(io)?;
            writeln!(w, "{CSV_HEADER}").map_err(io)?;
            for r in records {
                r.write_csv(&mut w).map_err(io)?;
            }
        }
        Layout::Msr(host, disk) => {
            // The MSR layout has no trims (a Pangu-like trace's chunk deletes).
            for r in records.filter(|r| r.op != TraceOp::Trim) {
                write_record(&mut w, &r, MSR_START_FILETIME, host, disk).map_err(io)?;
            }
        }
    }
    w.flush().map_err(io)
}
