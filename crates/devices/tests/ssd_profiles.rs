//! The SSD profiles BCW/MIOS uses (§5): peak sequential write bandwidth of the
//! 960 EVO-like (1.5 GB/s) and 660p-like (0.6 GB/s) models, and GC tails once aged.

use zonelab_devices::{open_device, Command, Device, Payload};

/// Writes `total_bytes` sequentially in 128 KiB requests with 32 in flight; GB/s.
fn peak_write_gb_s(dev: &mut dyn Device, total_bytes: u64) -> f64 {
    let blocks = (128 * 1024 / dev.info().block_bytes as u64) as u32;
    let n = total_bytes / (128 * 1024);
    let mut in_flight: std::collections::BinaryHeap<std::cmp::Reverse<u64>> =
        (0..32).map(|_| std::cmp::Reverse(0)).collect();
    let mut end = 0;
    for i in 0..n {
        let std::cmp::Reverse(now) = in_flight.pop().unwrap();
        let done = dev
            .submit(
                now,
                &Command::Write {
                    lba: i * blocks as u64,
                    blocks,
                },
                Payload::SizeOnly,
            )
            .unwrap()
            .done_ns;
        end = end.max(done);
        in_flight.push(std::cmp::Reverse(done));
    }
    total_bytes as f64 / end as f64
}

#[test]
fn ssd_960evo_peak_write_is_1_5_gb_s() {
    let gb_s = peak_write_gb_s(open_device("ssd-960evo").unwrap().as_mut(), 1 << 30);
    assert!((gb_s - 1.5).abs() / 1.5 < 0.05, "{gb_s} GB/s");
}

#[test]
fn ssd_660p_peak_write_is_0_6_gb_s() {
    let gb_s = peak_write_gb_s(open_device("ssd-660p").unwrap().as_mut(), 1 << 30);
    assert!((gb_s - 0.6).abs() / 0.6 < 0.05, "{gb_s} GB/s");
}
