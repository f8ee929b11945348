//! Sizes and durations as fio users write them: shared with the Python package and
//! sweeps, so they live in the experiments layer.

pub use zonelab_experiments::runs::units::parse_size;
