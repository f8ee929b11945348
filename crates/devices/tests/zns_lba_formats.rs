//! LBA formats with per-LBA metadata on the ZNS SSD model (ZNSage §2.2, Table 1):
//! the formatted metadata size is reported, costs time on the data path, and bad
//! `[namespace]` values are refused with the field named.

use zonelab_devices::models::zns_ssd::{ZnsSsd, ZnsSsdProfile};
use zonelab_devices::profile::{find_profile, parse_as};
use zonelab_devices::{Command, Device, Payload};

fn zn540(lbaf: u32) -> Result<ZnsSsd, zonelab_devices::ProfileError> {
    let src = find_profile("zn540").unwrap();
    let mut p: ZnsSsdProfile = parse_as(&src).unwrap();
    p.namespace.as_mut().unwrap().formatted_lba_format = lbaf;
    ZnsSsd::new(p, "zn540")
}

/// Time to write then read back 64 MiB in 1 MiB commands at QD1.
fn qd1_seconds(dev: &mut ZnsSsd) -> (f64, f64) {
    let blocks = 256u32;
    let mut t = 0;
    for i in 0..64u64 {
        t = dev
            .submit(
                t,
                &Command::Write {
                    lba: i * blocks as u64,
                    blocks,
                },
                Payload::SizeOnly,
            )
            .unwrap()
            .done_ns;
    }
    let w = t;
    for i in 0..64u64 {
        t = dev
            .submit(
                t,
                &Command::Read {
                    lba: i * blocks as u64,
                    blocks,
                },
                Payload::SizeOnly,
            )
            .unwrap()
            .done_ns;
    }
    (w as f64 / 1e9, (t - w) as f64 / 1e9)
}

#[test]
fn table_1_formats_report_their_metadata_and_pay_for_it() {
    assert_eq!(zn540(2).unwrap().metadata_bytes_per_block(), 0);
    assert_eq!(zn540(3).unwrap().metadata_bytes_per_block(), 8);
    let mut plain = zn540(2).unwrap();
    let mut md64 = zn540(4).unwrap();
    assert_eq!(md64.metadata_bytes_per_block(), 64);
    let (w0, r0) = qd1_seconds(&mut plain);
    let (w64, r64) = qd1_seconds(&mut md64);
    assert!(
        w64 > w0 && r64 > r0,
        "metadata costs nothing: {w0} {w64} {r0} {r64}"
    );
    // 64 B on 4 KiB is 1.6% more bytes plus a per-command cost: a few percent.
    assert!(w64 / w0 < 1.05 && r64 / r0 < 1.05, "{w0} {w64} {r0} {r64}");
    // The default profile (HHZS setup) has no metadata; host byte counts exclude it.
    let d = zonelab_devices::open_device("zn540").unwrap();
    assert_eq!(d.metadata_bytes_per_block(), 0);
    assert_eq!(md64.stats(1).host_write_bytes, 64 << 20);
}

#[test]
fn bad_namespace_values_name_the_field() {
    let src = find_profile("zn540").unwrap();
    let base: ZnsSsdProfile = parse_as(&src).unwrap();
    let err = |f: &dyn Fn(&mut ZnsSsdProfile)| {
        let mut p = base.clone();
        f(&mut p);
        ZnsSsd::new(p, "zn540").err().expect("accepted").to_string()
    };
    let e = err(&|p| p.namespace.as_mut().unwrap().formatted_lba_format = 5);
    assert!(
        e.contains("namespace.formatted_lba_format") && e.contains("0..=4"),
        "{e}"
    );
    let e = err(&|p| p.namespace.as_mut().unwrap().lba_formats[4].metadata_bytes = 300);
    assert!(e.contains("namespace.lba_formats[4].metadata_bytes"), "{e}");
    let e = err(&|p| p.namespace.as_mut().unwrap().lba_formats[1].data_bytes = 1000);
    assert!(e.contains("namespace.lba_formats[1].data_bytes"), "{e}");
    let e = err(&|p| p.namespace.as_mut().unwrap().lba_formats[0].relative_performance = 4);
    assert!(e.contains("relative_performance"), "{e}");
    let e = err(&|p| p.namespace.as_mut().unwrap().metadata_command_us = f64::NAN);
    assert!(e.contains("namespace.metadata_command_us"), "{e}");
    let e = err(&|p| p.namespace.as_mut().unwrap().lba_formats.clear());
    assert!(e.contains("namespace.lba_formats"), "{e}");
    let e = err(&|p| p.namespace.as_mut().unwrap().formatted_lba_format = 0);
    assert!(
        e.contains("data_bytes equals zones.block_bytes (4096)"),
        "{e}"
    );
}

#[test]
fn sk_hynix_profile_loads_with_its_write_unit_and_small_metadata() {
    let d = zonelab_devices::open_device("sk-hynix-zns").unwrap();
    let z = d.info().zoned.clone().unwrap();
    assert_eq!(z.zone_capacity_blocks * 4096, 96 << 20);
    assert_eq!(d.metadata_bytes_per_block(), 0);
    let src = find_profile("sk-hynix-zns").unwrap();
    let p: ZnsSsdProfile = parse_as(&src).unwrap();
    let max_md = p
        .namespace
        .unwrap()
        .lba_formats
        .iter()
        .map(|f| f.metadata_bytes)
        .max();
    assert!(
        max_md.unwrap() < 24,
        "the paper: no format with >= 24 B metadata"
    );
    // Program unit: 16 KiB x 3 (TLC) x 4 planes = 192 KiB, the §4.3 write unit.
    assert_eq!(p.flash.page_kib * 3 * p.flash.planes_per_die, 192);
}

#[test]
fn preferred_write_size_is_the_program_unit() {
    // zn540: 16 KiB pages x 3 bits (TLC) x 2 planes = 96 KiB (the write unit ZNSage
    // batches swap-outs into on this device); sk-hynix-zns: 4 planes = 192 KiB (§4.3).
    assert_eq!(zn540(2).unwrap().preferred_write_bytes(), 96 * 1024);
    let src = zonelab_devices::profile::find_profile("sk-hynix-zns").unwrap();
    let d = zonelab_devices::models::zns_ssd::ZnsSsd::from_profile(&src).unwrap();
    assert_eq!(d.preferred_write_bytes(), 192 * 1024);
}
