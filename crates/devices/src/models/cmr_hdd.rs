//! Conventional (CMR) block-interface disk, e.g. the WD Red 10 TB (WD100EFAX) that
//! BCW/MIOS §3.1 profiles.
//!
//! Firmware model:
//! - **Reads and writes** anywhere, through the disk mechanics ([`HddCore`]):
//!   command overhead, then seek, rotation and transfer on the actuator;
//!   sequential streams continue without repositioning.
//! - **Writes** all go through [`CmrHdd::write_path`]: with a `[cache]` section
//!   that is enabled, into the DRAM write buffer ([`HddWriteCache`]: BCW's fast /
//!   mid / slow writes emerge from its occupancy and the mechanics); without one
//!   (or `enabled = false`), through to the media.
//! - **Reads** of data still in the write buffer are served from it; others go
//!   to the mechanics, behind flushes under way.
//! - **Trim** is accepted and does nothing but cost a command (the drive keeps the
//!   data); **flush** empties the write buffer (or costs a command without one).
//! - **Zone commands** and report zones: unsupported (block interface).

use super::hdd::{check_range, validate_mechanics, ControllerSection, HddCore, MechanicsSection};
use super::hdd_write_cache::{CacheSection, HddWriteCache};
use crate::command::{Command, Completion, Payload};
use crate::device::{check_payload, Device, DeviceInfo, DeviceStats};
use crate::error::DeviceError;
use crate::profile::{parse_as, ProfileError, ProfileSource, Validator};
use serde::Deserialize;
use zonelab_engine::Ns;

/// `model = "cmr-hdd"` profile.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CmrHddProfile {
    pub name: String,
    pub model: String,
    pub description: String,
    pub block: BlockSection,
    pub mechanics: MechanicsSection,
    pub controller: ControllerSection,
    /// DRAM write buffer; absent = write-through.
    #[serde(default)]
    pub cache: Option<CacheSection>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockSection {
    /// Logical block size the drive reports.
    pub block_bytes: u32,
    pub capacity_blocks: u64,
}

/// The device.
pub struct CmrHdd {
    info: DeviceInfo,
    core: HddCore,
    cache: Option<HddWriteCache>,
    trims: u64,
    flushes: u64,
}

impl CmrHdd {
    pub fn from_profile(src: &ProfileSource) -> Result<Self, ProfileError> {
        let p: CmrHddProfile = parse_as(src)?;
        Self::new(p, &src.source_name)
    }

    pub fn new(p: CmrHddProfile, source_name: &str) -> Result<Self, ProfileError> {
        let v = Validator::new(source_name);
        let b = &p.block;
        v.check(
            "block.block_bytes",
            b.block_bytes,
            [512, 4096].contains(&b.block_bytes),
            "512 or 4096",
        )?;
        // Up to 1 PB: far beyond any disk, small enough for byte offsets in u64.
        let max_blocks = 1_000_000_000_000_000 / b.block_bytes as u64;
        v.range("block.capacity_blocks", b.capacity_blocks, 1, max_blocks)?;
        let capacity_bytes = b.capacity_blocks * b.block_bytes as u64;
        let (params, command_ns) =
            validate_mechanics(&v, &p.mechanics, &p.controller, capacity_bytes).map_err(
                |e| match e {
                    ProfileError::OutOfRange {
                        profile,
                        field,
                        allowed,
                        ..
                    } if field == "capacity" => ProfileError::OutOfRange {
                        profile,
                        field: "block.capacity_blocks".into(),
                        value: b.capacity_blocks.to_string(),
                        allowed,
                    },
                    e => e,
                },
            )?;
        let cache = match &p.cache {
            Some(c) => c
                .validate(&v, b.block_bytes)?
                .map(|params| HddWriteCache::new(params, b.block_bytes)),
            None => None,
        };
        let info = DeviceInfo {
            name: p.name.clone(),
            model: p.model.clone(),
            description: p.description.clone(),
            block_bytes: b.block_bytes,
            capacity_blocks: b.capacity_blocks,
            zoned: None,
        };
        Ok(Self {
            info,
            core: HddCore::new(&params, command_ns, b.block_bytes),
            cache,
            trims: 0,
            flushes: 0,
        })
    }

    /// The disk mechanics (for inspection and tests).
    pub fn core(&self) -> &HddCore {
        &self.core
    }

    /// The write buffer, when the profile enables one.
    pub fn cache(&self) -> Option<&HddWriteCache> {
        self.cache.as_ref()
    }

    /// Every host write goes through here: returns when the host sees the write
    /// complete.
    fn write_path(&mut self, now_ns: Ns, lba: u64, blocks: u32) -> Ns {
        self.core.count_host_write(blocks);
        match self.cache.as_mut() {
            Some(cache) => cache.write(&mut self.core, now_ns, lba, blocks),
            None => self.core.write_media(now_ns, lba, blocks),
        }
    }

    fn read_path(&mut self, now_ns: Ns, lba: u64, blocks: u32) -> Ns {
        let mut start_ns = now_ns;
        if let Some(cache) = self.cache.as_mut() {
            if let Some(done) = cache.read_hit(&mut self.core, now_ns, lba, blocks) {
                return done;
            }
            start_ns = cache.after_sync_ns(now_ns);
        }
        self.core.read(start_ns, lba, blocks)
    }
}

impl Device for CmrHdd {
    fn set_spindle_phase_ns(&mut self, phase_ns: Ns) -> bool {
        self.core.mech.set_spindle_phase_ns(phase_ns);
        true
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
        let capacity = self.info.capacity_blocks;
        match *cmd {
            Command::Read { lba, blocks } => {
                check_range("read", lba, blocks, capacity)?;
                let done = self.read_path(now_ns, lba, blocks);
                if let Payload::Read(out) = payload {
                    self.core.load(lba, out);
                }
                Ok(Completion { done_ns: done, lba })
            }
            Command::Write { lba, blocks } => {
                check_range("write", lba, blocks, capacity)?;
                let done = self.write_path(now_ns, lba, blocks);
                if let Payload::Write(bytes) = payload {
                    self.core.store(lba, bytes);
                }
                Ok(Completion { done_ns: done, lba })
            }
            Command::Trim { lba, blocks } => {
                check_range("trim", lba, blocks, capacity)?;
                self.trims += 1;
                Ok(Completion {
                    done_ns: self.core.command_only(now_ns),
                    lba,
                })
            }
            Command::Flush => {
                self.flushes += 1;
                let done = match self.cache.as_mut() {
                    Some(cache) => cache.sync(&mut self.core, now_ns),
                    None => self.core.command_only(now_ns),
                };
                Ok(Completion {
                    done_ns: done,
                    lba: 0,
                })
            }
            Command::Append { .. } | Command::Zone { .. } => Err(DeviceError::Unsupported {
                command: cmd.name(),
                device: self.info.name.clone(),
            }),
        }
    }

    fn stats(&self, elapsed_ns: Ns) -> DeviceStats {
        let mut st = self.core.stats(elapsed_ns);
        st.counters.insert("trims".into(), self.trims);
        st.counters.insert("flushes".into(), self.flushes);
        if let Some(cache) = &self.cache {
            // Reads served from the buffer never reach the mechanics' counts.
            st.host_read_bytes += cache.counters().read_hit_bytes;
            st.buffered_write_bytes = cache.dirty_bytes();
            cache.report(elapsed_ns, &mut st.counters);
        }
        st.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::command::ZoneAction;
    use crate::models::hdd::qd1;
    use crate::profile::find_profile;
    use zonelab_engine::{us_to_ns, MIB};

    const SMALL: &str = r#"
name = "small-cmr"
model = "cmr-hdd"
description = "test disk"
[block]
block_bytes = 512
capacity_blocks = 524288
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
command_us = 40.0
"#;

    fn from_text(text: &str) -> Result<CmrHdd, ProfileError> {
        CmrHdd::from_profile(&ProfileSource {
            source_name: "small-cmr".into(),
            text: text.into(),
        })
    }

    fn small() -> CmrHdd {
        from_text(SMALL).unwrap()
    }

    #[test]
    fn random_writes_anywhere_and_payloads_round_trip() {
        let mut d = small();
        let data: Vec<u8> = (0..8 * 512).map(|i| (i * 7 % 253) as u8).collect();
        d.submit(
            0,
            &Command::Write {
                lba: 300_000,
                blocks: 8,
            },
            Payload::Write(&data),
        )
        .unwrap();
        d.submit(
            0,
            &Command::Write { lba: 17, blocks: 8 },
            Payload::Write(&data),
        )
        .unwrap();
        let mut out = vec![0u8; 8 * 512];
        let c = d
            .submit(
                0,
                &Command::Read {
                    lba: 300_000,
                    blocks: 8,
                },
                Payload::Read(&mut out),
            )
            .unwrap();
        assert_eq!(out, data);
        assert!(c.done_ns > 0);
        // Trim is a no-op command: the data stays.
        let t = d
            .submit(
                1_000,
                &Command::Trim { lba: 17, blocks: 8 },
                Payload::SizeOnly,
            )
            .unwrap();
        assert_eq!(t.done_ns, 1_000 + us_to_ns(40.0));
        d.submit(
            0,
            &Command::Read { lba: 17, blocks: 8 },
            Payload::Read(&mut out),
        )
        .unwrap();
        assert_eq!(out, data);
        let mut unwritten = vec![1u8; 512];
        d.submit(
            0,
            &Command::Read {
                lba: 1000,
                blocks: 1,
            },
            Payload::Read(&mut unwritten),
        )
        .unwrap();
        assert!(unwritten.iter().all(|&b| b == 0));
        let st = d.stats(c.done_ns);
        assert_eq!(
            (st.host_write_bytes, st.host_read_bytes),
            (2 * 8 * 512, 2 * 8 * 512 + 512)
        );
        assert_eq!(st.write_amplification, 1.0);
        assert!(st.utilisation["actuator"] > 0.0);
    }

    #[test]
    fn zone_commands_are_unsupported_and_ranges_are_checked() {
        let mut d = small();
        for cmd in [
            Command::Zone {
                action: ZoneAction::Reset,
                zone_lba: 0,
            },
            Command::Append {
                zone_lba: 0,
                blocks: 1,
            },
        ] {
            let err = d.submit(0, &cmd, Payload::SizeOnly).unwrap_err();
            assert!(matches!(err, DeviceError::Unsupported { .. }), "{err:?}");
        }
        assert!(matches!(
            d.report_zones(0, 1).unwrap_err(),
            DeviceError::Unsupported { .. }
        ));
        let err = d
            .submit(
                0,
                &Command::Read {
                    lba: 524_287,
                    blocks: 2,
                },
                Payload::SizeOnly,
            )
            .unwrap_err();
        assert_eq!(
            err,
            DeviceError::OutOfRange {
                command: "read",
                lba: 524_287,
                blocks: 2,
                capacity_blocks: 524_288
            }
        );
        let err = d
            .submit(0, &Command::Write { lba: 5, blocks: 0 }, Payload::SizeOnly)
            .unwrap_err();
        assert_eq!(
            err,
            DeviceError::ZeroLength {
                command: "write",
                lba: 5
            }
        );
        let flush = d.submit(10, &Command::Flush, Payload::SizeOnly).unwrap();
        assert_eq!(flush.done_ns, 10 + us_to_ns(40.0));
    }

    #[test]
    fn out_of_range_profile_values_name_the_field() {
        let err = from_text(&SMALL.replace("heads = 2", "heads = 0"))
            .err()
            .unwrap();
        assert_eq!(
            err,
            ProfileError::OutOfRange {
                profile: "small-cmr".into(),
                field: "mechanics.heads".into(),
                value: "0".into(),
                allowed: "1..=64".into()
            }
        );
        let err = from_text(&SMALL.replace("capacity_blocks = 524288", "capacity_blocks = 1000"))
            .err()
            .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "block.capacity_blocks"),
            "{err}"
        );
        let err = from_text(&SMALL.replace("block_bytes = 512", "block_bytes = 1000"))
            .err()
            .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "block.block_bytes"),
            "{err}"
        );
        let err =
            from_text(&SMALL.replace("full_stroke_seek_ms = 8.0", "full_stroke_seek_ms = 3.0"))
                .err()
                .unwrap();
        assert!(
            matches!(err, ProfileError::OutOfRange { ref field, .. } if field == "mechanics.full_stroke_seek_ms"),
            "{err}"
        );
        let err = from_text(&SMALL.replace("[controller]", "[controller]\nwrite_cache_mib = 16"))
            .err()
            .unwrap();
        assert!(matches!(err, ProfileError::Parse { .. }), "{err}");
    }

    fn wd100efax() -> CmrHdd {
        CmrHdd::from_profile(&find_profile("wd100efax").unwrap()).unwrap()
    }

    /// The WD Red 10 TB with its write buffer switched off (write-through).
    fn wd100efax_write_through() -> CmrHdd {
        let src = find_profile("wd100efax").unwrap();
        let text = src.text.replace("enabled = true", "enabled = false");
        CmrHdd::from_profile(&ProfileSource {
            source_name: src.source_name,
            text,
        })
        .unwrap()
    }

    /// WD Red 10 TB datasheet: up to 210 MB/s sustained (outer diameter). QD1
    /// sequential 1 MiB requests from LBA 0 reach it through the mechanics (writes
    /// with the write buffer off). With the buffer on, sustained writes run at its
    /// flush cycle instead (BCW §3.2): each 8 MiB batch drains at the media rate and
    /// the next one waits a revolution for its sector, so after the first 16 MiB
    /// the rate is 8 MiB / (8 MiB at ~210 MB/s + one revolution + the first
    /// segment's stalled drain) — the paper's 8 MB per T_m + T_s (37 + 12 ms).
    #[test]
    fn wd100efax_streams_at_the_datasheet_rate() {
        let mut d = wd100efax();
        assert_eq!(d.info().capacity_bytes(), 10_000_831_348_736);
        let read_mb_s = qd1::sequential_mib_s(&mut d, 0, 256 * MIB, false) * MIB as f64 / 1e6;
        let write_mb_s = qd1::sequential_mib_s(&mut wd100efax_write_through(), 0, 256 * MIB, true)
            * MIB as f64
            / 1e6;
        let cached_mb_s =
            qd1::sequential_mib_s(&mut wd100efax(), 0, 256 * MIB, true) * MIB as f64 / 1e6;
        let iops = qd1::random_read_iops(&mut wd100efax(), 1_000, 42);
        eprintln!(
            "wd100efax QD1: seq read {read_mb_s:.1} MB/s, seq write {write_mb_s:.1} MB/s (write-through), {cached_mb_s:.1} MB/s (write buffer), random read {iops:.1} IOPS"
        );
        assert!((read_mb_s / 210.0 - 1.0).abs() <= 0.05, "{read_mb_s}");
        assert!((write_mb_s / 210.0 - 1.0).abs() <= 0.05, "{write_mb_s}");
        let rev_s = 60.0 / 7_200.0;
        let batch = 8.0 * MIB as f64;
        let cycle_mb_s = batch / (batch / 210e6 + rev_s) / 1e6;
        assert!(
            (cached_mb_s / cycle_mb_s - 1.0).abs() <= 0.05,
            "{cached_mb_s} vs {cycle_mb_s}"
        );
        // 7,200 rpm with an ~8 ms average seek: roughly 70-90 random reads/s.
        assert!((60.0..=100.0).contains(&iops), "{iops}");
    }
}
