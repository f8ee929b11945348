//! The zns-ssd model with zone random write areas (`[zrwa]`, NVMe TP4076): what
//! the device does with ZRWA data (the rules themselves are in `zrwa_rules.rs`):
//! overwrites inside the window never reach flash, only committed data is
//! programmed, implicit and explicit flushes are counted, and a bad `[zrwa]`
//! section is a profile error naming the field.

use zonelab_devices::models::build;
use zonelab_devices::profile::ProfileSource;
use zonelab_devices::{Command, Device, Payload, ZoneAction};

const MIB_BLOCKS: u64 = 256;

/// zn540 with a `[zrwa]` section (values are test inputs: ZN540 itself reports
/// no ZRWA).
fn zn540_zrwa(zrwas_kib: u64, zrwafg_kib: u64, numzrwa: u32) -> Result<Box<dyn Device>, String> {
    let text = format!(
        "{}\n[zrwa]\nzrwas_kib = {zrwas_kib}\nzrwafg_kib = {zrwafg_kib}\nnumzrwa = {numzrwa}\n",
        include_str!("../../../profiles/zn540.toml")
    );
    build(&ProfileSource {
        source_name: "zrwa.toml".into(),
        text,
    })
    .map_err(|e| e.to_string())
}

fn submit(d: &mut dyn Device, now: u64, cmd: Command) -> u64 {
    d.submit(now, &cmd, Payload::SizeOnly)
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
        .done_ns
}

fn counter(d: &dyn Device, name: &str) -> u64 {
    d.stats(0).counters[name]
}

#[test]
fn overwrites_in_the_window_are_absorbed_and_only_committed_data_is_programmed() {
    let mut d = zn540_zrwa(1024, 16, 4).unwrap();
    let mut now = submit(
        d.as_mut(),
        0,
        Command::Zone {
            action: ZoneAction::OpenZrwa,
            zone_lba: 0,
        },
    );
    // Six 1 MiB chunks, each written twice inside the 1 MiB ZRWA, then flushed.
    for chunk in 0..6 {
        let lba = chunk * MIB_BLOCKS;
        for _ in 0..2 {
            now = submit(
                d.as_mut(),
                now,
                Command::Write {
                    lba,
                    blocks: MIB_BLOCKS as u32,
                },
            );
        }
        now = submit(
            d.as_mut(),
            now,
            Command::Zone {
                action: ZoneAction::FlushZrwa,
                zone_lba: lba + MIB_BLOCKS - 1,
            },
        );
    }
    let s = d.stats(now);
    assert_eq!(s.host_write_bytes, 12 << 20);
    assert_eq!(counter(d.as_ref(), "zrwa_absorbed_bytes"), 6 << 20);
    assert_eq!(counter(d.as_ref(), "zrwa_explicit_flushes"), 6);
    assert_eq!(counter(d.as_ref(), "zrwa_implicit_flushes"), 0);
    // 6 MiB committed = four whole 1.5 MiB stripe rows: programmed, nothing more.
    assert_eq!(s.media_write_bytes, 6 << 20);
    assert_eq!(
        d.report_zones(0, 1).unwrap()[0].write_pointer,
        6 * MIB_BLOCKS
    );
    assert!(d.report_zones(0, 1).unwrap()[0].zrwa);
}

#[test]
fn a_write_past_the_window_flushes_implicitly_and_finish_commits_the_rest() {
    let mut d = zn540_zrwa(1024, 16, 4).unwrap();
    let open = Command::Zone {
        action: ZoneAction::OpenZrwa,
        zone_lba: 0,
    };
    let mut now = submit(d.as_mut(), 0, open);
    // 4 KiB at offset 1 MiB: one block past the ZRWA -> a 16 KiB (4-block) flush.
    now = submit(
        d.as_mut(),
        now,
        Command::Write {
            lba: MIB_BLOCKS,
            blocks: 1,
        },
    );
    assert_eq!(counter(d.as_ref(), "zrwa_implicit_flushes"), 1);
    assert_eq!(d.report_zones(0, 1).unwrap()[0].write_pointer, 4);
    // The 4 committed blocks were never written: zero-filled holes.
    assert_eq!(counter(d.as_ref(), "zrwa_hole_bytes"), 4 * 4096);
    // Beyond wp + 2 x zrwas is refused, naming the ZRWA.
    let far = d
        .submit(
            now,
            &Command::Write {
                lba: 4 + 2 * MIB_BLOCKS,
                blocks: 1,
            },
            Payload::SizeOnly,
        )
        .unwrap_err();
    assert!(far.to_string().contains("outside the ZRWA"), "{far}");
    now = submit(
        d.as_mut(),
        now,
        Command::Zone {
            action: ZoneAction::Finish,
            zone_lba: 0,
        },
    );
    let z = &d.report_zones(0, 1).unwrap()[0];
    assert!(!z.zrwa, "a full zone holds no ZRWA");
    assert_eq!(counter(d.as_ref(), "zrwa_zones"), 0);
    // Appends to a zone with a ZRWA are an invalid zone operation.
    submit(
        d.as_mut(),
        now,
        Command::Zone {
            action: ZoneAction::OpenZrwa,
            zone_lba: 2048 * MIB_BLOCKS,
        },
    );
    let e = d
        .submit(
            now,
            &Command::Append {
                zone_lba: 2048 * MIB_BLOCKS,
                blocks: 1,
            },
            Payload::SizeOnly,
        )
        .unwrap_err();
    assert!(e.to_string().contains("zone append is not allowed"), "{e}");
}

#[test]
fn zrwa_section_errors_name_the_field() {
    // 1,077 MiB zone capacity: 1,077 x 1,024 KiB is not a multiple of 1,024 KiB x 2.
    let e = zn540_zrwa(2048, 2048, 4).err().unwrap();
    assert!(e.contains("zrwa.zrwafg_kib"), "{e}");
    let e = zn540_zrwa(24, 16, 4).err().unwrap();
    assert!(e.contains("zrwa.zrwas_kib"), "{e}");
    let e = zn540_zrwa(1024, 16, 15).err().unwrap();
    assert!(e.contains("zrwa.numzrwa"), "{e}");
    let e = zn540_zrwa(1024, 2, 4).err().unwrap();
    assert!(e.contains("zrwa.zrwafg_kib"), "{e}");
    // A device without the section refuses ZRWA allocation.
    let mut plain = zonelab_devices::open_device("zn540").unwrap();
    let e = plain
        .submit(
            0,
            &Command::Zone {
                action: ZoneAction::OpenZrwa,
                zone_lba: 0,
            },
            Payload::SizeOnly,
        )
        .unwrap_err();
    assert!(e.to_string().contains("no zone random write area"), "{e}");
}
