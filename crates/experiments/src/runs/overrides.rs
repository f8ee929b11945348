//! Profile overrides as requests carry them: a map of dotted profile fields to
//! JSON values (`{"flash.channels": 16}`), turned into the devices layer's
//! [`ProfileOverride`]s.

use super::RunError;
use std::collections::BTreeMap;
use zonelab_devices::ProfileOverride;

/// Overrides by dotted field name.
pub type OverrideMap = BTreeMap<String, serde_json::Value>;

/// The map's overrides, in key order.
pub fn to_overrides(map: &OverrideMap) -> Result<Vec<ProfileOverride>, RunError> {
    map.iter()
        .map(|(path, v)| {
            let value = to_toml(v).map_err(|reason| {
                RunError::Profile(zonelab_devices::ProfileError::BadOverride {
                    text: format!("{path}={v}"),
                    reason,
                })
            })?;
            Ok(ProfileOverride::new(path, value)?)
        })
        .collect()
}

/// Splits overrides of several devices by their prefix (`ssd.flash.channels` →
/// the `ssd` device's `flash.channels`).
pub fn split_by_device(
    map: &OverrideMap,
    devices: &[&str],
) -> Result<BTreeMap<String, OverrideMap>, RunError> {
    let mut out: BTreeMap<String, OverrideMap> = devices
        .iter()
        .map(|d| (d.to_string(), OverrideMap::new()))
        .collect();
    for (key, v) in map {
        let (device, field) = key
            .split_once('.')
            .filter(|(d, _)| devices.contains(d))
            .ok_or_else(|| {
                RunError::option(
                    "overrides",
                    format!(
                        "`{key}` does not say which device it changes: start it with {}",
                        devices
                            .iter()
                            .map(|d| format!("`{d}.`"))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                )
            })?;
        out.get_mut(device)
            .expect("known device")
            .insert(field.to_string(), v.clone());
    }
    Ok(out)
}

fn to_toml(v: &serde_json::Value) -> Result<toml::Value, String> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => return Err("null is not a profile value".into()),
        J::Bool(b) => toml::Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().ok_or("number out of range")?),
        },
        J::String(s) => toml::Value::String(s.clone()),
        J::Array(a) => toml::Value::Array(a.iter().map(to_toml).collect::<Result<_, _>>()?),
        J::Object(o) => toml::Value::Table(
            o.iter()
                .map(|(k, v)| Ok((k.clone(), to_toml(v)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// Overrides as the CLI's `--set KEY=VALUE` gives them (later ones win).
pub fn parse_set(texts: &[String]) -> Result<OverrideMap, RunError> {
    let mut map = OverrideMap::new();
    for t in texts {
        let o = ProfileOverride::parse(t)?;
        let v = serde_json::to_value(&o.value).map_err(|e| {
            RunError::Profile(zonelab_devices::ProfileError::BadOverride {
                text: t.clone(),
                reason: e.to_string(),
            })
        })?;
        map.insert(o.path, v);
    }
    Ok(map)
}

/// The overrides as a JSON object for a run's echoed configuration.
pub fn echo(map: &OverrideMap) -> serde_json::Value {
    serde_json::to_value(map).expect("a map of JSON values serialises")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_values_become_toml_values() {
        let m: OverrideMap = serde_json::from_value(
            json!({"flash.channels": 16, "flash.read_us": 50.5, "flash.cell_type": "qlc"}),
        )
        .unwrap();
        let o = to_overrides(&m).unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].to_string(), "flash.cell_type=qlc");
        assert_eq!(o[1].value, toml::Value::Integer(16));
        assert_eq!(o[2].value, toml::Value::Float(50.5));
        let m: OverrideMap = serde_json::from_value(json!({"flash.channels": null})).unwrap();
        assert!(to_overrides(&m)
            .unwrap_err()
            .to_string()
            .contains("null is not a profile value"));
    }

    #[test]
    fn set_flags_parse_into_the_same_map_as_json() {
        let m = parse_set(&["flash.channels=16".into(), "flash.cell_type=qlc".into()]).unwrap();
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            json!({"flash.channels": 16, "flash.cell_type": "qlc"})
        );
        assert!(parse_set(&["flash.channels".into()]).is_err());
    }

    #[test]
    fn device_prefixes_split_and_are_required() {
        let m: OverrideMap =
            serde_json::from_value(json!({"ssd.flash.channels": 4, "hdd.mechanics.rpm": 5400}))
                .unwrap();
        let s = split_by_device(&m, &["ssd", "hdd"]).unwrap();
        assert_eq!(s["ssd"]["flash.channels"], json!(4));
        assert_eq!(s["hdd"]["mechanics.rpm"], json!(5400));
        let m: OverrideMap = serde_json::from_value(json!({"flash.channels": 4})).unwrap();
        let e = split_by_device(&m, &["ssd", "hdd"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("start it with `ssd.` or `hdd.`"), "{e}");
    }
}
