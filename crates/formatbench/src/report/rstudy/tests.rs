use super::tables;
use crate::report::fixture::{group_of, Competitor};
use crate::stats::RunSummary;

const DATASET: &str = "long-5000000x12";

/// (backend, profile, size MiB, write s, read s, peak MiB): Feather reads fastest and Parquet
/// 2.5× behind it by both routes, RDS gzip is last on both operations, vroom writes in the
/// slowest quarter, and the sizes fall in the study's three groups.
const RUN: [Competitor; 11] = [
    ("py-pyarrow-feather", "default", 200.0, 0.5, 0.10, 100.0),
    ("ipc", "default", 210.0, 0.4, 0.08, 100.0),
    ("py-pyarrow-parquet", "default", 60.0, 1.2, 0.25, 100.0),
    ("parquet", "default", 70.0, 1.0, 0.20, 100.0),
    ("r-data.table", "default", 300.0, 1.5, 1.20, 100.0),
    ("r-data.table", "yaml", 300.0, 1.5, 1.25, 100.0),
    ("r-vroom", "default", 300.0, 2.0, 0.60, 100.0),
    ("r-rds", "default", 55.0, 12.0, 3.00, 100.0),
    ("r-rds", "uncompressed", 250.0, 2.5, 1.50, 100.0),
    ("py-pyarrow-csv", "default", 320.0, 1.1, 0.40, 100.0),
    ("py-duckdb", "default", 150.0, 1.3, 0.50, 100.0),
];

fn summary(dataset: &str, competitors: &[Competitor]) -> RunSummary {
    RunSummary {
        groups: vec![
            group_of(competitors, dataset, "write", "n/a", 1.0),
            group_of(competitors, dataset, "read", "warm", 1.0),
        ],
        ..RunSummary::default()
    }
}

/// The row whose conclusion starts with `start`: (here, holds).
fn row(summary: &RunSummary, start: &str) -> (String, String) {
    let tables = tables(summary);
    let row = tables[0]
        .rows
        .iter()
        .find(|r| r[0].starts_with(start))
        .unwrap_or_else(|| panic!("no row {start}"));
    (row[2].clone(), row[3].clone())
}

#[test]
fn each_conclusion_is_checked_against_the_run() {
    let summary = summary(DATASET, &RUN);
    let tables = tables(&summary);
    let table = &tables[0];
    assert!(
        table.title.starts_with("long-5000000x12: seed 001"),
        "{}",
        table.title
    );
    assert_eq!(table.rows.len(), 7);
    let (here, holds) = row(&summary, "read: feather is the clear winner");
    assert!(here.starts_with("fastest: ipc/default"), "{here}");
    assert_eq!(holds, "yes");
    let (here, holds) = row(&summary, "read: arrow-parquet");
    assert!(
        here.contains("py-pyarrow-parquet ÷ py-pyarrow-feather 2.5×"),
        "{here}"
    );
    assert!(here.contains("parquet ÷ ipc 2.5×"), "{here}");
    assert_eq!(holds, "yes");
    let (here, holds) = row(&summary, "write: qs, fst and feather");
    assert!(
        here.contains("r-data.table/default ÷ ipc/default 3.8×"),
        "{here}"
    );
    assert_eq!(holds, "yes");
    let (here, holds) = row(&summary, "read: data.table's yaml");
    assert_eq!(
        (here.as_str(), holds.as_str()),
        ("yaml ÷ default 1.04×", "yes")
    );
    let (here, holds) = row(&summary, "rds is the slowest");
    assert!(
        here.contains("read: rds 11th of 11, 38× feather's"),
        "{here}"
    );
    assert!(here.contains("write: rds 11th of 11"), "{here}");
    assert_eq!(holds, "yes");
    // vroom writes 9th of 11: in the slowest quarter, not the middle.
    let (here, holds) = row(&summary, "duckdb and vroom");
    assert!(here.contains("write: r-vroom 9th of 11"), "{here}");
    assert_eq!(holds, "no");
    let (here, holds) = row(&summary, "sizes: three groups");
    assert!(here.starts_with("group 1: rds (r-rds) 55.0 MiB"), "{here}");
    assert_eq!(holds, "yes");
}

#[test]
fn a_slower_feather_or_a_missing_route_says_so() {
    let mut run = RUN;
    // Parquet now reads fastest by formatbench's route.
    run[3].4 = 0.05;
    let summary = summary(DATASET, &run);
    assert_eq!(row(&summary, "read: feather is the clear winner").1, "no");
    assert_eq!(row(&summary, "read: arrow-parquet").1, "no");
    // No data.table yaml profile ran: a dash, not a verdict.
    let without_yaml: Vec<Competitor> = RUN.iter().copied().filter(|c| c.1 != "yaml").collect();
    let summary = self::summary(DATASET, &without_yaml);
    let (here, holds) = row(&summary, "read: data.table's yaml");
    assert_eq!((here.as_str(), holds.as_str()), ("—", "—"));
}

#[test]
fn only_the_largest_long_table_with_two_formats_gets_the_table() {
    let mut two = summary("long-100000x12", &RUN);
    two.groups.extend(summary(DATASET, &RUN).groups);
    let tables = tables(&two);
    assert_eq!(tables.len(), 1);
    assert!(tables[0].title.starts_with(DATASET));
    // Another table, or one format only: no table.
    assert!(tables_of(&summary("mixed-100000x61", &RUN)).is_empty());
    assert!(tables_of(&summary(DATASET, &RUN[..1])).is_empty());
}

fn tables_of(summary: &RunSummary) -> Vec<crate::report::layouts::Table> {
    tables(summary)
}
