//! Profile overrides: change fields of a device profile by dotted path
//! (`flash.channels=16`, `capacity.over_provisioning_percent=28`) without copying
//! the TOML file. The CLI's `--set`, the Python package's `overrides=` and sweeps
//! all use this.
//!
//! An override edits the profile's TOML text (comments and line numbers kept, via
//! `toml_edit`) and the edited text then goes through the one path every profile
//! takes: model parsing with `deny_unknown_fields` and the model's [`Validator`]
//! checks. So an override is rejected with exactly the error the same value would
//! get in a file (`field `flash.channels` = 0 is out of range (allowed: 1..=64)`,
//! `unknown field `chanels``); the profile's name in the message says which
//! overrides were applied.
//!
//! [`Validator`]: crate::profile::Validator

use crate::device::Device;
use crate::models;
use crate::profile::{find_profile, ProfileError, ProfileSource};
use toml_edit::{DocumentMut, InlineTable, Item, TableLike, Value};

/// One profile field to change: its dotted path (array elements by index, e.g.
/// `namespace.lba_formats.4.metadata_bytes`) and the new value.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileOverride {
    pub path: String,
    pub value: toml::Value,
}

impl ProfileOverride {
    /// Parses a comma-separated list of `KEY=VALUE` (empty items skipped), as
    /// the examples' `ZONELAB_*_SET` variables give them.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, ProfileError> {
        text.split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(Self::parse)
            .collect()
    }

    /// Parses `KEY=VALUE` as written on a command line. The value is read as a TOML
    /// value (`16`, `7.5`, `true`, `"tlc"`, `[1, 2]`); anything that is not one is
    /// taken as a string, so `cell_type=qlc` needs no quotes.
    pub fn parse(text: &str) -> Result<Self, ProfileError> {
        let bad = |reason: &str| ProfileError::BadOverride {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let (path, raw) = text
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=VALUE, e.g. flash.channels=16"))?;
        let path = path.trim();
        check_path(path).map_err(|r| bad(&r))?;
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(bad("the value is empty"));
        }
        let value = match toml::from_str::<toml::Table>(&format!("v = {raw}")) {
            Ok(mut t) => t.remove("v").expect("parsed key"),
            Err(_) => toml::Value::String(raw.to_string()),
        };
        Ok(Self {
            path: path.to_string(),
            value,
        })
    }

    /// An override from a path and a value (e.g. from Python or a sweep file).
    pub fn new(path: &str, value: toml::Value) -> Result<Self, ProfileError> {
        let o = Self {
            path: path.to_string(),
            value,
        };
        check_path(path).map_err(|reason| ProfileError::BadOverride {
            text: o.to_string(),
            reason,
        })?;
        Ok(o)
    }
}

impl std::fmt::Display for ProfileOverride {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            toml::Value::String(s) => write!(f, "{}={s}", self.path),
            v => write!(f, "{}={v}", self.path),
        }
    }
}

fn check_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err(
            "the key is empty (expected a dotted profile field, e.g. flash.channels)".into(),
        );
    }
    if path.split('.').any(|s| s.trim().is_empty()) {
        return Err(format!(
            "`{path}` has an empty part (expected a dotted profile field, e.g. flash.channels)"
        ));
    }
    Ok(())
}

/// `src` with `overrides` applied in order. The result's name says which were
/// applied, so errors found later name them.
pub fn apply_overrides(
    src: &ProfileSource,
    overrides: &[ProfileOverride],
) -> Result<ProfileSource, ProfileError> {
    if overrides.is_empty() {
        return Ok(src.clone());
    }
    let mut doc: DocumentMut =
        src.text
            .parse()
            .map_err(|e: toml_edit::TomlError| ProfileError::Parse {
                source_name: src.source_name.clone(),
                message: e.message().to_string(),
            })?;
    for o in overrides {
        let value = to_edit_value(&o.value).map_err(|reason| ProfileError::BadOverride {
            text: o.to_string(),
            reason,
        })?;
        let segments: Vec<&str> = o.path.split('.').map(str::trim).collect();
        set_in_table(doc.as_table_mut(), &segments, value, "").map_err(|reason| {
            ProfileError::BadOverride {
                text: o.to_string(),
                reason,
            }
        })?;
    }
    let applied: Vec<String> = overrides.iter().map(|o| o.to_string()).collect();
    Ok(ProfileSource {
        source_name: format!("{} with {}", src.source_name, applied.join(", ")),
        text: doc.to_string(),
    })
}

/// Loads, overrides, validates and builds a device.
pub fn open_device_with(
    name_or_path: &str,
    overrides: &[ProfileOverride],
) -> Result<Box<dyn Device>, ProfileError> {
    let src = apply_overrides(&find_profile(name_or_path)?, overrides)?;
    models::build(&src)
}

/// The profile's fields after `overrides`, checked by building the device (so an
/// invalid result is an error, as it would be for a run).
pub fn profile_table(
    name_or_path: &str,
    overrides: &[ProfileOverride],
) -> Result<toml::Table, ProfileError> {
    let src = apply_overrides(&find_profile(name_or_path)?, overrides)?;
    models::build(&src)?;
    toml::from_str(&src.text).map_err(|e| ProfileError::Parse {
        source_name: src.source_name.clone(),
        message: e.message().to_string(),
    })
}

fn to_edit_value(v: &toml::Value) -> Result<Value, String> {
    // A bare value is not a TOML document: wrap it in one and take it back out.
    let text = toml::to_string(&toml::Table::from_iter([("v".to_string(), v.clone())]))
        .map_err(|e| e.to_string())?;
    let doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| e.to_string())?;
    match doc.get("v") {
        Some(Item::Value(v)) => Ok(v.clone()),
        Some(Item::Table(t)) => Ok(Value::InlineTable(t.clone().into_inline_table())),
        _ => Err("the value cannot be written as TOML".into()),
    }
}

fn joined(walked: &str, seg: &str) -> String {
    if walked.is_empty() {
        seg.to_string()
    } else {
        format!("{walked}.{seg}")
    }
}

fn kind_of(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) | Item::Value(Value::InlineTable(_)) => "a table",
        Item::ArrayOfTables(_) | Item::Value(Value::Array(_)) => "an array",
        Item::Value(Value::String(_)) => "a string",
        Item::Value(Value::Integer(_)) => "an integer",
        Item::Value(Value::Float(_)) => "a float",
        Item::Value(Value::Boolean(_)) => "a boolean",
        Item::Value(Value::Datetime(_)) => "a date-time",
    }
}

fn set_in_table(
    table: &mut dyn TableLike,
    segs: &[&str],
    value: Value,
    walked: &str,
) -> Result<(), String> {
    let (seg, rest) = segs.split_first().expect("paths are non-empty");
    if rest.is_empty() {
        table.insert(seg, Item::Value(value));
        return Ok(());
    }
    // A missing section is created: the model then accepts it (an optional section)
    // or rejects it as an unknown field, as it would in a file.
    let child = table
        .entry(seg)
        .or_insert(Item::Value(Value::InlineTable(InlineTable::new())));
    set_in_item(child, rest, value, &joined(walked, seg))
}

fn set_in_item(item: &mut Item, segs: &[&str], value: Value, walked: &str) -> Result<(), String> {
    let kind = kind_of(item);
    match item {
        Item::ArrayOfTables(tables) => {
            let (seg, rest) = segs.split_first().expect("paths are non-empty");
            let len = tables.len();
            let i = index(seg, len, walked)?;
            let t = tables.get_mut(i).expect("index checked");
            if rest.is_empty() {
                return Err(format!(
                    "`{}` is a table in an array of tables; set one of its fields",
                    joined(walked, seg)
                ));
            }
            set_in_table(t, rest, value, &joined(walked, seg))
        }
        Item::Value(v) => set_in_value(v, segs, value, walked),
        _ => match item.as_table_like_mut() {
            Some(t) => set_in_table(t, segs, value, walked),
            None => Err(format!("`{walked}` is {kind}, not a table")),
        },
    }
}

fn set_in_value(v: &mut Value, segs: &[&str], value: Value, walked: &str) -> Result<(), String> {
    match v {
        Value::InlineTable(t) => set_in_table(t, segs, value, walked),
        Value::Array(a) => {
            let (seg, rest) = segs.split_first().expect("paths are non-empty");
            let i = index(seg, a.len(), walked)?;
            let element = a.get_mut(i).expect("index checked");
            if rest.is_empty() {
                *element = value;
                Ok(())
            } else {
                set_in_value(element, rest, value, &joined(walked, seg))
            }
        }
        other => Err(format!(
            "`{walked}` is {}, not a table",
            kind_of(&Item::Value(other.clone()))
        )),
    }
}

fn index(seg: &str, len: usize, walked: &str) -> Result<usize, String> {
    match seg.parse::<usize>() {
        Ok(i) if i < len => Ok(i),
        Ok(i) => Err(format!(
            "`{walked}` has {len} elements; index {i} is out of range"
        )),
        Err(_) => Err(format!(
            "`{walked}` is an array: the next part must be an index (0..{len}), not `{seg}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{find_profile, open_device};

    fn ov(text: &str) -> ProfileOverride {
        ProfileOverride::parse(text).unwrap()
    }

    #[test]
    fn values_parse_as_toml_or_fall_back_to_strings() {
        assert_eq!(ov("flash.channels=16").value, toml::Value::Integer(16));
        assert_eq!(ov("a.b = 7.5").value, toml::Value::Float(7.5));
        assert_eq!(ov("a=true").value, toml::Value::Boolean(true));
        assert_eq!(
            ov("flash.cell_type=qlc").value,
            toml::Value::String("qlc".into())
        );
        assert_eq!(
            ov("flash.cell_type=\"qlc\"").value,
            toml::Value::String("qlc".into())
        );
        assert_eq!(ov("flash.channels=16").to_string(), "flash.channels=16");
    }

    #[test]
    fn a_list_parses_each_item_and_names_the_bad_one() {
        let list =
            ProfileOverride::parse_list("cache.idle_flush_ms=5, ,mechanics.rpm=5400,").unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[1].to_string(), "mechanics.rpm=5400");
        let e = ProfileOverride::parse_list("cache.idle_flush_ms=5,rpm")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`rpm`") && e.contains("KEY=VALUE"), "{e}");
    }

    #[test]
    fn malformed_overrides_are_named() {
        for (text, needle) in [
            ("flash.channels", "KEY=VALUE"),
            ("=3", "key is empty"),
            ("flash..channels=3", "empty part"),
            ("flash.channels=", "value is empty"),
        ] {
            let e = ProfileOverride::parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
            assert!(e.starts_with("profile override `"), "{e}");
        }
    }

    #[test]
    fn an_override_changes_the_built_device() {
        let base = open_device("ssd-conventional").unwrap();
        let d = open_device_with(
            "ssd-conventional",
            &[
                ov("capacity.capacity_mib=2048"),
                ov("flash.channels=4"),
                ov("flash.pages_per_block=24"),
            ],
        )
        .unwrap();
        assert_eq!(
            d.info().capacity_blocks * d.info().block_bytes as u64,
            2048 << 20
        );
        assert_ne!(d.info().capacity_blocks, base.info().capacity_blocks);
    }

    #[test]
    fn override_errors_are_the_errors_of_the_same_value_in_a_file() {
        let src = find_profile("zn540").unwrap();
        let in_file = |text: String| {
            models::build(&ProfileSource {
                source_name: "zn540".into(),
                text,
            })
            .err()
            .unwrap()
            .to_string()
        };
        let by_override = |o: &str| {
            open_device_with("zn540", &[ov(o)])
                .err()
                .unwrap()
                .to_string()
        };
        // Out of range: the same message, the name says which override.
        let file = in_file(src.text.replace("channels = 8 ", "channels = 0 "));
        let over = by_override("flash.channels=0");
        assert_eq!(
            over.replace("zn540 with flash.channels=0", "zn540"),
            file,
            "{over}"
        );
        // Unknown field, at the same line as in the file.
        let file = in_file(src.text.replace("read_us =", "read_usec ="));
        let over = by_override("flash.read_usec=45.0");
        assert!(over.contains("unknown field `read_usec`"), "{over}");
        assert_eq!(
            file.split("unknown field").nth(1).map(|s| &s[..30]),
            over.split("unknown field").nth(1).map(|s| &s[..30])
        );
        // Wrong type.
        let over = by_override("flash.channels=eight");
        assert!(over.contains("invalid type: string \"eight\""), "{over}");
    }

    #[test]
    fn paths_through_values_and_arrays_are_checked() {
        let e = open_device_with("zn540", &[ov("model.x=1")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("`model` is a string, not a table"), "{e}");
        let e = open_device_with("zn540", &[ov("namespace.lba_formats.9.data_bytes=512")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("index 9 is out of range"), "{e}");
        // An element of an inline array of tables can be set by index.
        let t =
            profile_table("zn540", &[ov("namespace.lba_formats.4.metadata_bytes=128")]).unwrap();
        assert_eq!(
            t["namespace"]["lba_formats"][4]["metadata_bytes"].as_integer(),
            Some(128)
        );
    }

    #[test]
    fn a_missing_section_is_created_and_then_judged_by_the_model() {
        let e = open_device_with("zn540", &[ov("flsh.channels=4")])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("unknown field `flsh`"), "{e}");
    }
}
