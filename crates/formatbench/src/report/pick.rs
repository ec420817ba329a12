//! Choices the charts and the Pareto frontier share: which datasets there are, which group
//! stands for an operation on a dataset, how big a competitor's file is, and what to call it.

use crate::results::CellKey;
use crate::stats::{CellSummary, OpGroup, RunSummary};

/// A competitor within a dataset: backend, profile, layout and target.
pub(super) type Id = (String, String, String, String);

pub(super) fn id(key: &CellKey) -> Id {
    // A sweep point is its own competitor: its point is named beside the profile.
    (
        key.backend.clone(),
        key.shown_profile(),
        key.layout.clone(),
        key.target.clone(),
    )
}

/// Every dataset, in the order the run recorded them, then any that only appear in groups.
pub(super) fn dataset_names(summary: &RunSummary) -> Vec<String> {
    let mut names: Vec<String> = summary.datasets.iter().map(|d| d.dataset.clone()).collect();
    for group in &summary.groups {
        if !names.contains(&group.dataset) {
            names.push(group.dataset.clone());
        }
    }
    names
}

/// The group that stands for `op` on `dataset`: the warm-cache one when there is one, else the
/// first in report order (writes have no cache state).
pub(super) fn group<'a>(summary: &'a RunSummary, dataset: &str, op: &str) -> Option<&'a OpGroup> {
    let mut matching = summary
        .groups
        .iter()
        .filter(|g| g.dataset == dataset && g.op == op);
    let first = matching.clone().next();
    matching.find(|g| g.cache == "warm").or(first)
}

/// The cells with a trusted timing: ok and with a median.
pub(super) fn ran(cells: &[CellSummary]) -> impl Iterator<Item = &CellSummary> {
    cells.iter().filter(|c| super::ran(c))
}

/// The on-disk size of a cell's artifact: what its samples recorded, else the artifact record.
pub(super) fn size_of(summary: &RunSummary, key: &CellKey) -> Option<u64> {
    let own = summary
        .groups
        .iter()
        .filter(|g| g.dataset == key.dataset)
        .flat_map(|g| &g.cells)
        .filter(|c| {
            (
                &c.cell.backend,
                &c.cell.profile,
                &c.cell.layout,
                c.cell.row_group_rows,
                c.cell.parquet_files,
                &c.cell.sort_by,
            ) == (
                &key.backend,
                &key.profile,
                &key.layout,
                key.row_group_rows,
                key.parquet_files,
                &key.sort_by,
            )
        })
        .find_map(|c| c.size_bytes);
    own.or_else(|| {
        summary
            .artifacts
            .iter()
            .find(|a| a.is_of(key))
            .and_then(|a| a.size_bytes)
    })
}

/// `backend/profile`, plus the layout or target where the set mixes several (else two
/// competitors could read the same).
pub(super) fn labels(ids: &[Id]) -> Vec<String> {
    let varies = |field: fn(&Id) -> &str| {
        ids.iter()
            .any(|i| field(i) != ids.first().map_or("", field))
    };
    let show_layout = varies(|i| &i.2);
    let show_target = varies(|i| &i.3);
    ids.iter()
        .map(|(backend, profile, layout, target)| {
            let mut label = format!("{backend}/{profile}");
            if show_layout {
                label = format!("{label} · {layout}");
            }
            if show_target {
                label = format!("{label} · {target}");
            }
            label
        })
        .collect()
}

/// Rows and columns of a dataset: its record, else what a `kind-ROWSxCOLS` name says.
pub(super) fn shape(summary: &RunSummary, dataset: &str) -> Option<(u64, u64)> {
    if let Some(d) = summary.datasets.iter().find(|d| d.dataset == dataset) {
        return Some((d.rows, d.columns));
    }
    let (_, dims) = parse_name(dataset)?;
    Some(dims)
}

/// `mixed-100000x61` → (`mixed`, (100000, 61)).
pub(super) fn parse_name(dataset: &str) -> Option<(&str, (u64, u64))> {
    let (kind, dims) = dataset.rsplit_once('-')?;
    let (rows, cols) = dims.split_once('x')?;
    Some((kind, (rows.parse().ok()?, cols.parse().ok()?)))
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{fixture, DATASET};
    use super::*;

    #[test]
    fn names_groups_and_sizes() {
        let summary = fixture();
        assert_eq!(dataset_names(&summary), [DATASET]);
        let read = group(&summary, DATASET, "read").map(|g| g.cache.as_str());
        assert_eq!(read, Some("warm"));
        assert!(group(&summary, DATASET, "take").is_none());
        let key = &summary.groups[1].cells[1].cell;
        assert_eq!(size_of(&summary, key), Some(12_345_678));
        assert_eq!(
            parse_name("mixed-100000x61"),
            Some(("mixed", (100_000, 61)))
        );
        assert_eq!(parse_name("wide-strings"), None);
        assert_eq!(shape(&summary, DATASET), Some((100_000, 61)));
    }

    #[test]
    fn labels_show_what_differs() {
        let a = (
            "ipc".into(),
            "plain".into(),
            "default".into(),
            "file".into(),
        );
        let mut b = a.clone();
        assert_eq!(labels(&[a.clone(), b.clone()]), ["ipc/plain", "ipc/plain"]);
        b.2 = "sorted".into();
        assert_eq!(
            labels(&[a, b]),
            ["ipc/plain · default", "ipc/plain · sorted"]
        );
    }
}
