//! The threshold L of MIOS (§4.3): "we measure the write latency under different
//! SSD queue lengths. If the request with queue length l has latency larger than
//! the IO delay of HDD in the M state, we simply set the threshold L to the
//! minimum l." Two ways: [`threshold_from_run`] reads it off a Baseline run of the
//! workload (the SSD as it is under that workload: aged, its SLC cache in whatever
//! state the workload keeps it), which is how `reproduce mios` sets L per node as
//! §5.1 does; [`measure_threshold`] drives the SSD closed-loop at each queue depth
//! (a saturating probe: every depth keeps the drive busy, so it reports the drive's
//! sustained rate, not the workload's).

use super::node::NodeResult;
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

/// L from a Baseline run of the workload itself (§4.3: "we measure the write
/// latency under different SSD queue lengths. If the request with queue length l
/// has latency larger than the IO delay of HDD in the M state, we simply set the
/// threshold L to the minimum l"; §5.1 sets it per node, "L can be determined and
/// adjusted experimentally according to workload behaviors"): the smallest queue
/// length seen by at least `min_writes` arriving SSD writes whose mean latency
/// exceeds `l_m_ns`. `None` when no length does: the SSD never gets that slow under
/// this workload, so MIOS never redirects because of its queue.
pub fn threshold_from_run(r: &NodeResult, l_m_ns: Ns, min_writes: u64) -> Option<u32> {
    r.ssd_writes_by_queue_length
        .iter()
        .zip(&r.ssd_write_latency_sum_by_queue_length_ns)
        .enumerate()
        .find(|(_, (&n, &sum))| n >= min_writes.max(1) && sum / n as f64 > l_m_ns as f64)
        .map(|(l, _)| l as u32)
}

/// Mean SSD write latency (ns) per queue length at arrival, for lengths seen by at
/// least `min_writes` writes: the curve [`threshold_from_run`] reads.
pub fn latency_by_queue_length(r: &NodeResult, min_writes: u64) -> Vec<(u32, f64)> {
    r.ssd_writes_by_queue_length
        .iter()
        .zip(&r.ssd_write_latency_sum_by_queue_length_ns)
        .enumerate()
        .filter(|(_, (&n, _))| n >= min_writes.max(1))
        .map(|(l, (&n, &sum))| (l as u32, sum / n as f64))
        .collect()
}
