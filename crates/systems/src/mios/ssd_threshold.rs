//! The threshold L of MIOS (§4.3): "we measure the write latency under different
//! SSD queue lengths. If the request with queue length l has latency larger than
//! the IO delay of HDD in the M state, we simply set the threshold L to the
//! minimum l." Measured on the SSD model itself with closed-loop writes of a given
//! size at each queue depth, on a preconditioned (aged) device so GC is active.

use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use zonelab_devices::{Command, Device, DeviceError, Payload};
use zonelab_engine::rng::uniform_below;
use zonelab_engine::{Ns, RngStreams};

/// Mean write latency at each queue depth, and the threshold it gives.
#[derive(Debug, Clone, Serialize)]
pub struct QueueLatencyProfile {
    pub write_bytes: u64,
    /// (queue depth, mean latency ns).
    pub mean_latency_ns: Vec<(u32, f64)>,
    /// Smallest depth whose mean latency exceeds `l_m_ns`, or the largest depth
    /// measured if none does.
    pub threshold: u32,
    pub l_m_ns: Ns,
}

/// Measures mean latency of random writes of `write_bytes` at depths 1..=`max_depth`
/// (`requests_per_depth` each, continuing in time on the same device) and picks L.
pub fn measure_threshold(
    ssd: &mut dyn Device,
    write_bytes: u64,
    l_m_ns: Ns,
    max_depth: u32,
    requests_per_depth: u64,
    seed: u64,
) -> Result<QueueLatencyProfile, DeviceError> {
    let bb = ssd.info().block_bytes as u64;
    let blocks = write_bytes.div_ceil(bb).max(1);
    let slots = (ssd.info().capacity_blocks / blocks).max(1);
    let mut rng = RngStreams::new(seed).stream("mios.threshold");
    let mut now: Ns = 0;
    let mut out = Vec::new();
    let mut threshold = None;
    for depth in 1..=max_depth {
        let mut in_flight: BinaryHeap<Reverse<(Ns, Ns)>> = BinaryHeap::new();
        let mut sum = 0f64;
        let mut issued = 0u64;
        let mut completed = 0u64;
        let mut t = now;
        while completed < requests_per_depth {
            while in_flight.len() < depth as usize && issued < requests_per_depth {
                let lba = uniform_below(&mut rng, slots) * blocks;
                let done = ssd
                    .submit(
                        t,
                        &Command::Write {
                            lba,
                            blocks: blocks as u32,
                        },
                        Payload::SizeOnly,
                    )?
                    .done_ns;
                in_flight.push(Reverse((done, t)));
                issued += 1;
            }
            let Some(Reverse((done, start))) = in_flight.pop() else {
                break;
            };
            sum += (done - start) as f64;
            completed += 1;
            t = done;
        }
        now = t;
        let mean = sum / completed.max(1) as f64;
        out.push((depth, mean.round()));
        if threshold.is_none() && mean > l_m_ns as f64 {
            threshold = Some(depth);
        }
    }
    Ok(QueueLatencyProfile {
        write_bytes,
        mean_latency_ns: out,
        threshold: threshold.unwrap_or(max_depth),
        l_m_ns,
    })
}
