//! Growth with size, for runs over several sizes of one dataset kind (`report/sweep.rs`): per
//! competitor and operation, the fitted log-log slope with its interval (1.0 = linear) and the
//! layout study's growth ratio (time at the largest size ÷ time at the smallest); and where
//! two competitors' lines cross, interpolated, with whether the intervals at the sizes either
//! side make the crossing credible.

use super::layouts::Table;
use super::pick::{self, Id};
use super::sweep::{sweeps, GroupKey, Sweep};
use super::{format, group_title, ran};
use crate::stats::{
    crossing, growth_ratio, paired_ratio, slope_fit, CellSummary, OpGroup, RunSummary, SlopeFit,
};

const SLOPE_LEGEND: &str = "per competitor, the least-squares slope of ln(time) on ln(size) over every sample at the sizes it ran, with a 95 % t interval from the samples' spread within sizes: 1.0 = time grows in proportion to size, below 1 = slower than proportionally (fixed costs), above 1 = faster than proportionally; from three sizes a lack-of-fit test checks the straight line, and a line that does not fit gets no slope ('curved', with the test's p-value: a fixed cost bends it); two sizes cannot show a bend ('2 sizes'); growth = time at the largest size ÷ time at the smallest";
const CROSS_LEGEND: &str = "where two competitors' median times cross between two neighbouring sizes, interpolated on log-log axes; credible when, at both sizes, the paired ratio's 95 % interval leaves out 1, on opposite sides (else the lines may only be touching within their noise)";

/// Each competitor's ran cell at each size of a sweep's groups (`None` where it did not run).
fn series<'a>(groups: &[(u64, &'a OpGroup)]) -> Vec<(Id, Vec<Option<&'a CellSummary>>)> {
    let mut ids: Vec<Id> = Vec::new();
    for (_, g) in groups {
        for c in g.cells.iter().filter(|c| ran(c)) {
            if !ids.contains(&pick::id(&c.cell)) {
                ids.push(pick::id(&c.cell));
            }
        }
    }
    ids.into_iter()
        .map(|id| {
            let cells = groups
                .iter()
                .map(|(_, g)| g.cells.iter().find(|c| ran(c) && pick::id(&c.cell) == id))
                .collect();
            (id, cells)
        })
        .collect()
}

fn median(cell: &CellSummary) -> Option<f64> {
    cell.wall.map(|w| w.median).filter(|m| *m > 0.0)
}

/// A cell's times: its rounds', else its median alone.
fn samples(cell: &CellSummary) -> Vec<f64> {
    if cell.rounds.is_empty() {
        median(cell).into_iter().collect()
    } else {
        cell.rounds.values().copied().collect()
    }
}

fn title(sweep: &Sweep, groups: &[(u64, &OpGroup)], what: &str) -> Option<String> {
    let first = groups.first()?.1;
    let whole = group_title(first);
    let tail = whole
        .strip_prefix(&format!("{} · ", first.dataset))
        .unwrap_or(&whole);
    Some(format!("{} · {tail}: {what} {}", sweep.name, sweep.axis))
}

fn slope_table(sweep: &Sweep, groups: &[(u64, &OpGroup)]) -> Option<Table> {
    let series = series(groups);
    let ids: Vec<Id> = series.iter().map(|(id, _)| id.clone()).collect();
    let labels = pick::labels(&ids);
    let mut rows = Vec::new();
    for ((_, cells), label) in series.iter().zip(labels) {
        let sized: Vec<(f64, &CellSummary)> = groups
            .iter()
            .zip(cells)
            .filter_map(|((size, _), cell)| Some((*size as f64, (*cell)?)))
            .collect();
        if sized.len() < 2 {
            continue;
        }
        let points: Vec<(f64, f64)> = sized
            .iter()
            .filter_map(|(x, c)| Some((*x, median(c)?)))
            .collect();
        let with_samples: Vec<(f64, Vec<f64>)> =
            sized.iter().map(|(x, c)| (*x, samples(c))).collect();
        let slope = slope_fit(&with_samples);
        let (first, last) = (points.first(), points.last());
        rows.push(vec![
            label,
            format::count(sized.len() as u64),
            first.map_or_else(|| format::DASH.to_string(), |p| format::duration(p.1)),
            last.map_or_else(|| format::DASH.to_string(), |p| format::duration(p.1)),
            growth_ratio(&points).map_or_else(|| format::DASH.to_string(), format::ratio2),
            slope.map_or_else(|| format::DASH.to_string(), slope_text),
        ]);
    }
    if rows.is_empty() {
        return None;
    }
    let (smallest, largest) = (groups.first()?.0, groups.last()?.0);
    Some(Table {
        title: title(sweep, groups, "growth with")?,
        legend: SLOPE_LEGEND,
        headers: vec![
            "competitor".into(),
            "sizes".into(),
            format!("at {} {}", format::count(smallest), sweep.axis),
            format!("at {} {}", format::count(largest), sweep.axis),
            "growth".into(),
            "slope [95 %]".into(),
        ],
        text_columns: 1,
        rows,
    })
}

/// A slope as its table cell: the estimate and interval, or why there is none.
fn slope_text(fit: SlopeFit) -> String {
    match fit {
        SlopeFit::Line { slope, sizes } => {
            let note = if sizes == 2 { " (2 sizes)" } else { "" };
            format!(
                "{:.2} [{:.2}–{:.2}]{note}",
                slope.estimate, slope.lo, slope.hi
            )
        }
        SlopeFit::Curved { p_value } => format!("curved (lack of fit p {p_value:.1e})"),
        SlopeFit::NoInterval { estimate } => format!("{estimate:.2} (1 sample a size)"),
    }
}

/// The paired ratio A ÷ B at one size, and which side of 1 its interval is on (`None` when it
/// holds 1).
fn ratio_at(a: &CellSummary, b: &CellSummary) -> Option<(f64, Option<bool>)> {
    let estimate = a.ratio_over(b)?;
    let side = paired_ratio(&a.rounds, &b.rounds)
        .filter(|r| !r.contains_one())
        .map(|r| r.hi < 1.0);
    Some((estimate, side))
}

fn crossing_table(sweep: &Sweep, groups: &[(u64, &OpGroup)]) -> Option<Table> {
    let series = series(groups);
    let ids: Vec<Id> = series.iter().map(|(id, _)| id.clone()).collect();
    let labels = pick::labels(&ids);
    let mut rows = Vec::new();
    for i in 0..series.len() {
        for j in i + 1..series.len() {
            for k in 0..groups.len().saturating_sub(1) {
                let pair = |at: usize| Some((series[i].1[at]?, series[j].1[at]?));
                let (Some((a0, b0)), Some((a1, b1))) = (pair(k), pair(k + 1)) else {
                    continue;
                };
                let (Some((r0, side0)), Some((r1, side1))) = (ratio_at(a0, b0), ratio_at(a1, b1))
                else {
                    continue;
                };
                let (x0, x1) = (groups[k].0 as f64, groups[k + 1].0 as f64);
                let Some(at) = crossing(x0, r0, x1, r1) else {
                    continue;
                };
                let credible = matches!((side0, side1), (Some(s0), Some(s1)) if s0 != s1);
                // The competitor faster at the smaller size first, and the ratios its way.
                let (early, late, q0, q1) = if r0 < 1.0 {
                    (&labels[i], &labels[j], r0, r1)
                } else {
                    (&labels[j], &labels[i], 1.0 / r0, 1.0 / r1)
                };
                rows.push(vec![
                    format!("{early} → {late}"),
                    format!(
                        "{}–{} {}",
                        format::count(groups[k].0),
                        format::count(groups[k + 1].0),
                        sweep.axis
                    ),
                    format!("{} {}", format::count(at.round() as u64), sweep.axis),
                    format!("{} → {}", format::ratio(q0), format::ratio(q1)),
                    if credible { "yes" } else { "no" }.to_string(),
                ]);
            }
        }
    }
    if rows.is_empty() {
        return None;
    }
    Some(Table {
        title: title(sweep, groups, "crossovers over")?,
        legend: CROSS_LEGEND,
        headers: vec![
            "faster first → faster after".into(),
            "between".into(),
            "crossing at".into(),
            "first ÷ second, at each size".into(),
            "credible".into(),
        ],
        text_columns: 2,
        rows,
    })
}

/// Slope tables, then crossover tables, for every sweep and group key of the run.
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let mut slopes = Vec::new();
    let mut crossings = Vec::new();
    for sweep in sweeps(summary) {
        let keys: Vec<GroupKey> = sweep.keys(summary);
        for key in keys {
            let groups = sweep.groups(summary, &key);
            slopes.extend(slope_table(&sweep, &groups));
            crossings.extend(crossing_table(&sweep, &groups));
        }
    }
    slopes.extend(crossings);
    slopes
}

#[cfg(test)]
mod tests;
