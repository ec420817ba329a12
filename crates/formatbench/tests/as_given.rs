#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The user's file as a competitor (issue 44, item 1): `--input FILE` measures the file as it
//! is (`as-given`, read in place, never written) beside its re-encodings, with its row groups,
//! page index and batches in the results and the report. Its cold selective reads fetch only
//! what they need: a quarter of the rows by index, and 128 rows by position. The files are
//! built here: 1M rows in 20 row groups with a page index of 256-row pages (Parquet), and the
//! same rows in 20 record batches (Arrow IPC).

mod common;

use arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use common::{run_dir, samples, stderr};
use formatbench::results::{read_records, ArtifactRecord, Record, SampleRecord, SampleStatus};
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ROWS: i64 = 1_000_000;
const PARTS: i64 = 20;
/// Rows per Parquet data page: small enough that 128 rows touch a few percent of the pages
/// (2 KiB of plain 8-byte values: a 4 KiB page of the OS holds one or two of them).
const PAGE_ROWS: usize = 256;

fn part(index: i64) -> RecordBatch {
    let rows = ROWS / PARTS;
    let ids: Vec<i64> = (index * rows..(index + 1) * rows).collect();
    let mixed = |id: &i64| (*id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids.clone())),
        Arc::new(Float64Array::from_iter_values(
            ids.iter().map(|i| (mixed(i) % 100_000) as f64 / 7.0),
        )),
        Arc::new(Int64Array::from_iter_values(
            ids.iter().map(|i| (mixed(i) >> 24) as i64),
        )),
        Arc::new(StringArray::from_iter_values(
            ids.iter().map(|i| format!("w{:x}", mixed(i) >> 44)),
        )),
    ];
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("x", DataType::Float64, false),
        Field::new("n", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
    ]);
    RecordBatch::try_new(Arc::new(schema), columns).unwrap()
}

fn parquet_file(dir: &Path) -> PathBuf {
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    let path = dir.join("events.parquet");
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some((ROWS / PARTS) as usize))
        .set_data_page_row_count_limit(PAGE_ROWS)
        .set_write_batch_size(PAGE_ROWS)
        // Dictionary pages are read whole by every row group a take touches: with ~50,000
        // distinct values a group they hold most of the file (87 % fetched for 128 rows).
        .set_dictionary_enabled(false)
        .build();
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = ArrowWriter::try_new(file, part(0).schema(), Some(props)).unwrap();
    for i in 0..PARTS {
        writer.write(&part(i)).unwrap();
        // A row group per part, whatever the writer's own limit.
        writer.flush().unwrap();
    }
    writer.close().unwrap();
    path
}

fn ipc_file(dir: &Path) -> PathBuf {
    let path = dir.join("events.arrow");
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = arrow::ipc::writer::FileWriter::try_new(file, &part(0).schema()).unwrap();
    for i in 0..PARTS {
        writer.write(&part(i)).unwrap();
    }
    writer.finish().unwrap();
    path
}

/// Runs `--input FILE --index id` with a cold cache and one sample a cell; the run directory.
fn run(input: &Path, backends: &str, out: &Path) -> PathBuf {
    let args = [
        "--index",
        "id",
        "--ops",
        "read,range,take",
        "--cache",
        "cold",
    ];
    let result =
        common::one_sample_of(input, &[&args[..], &["--backends", backends]].concat(), out);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    run_dir(out)
}

fn given_artifact(run: &Path, backend: &str) -> ArtifactRecord {
    read_records(&run.join("results.jsonl"))
        .unwrap()
        .into_iter()
        .find_map(|r| match r {
            Record::Artifact(a) if a.backend == backend && a.profile == "as-given" => Some(a),
            _ => None,
        })
        .unwrap_or_else(|| panic!("an as-given artifact of {backend}"))
}

/// The as-given sample of `backend` and `op`, verified, and the share of the file its cold
/// call fetched from storage.
fn fetched_share(all: &[SampleRecord], backend: &str, op: &str, size: u64) -> f64 {
    let sample = all
        .iter()
        .find(|s| s.cell.backend == backend && s.cell.profile == "as-given" && s.cell.op == op)
        .unwrap_or_else(|| panic!("an as-given {op} sample of {backend}"));
    assert_eq!(sample.status, SampleStatus::Ok, "{sample:?}");
    let read = sample.read_bytes.expect("cold reads count their bytes") as f64;
    let share = read / sample.calls.unwrap_or(1).max(1) as f64 / size as f64;
    println!(
        "{backend} as-given {op}: {:.1} % of the file",
        share * 100.0
    );
    assert!(share > 0.0, "{backend} {op}: a cold read fetched nothing");
    share
}

fn digest(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    let bytes = std::fs::read(path).unwrap();
    let modified = std::fs::metadata(path).unwrap().modified().unwrap();
    (bytes, modified)
}

#[test]
fn a_parquet_file_is_measured_as_given_beside_its_re_encodings() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let input = parquet_file(dir.path());
    let before = digest(&input);
    let run = run(&input, "parquet", &dir.path().join("out"));

    let artifact = given_artifact(&run, "parquet");
    println!("the file as described: {:?}", artifact.settings);
    assert_eq!(artifact.status, SampleStatus::Ok, "{artifact:?}");
    assert_eq!(artifact.settings["row_groups"], "20");
    assert_eq!(artifact.settings["row_group_rows"], "50,000");
    assert!(
        artifact.settings["page_index"].starts_with("offset index on every column chunk"),
        "{:?}",
        artifact.settings
    );
    let size = artifact.size_bytes.unwrap();
    assert_eq!(size, before.0.len() as u64);

    let all = samples(&run);
    // Writing is re-encoding: the file as given has no write cell; the profiles do.
    assert!(!all
        .iter()
        .any(|s| s.cell.profile == "as-given" && s.cell.op == "write"));
    for profile in ["default", "compact"] {
        assert!(all
            .iter()
            .any(|s| s.cell.profile == profile && s.cell.op == "range"));
    }
    assert!(fetched_share(&all, "parquet", "read", size) > 0.9);
    assert!(fetched_share(&all, "parquet", "range", size) <= 0.35);
    assert!(fetched_share(&all, "parquet", "take", size) <= 0.10);

    let report = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(report.contains("| parquet | as-given |"), "{report}");
    assert!(report.contains("row_groups=20"));
    assert_eq!(digest(&input), before, "the user's file is never written");
}

#[test]
fn an_ipc_file_is_measured_as_given_by_every_ipc_reader() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let input = ipc_file(dir.path());
    let before = digest(&input);
    let run = run(&input, "ipc,ipc-mmap,parquet", &dir.path().join("out"));

    let all = samples(&run);
    for backend in ["ipc", "ipc-mmap"] {
        let artifact = given_artifact(&run, backend);
        assert_eq!(artifact.settings["batches"], "20", "{artifact:?}");
        assert_eq!(artifact.settings["batch_rows"], "50,000");
        assert_eq!(artifact.settings["compression"], "uncompressed");
        let size = artifact.size_bytes.unwrap();
        assert!(fetched_share(&all, backend, "read", size) > 0.9);
        // Without per-block statistics the index column of every block is read first.
        assert!(fetched_share(&all, backend, "range", size) <= 0.6);
    }
    let size = given_artifact(&run, "ipc-mmap").size_bytes.unwrap();
    // A memory map faults in only the pages holding the 128 rows' values.
    assert!(fetched_share(&all, "ipc-mmap", "take", size) <= 0.10);
    // A Parquet reader has nothing to read as given in an IPC file: only its re-encodings.
    assert!(!all
        .iter()
        .any(|s| s.cell.backend == "parquet" && s.cell.profile == "as-given"));
    assert_eq!(digest(&input), before, "the user's file is never written");
}

#[test]
fn the_peers_read_the_users_file_as_given_too() {
    let peers = [
        "py-pyarrow-parquet",
        "py-polars-parquet",
        "py-pyarrow-feather",
        "py-pyarrow-feather-mmap",
        "py-polars-ipc",
        "py-pyarrow-csv",
        "py-pandas-csv",
        "py-polars-csv",
        "r-data.table",
        "r-vroom",
    ];
    if !peers.iter().all(|p| common::ready("peer", p)) {
        return;
    }
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let batch = part(0).slice(0, 2_000);
    let parquet = dir.path().join("small.parquet");
    let mut writer = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&parquet).unwrap(),
        batch.schema(),
        None,
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let ipc = dir.path().join("small.arrow");
    let mut writer = arrow::ipc::writer::FileWriter::try_new(
        std::fs::File::create(&ipc).unwrap(),
        &batch.schema(),
    )
    .unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    let csv = dir.path().join("small.csv");
    let mut writer = arrow::csv::WriterBuilder::new()
        .with_header(true)
        .build(std::fs::File::create(&csv).unwrap());
    writer.write(&batch).unwrap();
    drop(writer);

    for (input, format) in [(parquet, "parquet"), (ipc, "arrow-ipc"), (csv, "csv")] {
        let out = dir.path().join(format!("out-{format}"));
        let backends = peers.join(",");
        let args = [
            "--backends",
            &backends,
            "--profiles",
            "as-given",
            "--ops",
            "read,project",
        ];
        let result = common::one_sample_of(&input, &args, &out);
        assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
        let all = samples(&run_dir(&out));
        let readers: std::collections::BTreeSet<&str> =
            all.iter().map(|s| s.cell.backend.as_str()).collect();
        for s in &all {
            assert_eq!(s.cell.profile, "as-given");
            assert_eq!(s.status, SampleStatus::Ok, "{format}: {s:?}");
        }
        let expected = match format {
            "parquet" => 2,
            "arrow-ipc" => 3,
            _ => 5,
        };
        assert_eq!(readers.len(), expected, "{format}: {readers:?}");
    }
}
