//! The crossover table of the Scale-out section: over a run of several sizes of one table
//! (`suite scale-out --rows 1e4,1e5,1e6`), each cluster peer at each executor count against
//! the fastest single-process reader of the same operation at each size, with and without the
//! cluster's start, and from which size on the cluster is the faster: where it pays for itself.

use super::super::format::{self, DASH};
use super::super::layouts::Table;
use super::super::sweep::{sweeps, Sweep};
use super::median;
use crate::stats::{crossing, CellSummary, OpGroup, RunSummary};

const LEGEND: &str = "per cluster peer and executor count, at each size of the table: its median ÷ the fastest single-process reader's median at that size, of the cluster's format (of any format in a run that recorded none; below 1: the cluster is faster), then the same with the cluster's median start added to its time (what a job that starts its own cluster pays); faster from = the size where the ratio crosses 1, interpolated on log-log axes between the two sizes either side (ratios of medians, no interval)";

/// One table per operation (and cache, threads, place) of each rows sweep with a cluster peer.
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let mut out = Vec::new();
    for sweep in sweeps(summary).iter().filter(|s| s.axis == "rows") {
        for key in sweep.keys(summary) {
            let groups = sweep.groups(summary, &key);
            let clustered = groups
                .iter()
                .any(|(_, g)| g.cells.iter().any(|c| c.cell.executors.is_some()));
            if groups.len() > 1 && clustered {
                out.push(table(sweep, &groups, &summary.formats));
            }
        }
    }
    out
}

/// A cluster competitor: backend, profile, target and executor count.
type Competitor = (String, String, String, u32);

fn competitor(cell: &CellSummary) -> Option<Competitor> {
    // The sweep's shared files are sized per dataset: only each peer's own files line up
    // across sizes.
    if cell.cell.is_sweep_point() {
        return None;
    }
    Some((
        cell.cell.backend.clone(),
        cell.cell.profile.clone(),
        cell.cell.target.clone(),
        cell.cell.executors?,
    ))
}

/// The fastest single-process median of a group reading `format` (any, where `None`).
fn single(group: &OpGroup, formats: &super::Formats, format: Option<&str>) -> Option<f64> {
    group
        .cells
        .iter()
        .filter(|c| c.cell.executors.is_none() && !c.cell.is_sweep_point())
        .filter(|c| super::reads(formats, c, format))
        .filter_map(median)
        .min_by(f64::total_cmp)
}

/// The size where `ratios` (by size, smallest first) first go from above 1 to below it.
fn faster_from(ratios: &[(u64, Option<f64>)]) -> String {
    let known: Vec<(f64, f64)> = ratios
        .iter()
        .filter_map(|(size, r)| Some((*size as f64, (*r)?)))
        .collect();
    let Some(&(_, first)) = known.first() else {
        return DASH.to_string();
    };
    if known.iter().all(|(_, r)| *r < 1.0) && first < 1.0 {
        return "every size".to_string();
    }
    for pair in known.windows(2) {
        let ((x0, r0), (x1, r1)) = (pair[0], pair[1]);
        if r0 >= 1.0 && r1 < 1.0 {
            return crossing(x0, r0, x1, r1).map_or_else(
                || format!("{} rows", format::count(x1 as u64)),
                |at| format!("~{} rows", format::count(at.round() as u64)),
            );
        }
    }
    match known.last() {
        Some((_, last)) if *last >= 1.0 => "not in this range".to_string(),
        _ => DASH.to_string(),
    }
}

fn table(sweep: &Sweep, groups: &[(u64, &OpGroup)], formats: &super::Formats) -> Table {
    let mut competitors: Vec<Competitor> = Vec::new();
    for (_, g) in groups {
        for c in g.cells.iter().filter_map(competitor) {
            if !competitors.contains(&c) {
                competitors.push(c);
            }
        }
    }
    competitors.sort();
    let rows = competitors
        .iter()
        .map(|who| {
            let format = formats.get(&who.0).map(String::as_str);
            let singles: Vec<Option<f64>> = groups
                .iter()
                .map(|(_, g)| single(g, formats, format))
                .collect();
            let mut plain = Vec::new();
            let mut started = Vec::new();
            for ((size, group), single) in groups.iter().zip(&singles) {
                let cell = group
                    .cells
                    .iter()
                    .find(|c| competitor(c).as_ref() == Some(who));
                let own = cell.and_then(median);
                let start = cell.and_then(|c| c.cluster_start_s);
                plain.push((*size, own.zip(*single).map(|(o, s)| o / s)));
                started.push((
                    *size,
                    own.zip(start).zip(*single).map(|((o, b), s)| (o + b) / s),
                ));
            }
            let shown = |ratios: &[(u64, Option<f64>)]| -> Vec<String> {
                ratios
                    .iter()
                    .map(|(_, r)| r.map_or_else(|| DASH.to_string(), format::ratio))
                    .collect()
            };
            let mut row = vec![who.0.clone(), who.3.to_string()];
            row.extend(shown(&plain));
            row.push(faster_from(&plain));
            row.extend(shown(&started));
            row.push(faster_from(&started));
            row
        })
        .collect();
    let sizes: Vec<String> = groups
        .iter()
        .map(|(size, _)| format!("{} rows", format::count(*size)))
        .collect();
    let mut headers = vec!["backend".to_string(), "executors".to_string()];
    headers.extend(sizes.iter().map(|s| format!("÷ single at {s}")));
    headers.push("faster from".into());
    headers.extend(sizes.iter().map(|s| format!("with start at {s}")));
    headers.push("with start, faster from".into());
    let first = groups[0].1;
    Table {
        title: format!(
            "{} · {}: cluster against one process by size (cache {}, {} thread(s) per executor)",
            sweep.name, first.op, first.cache, first.threads
        ),
        legend: LEGEND,
        headers,
        text_columns: 1,
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crossover_is_interpolated_between_the_sizes_either_side() {
        // 4× slower at 10k rows, 1/4 at 1M: crosses 1 halfway on log axes, at 100k.
        let ratios = [(10_000, Some(4.0)), (1_000_000, Some(0.25))];
        assert_eq!(faster_from(&ratios), "~100,000 rows");
        assert_eq!(
            faster_from(&[(10_000, Some(0.5)), (100_000, Some(0.4))]),
            "every size"
        );
        assert_eq!(
            faster_from(&[(10_000, Some(9.0)), (100_000, Some(2.0))]),
            "not in this range"
        );
        assert_eq!(faster_from(&[(10_000, None)]), DASH);
    }
}
