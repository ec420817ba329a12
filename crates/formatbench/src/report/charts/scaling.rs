//! Scaling lines, only for runs that sweep a dataset kind over row counts or over columns at
//! one row count (`report/sweep.rs`): per operation, each competitor's median against the
//! varying count, both on log scales.

use super::{Place, Placed};
use crate::document::{Chart, LineChart, Series, Unit};
use crate::report::pick::{self, Id};
use crate::report::sweep::{sweeps, Sweep};
use crate::report::{group_title, ran};
use crate::stats::{OpGroup, RunSummary};

pub(super) fn charts(summary: &RunSummary) -> Vec<Placed> {
    let mut charts = Vec::new();
    for sweep in sweeps(summary) {
        // Each competitor keeps its colour across the sweep's charts.
        let mut ids: Vec<Id> = Vec::new();
        for g in summary
            .groups
            .iter()
            .filter(|g| sweep.datasets.iter().any(|d| d.0 == g.dataset))
        {
            for c in g.cells.iter().filter(|c| ran(c)) {
                if !ids.contains(&pick::id(&c.cell)) {
                    ids.push(pick::id(&c.cell));
                }
            }
        }
        for key in sweep.keys(summary) {
            charts.extend(chart(&sweep, &ids, &sweep.groups(summary, &key)));
        }
    }
    charts
}

/// `all` are the sweep's competitors, whose order fixes their colours.
fn chart(sweep: &Sweep, all: &[Id], groups: &[(u64, &OpGroup)]) -> Option<Placed> {
    let labels = pick::labels(all);
    let ran_here = |id: &Id| {
        groups
            .iter()
            .any(|(_, g)| g.cells.iter().any(|c| ran(c) && pick::id(&c.cell) == *id))
    };
    // Per competitor, its median at each row count (None where it did not run).
    let series = (0..all.len())
        .filter(|i| ran_here(&all[*i]))
        .map(|i| Series {
            label: labels.get(i).cloned().unwrap_or_default(),
            colour: i,
            spans: Vec::new(),
            values: groups
                .iter()
                .map(|(_, g)| {
                    g.cells
                        .iter()
                        .filter(|c| ran(c) && pick::id(&c.cell) == all[i])
                        .find_map(|c| c.wall.map(|w| w.median).filter(|m| *m > 0.0))
                })
                .collect(),
        })
        .collect();
    let dataset = &groups.first()?.1.dataset;
    let whole = group_title(groups.first()?.1);
    let tail = whole
        .strip_prefix(&format!("{dataset} · "))
        .unwrap_or(&whole);
    let chart = LineChart {
        title: format!(
            "{} · {tail}: median time against {}",
            sweep.name, sweep.axis
        ),
        xs: groups.iter().map(|(n, _)| (*n).max(1) as f64).collect(),
        x_log: true,
        x_labels: Vec::new(),
        x_unit: Unit::Count,
        x_noun: sweep.axis.to_string(),
        x_axis: format!("{} (log scale)", sweep.axis),
        y_axis: "median (log scale)".to_string(),
        y_unit: Unit::Seconds,
        first_header: "Competitor".to_string(),
        series,
    };
    chart
        .has_a_line()
        .then(|| Placed::with_table(Place::Scaling, Chart::Lines(chart)))
}
