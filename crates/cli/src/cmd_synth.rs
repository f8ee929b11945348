//! `zonelab synth-trace`: writes a look-alike trace with the published
//! characteristics of an MSR Cambridge trace (MU-RMW Table I) as plain CSV
//! (`time_ns,op,offset_bytes,size_bytes`), replayable with `--format csv`.

use crate::args::SynthArgs;
use crate::table;
use crate::units::parse_size;
use std::io::Write;
use zonelab_engine::RngStreams;
use zonelab_workloads::synth::{find_profile, SynthTrace, MSR_TABLE_I};
use zonelab_workloads::trace::CSV_HEADER;

pub fn run(a: SynthArgs) -> Result<(), String> {
    if a.list {
        let rows: Vec<Vec<String>> = MSR_TABLE_I
            .iter()
            .map(|p| vec![p.name.to_string(), p.written_gb.to_string(), p.read_gb.to_string(), format!("{:.2}%", p.write_ratio * 100.0), format!("{:.2}%", p.update_ratio * 100.0)])
            .collect();
        print!("{}", table::render(&["trace", "written GB", "read GB", "write ratio", "update ratio"], &rows));
        return Ok(());
    }
    let Some(name) = a.like.as_deref() else {
        return Err("synth-trace needs --like <trace> (see --list)".to_string());
    };
    let known = || MSR_TABLE_I.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
    let profile = *find_profile(name).ok_or_else(|| format!("--like: unknown trace `{name}` (known: {})", known()))?;
    if !(a.scale.is_finite() && a.scale > 0.0 && a.scale <= 10.0) {
        return Err(format!("--scale {} is out of range (0 < scale <= 10)", a.scale));
    }
    let capacity = parse_size(&a.capacity).map_err(|e| format!("--capacity: {e}"))?;
    if capacity < 64 << 20 {
        return Err(format!("--capacity {capacity} bytes is too small (at least 64 MiB)"));
    }
    let mut trace = SynthTrace::new(profile, a.scale, capacity, RngStreams::new(a.seed).stream("synth-trace"));
    let sink: Box<dyn Write> = match &a.out {
        Some(p) => Box::new(std::fs::File::create(p).map_err(|e| format!("cannot write {}: {e}", p.display()))?),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut w = std::io::BufWriter::new(sink);
    let io = |e: std::io::Error| format!("cannot write the trace: {e}");
    writeln!(w, "# look-alike of MSR Cambridge {name} (MU-RMW Table I), scale {}, seed {}, capacity {capacity} bytes", a.scale, a.seed).map_err(io)?;
    writeln!(w, "{CSV_HEADER}").map_err(io)?;
    for r in trace.by_ref() {
        r.write_csv(&mut w).map_err(io)?;
    }
    w.flush().map_err(io)?;
    let s = trace.summary;
    eprintln!(
        "{name}: {} requests, {:.3} GB written, {:.3} GB read, write ratio {:.2}%, update ratio {:.2}%",
        s.requests,
        s.written_bytes as f64 / 1e9,
        s.read_bytes as f64 / 1e9,
        s.write_ratio() * 100.0,
        s.update_ratio() * 100.0
    );
    Ok(())
}
