//! What the hard-disk models share: the `[mechanics]` and `[controller]` profile
//! sections, their validation, and [`HddCore`] — disk mechanics
//! ([`zonelab_media::disk`]) plus a per-command controller overhead, host/media
//! byte counts and optional payload storage. [`super::hm_smr_hdd`] puts the zone
//! rules in front of it, [`super::cmr_hdd`] the block interface.
//!
//! Timing of a data command: the controller spends `command_us` on it, then the
//! actuator positions and transfers (queueing behind earlier commands); the host
//! sees the completion when the transfer is done. Sequential streams continue
//! without repositioning (read-ahead / write cache, see the mechanics' docs).

use super::hdd_queue::{Direction, HostQueue, MqDeadline};
use crate::block_store::BlockStore;
use crate::command::Lba;
use crate::device::DeviceStats;
use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use zonelab_engine::{ms_to_ns, us_to_ns, Ns};
use zonelab_media::disk::{DiskMechanics, DiskParams};

/// `[mechanics]`: the disk's geometry and timing (rates in MB = 10^6 bytes/s, as
/// datasheets give them).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MechanicsSection {
    pub rpm: u32,
    pub heads: u32,
    pub recording_zones: u32,
    pub sector_bytes: u32,
    pub outer_mb_s: f64,
    pub inner_mb_s: f64,
    pub head_switch_ms: f64,
    pub single_cylinder_seek_ms: f64,
    pub average_seek_ms: f64,
    pub full_stroke_seek_ms: f64,
}

/// `[controller]`: firmware cost per command.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerSection {
    pub command_us: f64,
}

/// Range-checks `[mechanics]` and `[controller]`, then the relations between the
/// values (through the media model's own checks), and returns the disk parameters
/// and the command overhead.
pub fn validate_mechanics(
    v: &Validator<'_>,
    m: &MechanicsSection,
    c: &ControllerSection,
    capacity_bytes: u64,
) -> Result<(DiskParams, Ns), ProfileError> {
    for (field, value) in [
        ("mechanics.outer_mb_s", m.outer_mb_s),
        ("mechanics.inner_mb_s", m.inner_mb_s),
        ("mechanics.head_switch_ms", m.head_switch_ms),
        (
            "mechanics.single_cylinder_seek_ms",
            m.single_cylinder_seek_ms,
        ),
        ("mechanics.average_seek_ms", m.average_seek_ms),
        ("mechanics.full_stroke_seek_ms", m.full_stroke_seek_ms),
        ("controller.command_us", c.command_us),
    ] {
        // NaN passes every comparison; reject it by name first.
        v.check(field, value, value.is_finite(), "a finite number")?;
    }
    v.range("mechanics.rpm", m.rpm, 3_600, 20_000)?;
    v.range("mechanics.heads", m.heads, 1, 64)?;
    v.range("mechanics.recording_zones", m.recording_zones, 1, 1_000)?;
    v.check(
        "mechanics.sector_bytes",
        m.sector_bytes,
        [512, 4096].contains(&m.sector_bytes),
        "512 or 4096",
    )?;
    v.range("mechanics.outer_mb_s", m.outer_mb_s, 1.0, 10_000.0)?;
    v.range("mechanics.inner_mb_s", m.inner_mb_s, 1.0, m.outer_mb_s)?;
    v.range("mechanics.head_switch_ms", m.head_switch_ms, 0.0, 5.0)?;
    v.range(
        "mechanics.single_cylinder_seek_ms",
        m.single_cylinder_seek_ms,
        0.0,
        10.0,
    )?;
    v.range(
        "mechanics.average_seek_ms",
        m.average_seek_ms,
        m.single_cylinder_seek_ms,
        50.0,
    )?;
    v.range(
        "mechanics.full_stroke_seek_ms",
        m.full_stroke_seek_ms,
        m.average_seek_ms,
        100.0,
    )?;
    v.range("controller.command_us", c.command_us, 0.0, 100_000.0)?;
    let params = DiskParams {
        capacity_bytes,
        rpm: m.rpm,
        heads: m.heads,
        recording_zones: m.recording_zones,
        sector_bytes: m.sector_bytes,
        outer_bytes_per_s: (m.outer_mb_s * 1e6).round() as u64,
        inner_bytes_per_s: (m.inner_mb_s * 1e6).round() as u64,
        head_switch_ns: ms_to_ns(m.head_switch_ms),
        single_cylinder_seek_ns: ms_to_ns(m.single_cylinder_seek_ms),
        average_seek_ns: ms_to_ns(m.average_seek_ms),
        full_stroke_seek_ns: ms_to_ns(m.full_stroke_seek_ms),
    };
    params.validate().map_err(|e| {
        // Name the profile field and give its value in the profile's units.
        let (field, value) = match e.field {
            "capacity_bytes" => ("capacity", capacity_bytes.to_string()),
            "rpm" => ("mechanics.rpm", m.rpm.to_string()),
            "heads" => ("mechanics.heads", m.heads.to_string()),
            "recording_zones" => ("mechanics.recording_zones", m.recording_zones.to_string()),
            "sector_bytes" => ("mechanics.sector_bytes", m.sector_bytes.to_string()),
            "outer_bytes_per_s" => ("mechanics.outer_mb_s", m.outer_mb_s.to_string()),
            "inner_bytes_per_s" => ("mechanics.inner_mb_s", m.inner_mb_s.to_string()),
            "head_switch_ns" => ("mechanics.head_switch_ms", m.head_switch_ms.to_string()),
            "single_cylinder_seek_ns" => (
                "mechanics.single_cylinder_seek_ms",
                m.single_cylinder_seek_ms.to_string(),
            ),
            "average_seek_ns" => ("mechanics.average_seek_ms", m.average_seek_ms.to_string()),
            "full_stroke_seek_ns" => (
                "mechanics.full_stroke_seek_ms",
                m.full_stroke_seek_ms.to_string(),
            ),
            other => (other, e.value.clone()),
        };
        v.out_of_range(field, value, e.allowed)
    })?;
    Ok((params, us_to_ns(c.command_us)))
}

pub use crate::device::check_block_range as check_range;

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    host_read_bytes: u64,
    host_write_bytes: u64,
    media_read_bytes: u64,
    media_write_bytes: u64,
}

/// Disk mechanics + controller overhead + counters + optional payload bytes.
#[derive(Clone)]
pub struct HddCore {
    pub mech: DiskMechanics,
    pub command_ns: Ns,
    block_bytes: u64,
    data: Option<BlockStore>,
    counts: Counts,
    /// The host's I/O scheduler in front of the disk (FIFO unless set).
    queue: HostQueue,
}

impl HddCore {
    pub fn new(params: &DiskParams, command_ns: Ns, block_bytes: u32) -> Self {
        Self {
            mech: DiskMechanics::new(params),
            command_ns,
            block_bytes: block_bytes as u64,
            data: None,
            counts: Counts::default(),
            queue: HostQueue::new(None),
        }
    }

    /// Puts the host's mq-deadline scheduler (`Some`) or none (FIFO) in front
    /// of the disk ([`super::hdd_queue`]).
    pub fn with_host_queue(mut self, sched: Option<MqDeadline>) -> Self {
        self.queue = HostQueue::new(sched);
        self
    }

    /// The host queue (for inspection and tests).
    pub fn host_queue(&self) -> &HostQueue {
        &self.queue
    }

    /// A command that needs only the controller (flush, zone management, trim).
    #[inline]
    pub fn command_only(&self, now_ns: Ns) -> Ns {
        now_ns + self.command_ns
    }

    /// Reads `blocks` at `lba` from the media; returns the completion time.
    #[inline]
    pub fn read(&mut self, now_ns: Ns, lba: Lba, blocks: u32) -> Ns {
        let bytes = blocks as u64 * self.block_bytes;
        let a = self.queue.access(
            &mut self.mech,
            Direction::Read,
            now_ns,
            now_ns + self.command_ns,
            lba * self.block_bytes,
            bytes,
        );
        self.counts.host_read_bytes += bytes;
        self.counts.media_read_bytes += bytes;
        a.done_ns
    }

    /// Writes `blocks` at `lba` to the media; returns the completion time.
    #[inline]
    pub fn write_media(&mut self, now_ns: Ns, lba: Lba, blocks: u32) -> Ns {
        let bytes = blocks as u64 * self.block_bytes;
        let a = self.queue.access(
            &mut self.mech,
            Direction::Write,
            now_ns,
            now_ns + self.command_ns,
            lba * self.block_bytes,
            bytes,
        );
        self.counts.media_write_bytes += bytes;
        a.done_ns
    }

    /// Counts bytes the host asked to write (apart from when they reach the media).
    #[inline]
    pub fn count_host_write(&mut self, blocks: u32) {
        self.counts.host_write_bytes += blocks as u64 * self.block_bytes;
    }

    /// Stores written payload bytes (only when a request carries them).
    pub fn store(&mut self, lba: Lba, bytes: &[u8]) {
        let bb = self.block_bytes as u32;
        self.data
            .get_or_insert_with(|| BlockStore::new(bb))
            .write(lba, bytes);
    }

    /// Fills `out` with stored bytes (zeros where nothing was written).
    pub fn load(&self, lba: Lba, out: &mut [u8]) {
        match self.data.as_ref() {
            Some(d) => d.read(lba, out),
            None => out.fill(0),
        }
    }

    /// Forgets stored bytes (zone reset).
    pub fn discard(&mut self, lba: Lba, blocks: u64) {
        if let Some(d) = self.data.as_mut() {
            d.discard(lba, blocks);
        }
    }

    /// The statistics every disk reports: bytes, actuator utilisation and the
    /// mechanics' counters.
    pub fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        let s = &self.counts;
        let mut st = DeviceStats {
            host_read_bytes: s.host_read_bytes,
            host_write_bytes: s.host_write_bytes,
            media_read_bytes: s.media_read_bytes,
            media_write_bytes: s.media_write_bytes,
            ..Default::default()
        };
        st.utilisation
            .insert("actuator".into(), round6(self.mech.utilisation(elapsed_ns)));
        let c = self.mech.counters();
        st.counters.insert("media_accesses".into(), c.accesses);
        st.counters.insert("seeks".into(), c.seeks);
        st.counters.insert("head_switches".into(), c.head_switches);
        st.counters
            .insert("track_switches".into(), c.track_switches);
        st.counters.insert("streamed_accesses".into(), c.streamed);
        st.counters.insert("seek_ns".into(), c.seek_ns);
        st.counters
            .insert("rotational_wait_ns".into(), c.rotational_wait_ns);
        st.counters.insert("transfer_ns".into(), c.transfer_ns);
        if self.queue.scheduler().is_some() {
            let q = self.queue.counters();
            for (name, value) in [
                ("host_queue_reads", q.reads),
                ("host_queue_reads_found_held", q.reads_found_held),
                ("host_queue_reads_ahead", q.reads_ahead),
                ("host_queue_requests_passed", q.requests_passed),
                ("host_queue_starved_write_batches", q.starved_write_batches),
                (
                    "host_queue_outstanding_at_read_sum",
                    q.outstanding_at_read_sum,
                ),
                (
                    "host_queue_outstanding_at_read_max",
                    q.outstanding_at_read_max,
                ),
                ("host_queue_pushed_back_ns", q.pushed_back_ns),
            ] {
                st.counters.insert(name.into(), value);
            }
        }
        st
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// QD1 measurement helpers shared by the HDD models' calibration tests: each
/// request is submitted at the previous one's completion time (as fio with
/// `iodepth=1` does).
#[cfg(test)]
pub mod qd1 {
    use crate::command::{Command, Payload};
    use crate::device::Device;
    use zonelab_engine::rng::uniform_below;
    use zonelab_engine::{Ns, RngStreams, MIB, NS_PER_S};

    /// Sequential 1 MiB commands from `start_lba` covering `total_bytes`; returns
    /// MiB/s over the whole run (including the first positioning).
    pub fn sequential_mib_s(
        dev: &mut dyn Device,
        start_lba: u64,
        total_bytes: u64,
        write: bool,
    ) -> f64 {
        let bb = dev.info().block_bytes as u64;
        let blocks = (MIB / bb) as u32;
        let mut now: Ns = 0;
        for i in 0..total_bytes / MIB {
            let lba = start_lba + i * blocks as u64;
            let cmd = if write {
                Command::Write { lba, blocks }
            } else {
                Command::Read { lba, blocks }
            };
            now = dev
                .submit(now, &cmd, Payload::SizeOnly)
                .expect("sequential command")
                .done_ns;
        }
        (total_bytes / MIB) as f64 * NS_PER_S as f64 / now as f64
    }

    /// `count` random 4 KiB reads, 4 KiB aligned, uniform over the whole device;
    /// returns IOPS.
    pub fn random_read_iops(dev: &mut dyn Device, count: u64, seed: u64) -> f64 {
        let bb = dev.info().block_bytes as u64;
        let blocks = (4096 / bb) as u32;
        let slots = dev.info().capacity_blocks / blocks as u64;
        let mut rng = RngStreams::new(seed).stream("qd1.randread");
        let mut now: Ns = 0;
        for _ in 0..count {
            let lba = uniform_below(&mut rng, slots) * blocks as u64;
            now = dev
                .submit(now, &Command::Read { lba, blocks }, Payload::SizeOnly)
                .expect("random read")
                .done_ns;
        }
        count as f64 * NS_PER_S as f64 / now as f64
    }
}
