//! `zonelab serve --nbd`: exports a block-interface device model over NBD in
//! real time with real bytes (crates/nbd, docs/nbd.md), until SIGINT/SIGTERM
//! (or, with --once, until the last client disconnects); then prints the
//! device's JSON report (like `zonelab bench --json`) to stdout or --stats.

use clap::Args;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use zonelab_nbd::{serve, stop_on_signals, DeviceConfig, Listen, ServeConfig};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Serve the NBD protocol (the one protocol `serve` speaks so far).
    #[arg(long)]
    pub nbd: bool,
    /// Built-in profile name or path to a profile .toml (a block-interface model,
    /// or a zoned one with --conventional-zones).
    #[arg(long)]
    pub device: String,
    /// Listen on this Unix socket (default when neither --socket nor --port is given:
    /// ./zonelab-<device>.sock).
    #[arg(long, conflicts_with = "port")]
    pub socket: Option<PathBuf>,
    /// Listen on 127.0.0.1:PORT (loopback only; 0 picks a free port).
    #[arg(long)]
    pub port: Option<u16>,
    /// Keep the device's bytes in this sparse file (created if missing; a restart
    /// on it serves every flushed byte). Default: in memory, nothing persists.
    #[arg(long)]
    pub backing: Option<PathBuf>,
    /// Wall time per modelled time (>= 1; 10 makes every latency 10x longer).
    #[arg(long, default_value_t = 1.0)]
    pub dilation: f64,
    /// Export name (default: the profile's name; the empty default name works too).
    #[arg(long)]
    pub export_name: Option<String>,
    /// Export only the conventional zones of a zoned model (they take random writes).
    #[arg(long)]
    pub conventional_zones: bool,
    /// Refuse writes.
    #[arg(long)]
    pub read_only: bool,
    /// Export only the first SIZE bytes of the device (e.g. 1g), as a partition.
    #[arg(long)]
    pub size: Option<String>,
    /// Stop when the last client has disconnected.
    #[arg(long)]
    pub once: bool,
    /// Write the JSON report to this file instead of stdout.
    #[arg(long)]
    pub stats: Option<PathBuf>,
}

pub fn run(a: ServeArgs) -> Result<(), String> {
    if !a.nbd {
        return Err("serve: choose a protocol: --nbd (the only one so far)".into());
    }
    let listen = match (&a.socket, a.port) {
        (Some(p), _) => Listen::Unix(p.clone()),
        (None, Some(port)) => Listen::Tcp(port),
        (None, None) => {
            let stem = std::path::Path::new(&a.device)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "device".into());
            Listen::Unix(PathBuf::from(format!("zonelab-{stem}.sock")))
        }
    };
    let size_bytes = a
        .size
        .as_deref()
        .map(|s| crate::units::parse_size(s).map_err(|e| format!("--size: {e}")))
        .transpose()?;
    let cfg = ServeConfig {
        device: DeviceConfig {
            device: a.device.clone(),
            backing: a.backing.clone(),
            time_dilation: a.dilation,
        },
        listen,
        export_name: a.export_name.clone(),
        conventional_zones: a.conventional_zones,
        read_only: a.read_only,
        size_bytes,
        once: a.once,
    };
    // --stats is opened before serving, so a bad path fails now, not after a session.
    let mut stats_file = a
        .stats
        .as_ref()
        .map(|path| {
            std::fs::File::create(path)
                .map_err(|e| format!("serve: --stats {}: cannot create it: {e}", path.display()))
        })
        .transpose()?;
    let stop = Arc::new(AtomicBool::new(false));
    stop_on_signals(stop.clone()).map_err(|e| format!("serve: cannot handle signals: {e}"))?;
    let served = serve(&cfg, stop, |uri, export| {
        eprintln!(
            "zonelab serve: {} ({} bytes, {}-byte blocks){} on {uri}",
            export.description,
            export.size_bytes,
            export.block_bytes,
            if export.read_only { ", read-only" } else { "" }
        );
    })
    .map_err(|e| format!("serve: {e}"))?;
    eprintln!(
        "zonelab serve: stopped after {} connection(s), {} request(s), {} error reply(ies)",
        served.connections, served.requests, served.request_errors
    );
    let report = served
        .report
        .ok_or_else(|| "serve: the device thread ended before its report".to_string())?;
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    match (&mut stats_file, &a.stats) {
        (Some(file), Some(path)) => {
            use std::io::Write;
            writeln!(file, "{json}")
                .map_err(|e| format!("serve: --stats {}: {e}", path.display()))?
        }
        _ => println!("{json}"),
    }
    Ok(())
}
