//! Scaling lines, only for runs that sweep a dataset kind over row counts or over columns at
//! one row count (`report/sweep.rs`): per operation, each competitor's median against the
//! varying count, both on log scales.

use super::{label_width, Anchor, Chart, Place, Scale, Svg, Table};
use crate::report::format::{count, duration, DASH};
use crate::report::pick::{self, Id};
use crate::report::sweep::{sweeps, Sweep};
use crate::report::{group_title, ran};
use crate::stats::{OpGroup, RunSummary};

const LEFT: f64 = 72.0;
const PLOT_RIGHT: f64 = 470.0;
const TOP: f64 = 30.0;
const PLOT_BOTTOM: f64 = 290.0;
/// Series colours `s0` … `s5`, reused in turn.
const SERIES: usize = 6;

pub(super) fn charts(summary: &RunSummary) -> Vec<Chart> {
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
fn chart(sweep: &Sweep, all: &[Id], groups: &[(u64, &OpGroup)]) -> Option<Chart> {
    let labels = pick::labels(all);
    let ran_here = |id: &Id| {
        groups
            .iter()
            .any(|(_, g)| g.cells.iter().any(|c| ran(c) && pick::id(&c.cell) == *id))
    };
    let shown: Vec<usize> = (0..all.len()).filter(|i| ran_here(&all[*i])).collect();
    let ids: Vec<&Id> = shown.iter().map(|i| &all[*i]).collect();
    let labels: Vec<String> = shown
        .iter()
        .map(|i| labels.get(*i).cloned().unwrap_or_default())
        .collect();
    // Per competitor, its median at each row count (None where it did not run).
    let series: Vec<Vec<Option<f64>>> = ids
        .iter()
        .map(|id| {
            groups
                .iter()
                .map(|(_, g)| {
                    g.cells
                        .iter()
                        .filter(|c| ran(c) && pick::id(&c.cell) == **id)
                        .find_map(|c| c.wall.map(|w| w.median).filter(|m| *m > 0.0))
                })
                .collect()
        })
        .collect();
    if !series.iter().any(|s| s.iter().flatten().count() > 1) {
        return None;
    }
    let (first, last) = (groups.first()?.0, groups.last()?.0);
    let log = |lo: f64, hi: f64, (from, to): (f64, f64)| Scale {
        lo: lo / 1.5,
        hi: hi * 1.5,
        log: true,
        from,
        to,
    };
    let x = log(first.max(1) as f64, last.max(1) as f64, (LEFT, PLOT_RIGHT));
    let times = series.iter().flatten().flatten();
    let lo = times.clone().copied().fold(f64::INFINITY, f64::min);
    let hi = times.copied().fold(0.0, f64::max);
    let y = log(lo, hi, (PLOT_BOTTOM, TOP));
    let legend_x = PLOT_RIGHT + 24.0;
    let width = legend_x + label_width(labels.iter(), 60.0, 260.0) + 24.0;
    let height = (PLOT_BOTTOM + 44.0).max(TOP + 18.0 * ids.len() as f64 + 10.0);

    let mut svg = Svg::default();
    svg.line((LEFT, TOP), (LEFT, PLOT_BOTTOM), "axis");
    svg.line((LEFT, PLOT_BOTTOM), (PLOT_RIGHT, PLOT_BOTTOM), "axis");
    for (rows, _) in groups {
        let px = x.at(*rows as f64);
        svg.line((px, TOP), (px, PLOT_BOTTOM), "grid");
        svg.text(
            (px, PLOT_BOTTOM + 16.0),
            Anchor::Middle,
            "tick",
            &count(*rows),
        );
    }
    for tick in y.ticks(7) {
        let py = y.at(tick);
        svg.line((LEFT, py), (PLOT_RIGHT, py), "grid");
        svg.text((LEFT - 6.0, py + 4.0), Anchor::End, "tick", &duration(tick));
    }
    svg.text(
        ((LEFT + PLOT_RIGHT) / 2.0, PLOT_BOTTOM + 34.0),
        Anchor::Middle,
        "dim",
        &format!("{} (log scale)", sweep.axis),
    );
    svg.text(
        (4.0, TOP - 12.0),
        Anchor::Start,
        "dim",
        "median (log scale)",
    );
    let mut words = Vec::new();
    for (k, (values, label)) in series.iter().zip(&labels).enumerate() {
        let colour = shown.get(k).copied().unwrap_or(k);
        let class = format!("s{}", colour % SERIES);
        let ly = TOP + 18.0 * k as f64;
        svg.rect((legend_x, ly), (10.0, 10.0), &format!("swatch {class}"), "");
        svg.text((legend_x + 16.0, ly + 9.0), Anchor::Start, "", label);
        let points: Vec<(u64, f64)> = groups
            .iter()
            .zip(values)
            .filter_map(|((rows, _), v)| Some((*rows, (*v)?)))
            .collect();
        let at = |(rows, v): (u64, f64)| (x.at(rows as f64), y.at(v));
        for pair in points.windows(2) {
            if let [a, b] = pair {
                let tip = format!(
                    "{label}: {} {axis} to {} {axis}",
                    count(a.0),
                    count(b.0),
                    axis = sweep.axis
                );
                svg.segment(at(*a), at(*b), &format!("mark line {class}"), &tip);
            }
        }
        for p in &points {
            let tip = format!(
                "{label}: {} at {} {}",
                duration(p.1),
                count(p.0),
                sweep.axis
            );
            svg.circle(at(*p), 4.0, &format!("mark point {class}"), &tip);
        }
        let said: Vec<String> = points
            .iter()
            .map(|(rows, v)| format!("{} at {} {}", duration(*v), count(*rows), sweep.axis))
            .collect();
        words.push(format!("{label}: {}", said.join(", ")));
    }
    let dataset = &groups.first()?.1.dataset;
    let whole = group_title(groups.first()?.1);
    let tail = whole
        .strip_prefix(&format!("{dataset} · "))
        .unwrap_or(&whole);
    let title = format!(
        "{} · {tail}: median time against {}",
        sweep.name, sweep.axis
    );
    let mut headers = vec!["Competitor".to_string()];
    headers.extend(
        groups
            .iter()
            .map(|(rows, _)| format!("{} {}", count(*rows), sweep.axis)),
    );
    let rows = series
        .iter()
        .zip(&labels)
        .map(|(values, label)| {
            let mut row = vec![label.clone()];
            row.extend(
                values
                    .iter()
                    .map(|v| v.map_or_else(|| DASH.to_string(), duration)),
            );
            row
        })
        .collect();
    Some(Chart {
        place: Place::Scaling,
        label: format!("{title}. {}", words.join("; ")),
        title,
        width: width.ceil() as u32,
        height: height.ceil() as u32,
        body: svg.finish(),
        table: Some(Table { headers, rows }),
    })
}
