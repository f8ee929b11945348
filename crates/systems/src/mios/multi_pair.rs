//! A hybrid node made of several independent SSD/HDD pairs (MIOS §4.3: "We divide
//! all disks into independent SSD/HDD pairs, each of which contains an SSD and one or
//! more HDDs. Each SSD/HDD pair is managed by an independent MIOS scheduler
//! instance.").
//!
//! MIOS is file-level (§4.3.1): a file lives on one pair, so the node's request
//! stream is split by file — request → file `offset / file_bytes` → pair
//! `file % pairs` — and each pair runs its own scheduler ([`run_node`]: its own
//! write-state predictor, BCW loop, HDD log, SSD queue length l(t) and threshold L).
//! Pairs share no device and no scheduler state, so they are simulated one after
//! the other on the same virtual clock; the node's write latency is the union of the
//! pairs' (histograms merged), its data volumes the sums.
//!
//! [`run_node`]: super::node::run_node

use super::node::{run_node_with_histogram, NodeConfig, NodeResult, UserRequest};
use serde::Serialize;
use zonelab_devices::{Device, DeviceError};
use zonelab_engine::{LatencyHistogram, LatencySummary};

/// One pair's devices: an SSD and the HDD its scheduler drives with BCW.
pub struct PairDevices {
    pub ssd: Box<dyn Device>,
    pub hdd: Box<dyn Device>,
}

/// A multi-pair node's results: each pair's, and the node's as a whole.
#[derive(Debug, Clone, Serialize)]
pub struct MultiPairResult {
    pub pairs: Vec<NodeResult>,
    /// Write latency over every pair's writes.
    pub write_latency: LatencySummary,
    pub writes: u64,
    pub ssd_write_bytes: u64,
    pub hdd_user_write_bytes: u64,
    pub hdd_padding_bytes: u64,
}

/// The pair a request's file lives on (file-level placement, §4.3.1).
pub fn pair_of(offset_bytes: u64, file_bytes: u64, pairs: usize) -> usize {
    ((offset_bytes / file_bytes.max(1)) % pairs.max(1) as u64) as usize
}

/// Splits a node's requests (sorted by arrival) into one stream per pair by file.
pub fn split_by_file(
    requests: &[UserRequest],
    file_bytes: u64,
    pairs: usize,
) -> Vec<Vec<UserRequest>> {
    let mut out = vec![Vec::new(); pairs.max(1)];
    for q in requests {
        out[pair_of(q.offset_bytes, file_bytes, pairs)].push(*q);
    }
    out
}

/// Runs a node's `requests` on `pairs`, each pair with its own MIOS scheduler
/// configured by `cfg` (the same policy, threshold L and HDD profile on every pair:
/// the pairs are built alike).
pub fn run_pairs(
    pairs: &mut [PairDevices],
    requests: &[UserRequest],
    file_bytes: u64,
    cfg: &NodeConfig,
) -> Result<MultiPairResult, DeviceError> {
    let streams = split_by_file(requests, file_bytes, pairs.len());
    let mut hist = LatencyHistogram::new();
    let mut results = Vec::with_capacity(pairs.len());
    for (pair, stream) in pairs.iter_mut().zip(&streams) {
        let (r, h) = run_node_with_histogram(pair.ssd.as_mut(), pair.hdd.as_mut(), stream, cfg)?;
        hist.merge(&h);
        results.push(r);
    }
    Ok(MultiPairResult {
        write_latency: hist.summary(),
        writes: results.iter().map(|r| r.writes).sum(),
        ssd_write_bytes: results.iter().map(|r| r.ssd_write_bytes).sum(),
        hdd_user_write_bytes: results.iter().map(|r| r.hdd_user_write_bytes).sum(),
        hdd_padding_bytes: results.iter().map(|r| r.hdd_padding_bytes).sum(),
        pairs: results,
    })
}
