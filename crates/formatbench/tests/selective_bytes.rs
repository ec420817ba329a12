#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Selective reads shown in bytes (issue 44, item 2), through the real runner: every sample
//! whose method says it pruned reads fewer bytes than its competitor's full read — the bytes
//! it asked for (recorded for every sample, whatever the page cache held) and, where the file
//! system counts them, the bytes a cold read fetched — and the report shows each selective
//! operation's bytes beside the full read's. The worker's own test
//! (formatbench-worker-arrow/tests/selective_reads.rs) holds the readers to their fractions on
//! files of 20 row groups and 20 record batches; here the files are the backends' own writes.

mod common;

use common::{formatbench, run_dir, samples, stderr};
use formatbench::results::{SampleRecord, SampleStatus};
use std::fmt::Write as _;

/// 300,000 rows: five source batches of 64 Ki rows (five IPC blocks), fifteen Parquet pages
/// a column, so the middle quarter leaves blocks and pages unread.
const ROWS: u64 = 300_000;

fn input(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::from("id,x,n,s\n");
    for row in 0..ROWS {
        let mixed = row.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let _ = writeln!(
            text,
            "{row},{}.{},{},w{:x}",
            mixed % 1000,
            mixed % 997,
            mixed >> 20,
            mixed >> 40
        );
    }
    let path = dir.join("events.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn bytes(s: &SampleRecord) -> (u64, u64) {
    let calls = s.calls.unwrap_or(1).max(1);
    (
        s.requested_bytes.expect("requested bytes recorded") / calls,
        s.read_bytes.expect("read bytes recorded") / calls,
    )
}

#[test]
fn a_method_that_says_pruned_reads_fewer_bytes_than_a_full_read() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let csv = input(dir.path());
    let out = dir.path().join("out");
    let result = formatbench(&[
        "run",
        "--input",
        csv.to_str().unwrap(),
        "--index",
        "id",
        "--ops",
        "read,project,range,take",
        "--backends",
        "parquet,ipc,ipc-mmap",
        "--profiles",
        "default",
        "--cache",
        "cold",
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let run = run_dir(&out);
    let all = samples(&run);
    let full = |s: &SampleRecord| {
        all.iter()
            .find(|f| f.cell.op == "read" && f.cell.backend == s.cell.backend)
            .unwrap_or_else(|| panic!("a full read of {}", s.cell.backend))
    };
    let mut pruned = Vec::new();
    for s in &all {
        assert_eq!(s.status, SampleStatus::Ok, "{:?}", s.reason);
        let method = s.method.as_deref().unwrap_or_default();
        if s.cell.op == "read" || !method.contains("pruned") {
            continue;
        }
        pruned.push(format!("{}/{}", s.cell.backend, s.cell.op));
        let ((asked, fetched), (full_asked, full_fetched)) = (bytes(s), bytes(full(s)));
        // A mapped read asks for nothing through read calls: its bytes are the faults' alone.
        if !method.starts_with("mmap") {
            assert!(
                asked < full_asked,
                "{} {}: asked {asked} bytes, a full read {full_asked} ({method})",
                s.cell.backend,
                s.cell.op
            );
        }
        if full_fetched > 0 {
            assert!(
                fetched < full_fetched,
                "{} {}: fetched {fetched} bytes cold, a full read {full_fetched} ({method})",
                s.cell.backend,
                s.cell.op
            );
        } else {
            eprintln!("skipped the cold read_bytes check: this file system reports none");
        }
    }
    for claim in ["parquet/range", "ipc/range", "ipc-mmap/range"] {
        assert!(
            pruned.iter().any(|p| p == claim),
            "{claim} pruned: {pruned:?}"
        );
    }
    // The report shows a selective operation's bytes beside the full read's.
    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("Bytes asked"), "{report}");
    let range_row = report
        .lines()
        .find(|l| l.starts_with("| parquet") && l.contains(" of ") && l.contains("pruned"))
        .unwrap_or_else(|| panic!("a parquet range row with bytes of a full read:\n{report}"));
    assert!(range_row.contains("B of "), "{range_row}");
}
