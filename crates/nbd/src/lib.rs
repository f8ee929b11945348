//! `zonelab serve --nbd`: a user-space NBD server (issue 19 part 2) that exports
//! any block-interface device model — a conventional SSD (`ftl-ssd`), a CMR HDD,
//! the ConZone+ block namespace (`conzone-block`), the drive-managed EF-SMR disk —
//! to any NBD client (nbdcopy, nbdinfo, fio's `nbd` engine, qemu-img, the kernel's
//! nbd-client), in real time with real bytes through `crates/emulation`. A zoned
//! model is refused (NBD has no zone commands) unless only its conventional
//! zones are exported.
//!
//! The protocol is implemented from its specification (NetworkBlockDevice/nbd
//! `doc/proto.md`): the fixed newstyle handshake with `NBD_OPT_GO`/`INFO`
//! (export, name, description, block size), `EXPORT_NAME`, `LIST` and `ABORT`;
//! simple replies (structured replies, TLS and metadata contexts are declined
//! with error replies, as the baseline allows); READ, WRITE (with FUA), FLUSH,
//! TRIM, WRITE_ZEROES and DISC. The crate on crates.io (`nbd` 0.3) has no
//! `NBD_OPT_GO`, so no block-size negotiation, and answers TRIM and
//! WRITE_ZEROES with errors, and serves a `Read + Write + Seek` that cannot
//! carry the model's completion times; hence this implementation.
//!
//! - [`proto`]: constants and wire helpers.
//! - [`export`]: what is exported (size, flags, block sizes) and the refusals.
//! - [`handshake`]: option haggling.
//! - [`transmission`]: requests mapped to the model.
//! - [`replies`]: replies sent at each request's modelled completion.
//! - [`device`]: the emulated device, shared or on a thread of its own.
//! - [`server`]: listening, connections, stopping, the final report.
//! - [`signals`]: SIGINT/SIGTERM stop the server cleanly.

pub mod device;
pub mod export;
pub mod handshake;
pub mod proto;
pub mod replies;
pub mod server;
pub mod signals;
pub mod transmission;

pub use device::{DeviceConfig, DeviceHandle};
pub use export::Export;
pub use server::{serve, Listen, ServeConfig, ServeError, Served};
pub use signals::stop_on_signals;
