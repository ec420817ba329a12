use super::*;
use crate::results::{Record, SampleRecord, SampleStatus, VerificationRecord};
use crate::stats::fixtures::key;

/// Verified samples of each `(backend, [(wall, cpu)] by round)`, ten calls a sample reading
/// 1,000 bytes in all.
fn records(cells: &[(&str, &[(f64, f64)])]) -> Vec<Record> {
    let mut out = Vec::new();
    for (backend, rounds) in cells {
        out.push(Record::Verification(VerificationRecord {
            run_id: "run".into(),
            cell: key(backend),
            status: SampleStatus::Ok,
            reason: None,
            digest: None,
            rows: Some(10),
            representation: Vec::new(),
            float_tolerance: None,
            other_widths: false,
            independent_check: None,
            engine_digest: None,
        }));
        for (round, (wall, cpu)) in (1..).zip(rounds.iter()) {
            let mut s =
                SampleRecord::bare("run", key(backend), Some(round), SampleStatus::Ok, None);
            s.wall_s = Some(*wall);
            s.cpu_user_s = Some(*cpu);
            s.cpu_sys_s = Some(0.0);
            s.calls = Some(10);
            s.read_bytes = Some(1_000);
            out.push(Record::Sample(Box::new(s)));
        }
    }
    out
}

#[test]
fn a_cpu_reading_of_zero_is_below_the_clock_not_a_nanosecond() {
    // R's clock ticks in milliseconds: a fast call reads 0 CPU seconds. Taken as 1e-9 s it made
    // `cpu×` millions; it is said instead, and ratios come from the rounds that have CPU time.
    let summary = summarize_run(&records(&[
        ("fast", &[(0.010, 0.0), (0.011, 0.0), (0.010, 0.0)]),
        ("slow", &[(0.020, 0.02), (0.022, 0.02), (0.021, 0.02)]),
    ]));
    let cells = &summary.groups[0].cells;
    let fast = cells.iter().find(|c| c.cell.backend == "fast").unwrap();
    let slow = cells.iter().find(|c| c.cell.backend == "slow").unwrap();
    assert!(fast
        .flags
        .iter()
        .any(|f| f.contains("below the clock's resolution in 3 of 3")));
    assert!(fast.cpu_rounds.is_empty());
    assert!(
        slow.cpu_ratio.is_none(),
        "no CPU ratio against readings of 0"
    );
}

#[test]
fn bytes_read_are_per_call_like_times() {
    let summary = summarize_run(&records(&[("a", &[(0.01, 0.01), (0.01, 0.01)])]));
    assert_eq!(summary.groups[0].cells[0].read_bytes, Some(100));
}

#[test]
fn the_listed_best_is_never_beaten_in_its_own_table() {
    // The rounds: A has the lower median, B the lower paired estimate.
    let summary = summarize_run(&records(&[
        ("a", &[(1.0, 1.0), (1.5, 1.5), (2.0, 2.0)]),
        ("b", &[(1.6, 1.6), (1.4, 1.4), (1.9, 1.9)]),
    ]));
    let cells = &summary.groups[0].cells;
    assert_eq!(cells[0].ratio_to_best, Some(1.0));
    assert!(
        cells.iter().all(|c| c.ratio_to_best.unwrap_or(0.0) >= 1.0),
        "{:?}",
        cells
            .iter()
            .map(|c| (&c.cell.backend, c.ratio_to_best))
            .collect::<Vec<_>>()
    );
}

#[test]
fn parallelism_is_the_ranked_calls() {
    // A first call on one core, warm calls on two: the warm ranking shows 2, the first 1.
    let mut records = records(&[("a", &[(0.01, 0.02), (0.01, 0.02)])]);
    for record in &mut records {
        if let Record::Sample(s) = record {
            s.first_call_s = Some(0.04);
            s.first_call_cpu_s = Some(0.04);
            s.warm_call_s = Some(0.01);
            s.warm_call_cpu_s = Some(0.02);
            s.parallelism = Some(1.1);
        }
    }
    let warm = summarize_run_as(&records, Some(CallMode::Warm));
    assert_eq!(warm.groups[0].cells[0].parallelism, Some(2.0));
    let first = summarize_run_as(&records, Some(CallMode::First));
    assert_eq!(first.groups[0].cells[0].parallelism, Some(1.0));
}

#[test]
fn a_sample_a_resume_took_again_replaces_the_failed_one() {
    // Round 2 failed (its store stopped answering), and the resume's record of it came after.
    let mut records = records(&[("a", &[(0.01, 0.01), (0.01, 0.01), (0.01, 0.01)])]);
    let failed = records
        .iter()
        .position(|r| matches!(r, Record::Sample(s) if s.round == Some(2)));
    let retaken = match failed.map(|i| records[i].clone()) {
        Some(Record::Sample(mut s)) => {
            s.wall_s = Some(0.03);
            Record::Sample(s)
        }
        _ => unreachable!("round 2 is recorded"),
    };
    if let Some(Record::Sample(s)) = failed.map(|i| &mut records[i]) {
        s.status = SampleStatus::Failed;
        s.store_unreachable = true;
    }
    let before = summarize_run(&records);
    assert_eq!(before.groups[0].cells[0].status, SampleStatus::Failed);
    records.push(retaken);
    let after = summarize_run(&records);
    let cell = &after.groups[0].cells[0];
    assert_eq!((cell.status, cell.failed_samples), (SampleStatus::Ok, 0));
    assert_eq!(cell.rounds.len(), 3);
    assert_eq!(cell.rounds.get(&2), Some(&0.03));
}

/// A selective operation's cell carries its competitor's full read (`stats::full_read`).
#[test]
fn a_range_cell_carries_its_competitors_full_read() {
    let mut records = Vec::new();
    // The same reader of 3 shared files and of 1 is another competitor: its own full read.
    for (op, backend, files, bytes) in [
        ("read", "parquet", None, 1_000),
        ("range", "parquet", None, 250),
        ("read", "ipc", None, 4_000),
        ("range", "ipc", None, 3_000),
        ("read", "py-dask-parquet", Some(3), 5_000),
        ("range", "py-dask-parquet", Some(3), 600),
        ("read", "py-dask-parquet", Some(1), 7_000),
        ("range", "py-dask-parquet", Some(1), 700),
    ] {
        let mut cell = key(backend);
        cell.op = op.into();
        cell.cache = "cold".into();
        cell.parquet_files = files;
        let mut s = SampleRecord::bare("run", cell, Some(1), SampleStatus::Ok, None);
        s.wall_s = Some(0.01);
        s.calls = Some(1);
        s.read_bytes = Some(bytes);
        s.requested_bytes = Some(bytes * 2);
        records.push(Record::Sample(Box::new(s)));
    }
    let summary = summarize_run(&records);
    let range = summary.groups.iter().find(|g| g.op == "range").unwrap();
    let full_of = |backend: &str, files: Option<u64>| {
        range
            .cells
            .iter()
            .find(|c| c.cell.backend == backend && c.cell.parquet_files == files)
            .and_then(|c| c.full_read)
            .unwrap()
    };
    let full = |backend: &str| full_of(backend, None);
    assert_eq!(full("parquet").read_bytes, Some(1_000));
    assert_eq!(full("parquet").requested_bytes, Some(2_000));
    assert_eq!(full("ipc").read_bytes, Some(4_000));
    assert_eq!(full_of("py-dask-parquet", Some(3)).read_bytes, Some(5_000));
    assert_eq!(full_of("py-dask-parquet", Some(1)).read_bytes, Some(7_000));
    let read = summary.groups.iter().find(|g| g.op == "read").unwrap();
    assert!(read.cells.iter().all(|c| c.full_read.is_none()));
}

#[test]
fn throughput_is_the_sources_bytes_for_whole_reads_and_the_rows_handled() {
    let source = crate::results::DatasetRecord {
        run_id: "run".into(),
        dataset: "d".into(),
        dataset_fingerprint: "xxh3:0".into(),
        rows: 1_000,
        columns: 2,
        source_bytes: 8_000_000,
        parameters: Default::default(),
        schema: Vec::new(),
    };
    let mut records = records(&[("a", &[(0.5, 0.5), (0.5, 0.5)])]);
    records.insert(0, Record::Dataset(source.clone()));
    for r in &mut records {
        if let Record::Sample(s) = r {
            s.rows_returned = Some(1_000);
        }
    }
    let read = summarize_run(&records).groups[0].cells[0].clone();
    let t = read.throughput.unwrap();
    // 8 MB in 0.5 s, and the 1,000 rows it returned.
    assert_eq!(t.bytes_per_s, Some(16e6));
    assert_eq!(t.rows_per_s, Some(2_000.0));
    assert_eq!(t.text(), "16.0 MB/s · 2.00 k rows/s");
    // A projection handles part of the source: rows only, those it returned.
    let mut project = read.clone();
    project.cell.op = "project".into();
    project.rows_returned = Some(250);
    let t = throughput(&project, Some(&source)).unwrap();
    assert_eq!((t.bytes_per_s, t.rows_per_s), (None, Some(500.0)));
    // A write returns nothing: the source's rows and bytes.
    let mut write = read;
    write.cell.op = "write".into();
    write.rows_returned = None;
    let t = throughput(&write, Some(&source)).unwrap();
    assert_eq!((t.bytes_per_s, t.rows_per_s), (Some(16e6), Some(2_000.0)));
}
