//! `zonelab`: the command-line front end (DESIGN.md layer 7). Thin: parses
//! arguments, calls the experiments layer, prints tables or JSON. Every error is
//! one line on stderr and a non-zero exit; nothing the user gave panics.

mod args;
mod cmd_bench;
mod cmd_devices;
mod cmd_replay;
mod cmd_reproduce;
mod progress;
mod table;
mod units;

use clap::Parser;

fn main() {
    let cli = args::Cli::parse();
    let result = match cli.command {
        args::Cmd::Devices(a) => cmd_devices::run(a),
        args::Cmd::Zones(a) => cmd_devices::run_zones(a),
        args::Cmd::Bench(a) => cmd_bench::run(a),
        args::Cmd::Replay(a) => cmd_replay::run(a),
        args::Cmd::Reproduce(a) => cmd_reproduce::run(a),
    };
    if let Err(msg) = result {
        eprintln!("zonelab: error: {msg}");
        std::process::exit(1);
    }
}
