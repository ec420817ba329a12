use super::tables;
use crate::report::fixture::{group_of, small, Competitor};
use crate::stats::{OpGroup, RunSummary};

#[test]
fn a_backend_whose_rank_moves_with_its_profile_is_named() {
    // The fixture's parquet runs as snappy and zstd: 2nd then 3rd on write and read, smallest
    // under both.
    let tables = tables(&small("balanced"));
    assert_eq!(tables.len(), 1);
    let table = &tables[0];
    assert_eq!(
        table.title,
        "mixed-100000x10: does each backend's rank hold under every profile?"
    );
    assert_eq!(
        table.rows,
        vec![vec![
            "parquet",
            "default",
            "snappy, zstd",
            "2 / 3",
            "2 / 3",
            "—",
            "1 / 1",
            "no"
        ]]
    );
}

/// One operation of a two-layout run: `competitors` in `layout`.
fn in_layout(competitors: &[Competitor], op: &str, cache: &str, layout: &str) -> OpGroup {
    let mut group = group_of(competitors, "features-2000x1028", op, cache, 1.0);
    for cell in &mut group.cells {
        cell.cell.layout = layout.into();
    }
    group
}

#[test]
fn array_over_wide_is_checked_under_each_profile() {
    let wide: [Competitor; 3] = [
        ("lance", "default", 100.0, 1.0, 0.10, 1.0),
        ("lance", "zstd", 50.0, 1.2, 0.20, 1.0),
        ("npy", "default", 80.0, 0.1, 0.01, 1.0),
    ];
    // Array reads are faster under both profiles; array writes faster under one only.
    let array: [Competitor; 3] = [
        ("lance", "default", 90.0, 0.5, 0.05, 1.0),
        ("lance", "zstd", 45.0, 1.8, 0.10, 1.0),
        ("npy", "default", 80.0, 0.1, 0.01, 1.0),
    ];
    let mut groups = Vec::new();
    for (op, cache) in [("write", "n/a"), ("read", "warm")] {
        let mut group = in_layout(&wide, op, cache, "wide");
        group
            .cells
            .extend(in_layout(&array, op, cache, "array").cells);
        groups.push(group);
    }
    let summary = RunSummary {
        groups,
        ..RunSummary::default()
    };
    let tables = tables(&summary);
    let sides = tables.last().unwrap();
    assert!(
        sides.title.contains("array ÷ wide stay on one side"),
        "{}",
        sides.title
    );
    let row = |metric: &str| {
        sides
            .rows
            .iter()
            .find(|r| r[1] == metric)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        row("read"),
        ["lance", "read", "default, zstd", "0.50× / 0.50×", "yes"]
    );
    assert_eq!(
        row("write"),
        ["lance", "write", "default, zstd", "0.50× / 1.5×", "no"]
    );
    assert_eq!(
        row("size"),
        ["lance", "size", "default, zstd", "0.90× / 0.90×", "yes"]
    );
}

#[test]
fn the_encodings_each_file_holds_are_listed() {
    let tables = tables(&crate::report::fixture::fixture());
    let encodings = tables
        .iter()
        .find(|t| {
            t.title
                .ends_with("encodings written, read back from each file")
        })
        .expect("an encodings table");
    // The parquet artifact reports its encodings; the IPC one has none to report.
    assert_eq!(
        encodings.rows,
        vec![vec!["parquet", "zstd", "default", "ZSTD(3)", "PLAIN RLE"]]
    );
}
