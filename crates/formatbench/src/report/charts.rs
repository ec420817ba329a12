//! The report's charts as data, each with where it belongs: per-group bars, heat maps, size
//! against time per dataset, scaling lines and partition-size lines. The document model draws
//! them (`document/svg`); the Markdown page links each as `chart-<n>.svg`, numbered in the
//! order the report shows them.

mod bars;
mod heatmap;
mod partitions;
mod scaling;
mod scatter;

use crate::document::{Chart, Table};
use crate::stats::RunSummary;

/// Where a chart belongs in a report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    /// Above the results table of `summary.groups[i]`.
    Group(usize),
    /// Above the i-th table of the summary across operations.
    Geo(usize),
    /// In the trade-offs section of one dataset.
    Dataset(String),
    /// In the scaling section; the chart carries its own table.
    Scaling,
    /// In the partition-size section; the chart carries its own table.
    Partitions,
}

/// A chart, where it goes, and the table with its numbers where no other table holds them.
pub(super) struct Placed {
    pub place: Place,
    pub chart: Chart,
    pub table: Option<Table>,
}

impl Placed {
    fn new(place: Place, chart: Chart) -> Self {
        Placed {
            place,
            chart,
            table: None,
        }
    }

    /// A line chart with the table of its numbers.
    fn with_table(place: Place, chart: Chart) -> Self {
        let table = match &chart {
            Chart::Lines(lines) => Some(lines.table()),
            _ => None,
        };
        Placed {
            place,
            chart,
            table,
        }
    }
}

/// Every chart of a report, in the order the reports show them: per-group bars, heat maps,
/// size against time per dataset, scaling lines, partition-size lines.
pub(super) fn all(summary: &RunSummary) -> Vec<Placed> {
    let mut charts = bars::charts(summary);
    charts.extend(heatmap::charts(summary));
    charts.extend(scatter::charts(summary));
    charts.extend(scaling::charts(summary));
    charts.extend(partitions::charts(summary));
    charts
}

/// `chart-<n>.svg` → n: the files an earlier report wrote.
pub(super) fn file_number(name: &str) -> Option<usize> {
    let digits = name.strip_prefix("chart-")?.strip_suffix(".svg")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests;
