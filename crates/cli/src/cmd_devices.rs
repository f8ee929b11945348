//! `zonelab devices` and `zonelab zones`.

use crate::args::{DevicesArgs, ZonesArgs};
use crate::table;
use zonelab_devices::profile::describe_builtin;

pub fn run(a: DevicesArgs) -> Result<(), String> {
    let list = describe_builtin();
    if a.json {
        let v: Vec<_> = list
            .iter()
            .map(|(n, m, d)| serde_json::json!({"name": n, "model": m, "description": d}))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let rows: Vec<Vec<String>> = list.into_iter().map(|(n, m, d)| vec![n, m, d]).collect();
    print!(
        "{}",
        table::render(&["name", "model", "description"], &rows)
    );
    println!("\nA path to a profile .toml works wherever a name does (copy one from profiles/ to start).");
    Ok(())
}

pub fn run_zones(a: ZonesArgs) -> Result<(), String> {
    let overrides = zonelab_experiments::runs::overrides::parse_set(&a.set)
        .and_then(|m| zonelab_experiments::runs::overrides::to_overrides(&m))
        .map_err(|e| e.to_string())?;
    let dev =
        zonelab_devices::open_device_with(&a.device, &overrides).map_err(|e| e.to_string())?;
    let zones = dev
        .report_zones(a.first, a.count)
        .map_err(|e| e.to_string())?;
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&zones).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let rows: Vec<Vec<String>> = zones
        .iter()
        .map(|z| {
            let wp = if z.write_pointer == u64::MAX {
                "-".to_string()
            } else {
                z.write_pointer.to_string()
            };
            vec![
                z.index.to_string(),
                z.zone_type.to_string(),
                z.state.to_string(),
                z.start_lba.to_string(),
                z.size_blocks.to_string(),
                z.capacity_blocks.to_string(),
                wp,
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(
            &[
                "zone",
                "type",
                "state",
                "start_lba",
                "size_blocks",
                "capacity_blocks",
                "write_pointer"
            ],
            &rows
        )
    );
    Ok(())
}
