//! Functional tests of emulation mode. No wall-clock speed assertions: only the
//! correctness property that a completion is never reported before its modelled
//! (dilated) time.

use std::sync::Arc;
use std::time::{Duration, Instant};
use zonelab_devices::{
    open_device, Command, Completion, Device, DeviceError, DeviceInfo, DeviceStats, Payload,
};
use zonelab_emulation::{EmulatedDevice, EmulationConfig, EmulationError, Pacer};

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8)
        .collect()
}

fn emu(profile: &str, dilation: f64) -> EmulatedDevice {
    EmulatedDevice::open(
        profile,
        EmulationConfig {
            time_dilation: dilation,
            ..Default::default()
        },
    )
    .unwrap()
}

/// First sequential zone's start LBA.
fn first_seq_zone(info: &DeviceInfo) -> u64 {
    let z = info.zoned.as_ref().expect("zoned");
    z.conventional_zones as u64 * z.zone_size_blocks
}

#[test]
fn zn540_bytes_round_trip_at_the_write_pointer() {
    let e = emu("zn540", 1.0);
    let bb = e.info().block_bytes as usize;
    let zone = first_seq_zone(e.info());
    let a = pattern(8 * bb, 1);
    let b = pattern(16 * bb, 2);
    let c1 = e
        .submit(
            &Command::Write {
                lba: zone,
                blocks: 8,
            },
            Payload::Write(&a),
        )
        .unwrap();
    assert!(Instant::now() >= c1.deadline);
    e.submit(
        &Command::Write {
            lba: zone + 8,
            blocks: 16,
        },
        Payload::Write(&b),
    )
    .unwrap();
    let mut back = vec![0u8; 24 * bb];
    e.submit(
        &Command::Read {
            lba: zone,
            blocks: 24,
        },
        Payload::Read(&mut back),
    )
    .unwrap();
    assert_eq!(&back[..8 * bb], &a[..]);
    assert_eq!(&back[8 * bb..], &b[..]);
    // The zone's write pointer moved by what was written.
    let zd = e
        .report_zones(
            (zone / e.info().zoned.as_ref().unwrap().zone_size_blocks) as u32,
            1,
        )
        .unwrap();
    assert_eq!(zd[0].write_pointer, zone + 24);
}

#[test]
fn ssd_conventional_bytes_round_trip() {
    let e = emu("ssd-conventional", 1.0);
    let bb = e.info().block_bytes as usize;
    let a = pattern(32 * bb, 7);
    e.submit(
        &Command::Write {
            lba: 1000,
            blocks: 32,
        },
        Payload::Write(&a),
    )
    .unwrap();
    // Overwrite the middle, then read everything back.
    let b = pattern(4 * bb, 9);
    e.submit(
        &Command::Write {
            lba: 1010,
            blocks: 4,
        },
        Payload::Write(&b),
    )
    .unwrap();
    let mut back = vec![0u8; 32 * bb];
    e.submit(
        &Command::Read {
            lba: 1000,
            blocks: 32,
        },
        Payload::Read(&mut back),
    )
    .unwrap();
    let mut want = a.clone();
    want[10 * bb..14 * bb].copy_from_slice(&b);
    assert_eq!(back, want);
}

#[test]
fn zone_rule_violation_is_a_typed_error() {
    let e = emu("zn540", 1.0);
    let bb = e.info().block_bytes as usize;
    let zone = first_seq_zone(e.info());
    let a = pattern(4 * bb, 3);
    let err = e
        .submit(
            &Command::Write {
                lba: zone + 8,
                blocks: 4,
            },
            Payload::Write(&a),
        )
        .unwrap_err();
    assert!(
        matches!(err, DeviceError::NotAtWritePointer { lba, write_pointer, .. } if lba == zone + 8 && write_pointer == zone),
        "{err:?}"
    );
    // Wrong payload length is typed too, and the device is unchanged.
    let err = e
        .submit(
            &Command::Write {
                lba: zone,
                blocks: 8,
            },
            Payload::Write(&a),
        )
        .unwrap_err();
    assert!(matches!(err, DeviceError::PayloadSize { .. }), "{err:?}");
    e.submit(
        &Command::Write {
            lba: zone,
            blocks: 4,
        },
        Payload::Write(&a),
    )
    .unwrap();
}

#[test]
fn completion_is_never_before_the_modelled_time() {
    for dilation in [1.0, 3.0] {
        let e = emu("zn540", dilation);
        let bb = e.info().block_bytes as usize;
        let zone = first_seq_zone(e.info());
        let a = pattern(64 * bb, 5);
        for i in 0..20u64 {
            let before = Instant::now();
            let c = e
                .submit(
                    &Command::Write {
                        lba: zone + i * 64,
                        blocks: 64,
                    },
                    Payload::Write(&a),
                )
                .unwrap();
            let after = Instant::now();
            assert!(c.done_ns > c.submit_ns, "model reported zero latency");
            assert!(after >= c.deadline);
            assert!(
                after >= e.wall_of(c.done_ns),
                "returned before the virtual completion"
            );
            assert!(e.virtual_at(after) >= c.done_ns);
            let min_wall = Duration::from_nanos((c.latency_ns() as f64 * dilation) as u64);
            assert!(
                after - before >= min_wall,
                "returned before the dilated latency"
            );
        }
    }
}

/// A device whose every request takes exactly `latency_ns`.
struct Fixed {
    info: DeviceInfo,
    latency_ns: u64,
}

impl Device for Fixed {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }
    fn submit(
        &mut self,
        now_ns: u64,
        cmd: &Command,
        _: Payload<'_>,
    ) -> Result<Completion, DeviceError> {
        let lba = match *cmd {
            Command::Read { lba, .. } | Command::Write { lba, .. } => lba,
            _ => 0,
        };
        Ok(Completion {
            done_ns: now_ns + self.latency_ns,
            lba,
        })
    }
    fn stats(&self, _: u64) -> DeviceStats {
        DeviceStats::default().finish()
    }
}

fn fixed(latency_ns: u64) -> Box<dyn Device + Send> {
    Box::new(Fixed {
        info: DeviceInfo {
            name: "fixed".into(),
            model: "test".into(),
            description: "fixed latency".into(),
            block_bytes: 512,
            capacity_blocks: 1 << 20,
            zoned: None,
        },
        latency_ns,
    })
}

#[test]
fn dilation_scales_the_wait() {
    let e = EmulatedDevice::new(
        fixed(1_000_000),
        EmulationConfig {
            time_dilation: 2.0,
            ..Default::default()
        },
    )
    .unwrap();
    for _ in 0..3 {
        let before = Instant::now();
        let c = e.submit(&Command::Flush, Payload::SizeOnly).unwrap();
        let took = before.elapsed();
        assert_eq!(c.latency_ns(), 1_000_000);
        assert!(
            took >= Duration::from_millis(2),
            "1 ms modelled at dilation 2 took only {took:?}"
        );
    }
}

#[test]
fn invalid_dilation_is_rejected() {
    for d in [0.0, 0.5, -1.0, f64::NAN, f64::INFINITY] {
        let r = EmulatedDevice::new(
            fixed(1),
            EmulationConfig {
                time_dilation: d,
                ..Default::default()
            },
        );
        match r {
            Err(e @ EmulationError::InvalidDilation(_)) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("dilation") && msg.contains(&d.to_string()),
                    "{msg}"
                );
            }
            _ => panic!("dilation {d} accepted"),
        }
    }
}

#[test]
fn non_send_models_work_from_one_thread() {
    // ef-smr is not `Send`: `open` says so, and `new` over `open_device` works.
    assert!(matches!(
        EmulatedDevice::open("ef-smr", EmulationConfig::default()),
        Err(EmulationError::NotSend { .. })
    ));
    assert!(matches!(
        EmulatedDevice::open("no-such-profile", EmulationConfig::default()),
        Err(EmulationError::Profile(_))
    ));
    let e: EmulatedDevice<dyn Device> = EmulatedDevice::new(
        open_device("ssd-conventional").unwrap(),
        EmulationConfig::default(),
    )
    .unwrap();
    let bb = e.info().block_bytes as usize;
    let a = pattern(2 * bb, 4);
    e.submit(&Command::Write { lba: 0, blocks: 2 }, Payload::Write(&a))
        .unwrap();
    let mut back = vec![0u8; 2 * bb];
    e.submit(
        &Command::Read { lba: 0, blocks: 2 },
        Payload::Read(&mut back),
    )
    .unwrap();
    assert_eq!(back, a);
}

#[test]
fn two_threads_submit_and_data_is_intact() {
    for profile in ["ssd-conventional", "zn540"] {
        let e = Arc::new(emu(profile, 1.0));
        let bb = e.info().block_bytes as usize;
        let zoned = e.info().zoned.clone();
        let handles: Vec<_> = (0..2u64)
            .map(|t| {
                let e = Arc::clone(&e);
                let zoned = zoned.clone();
                std::thread::spawn(move || {
                    // Each thread owns a region: a zone on zoned devices.
                    let base = match &zoned {
                        Some(z) => (z.conventional_zones as u64 + t) * z.zone_size_blocks,
                        None => t * 100_000,
                    };
                    let mut last_submit = 0;
                    for i in 0..50u64 {
                        let data = pattern(8 * bb, (t * 50 + i) as u8);
                        let c = e
                            .submit(
                                &Command::Write {
                                    lba: base + i * 8,
                                    blocks: 8,
                                },
                                Payload::Write(&data),
                            )
                            .unwrap();
                        assert!(c.submit_ns >= last_submit);
                        last_submit = c.submit_ns;
                    }
                    base
                })
            })
            .collect();
        for (t, h) in handles.into_iter().enumerate() {
            let base = h.join().unwrap();
            for i in 0..50u64 {
                let mut back = vec![0u8; 8 * bb];
                e.submit(
                    &Command::Read {
                        lba: base + i * 8,
                        blocks: 8,
                    },
                    Payload::Read(&mut back),
                )
                .unwrap();
                assert_eq!(
                    back,
                    pattern(8 * bb, (t as u64 * 50 + i) as u8),
                    "{profile}: thread {t} write {i}"
                );
            }
        }
        let s = e.stats();
        assert_eq!(s.host_write_bytes, 2 * 50 * 8 * bb as u64, "{profile}");
    }
}

#[test]
fn pacer_never_returns_early() {
    for window in [
        Duration::ZERO,
        Duration::from_micros(50),
        Duration::from_millis(5),
    ] {
        let p = Pacer::new(window);
        for us in [0u64, 10, 200, 1500] {
            let deadline = Instant::now() + Duration::from_micros(us);
            let left = p.wait_until(deadline);
            assert!(left >= deadline && Instant::now() >= deadline);
        }
    }
    // A deadline in the past returns at once (no hang).
    let p = Pacer::default();
    let past = Instant::now();
    std::thread::sleep(Duration::from_millis(1));
    assert!(p.wait_until(past) >= past);
}
