use super::{crossings, studies, tables};
use crate::report::fixture::{group_of, Competitor};
use crate::results::{ArtifactRecord, SampleStatus};
use crate::stats::RunSummary;

const DATASET: &str = "mixed-100000x61";
const MIB: u64 = 1 << 20;

fn artifact(profile: &str, bytes: u64, access: &str) -> ArtifactRecord {
    ArtifactRecord {
        run_id: "run-1".into(),
        dataset: DATASET.into(),
        dataset_fingerprint: "fp".into(),
        backend: "ipc-parts".into(),
        profile: profile.into(),
        layout: "default".into(),
        row_group_rows: None,
        parquet_files: None,
        sort_by: None,
        status: SampleStatus::Ok,
        reason: None,
        size_bytes: Some(100 * MIB),
        bytes_per_value: None,
        settings: [
            ("partition_bytes".to_string(), bytes.to_string()),
            ("access".to_string(), access.to_string()),
        ]
        .into_iter()
        .collect(),
    }
}

/// ipc-parts at four partition sizes and with plain reads: writes and full reads cheaper with
/// larger partitions, label ranges dearer.
fn summary() -> RunSummary {
    // (profile, write, full read, range read) in seconds.
    let times = [
        ("8mib", 0.8, 0.2, 0.01),
        ("32mib", 0.5, 0.12, 0.02),
        ("default", 0.4, 0.1, 0.05),
        ("512mib", 0.4, 0.1, 0.2),
        ("no-mmap", 0.45, 0.3, 0.08),
    ];
    let mut groups = Vec::new();
    for op in ["write", "read", "range_between"] {
        let competitors: Vec<Competitor> = times
            .iter()
            .map(|(profile, write, read, range)| {
                let read = if op == "range_between" { *range } else { *read };
                ("ipc-parts", *profile, 100.0, *write, read, 100.0)
            })
            .collect();
        let cache = if op == "write" { "n/a" } else { "warm" };
        groups.push(group_of(&competitors, DATASET, op, cache, 1.0));
    }
    RunSummary {
        groups,
        artifacts: vec![
            artifact("8mib", 8 * MIB, "mmap, zero-copy decode"),
            artifact("32mib", 32 * MIB, "mmap, zero-copy decode"),
            artifact("default", 128 * MIB, "mmap, zero-copy decode"),
            artifact("512mib", 512 * MIB, "mmap, zero-copy decode"),
            artifact("no-mmap", 128 * MIB, "plain reads, then decoded"),
        ],
        ..RunSummary::default()
    }
}

#[test]
fn each_operation_is_placed_at_the_partition_size_its_write_used() {
    let summary = summary();
    let studies = studies(&summary);
    assert_eq!(studies.len(), 1);
    let study = &studies[0];
    // The plain-read profile shares 128 MiB with the default one, which stands for the size.
    let sizes: Vec<(u64, &str)> = study.sizes.iter().map(|(b, p)| (*b, p.as_str())).collect();
    assert_eq!(
        sizes,
        [
            (8 * MIB, "8mib"),
            (32 * MIB, "32mib"),
            (128 * MIB, "default"),
            (512 * MIB, "512mib")
        ]
    );
    let range = study
        .lines
        .iter()
        .find(|l| l.op == "range_between")
        .unwrap();
    assert_eq!(
        range.relative(),
        [Some(1.0), Some(2.0), Some(5.0), Some(20.0)]
    );
}

#[test]
fn a_selective_read_crosses_the_full_operations_where_their_relative_costs_meet() {
    let summary = summary();
    let study = &studies(&summary)[0];
    let found = crossings(study);
    // Against the write: relative costs 1 ÷ 2 at 8 MiB, 2 ÷ 1.25 at 32 MiB, so they cross in
    // between, at 8 MiB × 4^t with t = ln 2 ÷ (ln 2 + ln 1.6), interpolated on log axes.
    let t = 2f64.ln() / (2f64.ln() + 1.6f64.ln());
    let expected = (8.0 * 4f64.powf(t) * MIB as f64).round() as u64;
    let write = found
        .iter()
        .find(|(s, w, _, _)| s == "range_between" && w == "write")
        .unwrap();
    assert_eq!(write.2, expected);
    assert!(8 * MIB < write.2 && write.2 < 32 * MIB);
    // Below it the write pays the larger share (2 against 1), not the range read.
    assert!(!write.3);
    // Against the full read (2, 1.2, 1, 1): one crossing too, between 8 and 32 MiB.
    let read: Vec<_> = found.iter().filter(|(_, w, _, _)| w == "read").collect();
    assert_eq!(read.len(), 1);
}

#[test]
fn the_report_tables_show_sizes_crossings_and_what_the_memory_map_changes() {
    let tables = tables(&summary());
    let titles: Vec<&str> = tables.iter().map(|t| t.title.as_str()).collect();
    assert_eq!(tables.len(), 3, "{titles:?}");
    let sizes = &tables[0];
    assert_eq!(
        sizes.headers,
        [
            "operation",
            "8.00 MiB",
            "32.0 MiB",
            "128 MiB",
            "512 MiB",
            "best size",
            "largest ÷ smallest"
        ]
    );
    let write = sizes.rows.iter().find(|r| r[0] == "write").unwrap();
    assert_eq!(write[5], "128 MiB");
    assert_eq!(write[6], "0.50×");
    let mmap = &tables[2];
    assert!(
        mmap.title.contains("plain reads (no-mmap)"),
        "{}",
        mmap.title
    );
    let read = mmap.rows.iter().find(|r| r[0] == "read").unwrap();
    assert_eq!(read[3], "3.0×");
    // A run with one partition size has no study.
    let mut one = summary();
    one.artifacts.retain(|a| a.profile == "default");
    assert!(super::tables(&one).is_empty());
}
