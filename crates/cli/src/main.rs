//! `zonelab`: the command-line front end (DESIGN.md layer 7). Thin: parses
//! arguments, calls the experiments layer, prints tables or JSON. Every error is
//! one line on stderr and a non-zero exit; nothing the user gave panics.

mod args;
mod cmd_bench;
mod cmd_devices;
mod cmd_profile_hdd;
mod cmd_replay;
mod cmd_reproduce;
mod cmd_serve;
mod cmd_sweep;
mod cmd_synth;
mod cmd_ycsb;
mod progress;
mod table;
mod units;

use clap::Parser;

fn main() {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            // One line, as for every other error; `--help` has the details.
            let text = e.render().to_string();
            let message: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.is_empty() && !l.starts_with("Usage:"))
                .collect();
            let message = message.join(" ");
            let message = message.trim_start_matches("error: ");
            eprintln!("zonelab: error: {message} (see `zonelab --help`)");
            std::process::exit(2);
        }
    };
    let result = match cli.command {
        args::Cmd::Devices(a) => cmd_devices::run(a),
        args::Cmd::Zones(a) => cmd_devices::run_zones(a),
        args::Cmd::Bench(a) => cmd_bench::run(a),
        args::Cmd::Replay(a) => cmd_replay::run(a),
        args::Cmd::Reproduce(a) => cmd_reproduce::run(a),
        args::Cmd::SynthTrace(a) => cmd_synth::run(a),
        args::Cmd::ProfileHdd(a) => cmd_profile_hdd::run(a),
        args::Cmd::Ycsb(a) => cmd_ycsb::run(a),
        args::Cmd::Sweep(a) => cmd_sweep::run(a),
        args::Cmd::SweepWorker => cmd_sweep::serve_worker(),
        args::Cmd::Serve(a) => cmd_serve::run(a),
    };
    if let Err(msg) = result {
        eprintln!("zonelab: error: {msg}");
        std::process::exit(1);
    }
}
