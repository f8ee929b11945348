//! The spindle phase of rotating disks (`Device::set_spindle_phase_ns`): it moves
//! every rotational wait of a disk, and devices without a spindle refuse it
//! without changing.

use zonelab_devices::command::{Command, Payload};
use zonelab_devices::{open_device, Device};

/// Completion times of 4 KiB reads spread over the conventional zones, one at a
/// time from idle.
fn reads_done_ns(d: &mut dyn Device) -> Vec<u64> {
    let mut t = 0;
    let mut out = Vec::new();
    for k in 0..8u64 {
        let lba = k * 100_003;
        let c = d
            .submit(t, &Command::Read { lba, blocks: 1 }, Payload::SizeOnly)
            .expect("read");
        out.push(c.done_ns - t);
        t = c.done_ns + 1_000_000;
    }
    out
}

#[test]
fn a_disk_s_spindle_phase_moves_its_rotational_waits() {
    for profile in ["st14000nm0007", "wd100efax"] {
        let mut base = open_device(profile).expect("profile");
        let mut turned = open_device(profile).expect("profile");
        assert!(
            turned.set_spindle_phase_ns(3_000_000),
            "{profile} has a spindle"
        );
        let (a, b) = (reads_done_ns(base.as_mut()), reads_done_ns(turned.as_mut()));
        assert_ne!(a, b, "{profile}: another phase, other waits");
        // The phase is where the platter stands, not a delay: the same phase
        // again gives the same run.
        let mut again = open_device(profile).expect("profile");
        again.set_spindle_phase_ns(3_000_000);
        assert_eq!(reads_done_ns(again.as_mut()), b);
        assert!(base.set_spindle_phase_ns(0));
    }
}

#[test]
fn a_flash_device_has_no_spindle_and_stays_as_it_was() {
    let mut ssd = open_device("zn540").expect("profile");
    let mut same = open_device("zn540").expect("profile");
    assert!(!ssd.set_spindle_phase_ns(3_000_000));
    let read = |d: &mut Box<dyn Device>| {
        d.submit(0, &Command::Read { lba: 0, blocks: 1 }, Payload::SizeOnly)
            .expect("read")
    };
    assert_eq!(read(&mut ssd), read(&mut same));
}
