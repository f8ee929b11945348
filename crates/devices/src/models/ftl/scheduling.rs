//! `[scheduling]` profile section of `ftl-ssd`: read-first die scheduling and
//! program/erase suspend-resume (issue 22). The mechanism is
//! `zonelab_media::die_queue`; this file only reads and checks the profile.
//!
//! Absent section: every die serves its work in booking order (a host read waits
//! behind every program and erase booked before it). Host reads use the
//! scheduler; GC copies and SLC folds are booked first-come first-served (they are
//! background work a controller does not hurry).

use crate::profile::{ProfileError, Validator};
use serde::Deserialize;
use zonelab_engine::us_to_ns;
use zonelab_media::die_queue::DieScheduling;

/// `[scheduling]` profile section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulingSection {
    /// Host reads go before programs and erases that have not started on their die.
    pub read_first: bool,
    /// Program suspend latency (time until the die can read); absent: programs
    /// are not suspended.
    #[serde(default)]
    pub program_suspend_us: Option<f64>,
    /// Erase suspend latency; absent: erases are not suspended.
    #[serde(default)]
    pub erase_suspend_us: Option<f64>,
    /// Extra die time when a suspended operation resumes.
    #[serde(default)]
    pub resume_us: f64,
    /// Suspensions one program or erase may take before reads wait for its end.
    #[serde(default = "default_max_suspends")]
    pub max_suspends_per_op: u32,
}

fn default_max_suspends() -> u32 {
    1
}

impl SchedulingSection {
    /// Checks the section; errors name `scheduling.<field>`.
    pub(crate) fn validate(&self, v: &Validator<'_>) -> Result<DieScheduling, ProfileError> {
        let mut fields = vec![("scheduling.resume_us", self.resume_us)];
        if let Some(us) = self.program_suspend_us {
            fields.push(("scheduling.program_suspend_us", us));
        }
        if let Some(us) = self.erase_suspend_us {
            fields.push(("scheduling.erase_suspend_us", us));
        }
        for (field, value) in fields {
            v.check(field, value, value.is_finite(), "a finite number")?;
            v.range(field, value, 0.0, 100_000.0)?;
        }
        let suspends = self.program_suspend_us.is_some() || self.erase_suspend_us.is_some();
        v.check(
            "scheduling.read_first",
            self.read_first,
            self.read_first || !suspends,
            "true when program_suspend_us or erase_suspend_us is set (suspension serves reads first)",
        )?;
        v.range(
            "scheduling.max_suspends_per_op",
            self.max_suspends_per_op,
            1,
            1000,
        )?;
        Ok(DieScheduling {
            read_first: self.read_first,
            program_suspend_ns: self.program_suspend_us.map(us_to_ns),
            erase_suspend_ns: self.erase_suspend_us.map(us_to_ns),
            resume_ns: us_to_ns(self.resume_us),
            max_suspends_per_op: self.max_suspends_per_op,
        })
    }
}
