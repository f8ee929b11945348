//! `[write_buffer]` profile section of `ftl-ssd` (issue 22, item 4): when a write
//! is acknowledged and what a Flush waits for.
//!
//! Admission is the same in every mode (`ssd_common/write_buffer.rs`): a write
//! waits while the DRAM buffer is full of data not yet programmed, so sustained
//! writes run at the flash's rate, not the buffer's. The mode says what
//! acknowledgement promises:
//! - `volatile` (default; NVMe Volatile Write Cache present and enabled): a write
//!   completes once its bytes are in the buffer; a **Flush** pads and programs the
//!   partial program unit and completes when everything buffered is on flash
//!   (NVMe Base Specification 2.0, §7.1 Flush: "all data ... in volatile write
//!   cache ... written to non-volatile media").
//! - `write-through` (VWC disabled, or every write with Force Unit Access): a
//!   write completes only when its data is programmed; a partial program unit is
//!   padded and programmed at once (counted in `flush_padding_bytes`, so small
//!   writes amplify).
//! - `power-loss-protected` (enterprise drives with hold-up capacitors, which
//!   report no volatile write cache): buffered data is durable, so a Flush
//!   completes after its command time and programs nothing early.
//!
//! Not modelled: a per-command FUA bit (ZoneLab's `Command::Write` has none, and
//! the trace formats replayed carry none); `write-through` is the drive-wide
//! equivalent.

use serde::Deserialize;

/// `[write_buffer]` profile section.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteBufferSection {
    pub mode: WriteBufferMode,
}

/// When a write is durable (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteBufferMode {
    #[default]
    Volatile,
    WriteThrough,
    PowerLossProtected,
}
