//! Device profiles: TOML files naming a model and its parameters. Built-in profiles
//! live in the repository's `profiles/` directory and are compiled in; a path to a
//! user's profile works wherever a built-in name does. Every value is validated on
//! load; an error names the profile, the field, the value and what is allowed.

use crate::device::Device;
use crate::models;
use serde::de::DeserializeOwned;
use std::path::Path;
use thiserror::Error;

/// Built-in profiles: (name, TOML text).
pub const BUILTIN_PROFILES: &[(&str, &str)] = &[
    ("zn540", include_str!("../../../profiles/zn540.toml")),
    (
        "sk-hynix-zns",
        include_str!("../../../profiles/sk-hynix-zns.toml"),
    ),
    (
        "ssd-conventional",
        include_str!("../../../profiles/ssd-conventional.toml"),
    ),
    (
        "zn540-fdp",
        include_str!("../../../profiles/zn540-fdp.toml"),
    ),
    ("ef-smr", include_str!("../../../profiles/ef-smr.toml")),
    (
        "conzone-tlc",
        include_str!("../../../profiles/conzone-tlc.toml"),
    ),
    (
        "conzone-qlc",
        include_str!("../../../profiles/conzone-qlc.toml"),
    ),
    (
        "conzone-plus-tlc",
        include_str!("../../../profiles/conzone-plus-tlc.toml"),
    ),
    (
        "conzone-tlc-block",
        include_str!("../../../profiles/conzone-tlc-block.toml"),
    ),
    (
        "conzone-plus-tlc-block",
        include_str!("../../../profiles/conzone-plus-tlc-block.toml"),
    ),
    (
        "conzone-plus-qlc",
        include_str!("../../../profiles/conzone-plus-qlc.toml"),
    ),
    (
        "ssd-960evo",
        include_str!("../../../profiles/ssd-960evo.toml"),
    ),
    ("ssd-660p", include_str!("../../../profiles/ssd-660p.toml")),
    (
        "ssd-660p-1tb",
        include_str!("../../../profiles/ssd-660p-1tb.toml"),
    ),
    (
        "ssd-mqsim",
        include_str!("../../../profiles/ssd-mqsim.toml"),
    ),
    (
        "st14000nm0007",
        include_str!("../../../profiles/st14000nm0007.toml"),
    ),
    (
        "wd100efax",
        include_str!("../../../profiles/wd100efax.toml"),
    ),
    (
        "wd8004fryz",
        include_str!("../../../profiles/wd8004fryz.toml"),
    ),
    ("wd40ezrz", include_str!("../../../profiles/wd40ezrz.toml")),
    (
        "st8000dm004",
        include_str!("../../../profiles/st8000dm004.toml"),
    ),
    (
        "st4000dm004",
        include_str!("../../../profiles/st4000dm004.toml"),
    ),
];

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProfileError {
    #[error("unknown device profile `{name}` (built-in profiles: {known}; or give a path to a .toml file)")]
    Unknown { name: String, known: String },
    #[error("cannot read profile file `{path}`: {reason}")]
    Unreadable { path: String, reason: String },
    #[error("profile `{source_name}`: {message}")]
    Parse {
        source_name: String,
        message: String,
    },
    #[error("profile `{profile}`: field `{field}` = {value} is out of range (allowed: {allowed})")]
    OutOfRange {
        profile: String,
        field: String,
        value: String,
        allowed: String,
    },
    #[error("profile override `{text}`: {reason}")]
    BadOverride { text: String, reason: String },
    #[error("profile `{profile}`: unknown model `{model}` (known models: {known})")]
    UnknownModel {
        profile: String,
        model: String,
        known: String,
    },
}

/// A profile's source text and where it came from.
#[derive(Debug, Clone)]
pub struct ProfileSource {
    /// Built-in name, or the path given.
    pub source_name: String,
    pub text: String,
}

/// Finds a profile by built-in name or file path.
pub fn find_profile(name_or_path: &str) -> Result<ProfileSource, ProfileError> {
    if let Some((name, text)) = BUILTIN_PROFILES.iter().find(|(n, _)| *n == name_or_path) {
        return Ok(ProfileSource {
            source_name: name.to_string(),
            text: text.to_string(),
        });
    }
    let looks_like_path = name_or_path.ends_with(".toml")
        || name_or_path.contains('/')
        || Path::new(name_or_path).exists();
    if !looks_like_path {
        let known = BUILTIN_PROFILES
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(ProfileError::Unknown {
            name: name_or_path.to_string(),
            known,
        });
    }
    let text = std::fs::read_to_string(name_or_path).map_err(|e| ProfileError::Unreadable {
        path: name_or_path.to_string(),
        reason: e.to_string(),
    })?;
    Ok(ProfileSource {
        source_name: name_or_path.to_string(),
        text,
    })
}

/// Parses a profile's text into a model-specific profile.
pub fn parse_as<T: DeserializeOwned>(src: &ProfileSource) -> Result<T, ProfileError> {
    toml::from_str(&src.text).map_err(|e| ProfileError::Parse {
        source_name: src.source_name.clone(),
        message: e.message().to_string() + &span_suffix(&src.text, e.span()),
    })
}

fn span_suffix(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(r) => {
            let line = text[..r.start.min(text.len())].lines().count().max(1);
            format!(" (line {line})")
        }
        None => String::new(),
    }
}

/// Reads the `model` field of a profile.
pub fn model_of(src: &ProfileSource) -> Result<String, ProfileError> {
    #[derive(serde::Deserialize)]
    struct Loose {
        model: Option<String>,
    }
    let loose: Loose = toml::from_str(&src.text).map_err(|e| ProfileError::Parse {
        source_name: src.source_name.clone(),
        message: e.message().to_string() + &span_suffix(&src.text, e.span()),
    })?;
    loose.model.ok_or_else(|| ProfileError::Parse {
        source_name: src.source_name.clone(),
        message: "missing field `model`".to_string(),
    })
}

/// Loads, validates and builds a device from a built-in name or a profile path.
pub fn open_device(name_or_path: &str) -> Result<Box<dyn Device>, ProfileError> {
    let src = find_profile(name_or_path)?;
    models::build(&src)
}

/// One-line descriptions of the built-in profiles: (name, model, description).
pub fn describe_builtin() -> Vec<(String, String, String)> {
    BUILTIN_PROFILES
        .iter()
        .map(|(name, text)| {
            #[derive(serde::Deserialize)]
            struct Desc {
                model: String,
                description: String,
            }
            let d: Desc = toml::from_str(text).unwrap_or(Desc {
                model: "?".into(),
                description: "(unparsable)".into(),
            });
            (name.to_string(), d.model, d.description)
        })
        .collect()
}

/// Validates profile values; every check names the field and the allowed range.
pub struct Validator<'a> {
    profile: &'a str,
}

impl<'a> Validator<'a> {
    pub fn new(profile: &'a str) -> Self {
        Self { profile }
    }

    /// `min ≤ value ≤ max`.
    pub fn range<T: PartialOrd + std::fmt::Display>(
        &self,
        field: &str,
        value: T,
        min: T,
        max: T,
    ) -> Result<(), ProfileError> {
        if value < min || value > max {
            return Err(self.out_of_range(field, value, format!("{min}..={max}")));
        }
        Ok(())
    }

    /// Any custom rule: `ok` must hold, `allowed` describes it.
    pub fn check<T: std::fmt::Display>(
        &self,
        field: &str,
        value: T,
        ok: bool,
        allowed: &str,
    ) -> Result<(), ProfileError> {
        if !ok {
            return Err(self.out_of_range(field, value, allowed.to_string()));
        }
        Ok(())
    }

    pub fn out_of_range<T: std::fmt::Display>(
        &self,
        field: &str,
        value: T,
        allowed: String,
    ) -> ProfileError {
        ProfileError::OutOfRange {
            profile: self.profile.to_string(),
            field: field.to_string(),
            value: value.to_string(),
            allowed,
        }
    }
}
