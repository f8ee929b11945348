//! The interface between the memory model and a swap back end (ZNSage §4.3: swap
//! out assigns a slot and queues the write; swap in reads slots; GC relocates
//! valid slots and reports the moves so page tables can be updated, §4.4).

use super::error::SwapError;
use super::host::{CpuItem, HostStats};
use super::{PageId, Slot, PAGE_BYTES};
use serde::Serialize;
use zonelab_devices::DeviceStats;
use zonelab_engine::Ns;

/// What a page held when it was swapped out: its id and write version. In payload
/// mode it is written into the first 8 bytes of the page's 4 KiB on the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageTag {
    pub page: PageId,
    pub version: u32,
}

impl PageTag {
    pub fn encode(&self, out: &mut [u8]) {
        out[..4].copy_from_slice(&self.page.to_le_bytes());
        out[4..8].copy_from_slice(&self.version.to_le_bytes());
    }

    pub fn decode(bytes: &[u8]) -> Self {
        let page = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes"));
        let version = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes"));
        Self { page, version }
    }
}

/// Fills a payload buffer for `tags` (4 KiB per page).
pub fn encode_pages(tags: &[PageTag], buf: &mut Vec<u8>) {
    buf.clear();
    buf.resize(tags.len() * PAGE_BYTES as usize, 0);
    for (i, t) in tags.iter().enumerate() {
        t.encode(&mut buf[i * PAGE_BYTES as usize..]);
    }
}

/// One valid slot moved by swap-zone GC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcMove {
    pub page: PageId,
    pub old_slot: Slot,
    pub new_slot: Slot,
    /// The page's data is in host memory (read from the victim) from here ...
    pub read_done_ns: Ns,
    /// ... until its copy is written to the new slot.
    pub write_done_ns: Ns,
}

/// What a back-end call did that the memory model must know.
#[derive(Debug, Default, Clone)]
pub struct IoEvents {
    /// Swap-out writes submitted: (completion, page, slot).
    pub written: Vec<(Ns, PageId, Slot)>,
    /// Slots relocated by GC.
    pub moves: Vec<GcMove>,
    /// Host CPU the call caused (block-layer submission and completion, lock
    /// spinning, GC page-table updates), for the run loop to place on a core.
    pub cpu: Vec<CpuItem>,
}

impl IoEvents {
    pub fn clear(&mut self) {
        self.written.clear();
        self.moves.clear();
        self.cpu.clear();
    }
}

/// Counters every back end reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BackendStats {
    pub swap_out_pages: u64,
    pub swap_in_pages: u64,
    pub write_commands: u64,
    pub read_commands: u64,
    pub gc_victims: u64,
    pub gc_copied_pages: u64,
    pub zone_resets: u64,
    pub trims: u64,
    /// Host memory of the reverse map (ZNSage: 24 B per slot; ZNSwap: 0).
    pub host_rmap_bytes: u64,
    /// Per-LBA device metadata holding the reverse map (ZNSwap: 24 B per slot written).
    pub device_metadata_rmap_bytes: u64,
    pub usable_slots: u64,
    pub valid_slots: u64,
}

/// A swap back end.
pub trait SwapBackend {
    fn name(&self) -> &'static str;
    /// Swap slots the memory model may fill (after over-provisioning).
    fn usable_slots(&self) -> u64;
    fn valid_slots(&self) -> u64;
    /// Whether `pages` more pages can be swapped out from `core` now without
    /// waiting for GC to free a zone.
    fn can_accept(&self, core: u32, pages: u32) -> bool;
    /// Swaps out `tags` from `core` at `now_ns`: appends one slot per page to
    /// `slots` and reports submitted writes in `ev` (pages still in a bio list are
    /// reported when their bio is submitted).
    fn swap_out(
        &mut self,
        now_ns: Ns,
        core: u32,
        tags: &[PageTag],
        slots: &mut Vec<Slot>,
        ev: &mut IoEvents,
    ) -> Result<(), SwapError>;
    /// Submits every partially filled bio list.
    fn flush(&mut self, now_ns: Ns, ev: &mut IoEvents) -> Result<(), SwapError>;
    /// Reads `count` consecutive slots from `slot` in one request; returns the
    /// device's completion time (its completion interrupt is in `ev.cpu`). In
    /// payload mode `tags` receives what the device returned for each slot.
    fn read(
        &mut self,
        now_ns: Ns,
        slot: Slot,
        count: u32,
        tags: Option<&mut Vec<PageTag>>,
        ev: &mut IoEvents,
    ) -> Result<Ns, SwapError>;
    /// The slot's content is no longer needed.
    fn free(&mut self, now_ns: Ns, slot: Slot) -> Result<(), SwapError>;
    /// Reverse map: the page whose content the slot holds, if valid.
    fn owner(&self, slot: Slot) -> Option<PageId>;
    /// Whether consecutive slots `a` and `a + 1` can be read in one command.
    fn contiguous(&self, a: Slot) -> bool;
    /// Total slot space (for readahead windows).
    fn slot_space(&self) -> u64;
    /// Whether background GC has work (below the low watermark, or running until
    /// the high one).
    fn gc_wanted(&mut self) -> bool;
    /// One GC step at `now_ns`; returns when the next step may start, or None when
    /// there is nothing to collect.
    fn gc_step(&mut self, now_ns: Ns, ev: &mut IoEvents) -> Result<Option<Ns>, SwapError>;
    /// Whether GC updates page tables while valid pages are in memory (§4.4).
    fn gc_updates_page_table(&self) -> bool;
    fn stats(&self) -> BackendStats;
    /// Counters of the host block path (requests, CPU, scheduler-lock waits).
    fn host_stats(&self) -> HostStats;
    /// Drops host-path bookkeeping that ended by `now_ns` (callers go in time order).
    fn forget_before(&mut self, now_ns: Ns);
    /// Checks internal invariants (reverse map vs. valid counts); tests call it.
    fn check_consistency(&self) -> Result<(), String> {
        Ok(())
    }
    fn device_stats(&self, elapsed_ns: Ns) -> DeviceStats;
}

/// Maps a device error into a swap error of `backend`.
/// Reads `count` pages with `cmd` and returns the completion time. With `tags`,
/// the pages' bytes land in `buf` (kept by the caller and reused, so a swap-in
/// allocates nothing) and each page's tag is appended to `tags`; without, the read
/// is size-only.
pub fn read_pages(
    dev: &mut dyn zonelab_devices::Device,
    now_ns: Ns,
    cmd: &zonelab_devices::Command,
    count: u32,
    tags: Option<&mut Vec<PageTag>>,
    buf: &mut Vec<u8>,
) -> Result<Ns, zonelab_devices::DeviceError> {
    use zonelab_devices::Payload;
    let Some(out) = tags else {
        return Ok(dev.submit(now_ns, cmd, Payload::SizeOnly)?.done_ns);
    };
    buf.clear();
    buf.resize(count as usize * PAGE_BYTES as usize, 0);
    let done_ns = dev.submit(now_ns, cmd, Payload::Read(buf))?.done_ns;
    for page in buf.chunks_exact(PAGE_BYTES as usize) {
        out.push(PageTag::decode(page));
    }
    Ok(done_ns)
}

pub fn dev_err(backend: &'static str) -> impl Fn(zonelab_devices::DeviceError) -> SwapError {
    move |source| SwapError::Device { backend, source }
}
