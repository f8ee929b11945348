//! ZNSwap (Bergman et al., "ZNSwap: un-Block your Swap", ATC '22; ZNSage §1, §3.2),
//! the baseline: per-core swap zones written by zone append, one append per page
//! (`mm/page_io.c` of acsl-technion/znswap: a one-page bio with
//! `REQ_OP_ZONE_APPEND`); the 24 B reverse-map entry (`struct page_md_m`:
//! mapping, index, accessed bitmap, sample count) of each slot is written as per-LBA
//! metadata with the page, so the device must be formatted with an LBA format of
//! at least 24 B of metadata (the ZN540's 64 B format, Table 1) — on any other
//! device ZNSwap refuses to start. The metadata's cost on the data path is the
//! device model's (`zns-ssd` `[namespace]`: metadata bytes cross the controller and
//! PCIe with every LBA, plus a per-command metadata cost). ZNSwap's GC remaps the
//! page table after a page is copied, not while it is in memory, so a fault on a
//! page GC holds in memory still reads it from the victim zone (ZNSage §4.4).
//!
//! The model keeps the reverse map it would read back from that metadata in an
//! array (the device model does not store metadata bytes); reading it costs what
//! the data path charges for metadata.

use super::config::{ZoneSwapConfig, GC_CHUNK_PAGES};
use super::error::SwapError;
use super::zone_swap::{ZonePolicy, ZoneSwap};
use super::RMAP_ENTRY_BYTES;
use zonelab_devices::Device;

/// Builds ZNSwap on `dev`; refuses a device whose formatted LBA format has less
/// than 24 B of metadata.
pub fn znswap(dev: Box<dyn Device>, cfg: ZoneSwapConfig) -> Result<ZoneSwap, SwapError> {
    let ms = dev.metadata_bytes_per_block();
    if (ms as u64) < RMAP_ENTRY_BYTES {
        return Err(SwapError::MetadataTooSmall {
            device: dev.info().name.clone(),
            metadata_bytes: ms,
            needed_bytes: RMAP_ENTRY_BYTES as u32,
        });
    }
    ZoneSwap::new(
        dev,
        cfg,
        ZonePolicy {
            name: "znswap",
            write_unit_pages: Some(1),
            use_append: true,
            metadata_on_device: true,
            gc_page_table_update: false,
            gc_chunk_pages: GC_CHUNK_PAGES,
        },
    )
}
