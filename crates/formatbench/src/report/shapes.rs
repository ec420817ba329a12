//! Random against realistic data (`--shape random,realistic`): for a table generated in both
//! shapes, how each competitor's file size and times move from the studies' uniform random
//! values to values shaped like real data, and each size beside Arrow IPC's, the format that
//! stores values as they are in memory.

use super::layouts::Table;
use super::{format, pick};
use crate::stats::RunSummary;

const LEGEND: &str = "the same table generated twice, with the studies' uniform random values and with values shaped like real data (nulls, skewed and low-cardinality values, sorted and clustered columns, rounded numbers); per competitor its file size under each, realistic ÷ random for size and for the median write and read times, and its size ÷ ipc/default's under each shape (how far the format's encodings beat storing the values as they are)";

/// The realistic twin of each random dataset the run measured in both shapes.
fn pairs(summary: &RunSummary) -> Vec<(String, String)> {
    let names = pick::dataset_names(summary);
    names
        .iter()
        .filter_map(|name| {
            let random = name.strip_prefix("realistic-")?;
            names
                .iter()
                .any(|n| n == random)
                .then(|| (random.to_string(), name.clone()))
        })
        .collect()
}

/// (backend, profile, layout) of every competitor that ran on `dataset`.
fn competitors(summary: &RunSummary, dataset: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for cell in summary
        .groups
        .iter()
        .filter(|g| g.dataset == dataset)
        .flat_map(|g| &g.cells)
    {
        let key = (
            cell.cell.backend.clone(),
            cell.cell.shown_profile(),
            cell.cell.layout.clone(),
        );
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out.sort();
    out
}

fn size(summary: &RunSummary, dataset: &str, key: &(String, String, String)) -> Option<f64> {
    summary
        .groups
        .iter()
        .filter(|g| g.dataset == dataset)
        .flat_map(|g| &g.cells)
        .find(|c| {
            (&c.cell.backend, &c.cell.shown_profile(), &c.cell.layout) == (&key.0, &key.1, &key.2)
        })
        .and_then(|c| pick::size_of(summary, &c.cell))
        .map(|b| b as f64)
}

fn median(
    summary: &RunSummary,
    dataset: &str,
    op: &str,
    key: &(String, String, String),
) -> Option<f64> {
    pick::group(summary, dataset, op)?
        .cells
        .iter()
        .filter(|c| super::ran(c))
        .find(|c| {
            (&c.cell.backend, &c.cell.shown_profile(), &c.cell.layout) == (&key.0, &key.1, &key.2)
        })
        .and_then(|c| c.wall.map(|w| w.median))
        .filter(|m| *m > 0.0)
}

fn ratio_text(value: Option<f64>) -> String {
    value.map_or_else(|| format::DASH.to_string(), format::ratio2)
}

pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let mut tables = Vec::new();
    for (random, realistic) in pairs(summary) {
        let ipc = ("ipc".to_string(), "default".to_string(), "wide".to_string());
        let ipc_random = size(summary, &random, &ipc);
        let ipc_real = size(summary, &realistic, &ipc);
        let mut rows = Vec::new();
        for key in competitors(summary, &random) {
            let (a, b) = (
                size(summary, &random, &key),
                size(summary, &realistic, &key),
            );
            let moved = |op: &str| {
                median(summary, &realistic, op, &key)
                    .zip(median(summary, &random, op, &key))
                    .map(|(r, q)| r / q)
            };
            let over = |mine: Option<f64>, base: Option<f64>| mine.zip(base).map(|(m, b)| m / b);
            rows.push(vec![
                format!("{}/{} · {}", key.0, key.1, key.2),
                a.map_or_else(|| format::DASH.to_string(), |b| format::bytes(b as u64)),
                b.map_or_else(|| format::DASH.to_string(), |b| format::bytes(b as u64)),
                ratio_text(over(b, a)),
                ratio_text(moved("write")),
                ratio_text(moved("read")),
                ratio_text(over(a, ipc_random)),
                ratio_text(over(b, ipc_real)),
            ]);
        }
        if rows.is_empty() {
            continue;
        }
        tables.push(Table {
            title: format!(
                "{random} → {realistic}: how each format moves from random to realistic values"
            ),
            legend: LEGEND,
            headers: [
                "competitor",
                "size, random",
                "size, realistic",
                "size ×",
                "write ×",
                "read ×",
                "÷ ipc, random",
                "÷ ipc, realistic",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            text_columns: 1,
            rows,
        });
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::tables;
    use crate::report::fixture::{group_of, Competitor};
    use crate::stats::RunSummary;

    #[test]
    fn each_format_moves_from_random_to_realistic() {
        // Parquet shrinks to a quarter on realistic values; IPC stores them as they are.
        let random: [Competitor; 2] = [
            ("ipc", "default", 100.0, 0.1, 0.01, 1.0),
            ("parquet", "default", 80.0, 0.4, 0.04, 1.0),
        ];
        let realistic: [Competitor; 2] = [
            ("ipc", "default", 100.0, 0.1, 0.01, 1.0),
            ("parquet", "default", 20.0, 0.2, 0.02, 1.0),
        ];
        let mut groups = Vec::new();
        for (dataset, competitors) in [
            ("mixed-1000x7", &random),
            ("realistic-mixed-1000x7", &realistic),
        ] {
            for (op, cache) in [("write", "n/a"), ("read", "warm")] {
                let mut g = group_of(competitors, dataset, op, cache, 1.0);
                for c in &mut g.cells {
                    c.cell.layout = "wide".into();
                }
                groups.push(g);
            }
        }
        let summary = RunSummary {
            groups,
            ..RunSummary::default()
        };
        let tables = tables(&summary);
        assert_eq!(tables.len(), 1);
        assert!(tables[0]
            .title
            .starts_with("mixed-1000x7 → realistic-mixed-1000x7"));
        let parquet = tables[0]
            .rows
            .iter()
            .find(|r| r[0] == "parquet/default · wide")
            .unwrap();
        assert_eq!(
            parquet,
            &[
                "parquet/default · wide",
                "80.0 MiB",
                "20.0 MiB",
                "0.25×",
                "0.50×",
                "0.50×",
                "0.80×",
                "0.20×"
            ]
        );
    }
}
