//! Shared set-up of the HHZS experiments (`papers/hhzs.txt` §2.3, §4.1): the
//! RocksDB-like LSM-tree over the zone file store on a ZNS SSD (limited to a zone
//! budget) and an HM-SMR HDD, driven by YCSB.

use zonelab_devices::{open_device_with, ProfileOverride};
use zonelab_engine::Ns;
use zonelab_systems::hhzs::{
    h2zone_daemon_times_ns, PlacementPolicy, StoreDeviceSpec, ZenfsSharing, ZoneFileStore,
};
use zonelab_systems::lsm::{KvOp, LsmDb, LsmOptions, OpSource};
use zonelab_workloads::ycsb::{keys::key_value, CoreWorkloadSpec, InsertOrder, YcsbOp};

/// The paper's data set: 200 GiB of 1 KiB objects (§2.3) = 209,715,200 records.
pub const PAPER_RECORDS: u64 = 200 * 1024 * 1024;
/// SSD zones available (§2.3: 20 × 1,077 MiB = 21.0 GiB). The authors' ZenFS takes
/// its [`ZENFS_META_ZONES`] from these: their SSD limit is `constrained_ssd_space /
/// zone_sz_` zones (H2Zone `zbd_zenfs.cc`, `ZonedBlockDevice::Open`, the 2 GiB zone
/// *size*), the option files hold 40, 80, 120 and 160 GiB — 20, 40, 60 and 80
/// zones, the paper's Exp#5 sizes — and `ZonedAddZones` lists the metadata zones
/// among them (docs/hhzs.md, "The zones the file system and RocksDB's metadata
/// take").
pub const PAPER_SSD_ZONES: u32 = 20;
pub use zonelab_systems::hhzs::{METADATA_FILE_ZONES, ZENFS_META_ZONES};

/// Where the HHZS experiments run.
#[derive(Debug, Clone)]
pub struct HybridSetup {
    pub ssd_profile: String,
    pub hdd_profile: String,
    /// Profile fields changed from the profiles' values (`--set ssd.flash.channels=4`).
    pub ssd_overrides: Vec<ProfileOverride>,
    pub hdd_overrides: Vec<ProfileOverride>,
    /// SSD zones the file system may use, its metadata zones included.
    pub ssd_zones: u32,
    /// Take the zones the authors' file system keeps for its metadata (3 SSD
    /// zones) and RocksDB's metadata files hold (2 zones on the device the
    /// scheme's placement puts them on) before the first file
    /// ([`zonelab_systems::hhzs::metadata_zones`]). `false` is the ablation: every
    /// zone holds WAL files and SSTs, as the model had it before.
    pub metadata_zones: bool,
    pub options: LsmOptions,
    /// With a WAL/cache pool, set RocksDB's `max_total_wal_size` to what the pool
    /// holds (issue 14 item 2). `false` is an ablation: the authors' YCSB binding
    /// leaves RocksDB's default (H2Zone `RocksDBClient.initRocksDB`).
    pub wal_cap_from_pool: bool,
    /// H2Zone's migration planning window (16 s at paper scale, `TokenBucket(16,
    /// 1)`), scaled with the experiment: loads and runs are S times shorter while
    /// the migration rate is not scaled (docs/hhzs.md, "Scaling").
    pub migration_planning_window_ns: Ns,
    /// H2Zone's start delay of capacity migration after each mount (32 s at paper
    /// scale, `MaybeCapacityCalibration`), scaled as the planning window is: both
    /// are wall-clock times of the migration daemon.
    pub capacity_migration_delay_ns: Ns,
    /// The schemes without a WAL/cache pool (B1–B4, B3+M) allocate zones as the
    /// authors' ZenFS does (`zenfs_sharing`: WAL files join zones L0 SSTs left
    /// open, zones reset when all their files are gone), with ZenFS's rules seeing
    /// the experiment's scale of a zone. `None` is the ablation: the store's own
    /// allocation (a WAL stream of zones of its own).
    pub zenfs: Option<ZenfsSharing>,
}

impl HybridSetup {
    /// The YCSB load of the paper's experiments (§4.1): `records` one-field records of
    /// the store's value size, YCSB's defaults otherwise.
    pub fn load_spec(&self, records: u64) -> CoreWorkloadSpec {
        CoreWorkloadSpec {
            record_count: records,
            field_count: 1,
            field_length_bytes: self.options.value_bytes,
            ..CoreWorkloadSpec::default()
        }
    }

    /// The paper's devices and RocksDB options, every size scaled by `scale`. The
    /// SSD keeps 20 zones at every scale (one SST per zone), with the authors'
    /// metadata zones taken from them.
    pub fn paper(scale: f64) -> Self {
        Self {
            ssd_profile: "zn540".into(),
            hdd_profile: "st14000nm0007".into(),
            ssd_overrides: Vec::new(),
            hdd_overrides: Vec::new(),
            ssd_zones: PAPER_SSD_ZONES,
            metadata_zones: true,
            options: LsmOptions::hhzs_paper().scaled(scale),
            wal_cap_from_pool: true,
            migration_planning_window_ns: h2zone_daemon_times_ns(scale).0,
            capacity_migration_delay_ns: h2zone_daemon_times_ns(scale).1,
            zenfs: Some(ZenfsSharing::authors(scale.min(1.0))),
        }
    }

    /// Opens an empty database with placement `policy`.
    pub fn open(&self, policy: Box<dyn PlacementPolicy>) -> Result<LsmDb<ZoneFileStore>, String> {
        self.open_configured(policy, 0, false, 0)
    }

    /// Opens an empty database with placement `policy`, `wal_cache_zones` SSD zones
    /// for the WAL and the cache, SSD caching on or off, and a migration rate.
    pub fn open_configured(
        &self,
        policy: Box<dyn PlacementPolicy>,
        wal_cache_zones: u32,
        caching: bool,
        migration_bytes_per_s: u64,
    ) -> Result<LsmDb<ZoneFileStore>, String> {
        let ssd =
            open_device_with(&self.ssd_profile, &self.ssd_overrides).map_err(|e| e.to_string())?;
        let hdd =
            open_device_with(&self.hdd_profile, &self.hdd_overrides).map_err(|e| e.to_string())?;
        let metadata_files_device = policy.metadata_files_device();
        let store = ZoneFileStore::new(
            vec![
                StoreDeviceSpec {
                    device: ssd,
                    zone_budget: Some(self.ssd_zones),
                },
                StoreDeviceSpec {
                    device: hdd,
                    zone_budget: None,
                },
            ],
            policy,
        )
        .map_err(|e| e.to_string())?;
        let mut store = store;
        if self.metadata_zones {
            store
                .reserve_filesystem_metadata_zones(0, ZENFS_META_ZONES)
                .map_err(|e| e.to_string())?;
        }
        if wal_cache_zones > 0 || caching || migration_bytes_per_s > 0 {
            store
                .configure_hhzs(wal_cache_zones, caching, migration_bytes_per_s)
                .map_err(|e| e.to_string())?;
        }
        store.set_migration_planning_window_ns(self.migration_planning_window_ns);
        store.set_capacity_migration_delay_ns(self.capacity_migration_delay_ns);
        if let Some(sharing) = self.zenfs.filter(|_| wal_cache_zones == 0) {
            store
                .configure_zenfs_sharing_with(sharing)
                .map_err(|e| e.to_string())?;
        }
        if self.metadata_zones {
            store
                .hold_metadata_file_zones(metadata_files_device, METADATA_FILE_ZONES, 0)
                .map_err(|e| e.to_string())?;
        }
        // RocksDB's `max_total_wal_size` sized to the WAL/cache pool (§3.2, §4.1).
        let mut options = self.options.clone();
        if let Some(limit) = store
            .wal_limit_for_pool_bytes()
            .filter(|_| self.wal_cap_from_pool)
        {
            options.max_total_wal_bytes = limit;
        }
        LsmDb::new(options, store).map_err(|e| e.to_string())
    }
}

/// The LSM order code of YCSB key number `keynum` with hashed inserts: the key's
/// bytes (`"user"` + the number zero-padded to 20 digits) sort like the number, so
/// the code is the number, offset so Java's one negative `Math.abs` value sorts first.
pub fn key_code(keynum: u64) -> u64 {
    (key_value(keynum, InsertOrder::Hashed) as u64) ^ (1 << 63)
}

/// Turns a YCSB phase into LSM operations. Updates are puts of the whole record
/// (RocksDB's YCSB binding rewrites the record).
#[derive(Clone)]
pub struct YcsbOps<I: Iterator<Item = YcsbOp>> {
    pub inner: I,
}

impl<I: Iterator<Item = YcsbOp>> OpSource for YcsbOps<I> {
    fn next_op(&mut self) -> Option<KvOp> {
        Some(match self.inner.next()? {
            YcsbOp::Insert { key, .. } | YcsbOp::Update { key, .. } => {
                KvOp::Put { key: key_code(key) }
            }
            YcsbOp::Read { key } => KvOp::Get { key: key_code(key) },
            YcsbOp::ReadModifyWrite { key, .. } => KvOp::ReadModifyWrite { key: key_code(key) },
            YcsbOp::Scan { start_key, len } => KvOp::Scan {
                key: key_code(start_key),
                len,
            },
        })
    }
}

/// At most `left` operations of `inner` (a load stopped at an end point).
pub struct TakeOps<'a> {
    pub inner: &'a mut dyn OpSource,
    pub left: u64,
}

impl OpSource for TakeOps<'_> {
    fn next_op(&mut self) -> Option<KvOp> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        self.inner.next_op()
    }
}

/// Positional argument `i` of a diagnostic example parsed as `T`; absent or `-`
/// gives `default`, anything else that does not parse is a one-line error naming
/// `what`.
pub fn positional_arg<T: std::str::FromStr>(
    args: &[String],
    i: usize,
    what: &str,
    default: T,
) -> Result<T, String> {
    match args.get(i).filter(|a| a.as_str() != "-") {
        Some(a) => a
            .parse()
            .map_err(|_| format!("{what} `{a}` is not a number")),
        None => Ok(default),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zonelab_workloads::ycsb::key_24;

    #[test]
    fn key_codes_sort_like_ycsb_key_bytes() {
        let mut by_bytes: Vec<u64> = (0..2000).collect();
        by_bytes.sort_by_key(|&k| key_24(k, InsertOrder::Hashed));
        let mut by_code: Vec<u64> = (0..2000).collect();
        by_code.sort_by_key(|&k| key_code(k));
        assert_eq!(by_bytes, by_code);
    }

    #[test]
    fn positional_args_default_on_absence_or_dash_and_name_what_is_wrong() {
        let args: Vec<String> = ["0.1", "-", "x"].iter().map(|s| s.to_string()).collect();
        assert_eq!(positional_arg(&args, 0, "scale", 1.0), Ok(0.1));
        assert_eq!(positional_arg(&args, 1, "seed", 7u64), Ok(7));
        assert_eq!(positional_arg(&args, 5, "lines", 8u64), Ok(8));
        assert_eq!(
            positional_arg(&args, 2, "alpha", 0.9),
            Err("alpha `x` is not a number".to_string())
        );
    }
}
