//! Command-line arguments (clap derive). Help texts that list accepted values are
//! built from the same constants the parsers use (`Scheme::NAMES`, `RwMode::NAMES`,
//! `TraceFormat::ALL`), so they cannot go stale.

use clap::{Args, Parser, Subcommand};
use zonelab_experiments::run_result::MAX_SERIES_POINTS;
use zonelab_systems::hhzs::Scheme;
use zonelab_workloads::job::RwMode;
use zonelab_workloads::trace::TraceFormat;

fn scheme_help() -> String {
    format!("Data management scheme: {}.", Scheme::NAMES)
}

fn rw_help() -> String {
    format!("{} (as fio's --rw).", RwMode::NAMES)
}

/// Every trace format with what it is and the unit of its time column.
pub fn format_help() -> String {
    let formats: Vec<String> = TraceFormat::ALL
        .iter()
        .map(|f| {
            format!(
                "{} ({}; time in {})",
                f.name(),
                f.description(),
                f.time_unit()
            )
        })
        .collect();
    format!(
        "Trace format: auto (detect from the first record), {}.",
        formats.join(", ")
    )
}

fn sample_interval_help(default: &str) -> String {
    format!(
        "Interval of the throughput time series (virtual time, e.g. 100ms). At most {MAX_SERIES_POINTS} points: a given interval that needs more is an error naming the smallest that fits; the default ({default}) doubles as often as needed instead."
    )
}

#[derive(Parser, Debug)]
#[command(
    name = "zonelab",
    version,
    about = "A laboratory for zoned and hybrid storage: device models, paper reproductions, benchmarks in virtual time"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// List the built-in device profiles.
    Devices(DevicesArgs),
    /// Report the zones of a zoned device (fresh, as built from its profile).
    Zones(ZonesArgs),
    /// Run a fio-like job on a device in virtual time.
    Bench(BenchArgs),
    /// Replay a block trace on a device in virtual time.
    Replay(ReplayArgs),
    /// Reproduce a paper's experiments and compare with its claims.
    Reproduce(ReproduceArgs),
    /// Generate a look-alike of an MSR Cambridge trace (MU-RMW Table I) or a Pangu node (MIOS Table 1).
    SynthTrace(SynthArgs),
    /// Profile a disk's buffered writes (BCW/MIOS §3): L_f/L_m/L_s, W_f/W_m, T_f/T_m.
    ProfileHdd(ProfileHddArgs),
    /// Run YCSB on the RocksDB-like LSM-tree over a ZNS SSD + HM-SMR HDD under an HHZS-paper scheme.
    Ycsb(YcsbArgs),
    /// Export a block-interface device model over NBD, in real time with real bytes.
    Serve(crate::cmd_serve::ServeArgs),
    /// Run a sweep file: a grid, random or Latin-hypercube design of runs, cached, as Parquet, CSV and an HTML report.
    Sweep(SweepArgs),
    /// Serve sweep runs, one JSON line in, one out (started by `zonelab sweep`).
    #[command(hide = true)]
    SweepWorker,
}

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The sweep file (format: docs/python.md, "Sweeps").
    pub spec: std::path::PathBuf,
    /// Output directory (default: results/sweep-<name>); its cache/ makes reruns resume.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// local (worker processes on this machine) or ray (each run a Ray task, through
    /// the Python package: `python3 -m zonelab`, or $ZONELAB_PYTHON).
    #[arg(long, default_value = "local")]
    pub executor: String,
    /// Worker processes of the local executor (default: one per core).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Ray cluster address (default: start a local Ray).
    #[arg(long)]
    pub address: Option<String>,
    /// List the runs and which are cached; run nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Args, Debug)]
pub struct YcsbArgs {
    #[arg(long, default_value = "hhzs", help = scheme_help())]
    pub scheme: String,
    /// Workload after the load: load (only), a-f (YCSB core workloads), mix.
    #[arg(long, default_value = "a")]
    pub workload: String,
    /// Size relative to the HHZS paper (200 GiB of 1 KiB objects; MemTables, SSTs and
    /// level targets shrink with it).
    #[arg(long, default_value_t = 0.01)]
    pub scale: f64,
    /// Records to load (default: 209,715,200 x scale, at least 1,000; at least 1).
    #[arg(long)]
    pub records: Option<u64>,
    /// Operations of the workload (default: 1 M x scale, at least 10,000; at least 1,
    /// `--workload load` for a load alone).
    #[arg(long)]
    pub operations: Option<u64>,
    /// Zipf constant of the request distribution (HHZS uses 0.9 and 1.2).
    #[arg(long, default_value_t = 0.9)]
    pub alpha: f64,
    /// Read share of `--workload mix` (the rest are updates).
    #[arg(long, default_value_t = 0.5)]
    pub read_ratio: f64,
    /// YCSB -target: operations per second of the workload (0 = unthrottled).
    #[arg(long, default_value_t = 0)]
    pub target: u64,
    /// SSD profile (zoned).
    #[arg(long, default_value = "zn540")]
    pub ssd: String,
    /// HDD profile (zoned).
    #[arg(long, default_value = "st14000nm0007")]
    pub hdd: String,
    /// SSD zones the file system may use, its 3 metadata zones included (the
    /// paper's 20; RocksDB's metadata files hold 2 more under B1–B9, B3+M and AUTO).
    #[arg(long, default_value_t = 20)]
    pub ssd_zones: u32,
    /// Every SSD zone holds WAL files and SSTs: no zones for the file system's
    /// metadata or RocksDB's metadata files (an ablation; docs/hhzs.md).
    #[arg(long)]
    pub no_metadata_zones: bool,
    /// Change a field of the SSD's or HDD's profile: --set ssd.flash.channels=4,
    /// --set hdd.mechanics.rpm=5400 (repeatable).
    #[arg(long = "set", value_name = "ssd|hdd.FIELD=VALUE")]
    pub set: Vec<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ProfileHddArgs {
    /// Built-in profile name or path to a profile .toml.
    #[arg(long)]
    pub device: String,
    /// Size of every write (a multiple of the device's block size, e.g. 64KiB).
    #[arg(long)]
    pub size: String,
    /// Bytes to write after the sync (rounded down to whole writes).
    #[arg(long, default_value = "64MiB")]
    pub total: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Directory for latency.csv and latency.svg (the per-write latency series).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Trace to imitate (see --list).
    #[arg(long)]
    pub like: Option<String>,
    /// List the traces and their characteristics.
    #[arg(long)]
    pub list: bool,
    /// Multiply the data volumes by this factor.
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    /// Address space the trace must fit (e.g. 10g).
    #[arg(long, default_value = "10g")]
    pub capacity: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output file (default: standard output).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// MSR look-alikes: request sizes, `paper` (every request one 4 KiB sector, as
    /// MU-RMW counts them) or `mix` (4-64 KiB).
    #[arg(long, default_value = "paper")]
    pub sizes: String,
    /// MSR look-alikes: Zipfian constant of the updates' popularity (0 = uniform,
    /// below 1; default YCSB's 0.99).
    #[arg(long, default_value_t = 0.99)]
    pub popularity_theta: f64,
    /// Output layout: `csv` (time_ns,op,offset_bytes,size_bytes) or `msr` (the
    /// published MSR Cambridge layout, replayable with --format msr).
    #[arg(long, default_value = "csv")]
    pub format: String,
}

#[derive(Args, Debug)]
pub struct DevicesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ZonesArgs {
    /// Built-in profile name or path to a profile .toml.
    #[arg(long)]
    pub device: String,
    /// Change a profile field: --set flash.channels=16 (repeatable; dotted field
    /// names as in the profile's TOML, checked as a file's values are).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// First zone to report.
    #[arg(long, default_value_t = 0)]
    pub first: u32,
    /// Number of zones to report.
    #[arg(long, default_value_t = 16)]
    pub count: u32,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Built-in profile name or path to a profile .toml.
    #[arg(long)]
    pub device: String,
    /// Change a profile field: --set flash.channels=16 (repeatable; dotted field
    /// names as in the profile's TOML, checked as a file's values are).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    #[arg(long, default_value = "randread", help = rw_help())]
    pub rw: String,
    /// Block size (e.g. 4k, 1MiB).
    #[arg(long, default_value = "4k")]
    pub bs: String,
    /// Requests in flight per job.
    #[arg(long, default_value_t = 1)]
    pub iodepth: u32,
    /// Number of jobs; the region is split between them.
    #[arg(long, default_value_t = 1)]
    pub numjobs: u32,
    /// Start of the region (bytes, e.g. 1g).
    #[arg(long, default_value = "0")]
    pub offset: String,
    /// Region size (default: to the end of the device).
    #[arg(long)]
    pub size: Option<String>,
    /// Bytes each job transfers (default: its part of the region once).
    #[arg(long)]
    pub io_size: Option<String>,
    /// Virtual run time (e.g. 10s); stops issuing after it.
    #[arg(long)]
    pub runtime: Option<String>,
    /// Percentage of reads in mixed modes.
    #[arg(long, default_value_t = 50)]
    pub rwmixread: u32,
    /// Zones a random-write job keeps open on a zoned device.
    #[arg(long)]
    pub max_open_zones: Option<u32>,
    #[arg(long, help = sample_interval_help("100ms"))]
    pub sample_interval: Option<String>,
    /// Write the job's region once (sequential 1 MiB writes) before measuring, as
    /// fio users do before read tests; device statistics then include those writes.
    #[arg(long)]
    pub precondition: bool,
    /// Leave the device's write buffers as they are at the end. By default a flush
    /// after the last completion drains them, so device statistics (media bytes,
    /// WAF) describe data on the media; bytes a buffer still holds are reported as
    /// buffered_write_bytes either way.
    #[arg(long)]
    pub no_drain: bool,
    /// NVMe FDP placement identifiers the writes carry, comma-separated (e.g. 3 or
    /// 0,1,2,3): job j writes with the j-th, cycling. Needs a device with Flexible
    /// Data Placement (an ftl-ssd profile with an [fdp] section, e.g. zn540-fdp).
    #[arg(long)]
    pub fdp_pid: Option<String>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the results JSON to this file.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Built-in profile name or path to a profile .toml.
    #[arg(long)]
    pub device: String,
    /// Change a profile field: --set flash.channels=16 (repeatable; dotted field
    /// names as in the profile's TOML, checked as a file's values are).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// Trace file.
    #[arg(long)]
    pub trace: std::path::PathBuf,
    #[arg(long, default_value = "auto", help = format_help())]
    pub format: String,
    /// Open loop: divide inter-arrival times by this factor (2 = twice as fast). A
    /// speed whose scaled trace does not fit in virtual time (2^62 ns) is an error.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Closed loop at this queue depth instead of the trace's timestamps (their
    /// order does not matter then).
    #[arg(long)]
    pub qd: Option<u32>,
    /// Replay only this device number (MSR DiskNumber, DiskSim/MQSim device_number,
    /// Alibaba device_id, Tencent VolumeID, blkparse major << 20 | minor: 8,16 is 8388624).
    #[arg(long)]
    pub disk: Option<u64>,
    /// Open loop: accept records whose timestamps go backwards and issue them in file
    /// order, each at max(previous arrival, own time); they are counted
    /// (reordered_arrivals).
    #[arg(long)]
    pub allow_unsorted: bool,
    /// Precondition the device before the replay: `full` (the default when given
    /// without a value) writes the whole device once with sequential 1 MiB writes
    /// (zone by zone on zoned devices); `footprint` writes only the 1 MiB chunks the
    /// trace touches (block devices). The replay starts 1 s of virtual time after.
    #[arg(long, num_args = 0..=1, default_missing_value = "full", value_name = "full|footprint")]
    pub precondition: Option<String>,
    /// Leave the device's write buffers as they are at the end (see `bench --help`).
    #[arg(long)]
    pub no_drain: bool,
    /// Stop after this many records.
    #[arg(long)]
    pub limit: Option<u64>,
    /// Fold offsets beyond the device into it (block address modulo capacity);
    /// folded records are counted in the results.
    #[arg(long)]
    pub fold: bool,
    #[arg(long, help = sample_interval_help("1s"))]
    pub sample_interval: Option<String>,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the results JSON to this file.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Args, Debug)]
pub struct ReproduceArgs {
    /// Target to reproduce (see --list), or `all`: every target, each at its default
    /// scale (`--list` shows them), into <out>/<target>/ with <out>/index.html.
    pub target: Option<String>,
    /// List the targets with their default scales for `all`.
    #[arg(long)]
    pub list: bool,
    /// Scale factor: shrinks data set and run length together (1 = paper scale;
    /// default 1). With `all`: every target at this scale, limited to its range,
    /// instead of its default scale.
    #[arg(long)]
    pub scale: Option<f64>,
    /// Output directory (created, and checked to be writable, before the run).
    #[arg(long, default_value = "results")]
    pub out: std::path::PathBuf,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Directory with the real traces a target replays (e.g. MSR Cambridge CSVs
    /// named <trace>.csv for mu-rmw); without it, look-alike traces are generated.
    #[arg(long)]
    pub traces: Option<std::path::PathBuf>,
    /// Draws behind each claim's median for the targets that take them (mios:
    /// seeds of its workloads, default 3; hhzs: loads per scheme, default 3);
    /// 1 runs one draw. With `all`, the other targets run once as always.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub draws: Option<u64>,
    /// Run-to-run variation of flush and compaction CPU time for the targets that
    /// model it (hhzs; default 50000 ppm = a CV of 5 %, measured with RocksDB's
    /// db_bench), as a coefficient of variation in parts per million, at most
    /// 500000; 0 runs the exact mean costs. With `all`, it applies to hhzs only.
    #[arg(long, value_name = "PPM")]
    pub cpu_jitter_ppm: Option<u64>,
}
