//! Several independent SSD/HDD pairs per node (MIOS §4.3): file-level placement,
//! one scheduler per pair, node results = the pairs' merged.

use zonelab_devices::open_device;
use zonelab_engine::{GIB, KIB, MIB};
use zonelab_systems::mios::multi_pair::{pair_of, run_pairs, split_by_file, PairDevices};
use zonelab_systems::mios::node::{run_node, NodeConfig, Policy, UserOp, UserRequest};
use zonelab_systems::mios::{profile, ProfileConfig};

const FILE_BYTES: u64 = 64 * MIB;

/// Bursts of 8 KiB writes spread over 16 files, faster than one SSD absorbs.
fn workload() -> Vec<UserRequest> {
    let mut v = Vec::new();
    let mut t = 1_000_000;
    for burst in 0..3u64 {
        for i in 0..2_000u64 {
            let n = burst * 2_000 + i;
            let file = n % 16;
            v.push(UserRequest {
                arrival_ns: t,
                op: UserOp::Write,
                offset_bytes: file * FILE_BYTES + (n / 16) * 8 * KIB,
                size_bytes: 8 * KIB,
            });
            t += 4_000;
        }
        t += 200_000_000;
    }
    v
}

fn pairs(n: usize) -> Vec<PairDevices> {
    (0..n)
        .map(|_| PairDevices {
            ssd: open_device("ssd-960evo").unwrap(),
            hdd: open_device("wd100efax").unwrap(),
        })
        .collect()
}

fn cfg() -> NodeConfig {
    let mut hdd = open_device("wd100efax").unwrap();
    let params = profile(hdd.as_mut(), &ProfileConfig::new(64 * KIB))
        .unwrap()
        .params;
    NodeConfig::paper(Policy::MiosD, 0, params, 16 * GIB)
}

#[test]
fn requests_are_placed_by_file_and_none_is_lost() {
    let reqs = workload();
    let streams = split_by_file(&reqs, FILE_BYTES, 3);
    assert_eq!(streams.iter().map(Vec::len).sum::<usize>(), reqs.len());
    for (p, s) in streams.iter().enumerate() {
        assert!(!s.is_empty());
        assert!(s
            .iter()
            .all(|q| pair_of(q.offset_bytes, FILE_BYTES, 3) == p));
        assert!(s.windows(2).all(|w| w[0].arrival_ns <= w[1].arrival_ns));
    }
    assert_eq!(pair_of(5 * FILE_BYTES + 1, FILE_BYTES, 3), 2);
}

#[test]
fn each_pair_has_its_own_scheduler_and_the_node_sums_them() {
    let reqs = workload();
    let cfg = cfg();
    let mut two = pairs(2);
    let r = run_pairs(&mut two, &reqs, FILE_BYTES, &cfg).unwrap();
    let total: u64 = reqs.iter().map(|q| q.size_bytes).sum();
    assert_eq!(r.pairs.len(), 2);
    assert_eq!(r.writes, reqs.len() as u64);
    assert_eq!(r.ssd_write_bytes + r.hdd_user_write_bytes, total);
    assert_eq!(r.write_latency.count, reqs.len() as u64);
    for p in &r.pairs {
        assert!(
            p.hdd_syncs >= 1,
            "every pair's BCW starts with its own sync"
        );
    }
    // A pair alone is exactly the single-pair node on its share of the requests.
    let streams = split_by_file(&reqs, FILE_BYTES, 2);
    let mut ssd = open_device("ssd-960evo").unwrap();
    let mut hdd = open_device("wd100efax").unwrap();
    let alone = run_node(ssd.as_mut(), hdd.as_mut(), &streams[1], &cfg).unwrap();
    assert_eq!(
        serde_json::to_string(&alone).unwrap(),
        serde_json::to_string(&r.pairs[1]).unwrap()
    );
    // Deterministic.
    let again = run_pairs(&mut pairs(2), &reqs, FILE_BYTES, &cfg).unwrap();
    assert_eq!(
        serde_json::to_string(&r).unwrap(),
        serde_json::to_string(&again).unwrap()
    );
}
