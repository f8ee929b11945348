//! `BackedDevice`: bytes and zone states persist across a reopen as of the last
//! Flush; what came after it is gone after a crash (the device leaked unsaved).

use zonelab_devices::{Command, Device, Payload};
use zonelab_emulation::{open_send, BackedDevice};

fn write(dev: &mut BackedDevice, lba: u64, byte: u8) {
    let data = vec![byte; 4096];
    dev.submit(0, &Command::Write { lba, blocks: 1 }, Payload::Write(&data))
        .unwrap();
}

fn read(dev: &mut BackedDevice, lba: u64) -> u8 {
    let mut out = vec![0u8; 4096];
    dev.submit(
        0,
        &Command::Read { lba, blocks: 1 },
        Payload::Read(&mut out),
    )
    .unwrap();
    out[0]
}

#[test]
fn flushed_state_survives_a_crash_and_later_writes_do_not() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("ssd.img");
    let mut dev = BackedDevice::open(open_send("zn540").unwrap(), &path).unwrap();
    assert_eq!(dev.restored_at_ns(), 0);
    write(&mut dev, 0, 7);
    write(&mut dev, 1, 8);
    dev.submit(0, &Command::Flush, Payload::SizeOnly).unwrap();
    write(&mut dev, 2, 9);
    std::mem::forget(dev); // crash: nothing saved after the flush
    let mut dev = BackedDevice::open(open_send("zn540").unwrap(), &path).unwrap();
    let z = dev.report_zones(0, 1).unwrap()[0];
    assert_eq!(z.write_pointer, 2);
    assert_eq!((read(&mut dev, 0), read(&mut dev, 1)), (7, 8));
    // The unflushed block was punched out, and the zone continues at the pointer.
    write(&mut dev, 2, 10);
    assert_eq!(read(&mut dev, 2), 10);
    drop(dev); // a clean drop saves
    let mut dev = BackedDevice::open(open_send("zn540").unwrap(), &path).unwrap();
    assert_eq!(dev.report_zones(0, 1).unwrap()[0].write_pointer, 3);
    assert_eq!(read(&mut dev, 2), 10);
}
