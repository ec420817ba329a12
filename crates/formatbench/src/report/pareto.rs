//! The Pareto frontier of each dataset over size, write, read, project, take and peak memory:
//! the competitors no other one beats on every count. A competitor that lacks a metric counts
//! as the worst on it. Times are compared by the tables' paired ratio to each group's fastest
//! (`CellSummary::ratio_to_best`), never by raw medians, so the frontier, the balanced score and
//! the recommendation agree with the tables' ranking.

use super::format::{bytes, duration, ratio, DASH};
use super::pick::{self, Id};
use crate::stats::RunSummary;

pub(super) const SIZE: usize = 0;
pub(super) const WRITE: usize = 1;
pub(super) const READ: usize = 2;
pub(super) const PEAK: usize = 5;
/// Column names, in metric order.
pub(super) const METRICS: [&str; 6] = ["Size", "Write", "Read", "Project", "Take", "Peak mem"];
/// The operations behind metrics 1 to 4.
const OPS: [&str; 4] = ["write", "read", "project", "take"];
/// The metrics the balanced score weighs equally.
const BALANCED: [usize; 4] = [SIZE, WRITE, READ, PEAK];

pub(super) struct Competitor {
    pub id: Id,
    pub label: String,
    /// As the tables show them (median times); `None` where it was not measured.
    pub metrics: [Option<f64>; 6],
    /// What it is ranked by on each metric, lower better: sizes and memory as measured, a
    /// time as its paired ratio to the group's fastest (the tables' `×best`).
    pub scores: [Option<f64>; 6],
    /// Its geometric mean ratio to the fastest where the read (else write) group is keyed.
    pub geomean: Option<f64>,
    /// The geometric mean of its ratios to the best on size, write, read and peak memory.
    pub balance: f64,
}

pub(super) struct Frontier {
    pub dataset: String,
    /// Every competitor that ran something, in first-seen order.
    pub competitors: Vec<Competitor>,
    /// Indices of the frontier, best balance first.
    pub members: Vec<usize>,
    /// (dominated, one that dominates it).
    pub dominated: Vec<(usize, usize)>,
    /// Where each timed metric came from, e.g. `read: cache warm · threads 2`.
    pub sources: Vec<String>,
}

/// The operation behind a timed metric (write, read, project, take); `None` for size and memory.
pub(super) fn timed_op(m: usize) -> Option<&'static str> {
    m.checked_sub(1).and_then(|i| OPS.get(i)).copied()
}

impl Competitor {
    fn worst(&self, m: usize) -> f64 {
        self.scores[m].unwrap_or(f64::INFINITY)
    }

    /// At least as good on every metric and better on one.
    fn dominates(&self, other: &Competitor) -> bool {
        let pairs = (0..METRICS.len()).map(|m| (self.worst(m), other.worst(m)));
        pairs.clone().all(|(a, b)| a <= b) && pairs.into_iter().any(|(a, b)| a < b)
    }
}

/// A metric as the tables show it: bytes for size and memory, durations for the rest.
pub(super) fn metric_text(m: usize, value: Option<f64>) -> String {
    match value {
        None => DASH.to_string(),
        Some(v) if m == SIZE || m == PEAK => bytes(v.round() as u64),
        Some(v) => duration(v),
    }
}

pub(super) fn frontiers(summary: &RunSummary) -> Vec<Frontier> {
    pick::dataset_names(summary)
        .into_iter()
        .filter_map(|d| frontier(summary, d))
        .collect()
}

fn frontier(summary: &RunSummary, dataset: String) -> Option<Frontier> {
    let groups: Vec<_> = OPS
        .iter()
        .map(|op| pick::group(summary, &dataset, op))
        .collect();
    let mut ids: Vec<Id> = Vec::new();
    for g in groups.iter().flatten() {
        // The memory-copy floor bounds the formats; it is not one to pick.
        for c in pick::ran(&g.cells).filter(|c| !crate::stats::is_reference(&c.cell.backend)) {
            if !ids.contains(&pick::id(&c.cell)) {
                ids.push(pick::id(&c.cell));
            }
        }
    }
    if ids.is_empty() {
        return None;
    }
    let key_group = groups.get(1).copied().flatten().or(groups[0]);
    let labels = pick::labels(&ids);
    let mut competitors: Vec<Competitor> = ids
        .into_iter()
        .zip(labels)
        .map(|(id, label)| {
            let mut metrics = [None; 6];
            let mut scores = [None; 6];
            let mut peak: Option<u64> = None;
            for (m, g) in groups.iter().enumerate() {
                let Some(cell) =
                    g.and_then(|g| pick::ran(&g.cells).find(|c| pick::id(&c.cell) == id))
                else {
                    continue;
                };
                metrics[m + 1] = cell.wall.map(|w| w.median);
                scores[m + 1] = cell.ratio_to_best.or_else(|| {
                    let fastest = g.and_then(|g| pick::ran(&g.cells).find_map(|c| c.wall))?;
                    Some(cell.wall?.median / fastest.median)
                });
                if metrics[SIZE].is_none() {
                    metrics[SIZE] = pick::size_of(summary, &cell.cell).map(|s| s as f64);
                }
                if let Some(p) = cell.peak_rss_bytes {
                    peak = Some(peak.map_or(p, |q| q.max(p)));
                }
            }
            metrics[PEAK] = peak.map(|p| p as f64);
            scores[SIZE] = metrics[SIZE];
            scores[PEAK] = metrics[PEAK];
            let geomean = key_group.and_then(|g| {
                summary
                    .geomeans
                    .iter()
                    .find(|m| {
                        (&m.dataset, &m.cache, m.threads) == (&g.dataset, &g.cache, g.threads)
                            && (&m.backend, &m.profile, &m.layout, &m.target)
                                == (&id.0, &id.1, &id.2, &id.3)
                    })
                    .map(|m| m.ratio)
            });
            Competitor {
                id,
                label,
                metrics,
                scores,
                geomean,
                balance: f64::INFINITY,
            }
        })
        .collect();
    balance(&mut competitors);
    let mut members = Vec::new();
    let mut dominated = Vec::new();
    for (i, c) in competitors.iter().enumerate() {
        match competitors.iter().position(|o| o.dominates(c)) {
            Some(by) => dominated.push((i, by)),
            None => members.push(i),
        }
    }
    members.sort_by(|a, b| {
        let (a, b) = (&competitors[*a], &competitors[*b]);
        a.balance
            .total_cmp(&b.balance)
            .then_with(|| a.label.cmp(&b.label))
    });
    let sources = OPS
        .iter()
        .zip(&groups)
        .filter_map(|(op, g)| {
            let title = super::group_title(g.as_ref()?);
            let rest = title
                .strip_prefix(&format!("{dataset} · "))
                .unwrap_or(&title);
            Some(
                rest.strip_prefix(&format!("{op} · "))
                    .map_or_else(|| rest.to_string(), |r| format!("{op}: {r}")),
            )
        })
        .collect();
    Some(Frontier {
        dataset,
        competitors,
        members,
        dominated,
        sources,
    })
}

/// Fills in each competitor's balanced score: the geometric mean, over size, write, read and
/// peak memory, of its ratio to the best; a missing metric counts as the worst ratio seen, and
/// a metric nobody has is left out.
fn balance(competitors: &mut [Competitor]) {
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); competitors.len()];
    for m in BALANCED {
        let values: Vec<f64> = competitors.iter().filter_map(|c| c.scores[m]).collect();
        let best = values.iter().copied().fold(f64::INFINITY, f64::min);
        if !(best > 0.0 && best.is_finite()) {
            continue;
        }
        let worst = values.iter().map(|v| v / best).fold(1.0, f64::max);
        for (c, r) in competitors.iter().zip(ratios.iter_mut()) {
            r.push(c.scores[m].map_or(worst, |v| v / best));
        }
    }
    for (c, r) in competitors.iter_mut().zip(ratios) {
        if !r.is_empty() {
            c.balance = (r.iter().map(|x| x.ln()).sum::<f64>() / r.len() as f64).exp();
        }
    }
}

impl Frontier {
    /// The metric columns worth showing: those some competitor has.
    pub fn columns(&self) -> Vec<usize> {
        (0..METRICS.len())
            .filter(|m| self.competitors.iter().any(|c| c.metrics[*m].is_some()))
            .collect()
    }

    /// The frontier as table rows: competitor, each shown metric, then the balanced score.
    pub fn rows(&self) -> Vec<Vec<String>> {
        let columns = self.columns();
        self.members
            .iter()
            .filter_map(|i| self.competitors.get(*i))
            .map(|c| {
                let mut row = vec![c.label.clone()];
                row.extend(columns.iter().map(|m| metric_text(*m, c.metrics[*m])));
                row.push(if c.balance.is_finite() {
                    ratio(c.balance)
                } else {
                    DASH.to_string()
                });
                row
            })
            .collect()
    }

    pub fn headers(&self) -> Vec<&'static str> {
        let mut headers = vec!["Competitor"];
        headers.extend(self.columns().iter().map(|m| METRICS[*m]));
        headers.push("Balance");
        headers
    }

    /// `csv/default (by ipc/plain)` for each competitor off the frontier.
    pub fn dominated_text(&self) -> Vec<String> {
        self.dominated
            .iter()
            .filter_map(|(i, by)| {
                let (c, o) = (self.competitors.get(*i)?, self.competitors.get(*by)?);
                Some(format!(
                    "{} (beaten on every count by {})",
                    c.label, o.label
                ))
            })
            .collect()
    }
}

pub(super) const LEGEND: &str =
    "competitors that no other one beats on every count at once (size, write, read, project, \
     take, peak memory; a metric it lacks counts as the worst); Balance = geometric mean of its \
     ratios to the best on size, write, read and peak memory";

#[cfg(test)]
mod tests {
    use super::super::fixture::{fixture, small, COMPETITORS};
    use super::*;

    fn labels(f: &Frontier, indices: impl Iterator<Item = usize>) -> Vec<String> {
        indices
            .filter_map(|i| f.competitors.get(i).map(|c| c.label.clone()))
            .collect()
    }

    #[test]
    fn the_frontier_keeps_who_nobody_beats_on_every_count() {
        let all = frontiers(&small("balanced"));
        assert_eq!(all.len(), 1);
        let f = &all[0];
        assert_eq!(f.competitors.len(), COMPETITORS.len());
        let members = labels(f, f.members.iter().copied());
        // Best balance first.
        assert_eq!(
            members,
            ["parquet/snappy", "npy/default", "ipc/mmap", "parquet/zstd"]
        );
        let off = labels(f, f.dominated.iter().map(|d| d.0));
        assert_eq!(off, ["csv/default"]);
        assert_eq!(
            f.sources,
            ["write: threads 1", "read: cache warm · threads 1"]
        );
        assert_eq!(
            f.headers(),
            ["Competitor", "Size", "Write", "Read", "Peak mem", "Balance"]
        );
        assert_eq!(
            f.rows()[0],
            [
                "parquet/snappy",
                "30.0 MiB",
                "80.0 ms",
                "12.0 ms",
                "180 MiB",
                "1.95×"
            ]
        );
        assert!(f.dominated_text()[0].starts_with("csv/default (beaten on every count by "));
    }

    #[test]
    fn a_missing_metric_counts_as_the_worst() {
        let mut summary = small("balanced");
        // A copy of ipc/mmap's read with no write: ipc/mmap now beats it on every count.
        let read = &mut summary.groups[1];
        let mut copy = read.cells[0].clone();
        assert_eq!(copy.cell.profile, "mmap");
        copy.cell.profile = "copy".into();
        read.cells.push(copy);
        let f = &frontiers(&summary)[0];
        let off = labels(f, f.dominated.iter().map(|d| d.0));
        assert_eq!(off, ["csv/default", "ipc/copy"]);
        let by = labels(f, f.dominated.iter().skip(1).map(|d| d.1));
        assert_eq!(by, ["ipc/mmap"]);
        // In the main fixture npy never read and parquet never wrote: neither is beaten.
        let main = &frontiers(&fixture())[0];
        assert_eq!(main.members.len(), 3);
        assert!(main.dominated.is_empty());
    }
}
