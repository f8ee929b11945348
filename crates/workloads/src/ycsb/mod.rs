//! YCSB with the semantics of YCSB's `CoreWorkload` (brianfrankcooper/YCSB,
//! `core/src/main/java/site/ycsb/`), in virtual time and with ZoneLab's seeded
//! randomness.
//!
//! What is YCSB's, exactly: the operation mixes of `workloads/workload{a..f}`
//! ([`workload_a`] … [`workload_f`]); the operation chooser (`DiscreteGenerator`);
//! the key choosers and their bounds (`CoreWorkload.init`, `nextKeynum`); the
//! zipfian inverse, zeta sums and constants (`ZipfianGenerator`,
//! `ScrambledZipfianGenerator`: `ITEM_COUNT` = 10^10, `ZETAN` = 26.46902820178302,
//! θ = 0.99); `latest` (`SkewedLatestGenerator` over the insert counter);
//! `UniformLongGenerator`, `HotspotIntegerGenerator`; key names ("user" +
//! `Utils.fnvhash64(keynum)`, `CoreWorkload.buildKeyName`); scan lengths; record
//! sizes (`fieldcount` × `fieldlength`); and the `-target` tick of `ClientThread`.
//! What cannot be: YCSB's random stream (`ThreadLocalRandom`) — draws come from
//! [`zonelab_engine::RngStream`]s, so runs are deterministic per seed.
//!
//! - [`keys`]: `fnvhash64`, key names, fixed 24-byte keys.
//! - [`zipfian`]: zeta, `ZipfianGenerator`, `ScrambledZipfianGenerator`,
//!   `SkewedLatestGenerator`.
//! - [`generators`]: uniform, counter, discrete, hotspot generators and the throttle.
//! - [`core_workload`]: [`CoreWorkloadSpec`], presets, [`LoadPhase`], [`RunPhase`].
//!
//! ```
//! use zonelab_workloads::ycsb::{workload_a, YcsbOp, build_key_name, InsertOrder};
//! let mut spec = workload_a();
//! spec.record_count = 10_000;
//! let rngs = zonelab_engine::RngStreams::new(7);
//! assert_eq!(spec.load().unwrap().count(), 10_000);
//! for op in spec.run(&rngs).unwrap().take(3) {
//!     assert!(matches!(op, YcsbOp::Read { .. } | YcsbOp::Update { .. }));
//!     let _name = build_key_name(op.key(), spec.zero_padding, InsertOrder::Hashed);
//! }
//! ```
//!
//! Left out (single client thread, insertstart = 0): `insertstart`/`insertcount`
//! splits, multi-threaded acknowledgement windows, `exponential` and `sequential`
//! request distributions, non-constant field lengths, `readallfields=false`, data
//! integrity values, and the random start delay for targets ≤ 1 op/ms per thread.

pub mod core_workload;
pub mod generators;
pub mod keys;
pub mod zipfian;

pub use core_workload::{
    custom, workload, workload_a, workload_b, workload_c, workload_d, workload_e, workload_f,
    CoreWorkloadSpec, LoadPhase, RequestDistribution, RunPhase, ScanLengthDistribution, YcsbError,
    YcsbOp,
};
pub use generators::Throttle;
pub use keys::{build_key_name, fnvhash64, key_24, InsertOrder, KEY_BYTES};
pub use zipfian::{
    ScrambledZipfianGenerator, SkewedLatestGenerator, ZipfianGenerator, ITEM_COUNT, ZETAN,
};
