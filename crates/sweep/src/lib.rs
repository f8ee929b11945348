//! ZoneLab sweeps: one configuration file (or Python dict) describes many runs —
//! a grid, random or Latin-hypercube design over profile fields, job options,
//! schemes, scales and seeds — and a sweep runs them, caches each result under a
//! hash of what determines it, and writes one row per run (configuration and
//! headline metrics) as Parquet and CSV with an HTML report of every metric
//! against every swept parameter.
//!
//! - [`spec`]: the sweep file; [`design`]: its points; [`plan`]: runs and keys;
//! - [`cache`]: finished runs on disk; [`worker`]: runs one request per line;
//! - [`executor`]: the local process pool (Ray lives in the Python package);
//! - [`sweep`]: a sweep in its directory; [`table`], [`parquet_out`], [`report`]:
//!   its outputs.

pub mod cache;
pub mod design;
pub mod executor;
pub mod parquet_out;
pub mod plan;
pub mod report;
pub mod spec;
pub mod sweep;
pub mod table;
pub mod worker;

pub use executor::{default_workers, ProcessPool};
pub use spec::SweepSpec;
pub use sweep::{default_out, Outputs, RunStats, Sweep};
