//! A selective operation's bytes beside a full read's: each cell of `project`, `range`, `take`
//! and the other operations that read part of a table gets the bytes of its competitor's full
//! read in the same setting, so a report shows "3.1 MB of 13.7 MB" and a method that says it
//! prunes can be held to it.

use super::model::{CellSummary, FullRead, OpGroup};
use crate::results::CellKey;

/// The full read a selective operation is compared with: `read` for the table operations,
/// `matrix` for the matrix ones; `None` for operations that read everything or write.
pub fn full_op(op: &str) -> Option<&'static str> {
    match op {
        "project" | "range" | "take" | "first_row" | "range_before" | "range_after"
        | "range_between" | "labels" => Some("read"),
        "random_rows" | "feature_project" | "mixed" => Some("matrix"),
        _ => None,
    }
}

/// The same competitor in the same setting, another operation: the same files (sweep point)
/// and executors too.
fn same_competitor(a: &CellKey, b: &CellKey) -> bool {
    let setting = (
        (&a.dataset, &a.backend, &a.profile, &a.layout, &a.target),
        (a.threads, &a.cache, &a.storage, &a.network),
    ) == (
        (&b.dataset, &b.backend, &b.profile, &b.layout, &b.target),
        (b.threads, &b.cache, &b.storage, &b.network),
    );
    let point = (a.row_group_rows, a.parquet_files, &a.sort_by, a.executors)
        == (b.row_group_rows, b.parquet_files, &b.sort_by, b.executors);
    setting && point
}

fn bytes_of(cell: &CellSummary) -> FullRead {
    FullRead {
        read_bytes: cell.read_bytes,
        requested_bytes: cell.requested_bytes,
        object_bytes: cell.object_traffic.as_ref().map(|t| t.bytes_sent),
    }
}

/// Sets every selective cell's `full_read` from the groups' full reads.
pub(super) fn fill(groups: &mut [OpGroup]) {
    let full: Vec<(CellKey, FullRead)> = groups
        .iter()
        .filter(|g| g.op == "read" || g.op == "matrix")
        .flat_map(|g| g.cells.iter().map(|c| (c.cell.clone(), bytes_of(c))))
        .collect();
    for group in groups.iter_mut() {
        let Some(op) = full_op(&group.op) else {
            continue;
        };
        for cell in &mut group.cells {
            cell.full_read = full
                .iter()
                .find(|(key, _)| key.op == op && same_competitor(key, &cell.cell))
                .map(|(_, bytes)| *bytes);
        }
    }
}
