//! Fig. 12 of ConZone+ (§6.5): three fio jobs with write hints short, medium and
//! extreme on the F2FS-like file system over the QLC ConZone+ device, where every
//! write is staged in SLC, with SLC managed per page (`pageslc`) or per zone
//! (`zonedslc`). The jobs are the authors' `fioconfs/mot-gc.conf`: buffered 4 KiB
//! random writes with an fsync after each (`fsync=1`), files chosen at random
//! for 8 writes at a time (`file_service_type=random:8`):
//!
//! - short (hot): 16 files of 6 MiB, 160 MiB of writes;
//! - medium (warm): 16 files of 12 MiB, 160 MiB, 200 µs think time per write;
//! - extreme (cold): 32 files of 4 MiB, each block written once (128 MiB).
//!
//! F2FS maps the hints to its hot, warm and cold data logs, so the streams land
//! in different zones.

use super::conzone_fs::{device, run_phases, FsRun, FsSetup};
use super::ReproduceError;
use zonelab_devices::models::conzone::config::SlcManagement;
use zonelab_engine::{RngStreams, MIB, NS_PER_US};
use zonelab_systems::f2fs::HostCosts;
use zonelab_workloads::files::{
    FileService, FileWorkload, FioFileJob, FioFileSpec, FioPattern, WriteHint,
};

/// The QLC ConZone+ device with a metadata namespace.
pub(super) const QLC_FS: &str = "conzone-plus-qlc";

/// One job of `mot-gc.conf`.
struct JobSpec {
    name: &'static str,
    files: u32,
    file_mib: u64,
    io_mib: Option<u64>,
    think_us: u64,
    hint: WriteHint,
}

const JOBS: [JobSpec; 3] = [
    JobSpec {
        name: "job-hot",
        files: 16,
        file_mib: 6,
        io_mib: Some(160),
        think_us: 0,
        hint: WriteHint::Short,
    },
    JobSpec {
        name: "job-warm",
        files: 16,
        file_mib: 12,
        io_mib: Some(160),
        think_us: 200,
        hint: WriteHint::Medium,
    },
    JobSpec {
        name: "job-cold",
        files: 32,
        file_mib: 4,
        io_mib: None,
        think_us: 0,
        hint: WriteHint::Extreme,
    },
];

/// Measurements of one Fig. 12 run.
#[derive(Debug, Clone)]
pub(super) struct StreamRun {
    /// Aggregate bandwidth: bytes written by the jobs / time until the last ends.
    pub mib_s: f64,
    pub migrated_mib: f64,
    pub run: FsRun,
}

/// Runs the three jobs concurrently on a fresh `conzone-plus-qlc` with the given
/// SLC management; `scale` shrinks file sizes and write volumes together.
pub(super) fn run_streams(
    management: SlcManagement,
    scale: f64,
    seed: u64,
) -> Result<StreamRun, ReproduceError> {
    run_streams_with(management, scale, 1.0, seed)
}

/// One Fig. 12 run at scale 1 with the short and medium streams' update volume
/// × `update_scale` (files unchanged), for the volume sweep that isolates the
/// Fig. 12 miss (`examples/fig12_volume_sweep.rs`): (MiB/s, migrated MiB,
/// direct SLC erases, SLC GC erases, device WAF).
pub fn fig12_volume_point(
    zoned_slc: bool,
    update_scale: f64,
    seed: u64,
) -> Result<(f64, f64, u64, u64, f64), ReproduceError> {
    let m = if zoned_slc {
        SlcManagement::Zone
    } else {
        SlcManagement::Page
    };
    let r = run_streams_with(m, 1.0, update_scale, seed)?;
    let d = &r.run.dev;
    Ok((
        r.mib_s,
        r.migrated_mib,
        d.slc_direct_erases,
        d.slc_gc_erases,
        d.dev_waf,
    ))
}

fn run_streams_with(
    management: SlcManagement,
    scale: f64,
    update_scale: f64,
    seed: u64,
) -> Result<StreamRun, ReproduceError> {
    let mut st = device(QLC_FS, &|p| p.slc.management = management)?;
    let rngs = RngStreams::new(seed);
    let mut jobs: Vec<Box<dyn FileWorkload>> = Vec::new();
    let mut first = 0;
    let mut total = 0u64;
    for j in &JOBS {
        let file = (((j.file_mib * MIB) as f64 * scale) as u64 / 4096).max(16) * 4096;
        let mut s = FioFileSpec::new(j.name, j.files, file, 4096, FioPattern::Random);
        s.io_bytes = j.io_mib.map_or(j.files as u64 * file, |m| {
            (((m * MIB) as f64 * scale * update_scale) as u64 / 4096).max(16) * 4096
        });
        s.fsync_every = 1;
        s.service = FileService::Random(8);
        s.thinktime_ns = j.think_us * NS_PER_US;
        s.thinktime_blocks = 1;
        s.hint = j.hint;
        s.first_file = first;
        first += j.files;
        total += s.io_bytes;
        jobs.push(Box::new(FioFileJob::new(
            s,
            rngs.stream(&format!("fig12.{}", j.name)),
        )));
    }
    let run = run_phases(
        &mut st,
        FsSetup::Zoned,
        vec![jobs],
        0,
        HostCosts::measured(),
    )?;
    let end = run.jobs.iter().map(|j| j.end_ns).max().unwrap_or(1).max(1);
    Ok(StreamRun {
        mib_s: total as f64 / MIB as f64 / (end as f64 / 1e9),
        migrated_mib: run.dev.migrated_pages as f64 * 4096.0 / MIB as f64,
        run,
    })
}
