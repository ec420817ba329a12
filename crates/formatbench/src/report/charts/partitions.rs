//! The partition-size trade-off (`report/partitions.rs`): per store, each operation's time
//! relative to its own best partition size, against the partition size, both on log scales;
//! where a selective read's line crosses a full read's or a write's is the size that costs
//! both the same share over their best.

use super::{Place, Placed};
use crate::document::{Chart, LineChart, Series, Unit};
use crate::report::partitions::studies;
use crate::stats::RunSummary;

pub(super) fn charts(summary: &RunSummary) -> Vec<Placed> {
    studies(summary)
        .iter()
        .filter_map(|study| {
            let series = study
                .lines
                .iter()
                .enumerate()
                .map(|(colour, line)| Series {
                    label: line.label.clone(),
                    colour,
                    spans: Vec::new(),
                    values: line.relative(),
                })
                .collect();
            let chart = LineChart {
                title: format!(
                    "{} · {}: each operation's time ÷ its best, against the partition size",
                    study.dataset, study.backend
                ),
                xs: study.sizes.iter().map(|(b, _)| *b as f64).collect(),
                x_log: true,
                x_labels: Vec::new(),
                x_unit: Unit::Bytes,
                x_noun: "partitions".to_string(),
                x_axis: "partition size (log scale)".into(),
                y_axis: "time ÷ the operation's best (log scale)".to_string(),
                y_unit: Unit::Ratio,
                first_header: "Operation".to_string(),
                series,
            };
            chart
                .has_a_line()
                .then(|| Placed::with_table(Place::Partitions, Chart::Lines(chart)))
        })
        .collect()
}
