//! One bar chart per operation group: each competitor's median wall time with its whisker and
//! samples, fastest first, and its ratio to the fastest.

use super::{Place, Placed};
use crate::document::{Bar, BarChart, Chart};
use crate::report::group_title;
use crate::report::rows::rows;
use crate::stats::{OpGroup, RunSummary};

pub(super) fn charts(summary: &RunSummary) -> Vec<Placed> {
    summary
        .groups
        .iter()
        .enumerate()
        .filter_map(|(i, g)| chart(summary, i, g))
        .collect()
}

/// The cells that ran, fastest first by median (ties by label).
fn bars(summary: &RunSummary, group: &OpGroup) -> Vec<Bar> {
    let rows = rows(group, &summary.artifacts);
    let mut bars: Vec<Bar> = group
        .cells
        .iter()
        .zip(&rows)
        .filter(|(c, _)| crate::report::ran(c))
        .filter_map(|(c, r)| {
            let wall = c.wall?;
            Some(Bar {
                label: format!("{}/{}", r.backend, r.profile),
                median: wall.median,
                min: wall.min,
                max: wall.max,
                ratio: c.ratio_to_best,
                samples: c.rounds.values().copied().collect(),
                reference: crate::report::is_reference(c),
            })
        })
        .collect();
    bars.sort_by(|a, b| a.median.total_cmp(&b.median).then(a.label.cmp(&b.label)));
    bars
}

fn chart(summary: &RunSummary, index: usize, group: &OpGroup) -> Option<Placed> {
    let bars = bars(summary, group);
    bars.first()?;
    // A cold read makes one call: its first, whatever ranks elsewhere.
    let call = if group.cache == "cold" {
        "first"
    } else {
        summary.call.name()
    };
    let title = format!("{}: median wall time ({call} calls)", group_title(group));
    Some(Placed::new(
        Place::Group(index),
        Chart::Bars(BarChart { title, bars }),
    ))
}
