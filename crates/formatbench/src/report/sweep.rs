//! Sweeps: datasets of one kind that differ in one dimension, rows at a fixed column count
//! (`mixed-1000x61`, `mixed-100000x61`, …) or columns (features) at a fixed row count
//! (`features-2000x260`, `features-2000x8196`, …). The scaling charts and the growth tables
//! read a run's sweeps from here.

use super::pick;
use crate::stats::{OpGroup, RunSummary};

/// One sweep, its datasets smallest first with the varying value.
pub(super) struct Sweep {
    /// `mixed-*x61` or `features-2000x*`.
    pub name: String,
    /// "rows" or "columns": what the size counts.
    pub axis: &'static str,
    pub datasets: Vec<(String, u64)>,
}

/// What a sweep's groups share besides the dataset: operation, cache state, thread cap, place.
pub(super) type GroupKey<'a> = (&'a str, &'a str, u32, String);

fn key(group: &OpGroup) -> GroupKey<'_> {
    (
        group.op.as_str(),
        group.cache.as_str(),
        group.threads,
        group.place(),
    )
}

/// Every sweep of two or more sizes in the run.
pub(super) fn sweeps(summary: &RunSummary) -> Vec<Sweep> {
    let mut sweeps: Vec<Sweep> = Vec::new();
    for dataset in pick::dataset_names(summary) {
        let Some((kind, _)) = pick::parse_name(&dataset) else {
            continue;
        };
        let Some((rows, cols)) = pick::shape(summary, &dataset) else {
            continue;
        };
        for (name, axis, value) in [
            (format!("{kind}-*x{cols}"), "rows", rows),
            (format!("{kind}-{rows}x*"), "columns", cols),
        ] {
            match sweeps.iter_mut().find(|s| s.name == name) {
                Some(s) => s.datasets.push((dataset.clone(), value)),
                None => sweeps.push(Sweep {
                    name,
                    axis,
                    datasets: vec![(dataset.clone(), value)],
                }),
            }
        }
    }
    for s in &mut sweeps {
        s.datasets
            .sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        s.datasets.dedup_by_key(|d| d.1);
    }
    sweeps.retain(|s| s.datasets.len() > 1);
    sweeps
}

impl Sweep {
    /// The (operation, cache, threads, place) keys of the groups on the sweep's datasets.
    pub fn keys<'a>(&self, summary: &'a RunSummary) -> Vec<GroupKey<'a>> {
        let mut keys = Vec::new();
        for g in &summary.groups {
            let key = key(g);
            if self.datasets.iter().any(|d| d.0 == g.dataset) && !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys
    }

    /// The groups of one key, each with its dataset's size, smallest first.
    pub fn groups<'a>(
        &self,
        summary: &'a RunSummary,
        wanted: &GroupKey,
    ) -> Vec<(u64, &'a OpGroup)> {
        self.datasets
            .iter()
            .filter_map(|(d, size)| {
                let g = summary
                    .groups
                    .iter()
                    .find(|g| g.dataset == *d && key(g) == *wanted)?;
                Some((*size, g))
            })
            .collect()
    }
}
