#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Every native backend round-trips every operation it claims, checked by the verifier against
//! the source. Jobs run in-process here (the worker's own entry point); process isolation is
//! tested in runner.rs.

mod common;

use arrow::array::{ArrayRef, Float64Array, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema};
use formatbench::datasets::Source;
use formatbench::plan::OpInputs;
use formatbench::verify::{verify_output, Leeway, RowOrder};
use formatbench_protocol::Answer;
use formatbench_protocol::{AnswerStatus, Job, Op, PROTOCOL_VERSION};
use formatbench_worker_arrow::backends::NativeBackend;
use formatbench_worker_arrow::{execute, BACKENDS};
// The worked example of docs/adding-a-backend.md, compiled as it is written there (as a file
// of the built-in worker, whose `WorkerError` and `ARROW_VERSION` it names through `crate::`).
#[path = "../../../docs/adding-a-backend/ipc_stream.rs"]
mod ipc_stream;
#[allow(unused_imports)]
use formatbench_worker_arrow::{WorkerError, ARROW_VERSION};
use std::path::Path;
use std::sync::Arc;

#[allow(clippy::too_many_arguments)]
fn job(
    threads: u32,
    backend: &str,
    profile: &str,
    op: Op,
    source: &Source,
    artifact: &Path,
    dir: &Path,
    inputs: &OpInputs,
) -> Job {
    Job {
        protocol: PROTOCOL_VERSION,
        backend: backend.into(),
        profile: profile.into(),
        profile_settings: Default::default(),
        layout: "wide".into(),
        target: "arrow".into(),
        op,
        source: source.path.clone(),
        artifact: artifact.to_path_buf(),
        storage: None,
        answer: dir.join("answer.json"),
        verify_out: Some(dir.join(format!("{backend}-{profile}-{op}.arrow"))),
        source_text: None,
        params: inputs.params(op),
        threads,
        executors: None,
        executor_memory_bytes: None,
        cluster: None,
        partition_digest: None,
        prepare: false,
        verification: false,
        min_sample_s: 0.0,
        min_calls: 1,
        max_calls: 1,
    }
}

/// Runs every (profile, op) of every native backend that can store `source`; returns the cells
/// checked.
fn round_trip_all(source: &Source, dir: &Path, threads: u32) -> Vec<String> {
    round_trip(&BACKENDS, execute, source, dir, threads)
}

/// Runs every (profile, op) of each of `backends` that can store `source` through `run`.
fn round_trip(
    backends: &[&NativeBackend],
    run: impl Fn(&Job) -> Answer,
    source: &Source,
    dir: &Path,
    threads: u32,
) -> Vec<String> {
    std::fs::create_dir_all(dir).unwrap();
    let inputs = OpInputs::for_source(source, 42).unwrap();
    let mut checked = Vec::new();
    for backend in backends {
        if backend.can_store(&source.schema).is_err() {
            continue;
        }
        for profile in backend.profiles() {
            let artifact = dir.join(format!("{}-{profile}", backend.name()));
            let mut prepare = job(
                threads,
                backend.name(),
                profile,
                Op::Write,
                source,
                &artifact,
                dir,
                &inputs,
            );
            prepare.prepare = true;
            prepare.verify_out = None;
            let answer = run(&prepare);
            assert_eq!(
                answer.status,
                AnswerStatus::Ok,
                "{} {profile} prepare: {:?}",
                backend.name(),
                answer.reason
            );
            for &op in backend.ops() {
                // Label-addressed operations need an index; the runner refuses them otherwise.
                if inputs.store_refusal(op).is_some() {
                    continue;
                }
                let j = job(
                    threads,
                    backend.name(),
                    profile,
                    op,
                    source,
                    &artifact,
                    dir,
                    &inputs,
                );
                let write_dir = dir.join("write-sample");
                let j = if op == Op::Write {
                    Job {
                        artifact: write_dir.clone(),
                        ..j
                    }
                } else {
                    j
                };
                let answer = run(&j);
                let cell = format!("{}/{profile}/{op}", backend.name());
                if answer.status == AnswerStatus::Unsupported {
                    // Only a request the format cannot express natively may be refused.
                    assert!(
                        backend.name() == "npy" && op == Op::Range,
                        "{cell}: {:?}",
                        answer.reason
                    );
                    continue;
                }
                assert_eq!(
                    answer.status,
                    AnswerStatus::Ok,
                    "{cell}: {:?}",
                    answer.reason
                );
                assert!(answer.op_s > 0.0, "{cell}: timed");
                let leeway = Leeway {
                    float_tolerance: backend.lossy().then_some(1e-9),
                    other_widths: backend.lossy(),
                };
                let out = j.verify_out.clone().unwrap();
                let verdict =
                    verify_output(&source.path, op, &j.params, &out, leeway, RowOrder::Defined)
                        .unwrap();
                assert!(verdict.ok, "{cell}: {:?}", verdict.reason);
                // What every measured sample's result is checked by.
                let digest = formatbench::verify::digest::file_digest(
                    &out,
                    formatbench::verify::digest::Rows::Ordered,
                );
                assert!(digest.is_ok(), "{cell}: {digest:?}");
                let expected_rows = match op {
                    Op::Take => inputs.take.len() as u64,
                    Op::Range => 5 * source.rows / 8 - 3 * source.rows / 8,
                    Op::RangeBefore | Op::RangeAfter | Op::RangeBetween | Op::Labels => {
                        source.rows / 4
                    }
                    _ => source.rows,
                };
                assert_eq!(verdict.rows, expected_rows, "{cell}: rows");
                assert_eq!(answer.rows, Some(expected_rows), "{cell}: rows reported");
                checked.push(cell);
            }
        }
    }
    checked
}

#[test]
fn mixed_table_round_trips_through_every_backend_and_op() {
    let dir = tempfile::tempdir().unwrap();
    // 70,000 rows: more than one IPC block and CSV batch, so ranges and takes cross blocks.
    let source = common::mixed_source(&dir.path().join("src"), 70_000);
    // One thread, and three, so parallel decoding splits columns and rows unevenly.
    for threads in [1, 3] {
        let checked = round_trip_all(&source, &dir.path().join(format!("t{threads}")), threads);
        // csv 2×6 + parquet 2×6 + ipc 3×6 + ipc-mmap 5 + ipc-parts 5×13 (its partition sizes
        // and plain reads) + floor-memcpy 4; npy cannot store strings.
        assert_eq!(checked.len(), 116, "{threads} threads: {checked:?}");
    }
}

#[test]
fn all_float_table_round_trips_through_npy_and_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Float64, false),
        Field::new("b", DataType::Float64, false),
        Field::new("c", DataType::Float64, false),
    ]));
    let rows = 1_000;
    let column = |k: f64| -> ArrayRef {
        Arc::new(Float64Array::from_iter_values(
            (0..rows).map(|i| i as f64 * k + 0.1),
        ))
    };
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![column(1.5), column(-2.25), column(1e-7)],
    )
    .unwrap();
    let input = dir.path().join("floats.arrow");
    formatbench_worker_arrow::source::write_ipc(&input, &schema, &[batch]).unwrap();
    let source =
        formatbench::datasets::ingest(&input, None, &dir.path().join("floats-src.arrow")).unwrap();
    assert!(source.index_column.is_none(), "ranges go by position");
    let checked = round_trip_all(&source, dir.path(), 2);
    for op in ["write", "read", "scan", "project", "range", "take"] {
        assert!(
            checked.contains(&format!("npy/default/{op}")),
            "npy {op}: {checked:?}"
        );
    }
}

#[test]
fn npy_refuses_strings_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::mixed_source(&dir.path().join("src"), 100);
    let inputs = OpInputs::for_source(&source, 42).unwrap();
    let mut j = job(
        1,
        "npy",
        "default",
        Op::Write,
        &source,
        &dir.path().join("npy"),
        dir.path(),
        &inputs,
    );
    j.prepare = true;
    let answer = execute(&j);
    assert_eq!(answer.status, AnswerStatus::Unsupported);
    assert!(answer
        .reason
        .unwrap_or_default()
        .contains("column 'index' is Int64"));
}

#[test]
fn writes_run_without_huge_pages_unless_the_backend_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::mixed_source(&dir.path().join("src"), 100);
    let inputs = OpInputs::for_source(&source, 42).unwrap();
    let mut said = Vec::new();
    for backend in ["csv", "parquet"] {
        let mut j = job(
            3,
            backend,
            "default",
            Op::Write,
            &source,
            &dir.path().join(backend),
            dir.path(),
            &inputs,
        );
        j.verify_out = None;
        let answer = execute(&j);
        assert_eq!(
            answer.status,
            AnswerStatus::Ok,
            "{backend}: {:?}",
            answer.reason
        );
        said.push(answer.settings["transparent_huge_pages"].clone());
    }
    // Parquet's writer keeps them (its buffers grow by copying); the others turn them off.
    assert_eq!(said[0], "off");
    assert!(said[1].starts_with("system default"), "{said:?}");
}

#[test]
fn parquet_reports_the_encodings_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    // The long table: low-cardinality strings (states, letters) that the default profile
    // dictionary-encodes, beside all-distinct floats that it does not.
    let source = common::generated(formatbench::datasets::DatasetKind::Long, 1_000, 0, 0, 42)
        .materialize(&dir.path().join("src"))
        .unwrap();
    let inputs = OpInputs::for_source(&source, 42).unwrap();
    let mut settings = Vec::new();
    for profile in ["default", "compact"] {
        let mut j = job(
            2,
            "parquet",
            profile,
            Op::Write,
            &source,
            &dir.path().join(profile),
            dir.path(),
            &inputs,
        );
        j.verify_out = None;
        let answer = execute(&j);
        assert_eq!(answer.status, AnswerStatus::Ok);
        settings.push(answer.settings);
    }
    // Snappy, except the all-distinct floats: snappy saves nothing on them, so the default
    // stores them uncompressed.
    assert_eq!(settings[0]["codecs"], "SNAPPY UNCOMPRESSED");
    assert!(
        settings[0]["encodings"].contains("RLE_DICTIONARY"),
        "{:?}",
        settings[0]
    );
    // Parquet stores no level: the file's codec, and the level it was written with.
    assert_eq!(
        settings[1]["codecs"], "ZSTD (level not stored; written with 3)",
        "{:?}",
        settings[1]
    );
    assert!(
        settings[1]["encodings"].contains("BYTE_STREAM_SPLIT"),
        "{:?}",
        settings[1]
    );
    assert!(
        !settings[1]["encodings"].contains("RLE_DICTIONARY"),
        "{:?}",
        settings[1]
    );
}

#[test]
fn quoted_csv_fields_take_the_plain_reader_and_still_round_trip() {
    use arrow::array::{Int64Array, StringArray};
    let dir = tempfile::tempdir().unwrap();
    let schema = Arc::new(Schema::new(vec![
        Field::new("index", DataType::Int64, false),
        Field::new("text", DataType::Utf8, true),
    ]));
    let rows = 3_000;
    let texts = ["a,b", "say \"hi\"", "two\nlines", "plain"];
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
            Arc::new(StringArray::from_iter(
                (0..rows).map(|i| (i % 7 != 3).then(|| texts[i as usize % texts.len()])),
            )),
        ],
    )
    .unwrap();
    let input = dir.path().join("quoted.arrow");
    formatbench_worker_arrow::source::write_ipc(&input, &schema, &[batch]).unwrap();
    let source =
        formatbench::datasets::ingest(&input, Some("index"), &dir.path().join("quoted-src.arrow"))
            .unwrap();
    let checked = round_trip_all(&source, dir.path(), 2);
    for op in ["write", "read", "scan", "project", "range", "take"] {
        assert!(
            checked.contains(&format!("csv/default/{op}")),
            "csv {op}: {checked:?}"
        );
    }
}

#[test]
fn timestamps_with_named_zones_and_offsets_round_trip_in_every_backend() {
    use arrow::array::{Int64Array, TimestampMicrosecondArray, TimestampSecondArray};
    use arrow::datatypes::TimeUnit;
    let dir = tempfile::tempdir().unwrap();
    let zoned = |unit: TimeUnit, zone: &str| {
        Field::new(
            format!("at_{}", zone.replace(['/', ':', '+'], "_")),
            DataType::Timestamp(unit, Some(zone.into())),
            true,
        )
    };
    let schema = Arc::new(Schema::new(vec![
        Field::new("index", DataType::Int64, false),
        zoned(TimeUnit::Second, "UTC"),
        zoned(TimeUnit::Second, "America/New_York"),
        zoned(TimeUnit::Microsecond, "+05:30"),
    ]));
    let rows = 2_000i64;
    // 2013 flights and a daylight-saving change in New York (2013-03-10 07:00 UTC).
    let seconds = |i: i64| (i % 9 != 4).then_some(1_357_016_400 + i * 5_400);
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from_iter_values(0..rows)) as ArrayRef,
            Arc::new(TimestampSecondArray::from_iter((0..rows).map(seconds)).with_timezone("UTC")),
            Arc::new(
                TimestampSecondArray::from_iter((0..rows).map(seconds))
                    .with_timezone("America/New_York"),
            ),
            Arc::new(
                TimestampMicrosecondArray::from_iter(
                    (0..rows).map(|i| seconds(i).map(|s| s * 1_000_000 + 250)),
                )
                .with_timezone("+05:30"),
            ),
        ],
    )
    .unwrap();
    let input = dir.path().join("zoned.arrow");
    formatbench_worker_arrow::source::write_ipc(&input, &schema, &[batch]).unwrap();
    let source =
        formatbench::datasets::ingest(&input, Some("index"), &dir.path().join("zoned-src.arrow"))
            .unwrap();
    let checked = round_trip_all(&source, dir.path(), 2);
    for backend in ["csv", "parquet", "ipc"] {
        for op in ["write", "read", "range", "take"] {
            assert!(
                checked.iter().any(
                    |c| c.starts_with(&format!("{backend}/")) && c.ends_with(&format!("/{op}"))
                ),
                "{backend} {op}: {checked:?}"
            );
        }
    }
}

#[test]
fn the_worked_example_of_adding_a_backend_round_trips_every_op_it_claims() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::mixed_source(dir.path(), 3_000);
    let example: [&NativeBackend; 1] = [&ipc_stream::IpcStream];
    let run = |job: &Job| formatbench_worker_kit::execute(job, &example);
    let checked = round_trip(&example, run, &source, &dir.path().join("cells"), 2);
    let expected: Vec<String> = ["write", "read", "scan", "project"]
        .iter()
        .map(|op| format!("ipc-stream/default/{op}"))
        .collect();
    assert_eq!(checked, expected);
    // An operation it does not claim is refused by the runner, never asked of the backend.
    let inputs = OpInputs::for_source(&source, 42).unwrap();
    let artifact = dir.path().join("cells").join("ipc-stream-default");
    let take = job(
        2,
        "ipc-stream",
        "default",
        Op::Take,
        &source,
        &artifact,
        dir.path(),
        &inputs,
    );
    assert_eq!(run(&take).status, AnswerStatus::Unsupported);
}

#[test]
fn the_guide_shows_the_worked_example_as_it_is_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let guide = std::fs::read_to_string(root.join("docs/adding-a-backend.md")).unwrap();
    let example =
        std::fs::read_to_string(root.join("docs/adding-a-backend/ipc_stream.rs")).unwrap();
    assert!(
        guide.contains(&format!("```rust\n{example}```")),
        "docs/adding-a-backend.md must hold docs/adding-a-backend/ipc_stream.rs verbatim"
    );
}

#[test]
fn the_guides_python_example_is_a_backend_of_the_real_worker_package() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let example = root.join("docs/adding-a-backend/ipc_stream.py");
    let guide = std::fs::read_to_string(root.join("docs/adding-a-backend.md")).unwrap();
    let text = std::fs::read_to_string(&example).unwrap();
    assert!(guide.contains(&format!("```python\n{text}```")));
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output();
    if !common::available("python3", python.is_ok_and(|o| o.status.success())) {
        return;
    }
    // Loaded as a module of the worker's backends package, as the guide says to save it; the
    // worker package imports without pyarrow, so this needs only python3.
    let check = r#"
import importlib.util, sys
sys.path.insert(0, sys.argv[1])
import formatbench_worker.backends as backends
spec = importlib.util.spec_from_file_location("formatbench_worker.backends.ipc_stream", sys.argv[2])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
backend = module.PyarrowIpcStream()
assert isinstance(backend, backends.base.Backend)
assert backend.name.startswith("py-"), backend.name
assert backends.find(backend.name) is None, "the example is not one of the shipped backends"
print(backend.name, ",".join(backend.ops))
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", check])
        .arg(root.join("workers/python"))
        .arg(&example)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "py-pyarrow-ipc-stream write,read,scan,project"
    );
}
