//! The shingled translation layer (STL) interface of the EF-SMR disk: the policy
//! that maps logical sectors to the flash cache and the SMR bands and decides when
//! and how to clean the cache. Skylight, PORE and MU-RMW implement it (MU-RMW §II,
//! §III); the device model around them is the same.

use super::hardware::Hardware;
use zonelab_engine::Ns;

/// A shingled translation layer. Sectors are the device's logical blocks; every
/// call handles one sector and returns when it completes. Cleaning (write-back of
/// cached data to bands by RMW) happens inside `write` when the cache needs space,
/// so the write that triggers it waits for it, as on the real device.
pub trait Stl {
    /// Short name: "skylight", "pore", "mu-rmw".
    fn name(&self) -> &'static str;

    /// Writes one sector (with its bytes, if payloads are used) at `ready_ns`.
    fn write(&mut self, hw: &mut Hardware, ready_ns: Ns, sector: u32, data: Option<&[u8]>) -> Ns;

    /// Reads one sector at `ready_ns` into `out` if given (latest data: from the
    /// cache if cached there, else from its band).
    fn read(&mut self, hw: &mut Hardware, ready_ns: Ns, sector: u32, out: Option<&mut [u8]>) -> Ns;

    /// Bytes of controller RAM the STL's mapping structures occupy now (their
    /// real sizes, for MU-RMW §III-E).
    fn mapping_memory_bytes(&self) -> u64;

    /// Checks the STL's internal invariants (for tests); `Err` says what broke.
    fn check_invariants(&self, hw: &Hardware) -> Result<(), String>;
}
