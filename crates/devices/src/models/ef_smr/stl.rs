//! The shingled translation layer (STL) interface of the EF-SMR disk: the policy
//! that maps logical sectors to the flash cache and the SMR bands and decides when
//! and how to clean the cache. Skylight, PORE and MU-RMW implement it (MU-RMW §II,
//! §III); the device model around them is the same.

use super::hardware::Hardware;
use zonelab_engine::Ns;

/// A shingled translation layer. Sectors are the device's logical blocks. Every
/// call serves one host request — `count` consecutive sectors from `first` — whose
/// pages are issued as soon as they are ready, so they proceed in parallel where
/// the flash's units allow; it returns when the last one completes. Cleaning
/// (write-back of cached data to bands by RMW) happens inside `write` when the
/// cache needs space: the request's later pages wait for it, and the host is
/// paused until it ends ([`Hardware::record_cleaning`]).
pub trait Stl {
    /// Short name: "skylight", "pore", "mu-rmw".
    fn name(&self) -> &'static str;

    /// Writes `count` sectors from `first` (with their bytes, `count` sectors' worth,
    /// if payloads are used) at `ready_ns`.
    fn write(
        &mut self,
        hw: &mut Hardware,
        ready_ns: Ns,
        first: u32,
        count: u32,
        data: Option<&[u8]>,
    ) -> Ns;

    /// Reads `count` sectors from `first` at `ready_ns` into `out` if given (latest
    /// data: from the cache where cached, else from the band).
    fn read(
        &mut self,
        hw: &mut Hardware,
        ready_ns: Ns,
        first: u32,
        count: u32,
        out: Option<&mut [u8]>,
    ) -> Ns;

    /// Bytes of controller RAM the STL's mapping structures occupy now (their
    /// real sizes, for MU-RMW §III-E).
    fn mapping_memory_bytes(&self) -> u64;

    /// Checks the STL's internal invariants (for tests); `Err` says what broke.
    fn check_invariants(&self, hw: &Hardware) -> Result<(), String>;
}

/// The bytes of sector `i` of a request's payload, if any.
#[inline]
pub fn sector_chunk(data: Option<&[u8]>, i: u32, sector_bytes: usize) -> Option<&[u8]> {
    data.map(|d| &d[i as usize * sector_bytes..(i as usize + 1) * sector_bytes])
}
