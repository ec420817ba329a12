//! The Scale-out tables from hand-made samples.

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
                executors: *executors,
                ..CellKey::example(backend)
            };
            (key, walls.as_slice())
        })
        .collect();
    crate::report::fixture::verified_samples(&keyed)
}

/// Backend → format, as a run's environment records them.
fn formats(pairs: &[(&str, &str)]) -> Formats {
    pairs
        .iter()
        .map(|(b, f)| (b.to_string(), f.to_string()))
        .collect()
}

fn crossover_of(tables: &[Table]) -> &Table {
    tables
        .iter()
        .find(|t| t.title.contains("by size"))
        .unwrap_or_else(|| panic!("no crossover table"))
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
    let crossover = crossover_of(&tables);
    assert_eq!(crossover.rows.len(), 1);
    let row = &crossover.rows[0];
    assert_eq!(row[..2], ["py-dask-parquet", "2"]);
    assert_eq!(row[2..5], ["4.0×", "0.25×", "~100,000 rows"]);
    assert_eq!(row[5..7], ["14×", "0.35×"]);
    assert!(row[7].starts_with('~') && row[7] != row[4], "{row:?}");
}

#[test]
fn the_crossover_is_against_one_process_of_the_clusters_format() {
    let mut records = Vec::new();
    for (dataset, cluster, csv) in [("mixed-10000x7", 0.4, 0.1), ("mixed-1000000x7", 2.5, 10.0)] {
        records.extend(records_of(
            dataset,
            &[
                ("py-dask-csv", Some(2), [cluster; 3]),
                ("csv", None, [csv; 3]),
                // Faster than both at every size, but another format.
                ("parquet", None, [0.05; 3]),
            ],
        ));
    }
    let mut summary = crate::stats::summarize_run(&records);
    summary.formats = formats(&[
        ("py-dask-csv", "csv"),
        ("csv", "csv"),
        ("parquet", "parquet"),
    ]);
    let tables = tables(&summary);
    let crossover = crossover_of(&tables);
    assert_eq!(crossover.rows[0][2..5], ["4.0×", "0.25×", "~100,000 rows"]);
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
fn each_cluster_is_held_to_the_fastest_single_process_of_its_own_format() {
    let records = records(&[
        ("py-dask-csv", Some(1), [8.0; 3]),
        ("py-dask-parquet", Some(1), [3.0; 3]),
        ("py-dask-lance", Some(1), [5.0; 3]),
        ("csv", None, [2.0; 3]),
        ("py-pyarrow-csv", None, [4.0; 3]),
        ("parquet", None, [1.5; 3]),
        ("py-duckdb", None, [0.5; 3]),
    ]);
    let mut summary = crate::stats::summarize_run(&records);
    summary.formats = formats(&[
        ("py-dask-csv", "csv"),
        ("py-dask-parquet", "parquet"),
        ("py-dask-lance", "lance"),
        ("csv", "csv"),
        ("py-pyarrow-csv", "csv"),
        ("parquet", "parquet"),
        ("py-duckdb", "duckdb"),
    ]);
    let tables = tables(&summary);
    let rows = &tables[0].rows;
    let ratio = |backend: &str| {
        rows.iter()
            .find(|r| r[0] == backend)
            .map(|r| r[7].clone())
            .unwrap_or_else(|| panic!("no row {backend}: {rows:?}"))
    };
    // CSV against `csv` (2 s), not DuckDB's 0.5 s; Parquet against `parquet`; no single
    // process read Lance, so no ratio.
    assert_eq!(ratio("py-dask-csv"), "4.0×");
    assert_eq!(ratio("py-dask-parquet"), "2.0×");
    assert_eq!(ratio("py-dask-lance"), DASH);
    let singles: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r[1] == DASH)
        .map(|r| (r[0].as_str(), r[7].as_str()))
        .collect();
    assert_eq!(
        singles,
        [
            ("csv (fastest single process of csv)", "1.00×"),
            ("parquet (fastest single process of parquet)", "1.00×"),
            ("py-duckdb (fastest single process of any format)", DASH),
        ]
    );
    assert!(tables[0].legend.contains("of the same format"));
}

#[test]
fn no_table_without_a_cluster_peer() {
    let summary = crate::stats::summarize_run(&records(&[("parquet", None, [1.0, 1.0, 1.0])]));
    assert!(tables(&summary).is_empty());
}
