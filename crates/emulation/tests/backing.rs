//! Emulation mode with a sparse backing file: bytes and zone states survive
//! dropping and reopening the emulator (issue 9 part 1). No timing assertions.

use std::path::Path;
use zonelab_devices::zoned::{ZoneDescriptor, ZoneState};
use zonelab_devices::{Command, DeviceError, Payload, ZoneAction};
use zonelab_emulation::backing::sidecar_path;
use zonelab_emulation::{EmulatedDevice, EmulationConfig, EmulationError};

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(13).wrapping_add(seed) ^ (i >> 9) as u8)
        .collect()
}

fn open(profile: &str, path: &Path) -> Result<EmulatedDevice, EmulationError> {
    EmulatedDevice::open(
        profile,
        EmulationConfig {
            backing_path: Some(path.to_path_buf()),
            ..Default::default()
        },
    )
}

fn zone_cmd(action: ZoneAction, zone_lba: u64) -> Command {
    Command::Zone { action, zone_lba }
}

fn read(e: &EmulatedDevice, lba: u64, blocks: u32) -> Vec<u8> {
    let mut out = vec![0xAAu8; blocks as usize * e.info().block_bytes as usize];
    e.submit(&Command::Read { lba, blocks }, Payload::Read(&mut out))
        .unwrap();
    out
}

fn zones(e: &EmulatedDevice, first: u32, n: u32) -> Vec<ZoneDescriptor> {
    e.report_zones(first, n).unwrap()
}

#[test]
fn zn540_data_and_zone_states_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zn540.img");
    let e = open("zn540", &path).unwrap();
    let bb = e.info().block_bytes as usize;
    let zs = e.info().zoned.as_ref().unwrap().zone_size_blocks;
    let (a, b, d, r) = (
        pattern(8 * bb, 1),
        pattern(16 * bb, 2),
        pattern(4 * bb, 3),
        pattern(2 * bb, 4),
    );
    // Zone 0: implicitly open, 8 blocks.
    e.submit(&Command::Write { lba: 0, blocks: 8 }, Payload::Write(&a))
        .unwrap();
    // Zone 1: 16 blocks, then closed.
    e.submit(
        &Command::Write {
            lba: zs,
            blocks: 16,
        },
        Payload::Write(&b),
    )
    .unwrap();
    e.submit(&zone_cmd(ZoneAction::Close, zs), Payload::SizeOnly)
        .unwrap();
    // Zone 2: finished while empty.
    e.submit(&zone_cmd(ZoneAction::Finish, 2 * zs), Payload::SizeOnly)
        .unwrap();
    // Zone 3: explicitly opened, then a zone append.
    e.submit(&zone_cmd(ZoneAction::Open, 3 * zs), Payload::SizeOnly)
        .unwrap();
    let c = e
        .submit(
            &Command::Append {
                zone_lba: 3 * zs,
                blocks: 4,
            },
            Payload::Write(&d),
        )
        .unwrap();
    assert_eq!(c.lba, 3 * zs);
    // Zone 4: written, then reset: its bytes must read as zeros.
    e.submit(
        &Command::Write {
            lba: 4 * zs,
            blocks: 2,
        },
        Payload::Write(&r),
    )
    .unwrap();
    e.submit(&zone_cmd(ZoneAction::Reset, 4 * zs), Payload::SizeOnly)
        .unwrap();
    let before = zones(&e, 0, 5);
    drop(e);
    assert!(sidecar_path(&path).exists());

    let e = open("zn540", &path).unwrap();
    let after = zones(&e, 0, 5);
    assert_eq!(after, before);
    assert_eq!(after[0].state, ZoneState::ImplicitlyOpen);
    assert_eq!(after[0].write_pointer, 8);
    assert_eq!(after[1].state, ZoneState::Closed);
    assert_eq!(after[1].write_pointer, zs + 16);
    assert_eq!(after[2].state, ZoneState::Full);
    assert_eq!(after[3].state, ZoneState::ExplicitlyOpen);
    assert_eq!(after[3].write_pointer, 3 * zs + 4);
    assert_eq!(after[4].state, ZoneState::Empty);
    assert_eq!(read(&e, 0, 8), a);
    assert_eq!(read(&e, zs, 16), b);
    assert_eq!(read(&e, 3 * zs, 4), d);
    assert_eq!(read(&e, 4 * zs, 2), vec![0u8; 2 * bb]);
    // Writing resumes at the restored write pointer, and only there.
    let more = pattern(8 * bb, 5);
    let err = e
        .submit(&Command::Write { lba: 0, blocks: 8 }, Payload::Write(&more))
        .unwrap_err();
    assert!(
        matches!(
            err,
            DeviceError::NotAtWritePointer {
                write_pointer: 8,
                ..
            }
        ),
        "{err:?}"
    );
    e.submit(&Command::Write { lba: 8, blocks: 8 }, Payload::Write(&more))
        .unwrap();
    assert_eq!(read(&e, 8, 8), more);
    // The restore took modelled time; the clock starts after it.
    let c = e.submit(&Command::Flush, Payload::SizeOnly).unwrap();
    assert!(c.submit_ns > 0);
}

#[test]
fn a_crash_resumes_from_the_last_flush() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zn540.img");
    let e = open("zn540", &path).unwrap();
    let bb = e.info().block_bytes as usize;
    let a = pattern(8 * bb, 7);
    let late = pattern(8 * bb, 8);
    e.submit(&Command::Write { lba: 0, blocks: 8 }, Payload::Write(&a))
        .unwrap();
    e.submit(&Command::Flush, Payload::SizeOnly).unwrap();
    e.submit(&Command::Write { lba: 8, blocks: 8 }, Payload::Write(&late))
        .unwrap();
    // A crash: the emulator is never dropped, so nothing after the flush is saved.
    std::mem::forget(e);

    let e = open("zn540", &path).unwrap();
    assert_eq!(zones(&e, 0, 1)[0].write_pointer, 8);
    assert_eq!(read(&e, 0, 8), a);
    // The unflushed write's bytes were punched out: they read as zeros, and the
    // zone takes a new write at the flushed write pointer.
    assert_eq!(read(&e, 8, 8), vec![0u8; 8 * bb]);
    e.submit(&Command::Write { lba: 8, blocks: 8 }, Payload::Write(&late))
        .unwrap();
    e.sync().unwrap();
}

#[test]
fn block_device_bytes_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ssd.img");
    let e = open("ssd-conventional", &path).unwrap();
    let bb = e.info().block_bytes as usize;
    let a = pattern(32 * bb, 9);
    e.submit(
        &Command::Write {
            lba: 1000,
            blocks: 32,
        },
        Payload::Write(&a),
    )
    .unwrap();
    e.submit(
        &Command::Trim {
            lba: 1008,
            blocks: 8,
        },
        Payload::SizeOnly,
    )
    .unwrap();
    drop(e);
    let e = open("ssd-conventional", &path).unwrap();
    let mut want = a.clone();
    want[8 * bb..16 * bb].fill(0);
    assert_eq!(read(&e, 1000, 32), want);
}

#[test]
fn another_geometry_or_a_corrupt_state_file_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zn540.img");
    drop(open("zn540", &path).unwrap());
    match open("ssd-conventional", &path) {
        Err(e @ EmulationError::BackingMismatch { .. }) => {
            assert!(e.to_string().contains("file size"), "{e}")
        }
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("a zn540 backing file opened as ssd-conventional"),
    }
    std::fs::write(
        sidecar_path(&path),
        "zonelab-emulation-zone-state v1\nblock_bytes 4096\nzone 0 sideways 3\n",
    )
    .unwrap();
    match open("zn540", &path) {
        Err(e @ EmulationError::BadSidecar { line: 3, .. }) => {
            assert!(e.to_string().contains("sideways"), "{e}")
        }
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("a corrupt zone-state file was accepted"),
    }
    let missing = dir.path().join("no-such-dir").join("x.img");
    assert!(matches!(
        open("zn540", &missing),
        Err(EmulationError::Backing { .. })
    ));
}

#[test]
fn a_failed_restore_leaves_the_saved_state_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zn540.img");
    drop(open("zn540", &path).unwrap());
    // Host commands cannot recreate a read-only zone: the restore fails, typed.
    let text = std::fs::read_to_string(sidecar_path(&path)).unwrap() + "zone 5 read-only 2621440\n";
    std::fs::write(sidecar_path(&path), &text).unwrap();
    match open("zn540", &path) {
        Err(e @ EmulationError::Restore { zone: 5, .. }) => {
            assert!(e.to_string().contains("read-only"), "{e}")
        }
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("a read-only zone was restored"),
    }
    // The failed open did not overwrite the zone-state file.
    assert_eq!(std::fs::read_to_string(sidecar_path(&path)).unwrap(), text);
}
