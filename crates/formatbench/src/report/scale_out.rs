//! Scale-out (`run --executors`, `suite scale-out`): per operation, each cluster peer at every
//! executor count it ran, its speed-up over its own one-executor cluster and its efficiency
//! (speed-up ÷ executors), the CPU time and peak memory summed over the cluster's processes,
//! and how it stands against the fastest single-process reader of the same operation: where the
//! cluster pays for itself, and where one process beats it.

use super::format::{self, DASH};
use super::layouts::Table;
use crate::results::SampleStatus;
use crate::stats::{CellSummary, OpGroup, RunSummary};

const LEGEND: &str = "each cluster peer at each executor count (`--executors`; the thread cap is each executor's), every figure per call: median time; speed-up = its median at 1 executor ÷ this one's, efficiency = speed-up ÷ executors (both ratios of medians, no interval: the operation tables above have the paired intervals); CPU and peak memory summed over every process of the cluster (driver, scheduler, executors), its start not included; start = the median time to start the cluster before each sample (outside the timer); ÷ single = this median ÷ the fastest single-process reader's of the same format in the same table (below 1: the cluster is faster; the format each backend declares, recorded with the run; of any format in a run that recorded none; — where no single process of its format ran), and the fastest of any format is listed too where it reads another format; bytes from S3 ÷ returned = what the object store sent per byte of the result, where the artifact was in S3; ÷ needed = what it sent ÷ the bytes the files' own metadata says the operation needs (the Object storage section's ×needed; — where not known); with the sweep's shared Parquet files (`--parquet-files`, `--row-group-bytes`, `--row-group-rows`), one table per set of files: each reader's own, then each partitioning of the files the native writer wrote once for every reader";

mod crossover;

/// One table per operation group that has a cluster peer in it, then, over several sizes of the
/// table, where each cluster overtakes one process (`crossover`).
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    // `--cluster`: the user's cluster, whose processes are not this run's to account.
    let attached = summary
        .environment
        .as_ref()
        .and_then(|e| e.settings.cluster.as_deref());
    let mut tables: Vec<Table> = Vec::new();
    for group in &summary.groups {
        // One table per set of files read (each peer's own, or each of the sweep's shared
        // partitionings), so that every row of a table reads the same data laid out one way.
        let mut partitionings: Vec<Partitioning> = Vec::new();
        for cell in group.cells.iter().filter(|c| c.cell.executors.is_some()) {
            let key = partitioning(cell);
            if !partitionings.contains(&key) {
                partitionings.push(key);
            }
        }
        // Each peer's own files first, then the shared ones as the sweep lists them.
        partitionings.sort_by_key(|p| p != &(None, None, None));
        let shared = partitionings.iter().any(|p| p != &(None, None, None));
        for key in partitionings {
            let cells: Vec<&CellSummary> = group
                .cells
                .iter()
                .filter(|c| partitioning(c) == key && reads_the_shared_files(c))
                .collect();
            let files = match crate::results::point_label(key.0, key.1, key.2.as_deref()) {
                Some(label) => Some(format!("the shared Parquet files: {label}")),
                None if shared => Some("each reader's own files".to_string()),
                None => None,
            };
            tables.push(table(
                group,
                &cells,
                &summary.formats,
                files.as_deref(),
                attached,
            ));
        }
    }
    tables.extend(crossover::tables(summary));
    tables
}

fn median(cell: &CellSummary) -> Option<f64> {
    (cell.status == SampleStatus::Ok)
        .then_some(cell.wall.map(|w| w.median))
        .flatten()
        .filter(|m| *m > 0.0)
}

/// The files a cell reads: its sweep point (rows per group, files, order), or none.
type Partitioning = (Option<u64>, Option<u64>, Option<String>);

/// Whether a cell of a sweep point reads the files every reader shares: the native writer's
/// points of another profile are files of its own (compact ones), not the shared default ones.
fn reads_the_shared_files(cell: &CellSummary) -> bool {
    let key = &cell.cell;
    !(key.is_sweep_point()
        && key.backend == crate::plan::sweep::SWEEP_BACKEND
        && key.profile != "default")
}

fn partitioning(cell: &CellSummary) -> Partitioning {
    (
        cell.cell.row_group_rows,
        cell.cell.parquet_files,
        cell.cell.sort_by.clone(),
    )
}

/// The single-process cells of a table with their medians, and each backend's format.
struct Singles<'a> {
    cells: Vec<(&'a CellSummary, f64)>,
    formats: &'a Formats,
}

/// Backend name → the format of its files (`RunSummary::formats`).
type Formats = std::collections::BTreeMap<String, String>;

impl<'a> Singles<'a> {
    fn of(cells: &[&'a CellSummary], formats: &'a Formats) -> Self {
        let cells = cells
            .iter()
            .copied()
            .filter(|c| c.cell.executors.is_none())
            .filter_map(|c| median(c).map(|m| (c, m)))
            .collect();
        Singles { cells, formats }
    }

    fn format_of(&self, cell: &CellSummary) -> Option<&'a str> {
        format_of(self.formats, cell)
    }

    /// The fastest single process reading `format`, or any format where it is `None` (a
    /// cluster whose format the run did not record).
    fn fastest(&self, format: Option<&str>) -> Option<(&'a CellSummary, f64)> {
        self.cells
            .iter()
            .copied()
            .filter(|(c, _)| reads(self.formats, c, format))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// The format of `cell`'s backend, where the run recorded it.
fn format_of<'a>(formats: &'a Formats, cell: &CellSummary) -> Option<&'a str> {
    formats.get(&cell.cell.backend).map(String::as_str)
}

/// Whether `cell`'s backend reads `format` (every backend does where it is `None`).
fn reads(formats: &Formats, cell: &CellSummary, format: Option<&str>) -> bool {
    format.is_none() || format_of(formats, cell) == format
}

fn table(
    group: &OpGroup,
    cells: &[&CellSummary],
    formats: &Formats,
    files: Option<&str>,
    attached: Option<&str>,
) -> Table {
    let singles = Singles::of(cells, formats);
    let mut clusters: Vec<&CellSummary> = cells
        .iter()
        .copied()
        .filter(|c| c.cell.executors.is_some())
        .collect();
    clusters.sort_by_key(|c| {
        (
            c.cell.backend.clone(),
            c.cell.profile.clone(),
            c.cell.target.clone(),
            c.cell.executors,
        )
    });
    let mut rows: Vec<Vec<String>> = clusters
        .iter()
        .map(|cell| {
            let executors = cell.cell.executors.unwrap_or(1);
            let one = clusters
                .iter()
                .find(|c| {
                    c.cell.executors == Some(1)
                        && (&c.cell.backend, &c.cell.profile, &c.cell.target)
                            == (&cell.cell.backend, &cell.cell.profile, &cell.cell.target)
                })
                .and_then(|c| median(c));
            let own = median(cell);
            let speed_up = one.zip(own).map(|(one, own)| one / own);
            let label = if cell.cell.target == formatbench_protocol::CLUSTER_TARGET {
                format!("{} (kept in the cluster)", cell.cell.backend)
            } else {
                cell.cell.backend.clone()
            };
            vec![
                label,
                executors.to_string(),
                match own {
                    Some(m) => format::duration(m),
                    None => cell.status.name().to_string(),
                },
                speed_up.map_or_else(|| DASH.to_string(), format::ratio),
                speed_up.map_or_else(
                    || DASH.to_string(),
                    |s| format::percent(s / f64::from(executors)),
                ),
                cell.cpu
                    .map_or_else(|| DASH.to_string(), |c| format::duration(c.median)),
                cell.peak_rss_bytes
                    .map_or_else(|| DASH.to_string(), format::bytes),
                own.zip(singles.fastest(singles.format_of(cell)))
                    .map_or_else(
                        || DASH.to_string(),
                        |(own, (_, single))| format::ratio(own / single),
                    ),
                fetched_per_returned(cell),
                fetched_per_needed(cell),
                cell.cluster_start_s
                    .map_or_else(|| DASH.to_string(), format::duration),
            ]
        })
        .collect();
    rows.extend(single_rows(&singles, &clusters));
    let mut place = match group.place().as_str() {
        "" => String::new(),
        place => format!(", {place}"),
    };
    if let Some(files) = files {
        place.push_str(&format!("; {files}"));
    }
    if let Some(url) = attached {
        place.push_str(&format!(
            "; attached to {url}, not started here: CPU and memory are the driver's alone, \
             start is the time to connect"
        ));
    }
    Table {
        title: format!(
            "{} · {}: scale-out (cache {}, {} thread(s) per executor{place})",
            group.dataset, group.op, group.cache, group.threads
        ),
        legend: LEGEND,
        headers: [
            "backend",
            "executors",
            "median",
            "speed-up",
            "efficiency",
            "CPU",
            "peak memory",
            "÷ single",
            "bytes from S3 ÷ returned",
            "÷ needed",
            "start",
        ]
        .iter()
        .map(|h| h.to_string())
        .collect(),
        text_columns: 1,
        rows,
    }
}

/// The fastest single process of each format the clusters read (of any format for those whose
/// format the run did not record), then the fastest of any format where it reads another.
fn single_rows(singles: &Singles, clusters: &[&CellSummary]) -> Vec<Vec<String>> {
    let mut formats: Vec<Option<&str>> = clusters.iter().map(|c| singles.format_of(c)).collect();
    formats.sort_unstable();
    formats.dedup();
    let mut shown: Vec<&CellSummary> = Vec::new();
    let mut rows = Vec::new();
    for format in formats {
        if let Some((cell, m)) = singles.fastest(format) {
            let label = match format {
                Some(format) => format!("of {format}"),
                None => String::new(),
            };
            rows.push(single_row(cell, m, &label, format::ratio(1.0)));
            shown.push(cell);
        }
    }
    if let Some((cell, m)) = singles.fastest(None) {
        if !shown.iter().any(|s| std::ptr::eq(*s, cell)) {
            // A reference, not a yardstick of the clusters' own format: no ratio.
            rows.push(single_row(cell, m, "of any format", DASH.to_string()));
        }
    }
    rows
}

fn single_row(cell: &CellSummary, median: f64, of: &str, ratio: String) -> Vec<String> {
    let of = if of.is_empty() {
        String::new()
    } else {
        format!(" {of}")
    };
    vec![
        format!("{} (fastest single process{of})", cell.cell.backend),
        DASH.to_string(),
        format::duration(median),
        DASH.to_string(),
        DASH.to_string(),
        cell.cpu
            .map_or_else(|| DASH.to_string(), |c| format::duration(c.median)),
        cell.peak_rss_bytes
            .map_or_else(|| DASH.to_string(), format::bytes),
        ratio,
        fetched_per_returned(cell),
        fetched_per_needed(cell),
        DASH.to_string(),
    ]
}

/// What the object store sent per byte of the result (as Arrow), where it counted the cell's
/// traffic.
fn fetched_per_returned(cell: &CellSummary) -> String {
    match (&cell.object_traffic, cell.read_amplification) {
        (Some(_), Some(amplification)) => format::ratio2(amplification),
        _ => DASH.to_string(),
    }
}

/// What the object store sent ÷ what the files' own metadata says the operation needs.
fn fetched_per_needed(cell: &CellSummary) -> String {
    // The same ×-ratio form as the bytes per byte returned beside it.
    cell.object_traffic
        .as_ref()
        .and_then(|traffic| {
            super::storage::fetched_per_needed(traffic.bytes_sent, cell.needed_bytes)
        })
        .map_or_else(|| DASH.to_string(), format::ratio2)
}

#[cfg(test)]
mod tests;
