//! Named counters, reported in a stable (sorted) order.

use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
#[serde(transparent)]
pub struct Counters {
    values: BTreeMap<String, u64>,
}

impl Counters {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, name: &str, by: u64) {
        if let Some(v) = self.values.get_mut(name) {
            *v += by;
        } else {
            self.values.insert(name.to_string(), by);
        }
    }

    pub fn set(&mut self, name: &str, value: u64) {
        self.values.insert(name.to_string(), value);
    }

    pub fn get(&self, name: &str) -> u64 {
        self.values.get(name).copied().unwrap_or(0)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.values.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_set_get() {
        let mut c = Counters::new();
        c.add("b", 2);
        c.add("a", 1);
        c.add("b", 3);
        c.set("z", 9);
        assert_eq!(c.get("b"), 5);
        assert_eq!(c.get("missing"), 0);
        let names: Vec<_> = c.iter().map(|(k, _)| k).collect();
        assert_eq!(names, vec!["a", "b", "z"]);
    }
}
