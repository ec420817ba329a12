//! Scale-out (`run --executors`, `suite scale-out`): per operation, each cluster peer at every
//! executor count it ran, its speed-up over its own one-executor cluster and its efficiency
//! (speed-up ÷ executors), the CPU time and peak memory summed over the cluster's processes,
//! and how it stands against the fastest single-process reader of the same operation: where the
//! cluster pays for itself, and where one process beats it.

use super::format::{self, DASH};
use super::layouts::Table;
use crate::results::SampleStatus;
use crate::stats::{CellSummary, OpGroup, RunSummary};

const LEGEND: &str = "each cluster peer at each executor count (`--executors`; the thread cap is each executor's), every figure per call: median time; speed-up = its median at 1 executor ÷ this one's, efficiency = speed-up ÷ executors (both ratios of medians, no interval: the operation tables above have the paired intervals); CPU and peak memory summed over every process of the cluster (driver, scheduler, executors), its start not included; start = the median time to start the cluster before each sample (outside the timer); ÷ single = this median ÷ the fastest single-process reader's in the same table (below 1: the cluster is faster); bytes from S3 ÷ returned = what the object store sent per byte of the result, where the artifact was in S3; ÷ needed = what it sent ÷ the bytes the files' own metadata says the operation needs (the Object storage section's ×needed; — where not known); with the sweep's shared Parquet files (`--parquet-files`, `--row-group-bytes`, `--row-group-rows`), one table per set of files: each reader's own, then each partitioning of the files the native writer wrote once for every reader";

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
            tables.push(table(group, &cells, files.as_deref(), attached));
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

fn table(
    group: &OpGroup,
    cells: &[&CellSummary],
    files: Option<&str>,
    attached: Option<&str>,
) -> Table {
    let single = cells
        .iter()
        .copied()
        .filter(|c| c.cell.executors.is_none())
        .filter_map(|c| median(c).map(|m| (c, m)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
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
                own.zip(single.map(|(_, m)| m)).map_or_else(
                    || DASH.to_string(),
                    |(own, single)| format::ratio(own / single),
                ),
                fetched_per_returned(cell),
                fetched_per_needed(cell),
                cell.cluster_start_s
                    .map_or_else(|| DASH.to_string(), format::duration),
            ]
        })
        .collect();
    if let Some((cell, m)) = single {
        rows.push(vec![
            format!("{} (fastest single process)", cell.cell.backend),
            DASH.to_string(),
            format::duration(m),
            DASH.to_string(),
            DASH.to_string(),
            cell.cpu
                .map_or_else(|| DASH.to_string(), |c| format::duration(c.median)),
            cell.peak_rss_bytes
                .map_or_else(|| DASH.to_string(), format::bytes),
            format::ratio(1.0),
            fetched_per_returned(cell),
            fetched_per_needed(cell),
            DASH.to_string(),
        ]);
    }
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
mod tests {
    use super::*;
    use crate::results::{CellKey, Record};

    /// Verified `read` samples of (backend, executors, walls by round) on one dataset.
    fn records(cells: &[(&str, Option<u32>, [f64; 3])]) -> Vec<Record> {
        records_of("mixed-1000x7", cells)
    }

    fn records_of(dataset: &str, cells: &[(&str, Option<u32>, [f64; 3])]) -> Vec<Record> {
        let keyed: Vec<(CellKey, &[f64])> = cells
            .iter()
            .map(|(backend, executors, walls)| {
                let key = CellKey {
                    dataset: dataset.into(),
                    dataset_fingerprint: "fp".into(),
                    backend: backend.to_string(),
                    profile: "default".into(),
                    layout: "wide".into(),
                    target: "arrow".into(),
                    op: "read".into(),
                    threads: 1,
                    cache: "warm".into(),
                    storage: "local".into(),
                    network: "n/a".into(),
                    row_group_rows: None,
                    parquet_files: None,
                    sort_by: None,
                    executors: *executors,
                };
                (key, walls.as_slice())
            })
            .collect();
        crate::report::fixture::verified_samples(&keyed)
    }

    #[test]
    fn speed_up_and_efficiency_are_against_the_clusters_own_single_executor() {
        let mut records = records(&[
            ("py-dask-parquet", Some(1), [4.0, 4.0, 4.0]),
            ("py-dask-parquet", Some(2), [2.5, 2.5, 2.5]),
            ("py-dask-parquet", Some(4), [2.0, 2.0, 2.0]),
            ("parquet", None, [1.0, 1.0, 1.0]),
            ("py-pyarrow-parquet", None, [3.0, 3.0, 3.0]),
        ]);
        // Each cluster took longer to start the more executors it has; the two-executor one
        // fetched 1.5× what its files say it needs.
        for record in &mut records {
            if let Record::Sample(s) = record {
                s.cluster_start_s = s.cell.executors.map(|n| 0.25 * f64::from(n));
                if s.cell.executors == Some(2) {
                    s.object_traffic = Some(formatbench_protocol::ObjectTraffic {
                        bytes_sent: 1_500,
                        ..Default::default()
                    });
                    s.needed_bytes = Some(1_000);
                }
            }
        }
        let summary = crate::stats::summarize_run(&records);
        let tables = tables(&summary);
        assert_eq!(tables.len(), 1);
        let rows = &tables[0].rows;
        let row = |backend: &str, executors: &str| {
            rows.iter()
                .find(|r| r[0] == backend && r[1] == executors)
                .unwrap_or_else(|| panic!("no row {backend} {executors}: {rows:?}"))
        };
        // Speed-up 4.0 ÷ 2.5 at 2 executors: 80 % efficient; 4.0 ÷ 2.0 at 4: 50 %.
        assert_eq!(row("py-dask-parquet", "1")[3..5], ["1.00×", "100 %"]);
        assert_eq!(row("py-dask-parquet", "2")[3..5], ["1.60×", "80 %"]);
        assert_eq!(row("py-dask-parquet", "4")[3..5], ["2.0×", "50 %"]);
        // Against the fastest single process (parquet's 1.0 s), not any single process.
        assert_eq!(row("py-dask-parquet", "4")[7], "2.0×");
        // Fetched ÷ needed where the store counted and the files say; the cluster's start,
        // apart from its time.
        assert_eq!(row("py-dask-parquet", "2")[9..11], ["1.5×", "500 ms"]);
        assert_eq!(row("py-dask-parquet", "1")[9], DASH);
        let single = rows.last().unwrap_or_else(|| panic!("rows"));
        assert_eq!(single[0], "parquet (fastest single process)");
        assert_eq!(single[9..11], [DASH, DASH]);
        assert!(!rows.iter().any(|r| r[0].starts_with("py-pyarrow-parquet")));
    }

    #[test]
    fn over_several_sizes_the_crossover_table_says_where_the_cluster_overtakes_one_process() {
        // The cluster is 4× the single process at 10k rows and a quarter at 1M; with its
        // 1 s start added, 14× and 0.35×.
        let mut records = records_of(
            "mixed-10000x7",
            &[
                ("py-dask-parquet", Some(2), [0.4; 3]),
                ("parquet", None, [0.1; 3]),
            ],
        );
        records.extend(records_of(
            "mixed-1000000x7",
            &[
                ("py-dask-parquet", Some(2), [2.5; 3]),
                ("parquet", None, [10.0; 3]),
            ],
        ));
        for record in &mut records {
            if let Record::Sample(s) = record {
                s.cluster_start_s = s.cell.executors.map(|_| 1.0);
            }
        }
        let tables = tables(&crate::stats::summarize_run(&records));
        let crossover = tables
            .iter()
            .find(|t| t.title.contains("by size"))
            .unwrap_or_else(|| panic!("no crossover table"));
        assert_eq!(crossover.rows.len(), 1);
        let row = &crossover.rows[0];
        assert_eq!(row[..2], ["py-dask-parquet", "2"]);
        assert_eq!(row[2..5], ["4.0×", "0.25×", "~100,000 rows"]);
        assert_eq!(row[5..7], ["14×", "0.35×"]);
        assert!(row[7].starts_with('~') && row[7] != row[4], "{row:?}");
    }

    #[test]
    fn each_partitioning_of_the_shared_files_gets_its_own_table_and_single_process() {
        let own = records(&[
            ("py-dask-parquet", Some(1), [4.0; 3]),
            ("parquet", None, [1.0; 3]),
        ]);
        let mut shared = records(&[
            ("py-dask-parquet", Some(1), [2.0; 3]),
            ("parquet", None, [0.5; 3]),
            ("py-pyarrow-parquet", None, [0.25; 3]),
            ("parquet", None, [0.1; 3]),
        ]);
        // The last one: native parquet's compact point, files of its own.
        let compact = shared.len() - 4..shared.len();
        for (i, record) in shared.iter_mut().enumerate() {
            if compact.contains(&i) {
                match record {
                    Record::Sample(s) => s.cell.profile = "compact".into(),
                    Record::Verification(v) => v.cell.profile = "compact".into(),
                    _ => {}
                }
            }
            match record {
                Record::Sample(s) => {
                    s.cell.parquet_files = Some(16);
                    s.cell.row_group_rows = Some(10_000);
                }
                Record::Verification(v) => {
                    v.cell.parquet_files = Some(16);
                    v.cell.row_group_rows = Some(10_000);
                }
                _ => {}
            }
        }
        // The shared files' cells first in the file: the own files' table still leads.
        shared.extend(own);
        let tables = tables(&crate::stats::summarize_run(&shared));
        let titles: Vec<&String> = tables.iter().map(|t| &t.title).collect();
        assert_eq!(tables.len(), 2, "{titles:?}");
        assert!(tables[0].title.contains("each reader's own files"));
        assert!(tables[1]
            .title
            .contains("the shared Parquet files: 16 files, 10k rows/group"));
        // Each table against the fastest single process reading the same files.
        assert_eq!(tables[0].rows[0][7], "4.0×");
        assert_eq!(tables[1].rows[0][7], "8.0×");
        assert_eq!(
            tables[1].rows[1][0],
            "py-pyarrow-parquet (fastest single process)"
        );
    }

    #[test]
    fn no_table_without_a_cluster_peer() {
        let summary = crate::stats::summarize_run(&records(&[("parquet", None, [1.0, 1.0, 1.0])]));
        assert!(tables(&summary).is_empty());
    }
}
