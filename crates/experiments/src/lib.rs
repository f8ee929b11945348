//! ZoneLab experiments (DESIGN.md layer 6): the bench and replay runners that
//! drive devices in virtual time, the results they produce, the `reproduce`
//! targets that compare runs with papers' claims, and the HTML report.

pub mod bench;
pub mod hhzs_eval;
pub mod hhzs_load_draws;
pub mod hhzs_setup;
pub mod parallel;
pub mod replay;
pub mod report;
pub mod reproduce;
pub mod reproduce_result;
pub mod run_result;
pub mod runs;
pub mod seed_draws;
