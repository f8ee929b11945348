//! `zl_stats_json`: what an emulated device did since it was opened, as the
//! JSON report the fio engine and `zonelab serve --nbd` print
//! (`zonelab_emulation::EmulationReport`, docs/c-api.md).

use crate::device::{device, opt_str, ZlDevice};
use crate::fs_info::fill;
use crate::status::{guard, Failure};
use std::ffi::c_char;

/// The device's report as one NUL-terminated JSON object: `kind` (the caller's
/// name for itself, e.g. "fio"; NULL gives "capi"), `device`, `time_dilation`,
/// `backing_file`, modelled `start_ns`/`end_ns`/`duration_ns`, `wall_s`,
/// `ops`, `bytes`, `throughput_mib_s`, `iops`, `read`/`write`/`trim` {`ops`,
/// `bytes`, `latency`}, `flushes`, `host_zone_resets`, `zone_management`,
/// `errors` {`count`, `by_command`, `first`} and the model's `device_stats`
/// (WAF, GC, erases, zone resets, utilisation, counters). Buffer protocol as
/// `zl_fs_stats_json`: `*needed` = bytes required (NUL included); nothing is
/// written when that exceeds `cap`.
///
/// # Safety
/// `dev` is a valid handle; `kind` is NULL or a NUL-terminated string; `buf`
/// has `cap` writable bytes (NULL if `cap` is 0); `needed` is a valid pointer.
#[no_mangle]
pub unsafe extern "C" fn zl_stats_json(
    dev: *const ZlDevice,
    kind: *const c_char,
    buf: *mut c_char,
    cap: u64,
    needed: *mut u64,
) -> i32 {
    guard(|| {
        let d = device(dev)?;
        let kind = opt_str(kind, "kind")?.unwrap_or("capi");
        let report = d.emu.report(kind);
        let mut data = serde_json::to_string_pretty(&report)
            .map_err(|e| Failure::invalid(format!("cannot encode the report: {e}")))?
            .into_bytes();
        data.push(0);
        fill(&data, buf, cap, needed)
    })
}
