//! What a cold page cache costs: each competitor's cold median over its warm median, for runs
//! that measured both states.

use super::format;
use crate::document::Block;
use crate::stats::RunSummary;

pub(super) const HEADERS: [&str; 6] = [
    "operation",
    "backend",
    "profile",
    "warm",
    "cold",
    "cold ÷ warm [95 % CI]",
];
pub(super) const LEGEND: &str =
    "medians of the same competitor under each cache state; the interval resamples each side \
     independently, since the two states run in separate schedules";

/// One row per (dataset, op, competitor) measured cold and warm, in report order.
pub(super) fn rows(summary: &RunSummary) -> Vec<[String; 6]> {
    summary
        .cache_ratios
        .iter()
        .map(|c| {
            [
                format!("{} · {} · threads {}", c.dataset, c.op, c.threads),
                c.backend.clone(),
                c.profile.clone(),
                format::duration(c.warm_median),
                format::duration(c.cold_median),
                format::ratio_interval(c.ratio.estimate, c.ratio.lo, c.ratio.hi),
            ]
        })
        .collect()
}

/// The table for the terminal summary, under its heading; nothing without rows.
pub(super) fn summary_blocks(summary: &RunSummary) -> Vec<Block> {
    let rows = rows(summary);
    if rows.is_empty() {
        return Vec::new();
    }
    let table = super::layouts::Table {
        title: "Cold cache against warm".to_string(),
        legend: LEGEND,
        headers: HEADERS.iter().map(|h| h.to_string()).collect(),
        text_columns: 3,
        rows: rows.into_iter().map(Vec::from).collect(),
    };
    vec![
        Block::Subheading(table.title.clone()),
        Block::Table(table.document()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{CacheRatio, RatioInterval};

    #[test]
    fn rows_show_medians_and_the_interval() {
        let summary = RunSummary {
            cache_ratios: vec![CacheRatio {
                dataset: "mixed-10x7".into(),
                op: "read".into(),
                threads: 2,
                backend: "ipc".into(),
                profile: "default".into(),
                cold_median: 0.04,
                warm_median: 0.01,
                ratio: RatioInterval {
                    estimate: 4.0,
                    lo: 3.5,
                    hi: 4.5,
                    rounds: 4,
                },
            }],
            ..Default::default()
        };
        let text = crate::document::terminal_fitted(
            &crate::document::Document {
                blocks: summary_blocks(&summary),
                ..Default::default()
            },
            100,
        );
        assert!(text.starts_with("Cold cache against warm\n"));
        assert!(
            text.contains("10.0 ms") && text.contains("40.0 ms"),
            "{text}"
        );
        assert!(
            text.contains(&format::ratio_interval(4.0, 3.5, 4.5)),
            "{text}"
        );
        assert!(summary_blocks(&RunSummary::default()).is_empty());
    }
}
