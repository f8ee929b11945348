//! Host-managed SMR disk (ZBC/ZAC), e.g. the Seagate ST14000NM0007 of HHZS §2.2
//! Table 1.
//!
//! Firmware model:
//! - **Zones.** A [`ZoneSet`]: the first `conventional_zones` zones (at the outer
//!   diameter, where LBA 0 is) are conventional — random writes, no write pointer;
//!   the rest are sequential-write-required. ZBC has no max-active limit; max-open
//!   is 0 (no limit) unless the profile sets one. Reads above the write pointer
//!   return zeros or fail, per `read_unwritten_ok` (ZBC URSWRZ).
//! - **Data commands** go through the disk mechanics ([`HddCore`]): command
//!   overhead, then seek, rotation and transfer on the actuator. A write in a
//!   sequential zone at the write pointer continues the stream of the previous
//!   write, so zone-sequential writing runs at the media rate. Zone append (which
//!   ZBC lacks; Linux's sd_zbc emulates it) writes at the write pointer the same way.
//! - **Zone management** (open, close, finish, reset) updates metadata only — an
//!   SMR reset just rewinds the write pointer — so it costs one command.
//!   **Flush** costs one command: writes complete when on the media.
//! - **Trim** is not part of ZBC host-managed devices: unsupported.
//! - **Host queue** (`[host_queue]`, optional): the Linux block-layer scheduler in
//!   front of the disk — mq-deadline, which zoned block devices require, or none
//!   (arrival order); see [`super::hdd_queue`].

use super::hdd::{validate_mechanics, ControllerSection, HddCore, MechanicsSection};
use super::hdd_queue::MqDeadline;
use crate::command::{Command, Completion, Payload, ZoneAction};
use crate::device::{check_payload, Device, DeviceInfo, DeviceStats, ZonedInfo};
use crate::error::DeviceError;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
use crate::zoned::{ZoneDescriptor, ZoneLayout, ZoneSet};
use serde::Deserialize;
use zonelab_engine::{Ns, MIB};

/// `model = "hm-smr-hdd"` profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HmSmrHddProfile {
    pub name: String,
    pub model: String,
    pub description: String,
    pub zones: ZonesSection,
    pub mechanics: MechanicsSection,
    pub controller: ControllerSection,
    /// The host's I/O scheduler in front of the disk; absent = none (FIFO).
    #[serde(default)]
    pub host_queue: Option<HostQueueSection>,
}

/// `[host_queue]`: the Linux block-layer scheduler the host runs for this disk
/// (`/sys/block/<dev>/queue/scheduler`) and the drive's queue depth
/// ([`super::hdd_queue`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostQueueSection {
    /// `"mq-deadline"` or `"none"` (arrival order).
    pub scheduler: String,
    pub writes_starved: u32,
    pub fifo_batch: u32,
    pub device_queue_depth: u32,
}

impl HostQueueSection {
    /// Validates the section; `None` for the `none` scheduler.
    pub fn validate(&self, v: &Validator<'_>) -> Result<Option<MqDeadline>, ProfileError> {
        v.check(
            "host_queue.scheduler",
            &self.scheduler,
            ["mq-deadline", "none"].contains(&self.scheduler.as_str()),
            "\"mq-deadline\" or \"none\"",
        )?;
        v.range("host_queue.writes_starved", self.writes_starved, 0, 1 << 16)?;
        v.range("host_queue.fifo_batch", self.fifo_batch, 1, 1 << 16)?;
        v.range(
            "host_queue.device_queue_depth",
            self.device_queue_depth,
            1,
            1 << 16,
        )?;
        Ok((self.scheduler == "mq-deadline").then_some(MqDeadline {
            writes_starved: self.writes_starved,
            fifo_batch: self.fifo_batch,
            device_queue_depth: self.device_queue_depth,
        }))
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZonesSection {
    pub block_bytes: u32,
    pub zone_count: u32,
    pub zone_size_mib: u64,
    pub conventional_zones: u32,
    /// 0 = no limit.
    pub max_open_zones: u32,
    pub read_unwritten_ok: bool,
}

/// The device.
#[derive(Clone)]
pub struct HmSmrHdd {
    info: DeviceInfo,
    zones: ZoneSet,
    core: HddCore,
    zone_resets: u64,
    zone_finishes: u64,
}

impl HmSmrHdd {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: HmSmrHddProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    pub fn new(p: HmSmrHddProfile, source_name: &str) -> Result<Self, ProfileError> {
        let v = Validator::new(source_name);
        let z = &p.zones;
        v.check(
            "zones.block_bytes",
            z.block_bytes,
            [512, 4096].contains(&z.block_bytes),
            "512 or 4096",
        )?;
        v.range("zones.zone_count", z.zone_count, 1, 1 << 22)?;
        v.range("zones.zone_size_mib", z.zone_size_mib, 1, 1 << 16)?;
        v.range(
            "zones.conventional_zones",
            z.conventional_zones,
            0,
            z.zone_count,
        )?;
        v.range("zones.max_open_zones", z.max_open_zones, 0, z.zone_count)?;
        let capacity_bytes = z.zone_count as u64 * z.zone_size_mib * MIB;
        let (params, command_ns) =
            validate_mechanics(&v, &p.mechanics, &p.controller, capacity_bytes)?;
        let sched = match &p.host_queue {
            Some(q) => q.validate(&v)?,
            None => None,
        };
        let zone_size_blocks = z.zone_size_mib * MIB / z.block_bytes as u64;
        let layout = ZoneLayout {
            zone_count: z.zone_count,
            zone_size_blocks,
            zone_capacity_blocks: zone_size_blocks,
            conventional_zones: z.conventional_zones,
            max_open_zones: z.max_open_zones,
            max_active_zones: 0,
            read_unwritten_ok: z.read_unwritten_ok,
        };
        let zones = ZoneSet::new(layout);
        let info = DeviceInfo {
            name: p.name.clone(),
            model: p.model.clone(),
            description: p.description.clone(),
            block_bytes: z.block_bytes,
            capacity_blocks: zones.capacity_blocks(),
            zoned: Some(ZonedInfo {
                zone_count: z.zone_count,
                zone_size_blocks,
                zone_capacity_blocks: zone_size_blocks,
                conventional_zones: z.conventional_zones,
                max_open_zones: z.max_open_zones,
                max_active_zones: 0,
            }),
        };
        Ok(Self {
            info,
            zones,
            core: HddCore::new(&params, command_ns, z.block_bytes).with_host_queue(sched),
            zone_resets: 0,
            zone_finishes: 0,
        })
    }

    /// The disk mechanics (for inspection and tests).
    pub fn core(&self) -> &HddCore {
        &self.core
    }

    fn write(&mut self, now_ns: Ns, lba: u64, blocks: u32, payload: Payload<'_>) -> Completion {
        self.core.count_host_write(blocks);
        let done = self.core.write_media(now_ns, lba, blocks);
        if let Payload::Write(bytes) = payload {
            self.core.store(lba, bytes);
        }
        Completion { done_ns: done, lba }
    }

    fn zone_command(
        &mut self,
        now_ns: Ns,
        action: ZoneAction,
        zone_lba: u64,
    ) -> Result<Completion, DeviceError> {
        match action {
            ZoneAction::Open => {
                self.zones.open(zone_lba)?;
            }
            ZoneAction::Close => self.zones.close(zone_lba)?,
            ZoneAction::Finish => {
                self.zones.finish(zone_lba)?;
                self.zone_finishes += 1;
            }
            ZoneAction::Reset => {
                let written = self.zones.reset(zone_lba)?;
                self.core.discard(zone_lba, written);
                self.zone_resets += 1;
            }
            ZoneAction::OpenZrwa | ZoneAction::FlushZrwa => {
                // ZBC has no zone random write area.
                return Err(DeviceError::Unsupported {
                    command: Command::Zone { action, zone_lba }.name(),
                    device: self.info.name.clone(),
                });
            }
        }
        Ok(Completion {
            done_ns: self.core.command_only(now_ns),
            lba: zone_lba,
        })
    }
}

impl Device for HmSmrHdd {
    fn set_spindle_phase_ns(&mut self, phase_ns: Ns) -> bool {
        self.core.mech.set_spindle_phase_ns(phase_ns);
        true
    }

    fn boxed_clone(&self) -> Option<Box<dyn Device>> {
        Some(Box::new(self.clone()))
    }

    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn submit(
        &mut self,
        now_ns: Ns,
        cmd: &Command,
        payload: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        check_payload(cmd, &payload, self.info.block_bytes)?;
        match *cmd {
            Command::Read { lba, blocks } => {
                self.zones.check_read(lba, blocks)?;
                let done = self.core.read(now_ns, lba, blocks);
                if let Payload::Read(out) = payload {
                    self.core.load(lba, out);
                }
                Ok(Completion { done_ns: done, lba })
            }
            Command::Write { lba, blocks } => {
                let w = self.zones.write(lba, blocks)?;
                Ok(self.write(now_ns, w.lba, blocks, payload))
            }
            Command::Append { zone_lba, blocks } => {
                let w = self.zones.append(zone_lba, blocks)?;
                Ok(self.write(now_ns, w.lba, blocks, payload))
            }
            Command::Flush => Ok(Completion {
                done_ns: self.core.command_only(now_ns),
                lba: 0,
            }),
            Command::Trim { .. } => Err(DeviceError::Unsupported {
                command: "trim",
                device: self.info.name.clone(),
            }),
            Command::Zone { action, zone_lba } => self.zone_command(now_ns, action, zone_lba),
        }
    }

    fn report_zones(&self, first: u32, max: u32) -> Result<Vec<ZoneDescriptor>, DeviceError> {
        Ok(self.zones.report(first, max))
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        let mut st = self.core.stats(elapsed_ns);
        st.zone_resets = self.zone_resets;
        st.zone_finishes = self.zone_finishes;
        st.counters
            .insert("open_zones".into(), self.zones.open_count() as u64);
        st.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::hdd::qd1;
    use crate::profile::find_profile;
    use crate::zoned::{ZoneState, ZoneType};
    use zonelab_engine::{ms_to_ns, us_to_ns};

    /// A small HM-SMR disk: 64 zones of 4 MiB (2 conventional), 4 KiB blocks.
    const SMALL: &str = r#"
name = "small-smr"
model = "hm-smr-hdd"
description = "test disk"
[zones]
block_bytes = 4096
zone_count = 64
zone_size_mib = 4
conventional_zones = 2
max_open_zones = 0
read_unwritten_ok = true
[mechanics]
rpm = 7200
heads = 2
recording_zones = 4
sector_bytes = 4096
outer_mb_s = 100.0
inner_mb_s = 50.0
head_switch_ms = 1.0
single_cylinder_seek_ms = 0.8
average_seek_ms = 4.0
full_stroke_seek_ms = 8.0
[controller]
command_us = 100.0
"#;

    fn small() -> HmSmrHdd {
        from_text(SMALL).unwrap()
    }

    fn from_text(text: &str) -> Result<HmSmrHdd, ProfileError> {
        HmSmrHdd::from_profile(&ProfileSource {
            source_name: "small-smr".into(),
            text: text.into(),
        })
    }

    const ZONE: u64 = 1024; // 4 MiB / 4 KiB

    #[test]
    fn writes_must_be_at_the_write_pointer_of_a_sequential_zone() {
        let mut d = small();
        let z = 2 * ZONE;
        d.submit(0, &Command::Write { lba: z, blocks: 8 }, Payload::SizeOnly)
            .unwrap();
        let err = d
            .submit(
                0,
                &Command::Write {
                    lba: z + 16,
                    blocks: 8,
                },
                Payload::SizeOnly,
            )
            .unwrap_err();
        assert_eq!(
            err,
            DeviceError::NotAtWritePointer {
                zone: 2,
                lba: z + 16,
                write_pointer: z + 8
            }
        );
        d.submit(
            0,
            &Command::Write {
                lba: z + 8,
                blocks: 8,
            },
            Payload::SizeOnly,
        )
        .unwrap();
        assert_eq!(d.report_zones(2, 1).unwrap()[0].write_pointer, z + 16);
        assert_eq!(
            d.report_zones(2, 1).unwrap()[0].state,
            ZoneState::ImplicitlyOpen
        );
    }

    #[test]
    fn conventional_zones_take_random_writes_but_not_appends_or_zone_commands() {
        let mut d = small();
        for lba in [700, 3, 1500, 3] {
            d.submit(0, &Command::Write { lba, blocks: 2 }, Payload::SizeOnly)
                .unwrap();
        }
        let err = d
            .submit(
                0,
                &Command::Append {
                    zone_lba: 0,
                    blocks: 1,
                },
                Payload::SizeOnly,
            )
            .unwrap_err();
        assert_eq!(
            err,
            DeviceError::ConventionalZone {
                command: "append",
                zone: 0
            }
        );
        let err = d
            .submit(
                0,
                &Command::Zone {
                    action: ZoneAction::Reset,
                    zone_lba: ZONE,
                },
                Payload::SizeOnly,
            )
            .unwrap_err();
        assert_eq!(
            err,
            DeviceError::ConventionalZone {
                command: "zone-reset",
                zone: 1
            }
        );
        let r = d.report_zones(0, 3).unwrap();
        assert_eq!(r[0].zone_type, ZoneType::Conventional);
        assert_eq!(r[1].zone_type, ZoneType::Conventional);
        assert_eq!(r[2].zone_type, ZoneType::SequentialWriteRequired);
        // Conventional zones have no boundary constraint (ZBC/ZAC): a write and a
        // read spanning zones 0 and 1 are accepted.
        for cmd in [
            Command::Write {
                lba: ZONE - 1,
                blocks: 2,
            },
            Command::Read {
                lba: ZONE - 1,
                blocks: 2,
            },
        ] {
            d.submit(0, &cmd, Payload::SizeOnly)
                .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        }
        // A write crossing from a conventional into a sequential zone is rejected.
        let err = d
            .submit(
                0,
                &Command::Write {
                    lba: 2 * ZONE - 1,
                    blocks: 2,
                },
                Payload::SizeOnly,
            )
            .unwrap_err();
        assert!(
            matches!(err, DeviceError::BoundaryCrossed { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn append_lands_at_the_write_pointer_and_unwritten_reads_fail_when_configured() {
        let mut d =
            from_text(&SMALL.replace("read_unwritten_ok = true", "read_unwritten_ok = false"))
                .unwrap();
        let z = 5 * ZONE;
        let c = d
            .submit(
                0,
                &Command::Append {
                    zone_lba: z,
                    blocks: 4,
                },
                Payload::SizeOnly,
            )
            .unwrap();
        assert_eq!(c.lba, z);
        let c = d
            .submit(
                c.done_ns,
                &Command::Append {
                    zone_lba: z,
                    blocks: 4,
                },
                Payload::SizeOnly,
            )
            .unwrap();
        assert_eq!(c.lba, z + 4);
        d.submit(0, &Command::Read { lba: z, blocks: 8 }, Payload::SizeOnly)
            .unwrap();
        let err = d
            .submit(
                0,
                &Command::Read {
                    lba: z + 4,
                    blocks: 8,
                },
                Payload::SizeOnly,
            )
            .unwrap_err();
        assert_eq!(
            err,
            DeviceError::UnwrittenRead {
                zone: 5,
                lba: z + 4,
                write_pointer: z + 8
            }
        );
        // With URSWRZ the same read returns (zeros).
        let mut ok = small();
        ok.submit(
            0,
            &Command::Read {
                lba: z + 4,
                blocks: 8,
            },
            Payload::SizeOnly,
        )
        .unwrap();
    }

    #[test]
    fn zone_management_and_flush_cost_one_command() {
        let mut d = small();
        let z = 3 * ZONE;
        let now = ms_to_ns(50.0);
        d.submit(0, &Command::Write { lba: z, blocks: 64 }, Payload::SizeOnly)
            .unwrap();
        let cmd = us_to_ns(100.0);
        for action in [
            ZoneAction::Close,
            ZoneAction::Open,
            ZoneAction::Finish,
            ZoneAction::Reset,
        ] {
            let c = d
                .submit(
                    now,
                    &Command::Zone {
                        action,
                        zone_lba: z,
                    },
                    Payload::SizeOnly,
                )
                .unwrap();
            assert_eq!(c.done_ns, now + cmd, "{action:?}");
        }
        assert_eq!(
            d.submit(now, &Command::Flush, Payload::SizeOnly)
                .unwrap()
                .done_ns,
            now + cmd
        );
        let st = d.stats(now + cmd);
        assert_eq!((st.zone_resets, st.zone_finishes), (1, 1));
        assert_eq!(d.report_zones(3, 1).unwrap()[0].state, ZoneState::Empty);
        let err = d
            .submit(0, &Command::Trim { lba: 0, blocks: 1 }, Payload::SizeOnly)
            .unwrap_err();
        assert!(matches!(
            err,
            DeviceError::Unsupported {
                command: "trim",
                ..
            }
        ));
    }

    #[test]
    fn payload_bytes_round_trip_and_reset_forgets_them() {
        let mut d = small();
        let z = 4 * ZONE;
        let data: Vec<u8> = (0..2 * 4096).map(|i| (i % 251) as u8).collect();
        d.submit(
            0,
            &Command::Write { lba: z, blocks: 2 },
            Payload::Write(&data),
        )
        .unwrap();
        d.submit(
            0,
            &Command::Write { lba: 9, blocks: 2 },
            Payload::Write(&data),
        )
        .unwrap();
        let mut out = vec![0u8; 2 * 4096];
        d.submit(
            0,
            &Command::Read { lba: z, blocks: 2 },
            Payload::Read(&mut out),
        )
        .unwrap();
        assert_eq!(out, data);
        let mut out2 = vec![0u8; 2 * 4096];
        d.submit(
            0,
            &Command::Read { lba: 9, blocks: 2 },
            Payload::Read(&mut out2),
        )
        .unwrap();
        assert_eq!(out2, data);
        d.submit(
            0,
            &Command::Zone {
                action: ZoneAction::Reset,
                zone_lba: z,
            },
            Payload::SizeOnly,
        )
        .unwrap();
        d.submit(
            0,
            &Command::Read { lba: z, blocks: 2 },
            Payload::Read(&mut out),
        )
        .unwrap();
        assert!(out.iter().all(|&b| b == 0));
        let err = d
            .submit(
                0,
                &Command::Write { lba: 9, blocks: 2 },
                Payload::Write(&data[..4096]),
            )
            .unwrap_err();
        assert!(matches!(err, DeviceError::PayloadSize { .. }));
    }

    #[test]
    fn out_of_range_profile_values_name_the_field() {
        let err = from_text(&SMALL.replace("rpm = 7200", "rpm = 100"))
            .err()
            .unwrap();
        assert_eq!(
            err,
            ProfileError::OutOfRange {
                profile: "small-smr".into(),
                field: "mechanics.rpm".into(),
                value: "100".into(),
                allowed: "3600..=20000".into()
            }
        );
        let err = from_text(&SMALL.replace("conventional_zones = 2", "conventional_zones = 65"))
            .err()
            .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "zones.conventional_zones"),
            "{err}"
        );
        let err = from_text(&SMALL.replace("average_seek_ms = 4.0", "average_seek_ms = 7.99"))
            .err()
            .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "mechanics.average_seek_ms"),
            "{err}"
        );
        let err = from_text(&SMALL.replace("inner_mb_s = 50.0", "inner_mb_s = 150.0"))
            .err()
            .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "mechanics.inner_mb_s"),
            "{err}"
        );
        let err = from_text(
            &SMALL
                .replace("zone_count = 64", "zone_count = 1")
                .replace("conventional_zones = 2", "conventional_zones = 0"),
        )
        .err()
        .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "capacity"),
            "{err}"
        );
        let err = from_text(&SMALL.replace("head_switch_ms = 1.0", "head_switch_ms = nan"))
            .err()
            .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "mechanics.head_switch_ms"),
            "{err}"
        );
        let err = from_text(&SMALL.replace("command_us = 100.0", "command_us = -1.0"))
            .err()
            .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "controller.command_us"),
            "{err}"
        );
    }

    #[test]
    fn same_inputs_give_identical_timings() {
        let run = || {
            let mut d = small();
            let a = qd1::random_read_iops(&mut d, 200, 7);
            (a.to_bits(), d.stats(1).counters)
        };
        assert_eq!(run(), run());
    }

    const QUEUE: &str = r#"
[host_queue]
scheduler = "mq-deadline"
writes_starved = 2
fifo_batch = 16
device_queue_depth = 1
"#;

    #[test]
    fn host_queue_values_are_checked_by_name() {
        for (from, to, field) in [
            ("\"mq-deadline\"", "\"cfq\"", "host_queue.scheduler"),
            ("fifo_batch = 16", "fifo_batch = 0", "host_queue.fifo_batch"),
            (
                "device_queue_depth = 1",
                "device_queue_depth = 0",
                "host_queue.device_queue_depth",
            ),
        ] {
            let text = format!("{SMALL}{}", QUEUE.replace(from, to));
            let err = from_text(&text).err().unwrap();
            assert!(
                matches!(err, ProfileError::OutOfRange { field: ref f, .. } if f == field),
                "{err}"
            );
            assert!(err.to_string().contains(field), "{err}");
        }
    }

    /// Through the device's commands: eight 1 MiB writes to scattered zones, then
    /// a 4 KiB read. mq-deadline with a one-deep device queue serves the read
    /// after the write in service; without a scheduler it waits for all eight.
    #[test]
    fn a_read_passes_queued_zone_writes_under_mq_deadline_only() {
        let read_done = |text: &str| {
            let mut d = from_text(text).unwrap();
            let mut last_write = 0;
            for z in 0..8u64 {
                let zone_lba = (2 + z * 7) * ZONE;
                let c = d
                    .submit(
                        0,
                        &Command::Append {
                            zone_lba,
                            blocks: 256,
                        },
                        Payload::SizeOnly,
                    )
                    .unwrap();
                last_write = c.done_ns;
            }
            let r = d
                .submit(
                    1,
                    &Command::Read {
                        lba: 3 * ZONE,
                        blocks: 1,
                    },
                    Payload::SizeOnly,
                )
                .unwrap();
            (r.done_ns, last_write, d.stats(1).counters)
        };
        let (fifo, last_write, counters) = read_done(SMALL);
        assert!(fifo > last_write);
        assert!(!counters.contains_key("host_queue_reads"));
        let (mq, last_write, counters) = read_done(&format!("{SMALL}{QUEUE}"));
        assert!(
            mq < last_write / 2,
            "read done at {mq}, writes at {last_write}"
        );
        assert_eq!(counters["host_queue_reads_ahead"], 1);
        assert_eq!(counters["host_queue_requests_passed"], 7);
    }

    /// The paper's disk runs Linux's mq-deadline with its defaults over a
    /// 32-deep NCQ queue; `scheduler = "none"` is the FIFO ablation.
    #[test]
    fn the_paper_disk_runs_mq_deadline_with_the_kernels_defaults() {
        assert_eq!(
            st14000().core().host_queue().scheduler(),
            Some(MqDeadline::LINUX_SATA)
        );
        let src = find_profile("st14000nm0007").unwrap();
        let text = src
            .text
            .replace("scheduler = \"mq-deadline\"", "scheduler = \"none\"");
        let d = HmSmrHdd::from_profile(&ProfileSource { text, ..src }).unwrap();
        assert_eq!(d.core().host_queue().scheduler(), None);
    }

    fn st14000() -> HmSmrHdd {
        HmSmrHdd::from_profile(&find_profile("st14000nm0007").unwrap()).unwrap()
    }

    /// HHZS Table 1 (fio, QD1): sequential read and write 210.0 MiB/s with 1 MiB
    /// requests, random 4 KiB reads 115.0 IOPS. Sequential runs start at the first
    /// sequential zone, random reads cover the whole device.
    #[test]
    fn st14000nm0007_matches_hhzs_table1_at_qd1() {
        let mut d = st14000();
        let first_seq = d.info.zoned.as_ref().unwrap().conventional_zones as u64
            * d.zones.layout().zone_size_blocks;
        let write = qd1::sequential_mib_s(&mut d, first_seq, 256 * MIB, true);
        let read = qd1::sequential_mib_s(&mut st14000(), first_seq, 256 * MIB, false);
        let iops = qd1::random_read_iops(&mut st14000(), 2_000, 42);
        eprintln!("st14000nm0007 QD1: seq write {write:.1} MiB/s, seq read {read:.1} MiB/s, random read {iops:.1} IOPS");
        let within = |got: f64, want: f64| (got / want - 1.0).abs() <= 0.05;
        assert!(
            within(write, 210.0),
            "sequential write {write:.1} MiB/s vs Table 1 210.0"
        );
        assert!(
            within(read, 210.0),
            "sequential read {read:.1} MiB/s vs Table 1 210.0"
        );
        assert!(
            within(iops, 115.0),
            "random read {iops:.1} IOPS vs Table 1 115.0"
        );
    }

    #[test]
    fn st14000nm0007_geometry_is_as_reported() {
        let d = st14000();
        let z = d.info.zoned.as_ref().unwrap();
        assert_eq!(d.info.capacity_bytes(), 14_000_519_643_136);
        assert_eq!(z.zone_size_blocks * 4096, 256 * MIB);
        assert_eq!(d.core.mech.geometry().heads(), 16);
        let st = d.stats(0);
        assert_eq!(st.utilisation["actuator"], 0.0);
    }
}
