//! `zonelab replay`: a block trace on a device (written once the trace readers land).

use crate::args::ReplayArgs;

pub fn run(_a: ReplayArgs) -> Result<(), String> {
    Err("replay is not available yet".to_string())
}
