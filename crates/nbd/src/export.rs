//! What the server exports: a device model's block address space (or, for a
//! zoned model, only its conventional zones, which take random writes) with the
//! transmission flags and size constraints the client is told.
//!
//! NBD has no zone commands (no report zones, no zone reset, no append), so a
//! zoned model's sequential zones cannot be used through it: such a model is
//! refused unless its conventional zones are exported.

use crate::proto::*;
use zonelab_devices::DeviceInfo;

/// The export every connection negotiates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    /// The export name clients ask for (the empty default name works too).
    pub name: String,
    pub description: String,
    pub size_bytes: u64,
    pub block_bytes: u32,
    pub read_only: bool,
    pub rotational: bool,
}

impl Export {
    /// The export of a device with `info`. `conventional_zones`: export only the
    /// conventional zones of a zoned model (they come first, ZBC/ZAC's layout).
    /// `limit_bytes`: export only the first bytes of that (a whole number of
    /// blocks), as a partition would. Errors are one line naming the device and
    /// what to do instead.
    pub fn of(
        info: &DeviceInfo,
        name: Option<&str>,
        conventional_zones: bool,
        read_only: bool,
        limit_bytes: Option<u64>,
    ) -> Result<Export, String> {
        let whole_bytes = match (&info.zoned, conventional_zones) {
            (None, false) => info.capacity_bytes(),
            (None, true) => {
                return Err(format!(
                    "`{}` ({}) is not a zoned device; --conventional-zones is for zoned models (e.g. st14000nm0007)",
                    info.name, info.model
                ))
            }
            (Some(z), false) => {
                let hint = if z.conventional_zones > 0 {
                    format!(
                        "export its {} conventional zones with --conventional-zones",
                        z.conventional_zones
                    )
                } else {
                    "it has no conventional zones to export".to_string()
                };
                return Err(format!(
                    "`{}` is a zoned device ({}): NBD carries no zone commands, so its sequential zones cannot be written through it; {hint}, or serve a block-interface model (ssd-conventional, a CMR HDD such as wd100efax, conzone-tlc-block, ef-smr)",
                    info.name, info.model
                ));
            }
            (Some(z), true) if z.conventional_zones == 0 => {
                return Err(format!(
                    "`{}` ({}) has no conventional zones to export; serve a block-interface model instead",
                    info.name, info.model
                ))
            }
            (Some(z), true) => {
                z.conventional_zones as u64 * z.zone_size_blocks * info.block_bytes as u64
            }
        };
        let size_bytes = match limit_bytes {
            None => whole_bytes,
            Some(0) => return Err("--size must be larger than 0".into()),
            Some(n) if n % info.block_bytes as u64 != 0 => {
                return Err(format!(
                    "--size {n} is not a multiple of `{}`'s {}-byte blocks",
                    info.name, info.block_bytes
                ))
            }
            Some(n) if n > whole_bytes => {
                return Err(format!(
                    "--size {n} is larger than what `{}` can export ({whole_bytes} bytes)",
                    info.name
                ))
            }
            Some(n) => n,
        };
        Ok(Export {
            name: name.unwrap_or(&info.name).to_string(),
            description: format!(
                "ZoneLab {} ({}){}",
                info.name,
                info.model,
                if conventional_zones {
                    ", conventional zones"
                } else {
                    ""
                }
            ),
            size_bytes,
            block_bytes: info.block_bytes,
            read_only,
            rotational: info.model.contains("hdd") || info.model.contains("smr"),
        })
    }

    /// Does a client asking for `name` get this export? The empty name is the
    /// default export.
    pub fn answers_to(&self, name: &[u8]) -> bool {
        name.is_empty() || name == self.name.as_bytes()
    }

    /// Transmission flags: flush, FUA, trim and write-zeroes map to the model
    /// (trim is a hint the model may ignore); one model behind every
    /// connection, so the effects of a flush are visible on all of them
    /// (multi-conn).
    pub fn transmission_flags(&self) -> u16 {
        let mut f = FLAG_HAS_FLAGS | FLAG_SEND_FLUSH | FLAG_SEND_FUA | FLAG_CAN_MULTI_CONN;
        if self.read_only {
            f |= FLAG_READ_ONLY;
        } else {
            f |= FLAG_SEND_TRIM | FLAG_SEND_WRITE_ZEROES;
        }
        if self.rotational {
            f |= FLAG_ROTATIONAL;
        }
        f
    }

    /// NBD_INFO_BLOCK_SIZE: minimum and preferred = the device's logical block
    /// (smaller or unaligned requests still work, by read-modify-write), maximum
    /// payload 32 MiB.
    pub fn block_size_info(&self) -> (u32, u32, u32) {
        (
            self.block_bytes,
            self.block_bytes.max(4096),
            MAX_PAYLOAD_BYTES,
        )
    }
}
