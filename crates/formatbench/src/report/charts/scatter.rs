//! Size against time, one chart per dataset: each competitor's file size across, its median
//! read time up (warm cache when measured), and its median write time as a second series.

use super::{Place, Placed};
use crate::document::{Chart, ScatterChart, ScatterPoint};
use crate::report::pick::{self, Id};
use crate::report::{group_title, ran};
use crate::stats::{OpGroup, RunSummary};

/// One point: its series (`read` or `write`), competitor, size and median.
pub(super) struct Point {
    pub series: &'static str,
    pub id: Id,
    pub size: u64,
    pub median: f64,
}

pub(super) fn points(
    summary: &RunSummary,
    group: Option<&OpGroup>,
    series: &'static str,
) -> Vec<Point> {
    let Some(group) = group else {
        return Vec::new();
    };
    group
        .cells
        .iter()
        .filter(|c| ran(c))
        .filter_map(|c| {
            Some(Point {
                series,
                id: pick::id(&c.cell),
                size: pick::size_of(summary, &c.cell).filter(|s| *s > 0)?,
                median: c.wall?.median,
            })
        })
        .filter(|p| p.median > 0.0)
        .collect()
}

pub(super) fn charts(summary: &RunSummary) -> Vec<Placed> {
    pick::dataset_names(summary)
        .into_iter()
        .filter_map(|d| chart(summary, d))
        .collect()
}

fn chart(summary: &RunSummary, dataset: String) -> Option<Placed> {
    let read = pick::group(summary, &dataset, "read");
    let write = pick::group(summary, &dataset, "write");
    let mut all = points(summary, read, "read");
    all.extend(points(summary, write, "write"));
    if all.is_empty() {
        return None;
    }
    let mut ids: Vec<Id> = Vec::new();
    for p in &all {
        if !ids.contains(&p.id) {
            ids.push(p.id.clone());
        }
    }
    let labels = pick::labels(&ids);
    let label = |id: &Id| {
        ids.iter()
            .position(|i| i == id)
            .and_then(|i| labels.get(i))
            .cloned()
            .unwrap_or_default()
    };
    // The legend names the group each series comes from.
    let series = [("read", read), ("write", write)]
        .into_iter()
        .filter(|(series, _)| all.iter().any(|p| p.series == *series))
        .map(|(series, group)| {
            let text = group.map(group_title).unwrap_or_default();
            let text = text
                .strip_prefix(&format!("{dataset} · "))
                .unwrap_or(&text)
                .to_string();
            (series.to_string(), text)
        })
        .collect();
    let points = all
        .iter()
        .map(|p| ScatterPoint {
            series: p.series.to_string(),
            label: label(&p.id),
            bytes: p.size,
            seconds: p.median,
        })
        .collect();
    let title = format!("{dataset}: size on disk against median time");
    Some(Placed::new(
        Place::Dataset(dataset),
        Chart::Scatter(ScatterChart {
            title,
            series,
            points,
        }),
    ))
}
