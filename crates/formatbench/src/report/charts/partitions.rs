//! The partition-size trade-off (`report/partitions.rs`): per store, each operation's time
//! relative to its own best partition size, against the partition size, both on log scales;
//! where a selective read's line crosses a full read's or a write's is the size that costs
//! both the same share over their best.

use super::lines::{Lines, Series};
use super::{Chart, Place};
use crate::report::format::{bytes, ratio2};
use crate::report::partitions::studies;
use crate::stats::RunSummary;

pub(super) fn charts(summary: &RunSummary) -> Vec<Chart> {
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
                    values: line.relative(),
                })
                .collect();
            Lines {
                place: Place::Partitions,
                title: format!(
                    "{} · {}: each operation's time ÷ its best, against the partition size",
                    study.dataset, study.backend
                ),
                xs: study.sizes.iter().map(|(b, _)| *b as f64).collect(),
                x_tick: &|b| bytes(b as u64),
                x_header: &|b| format!("{} partitions", bytes(b as u64)),
                x_axis: "partition size (log scale)".into(),
                y_axis: "time ÷ the operation's best (log scale)",
                y_tick: &ratio2,
                first_header: "Operation",
                series,
            }
            .draw()
        })
        .collect()
}
