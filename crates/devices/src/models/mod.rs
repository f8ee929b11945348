//! Device models, registered by their profile's `model` name. A new model is a new
//! file here implementing [`crate::Device`] plus one line in [`build`].

use crate::device::Device;
use crate::profile::{model_of, ProfileError, ProfileSource};

pub mod cmr_hdd;
pub mod conzone;
pub mod ef_smr;
pub mod ftl_ssd;
pub mod hdd;
pub mod hdd_queue;
pub mod hdd_write_cache;
pub mod hm_smr_hdd;
pub mod ssd_common;
pub mod zns_ssd;

/// Model names known to [`build`].
pub const MODELS: &[&str] = &[
    "zns-ssd",
    "hm-smr-hdd",
    "cmr-hdd",
    "ftl-ssd",
    "ef-smr",
    "conzone",
    "conzone-block",
    "conzone-plus",
];

/// Builds a device from a profile's source, validating every value.
pub fn build(src: &ProfileSource) -> Result<Box<dyn Device>, ProfileError> {
    let model = model_of(src)?;
    match model.as_str() {
        "zns-ssd" => Ok(Box::new(zns_ssd::ZnsSsd::from_profile(src)?)),
        "hm-smr-hdd" => Ok(Box::new(hm_smr_hdd::HmSmrHdd::from_profile(src)?)),
        "cmr-hdd" => Ok(Box::new(cmr_hdd::CmrHdd::from_profile(src)?)),
        "ftl-ssd" => Ok(Box::new(ftl_ssd::FtlSsd::from_profile(src)?)),
        "ef-smr" => Ok(Box::new(ef_smr::EfSmr::from_profile(src)?)),
        "conzone" => Ok(Box::new(conzone::ConZone::from_profile(src)?)),
        "conzone-block" => Ok(Box::new(conzone::ConZoneBlock::from_profile(src)?)),
        "conzone-plus" => Ok(Box::new(conzone::ConZonePlus::from_profile(src)?)),
        _ => Err(ProfileError::UnknownModel {
            profile: src.source_name.clone(),
            model,
            known: MODELS.join(", "),
        }),
    }
}
