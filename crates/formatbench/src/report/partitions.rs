//! FeatherStore's partition-size trade-off (seed 000): "smaller partitions allow us to skip more
//! rows when reading, with the trade-off being slower performance when doing full table reads
//! and writes". For each partitioned store run under several partition sizes (its profiles,
//! each file's size read back from the write's settings), every operation's median at each
//! size and its cost relative to its own best size; where a selective read's relative cost
//! crosses a full read's or a write's, interpolated on log-log axes; and, where the store also
//! ran with plain reads, what memory mapping changes.

use super::layouts::Table;
use super::{format, ran};
use crate::stats::{crossing, OpGroup, RunSummary};

const SIZES_LEGEND: &str = "each operation's median time at each partition size (the store's profiles; the size each write used, read back from its settings), its best size, and the time at the largest size ÷ the time at the smallest: below 1 the operation gains from larger partitions, above 1 from smaller ones";
const CROSS_LEGEND: &str = "each operation's cost relative to its own best partition size, and where a selective read's line crosses a full read's or a write's, interpolated on log-log axes between the neighbouring sizes: at that size both pay the same share over their best, and the reading says which pays the larger share on either side";
const MMAP_LEGEND: &str = "the store with plain reads (each partition read into memory, then decoded) ÷ the same store memory-mapped, at the same partition size, per read: above 1 the map is faster";

/// The operations that read or write every row, against which selective reads are weighed.
const WHOLE: [&str; 2] = ["read", "write"];
/// The reads that need only some partitions.
const SELECTIVE: [&str; 6] = [
    "range",
    "take",
    "range_before",
    "range_after",
    "range_between",
    "labels",
];

/// One store on one dataset under several partition sizes.
pub(super) struct Study<'a> {
    pub dataset: String,
    pub backend: String,
    /// Partition sizes in bytes, ascending, each with the profile that wrote it.
    pub sizes: Vec<(u64, String)>,
    /// Per operation (and cache state, where reads ran in both), its median at each size.
    pub lines: Vec<Line<'a>>,
}

pub(super) struct Line<'a> {
    pub op: String,
    pub label: String,
    pub group: &'a OpGroup,
    pub medians: Vec<Option<f64>>,
}

impl Line<'_> {
    /// Each median ÷ the line's smallest.
    pub fn relative(&self) -> Vec<Option<f64>> {
        let best = self
            .medians
            .iter()
            .flatten()
            .copied()
            .fold(f64::INFINITY, f64::min);
        self.medians
            .iter()
            .map(|m| m.filter(|_| best.is_finite()).map(|m| m / best))
            .collect()
    }
}

/// One setting the write of a store's profile recorded.
fn setting<'a>(
    summary: &'a RunSummary,
    (dataset, backend, profile): (&str, &str, &str),
    key: &str,
) -> Option<&'a str> {
    summary
        .artifacts
        .iter()
        .find(|a| a.dataset == dataset && a.backend == backend && a.profile == profile)
        .and_then(|a| a.settings.get(key))
        .map(String::as_str)
}

/// The partition size a store's write used, from the artifact's settings.
fn partition_bytes(
    summary: &RunSummary,
    dataset: &str,
    backend: &str,
    profile: &str,
) -> Option<u64> {
    setting(summary, (dataset, backend, profile), "partition_bytes")?
        .parse()
        .ok()
}

/// Whether a store's profile reads without a memory map (its settings say "plain").
fn plain_reads(summary: &RunSummary, dataset: &str, backend: &str, profile: &str) -> bool {
    reads_plain(setting(summary, (dataset, backend, profile), "access"))
}

/// An `access` setting of plain reads.
fn reads_plain(access: Option<&str>) -> bool {
    access.is_some_and(|access| access.starts_with("plain"))
}

fn median(group: &OpGroup, backend: &str, profile: &str) -> Option<f64> {
    group
        .cells
        .iter()
        .filter(|c| ran(c) && c.cell.backend == backend && c.cell.profile == profile)
        .find_map(|c| c.wall.map(|w| w.median).filter(|m| *m > 0.0))
}

/// Every store of the run measured under two or more partition sizes (local files, one line
/// per operation; reads that ran cold as well as warm get a line each).
pub(super) fn studies(summary: &RunSummary) -> Vec<Study<'_>> {
    let mut keys: Vec<(String, String)> = Vec::new();
    for g in &summary.groups {
        for c in g.cells.iter().filter(|c| ran(c)) {
            let key = (g.dataset.clone(), c.cell.backend.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    let mut studies = Vec::new();
    for (dataset, backend) in keys {
        let groups: Vec<&OpGroup> = summary
            .groups
            .iter()
            .filter(|g| g.dataset == dataset && g.storage == "local")
            .collect();
        let mut sizes: Vec<(u64, String)> = Vec::new();
        for g in &groups {
            for c in g.cells.iter().filter(|c| c.cell.backend == backend) {
                let profile = &c.cell.profile;
                if sizes.iter().any(|(_, p)| p == profile)
                    || plain_reads(summary, &dataset, &backend, profile)
                {
                    continue;
                }
                if let Some(bytes) = partition_bytes(summary, &dataset, &backend, profile) {
                    sizes.push((bytes, profile.clone()));
                }
            }
        }
        sizes.sort();
        // Two profiles of one size: the default one stands for it.
        sizes.dedup_by(|later, kept| {
            later.0 == kept.0 && {
                if later.1 == "default" {
                    kept.1 = later.1.clone();
                }
                true
            }
        });
        if sizes.len() < 2 {
            continue;
        }
        let caches = |op: &str| groups.iter().filter(|g| g.op == op).count();
        let lines = groups
            .iter()
            .filter(|g| WHOLE.contains(&g.op.as_str()) || SELECTIVE.contains(&g.op.as_str()))
            .map(|g| Line {
                op: g.op.clone(),
                label: match caches(&g.op) {
                    1 => g.op.clone(),
                    _ => format!("{} · {}", g.op, g.cache),
                },
                group: g,
                medians: sizes
                    .iter()
                    .map(|(_, profile)| median(g, &backend, profile))
                    .collect(),
            })
            .filter(|line| line.medians.iter().flatten().count() > 1)
            .collect::<Vec<_>>();
        if !lines.is_empty() {
            studies.push(Study {
                dataset: dataset.clone(),
                backend,
                sizes,
                lines,
            });
        }
    }
    studies
}

fn sizes_table(study: &Study) -> Table {
    let mut headers = vec!["operation".to_string()];
    headers.extend(study.sizes.iter().map(|(b, _)| format::bytes(*b)));
    headers.extend(["best size".into(), "largest ÷ smallest".into()]);
    let rows = study
        .lines
        .iter()
        .map(|line| {
            let mut row = vec![line.label.clone()];
            row.extend(
                line.medians
                    .iter()
                    .map(|m| m.map_or_else(|| format::DASH.to_string(), format::duration)),
            );
            let best = line
                .medians
                .iter()
                .zip(&study.sizes)
                .filter_map(|(m, (b, _))| Some(((*m)?, *b)))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            row.push(best.map_or_else(|| format::DASH.to_string(), |(_, b)| format::bytes(b)));
            let ends = line
                .medians
                .first()
                .copied()
                .flatten()
                .zip(line.medians.last().copied().flatten());
            row.push(ends.map_or_else(|| format::DASH.to_string(), |(s, l)| format::ratio2(l / s)));
            row
        })
        .collect();
    Table {
        title: format!(
            "{} · {}: the partition-size trade-off",
            study.dataset, study.backend
        ),
        legend: SIZES_LEGEND,
        headers,
        text_columns: 1,
        rows,
    }
}

/// A crossing: the selective read, the full operation, the size, and whether the selective
/// read pays the larger share over its best below that size.
pub(super) type Crossing = (String, String, u64, bool);

/// Where a selective read's relative cost crosses a full operation's.
pub(super) fn crossings(study: &Study) -> Vec<Crossing> {
    let mut out = Vec::new();
    for selective in study
        .lines
        .iter()
        .filter(|l| SELECTIVE.contains(&l.op.as_str()))
    {
        for whole in study
            .lines
            .iter()
            .filter(|l| WHOLE.contains(&l.op.as_str()))
        {
            let (a, b) = (selective.relative(), whole.relative());
            for k in 0..study.sizes.len().saturating_sub(1) {
                let ratio = |i: usize| Some(a[i]? / b[i]?);
                let (Some(r0), Some(r1)) = (ratio(k), ratio(k + 1)) else {
                    continue;
                };
                let (x0, x1) = (study.sizes[k].0 as f64, study.sizes[k + 1].0 as f64);
                if let Some(at) = crossing(x0, r0, x1, r1) {
                    out.push((
                        selective.label.clone(),
                        whole.label.clone(),
                        at.round() as u64,
                        r0 > 1.0,
                    ));
                }
            }
        }
    }
    out
}

fn crossing_table(study: &Study) -> Option<Table> {
    let rows: Vec<Vec<String>> = crossings(study)
        .into_iter()
        .map(|(selective, whole, at, selective_below)| {
            let (below, above) = match selective_below {
                true => (&selective, &whole),
                false => (&whole, &selective),
            };
            vec![
                selective.clone(),
                whole.clone(),
                format!("{below} pays more below, {above} above"),
                format::bytes(at),
            ]
        })
        .collect();
    (!rows.is_empty()).then(|| Table {
        title: format!(
            "{} · {}: where selective and full operations cross",
            study.dataset, study.backend
        ),
        legend: CROSS_LEGEND,
        headers: ["selective read", "full operation", "reading", "crossing at"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        text_columns: 3,
        rows,
    })
}

/// Plain reads against memory-mapped ones, per store that ran both at one partition size.
fn mmap_tables(summary: &RunSummary, studies: &[Study]) -> Vec<Table> {
    let mut tables = Vec::new();
    for study in studies {
        let (dataset, backend) = (&study.dataset, &study.backend);
        let plain: Vec<String> = summary
            .artifacts
            .iter()
            .filter(|a| &a.dataset == dataset && &a.backend == backend)
            .filter(|a| {
                a.settings
                    .get("access")
                    .is_some_and(|x| x.starts_with("plain"))
            })
            .map(|a| a.profile.clone())
            .collect();
        for profile in plain {
            let bytes = partition_bytes(summary, dataset, backend, &profile);
            let Some((_, mapped)) = study.sizes.iter().find(|(b, _)| Some(*b) == bytes) else {
                continue;
            };
            let rows: Vec<Vec<String>> = study
                .lines
                .iter()
                .filter(|l| l.op != "write")
                .filter_map(|l| {
                    let p = median(l.group, backend, &profile)?;
                    let m = median(l.group, backend, mapped)?;
                    Some(vec![
                        l.label.clone(),
                        format::duration(m),
                        format::duration(p),
                        format::ratio2(p / m),
                    ])
                })
                .collect();
            if rows.is_empty() {
                continue;
            }
            tables.push(Table {
                title: format!(
                    "{dataset} · {backend}: plain reads ({profile}) against memory-mapped ({mapped}), {} partitions",
                    bytes.map_or_else(|| format::DASH.to_string(), format::bytes)
                ),
                legend: MMAP_LEGEND,
                headers: ["read", "mapped", "plain", "plain ÷ mapped"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                text_columns: 1,
                rows,
            });
        }
    }
    tables
}

pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let studies = studies(summary);
    let mut tables = Vec::new();
    for study in &studies {
        tables.push(sizes_table(study));
        tables.extend(crossing_table(study));
    }
    tables.extend(mmap_tables(summary, &studies));
    tables
}

#[cfg(test)]
mod tests;
