#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Every reader of outside bytes (CSV, Parquet and Arrow IPC inputs, suite files, results
//! files, worker answers) fed seeded corruptions of a valid file: cut at many points and with
//! bytes flipped. Each must answer `Ok` or an error, never panic. (A deterministic stand-in
//! for fuzzing that runs in every `cargo test`.)

mod common;

use formatbench::datasets::Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Corruptions of `bytes`: cut at `cuts` evenly spread points, and `flips` copies with a few
/// bytes overwritten at seeded places.
fn corruptions(bytes: &[u8], cuts: usize, flips: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in 1..=cuts {
        out.push(bytes[..bytes.len() * i / (cuts + 1)].to_vec());
    }
    let mut rng = Rng::new(0xF022, bytes.len() as u64);
    for _ in 0..flips {
        let mut copy = bytes.to_vec();
        for _ in 0..4 {
            let at = rng.below(copy.len() as u64) as usize;
            copy[at] = rng.below(256) as u8;
        }
        out.push(copy);
    }
    out
}

/// Runs `read` on each corruption written to `name` in `dir`; fails on the first panic.
fn never_panics(dir: &Path, name: &str, bytes: &[u8], read: impl Fn(&Path)) {
    for (i, corrupt) in corruptions(bytes, 24, 48).iter().enumerate() {
        let path = dir.join(name);
        std::fs::write(&path, corrupt).unwrap();
        let outcome = catch_unwind(AssertUnwindSafe(|| read(&path)));
        assert!(
            outcome.is_ok(),
            "{name}: corruption {i} ({} bytes) panicked",
            corrupt.len()
        );
    }
}

fn ingest(path: &Path) {
    let out = path.with_extension("source.arrow");
    let _ = formatbench::datasets::ingest(path, None, &out);
}

#[test]
fn corrupted_inputs_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::mixed_source(&dir.path().join("src"), 300);
    let ipc = std::fs::read(&source.path).unwrap();
    never_panics(dir.path(), "input.arrow", &ipc, ingest);
    // Parquet and CSV renditions of the same table.
    let (schema, batches) = formatbench_worker_kit::source::read_all(&source.path).unwrap();
    let mut parquet = Vec::new();
    let mut writer =
        parquet::arrow::ArrowWriter::try_new(&mut parquet, schema.clone(), None).unwrap();
    for b in &batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
    never_panics(dir.path(), "input.parquet", &parquet, ingest);
    let mut csv = Vec::new();
    let mut writer = arrow::csv::Writer::new(&mut csv);
    for b in &batches {
        writer.write(b).unwrap();
    }
    drop(writer);
    never_panics(dir.path(), "input.csv", &csv, ingest);
}

#[test]
fn corrupted_suites_results_and_answers_are_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let suite =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("suites/featherstore.toml"))
            .unwrap();
    never_panics(dir.path(), "suite.toml", &suite, |p| {
        let _ = formatbench::plan::load_suite(p.to_str().unwrap());
    });
    // A finished run's results file.
    let out = dir.path().join("out");
    let run = common::quick_ipc_read(&common::SMALL_MIXED, &[], &out);
    assert_eq!(run.status.code(), Some(0), "{}", common::stderr(&run));
    let results = std::fs::read(common::run_dir(&out).join("results.jsonl")).unwrap();
    never_panics(dir.path(), "results.jsonl", &results, |p| {
        let _ = formatbench::results::read_records(p);
    });
    let mut answer = formatbench_protocol::Answer::ok();
    answer.first_call_s = Some(0.5);
    answer.rows = Some(10);
    let answer = serde_json::to_vec(&answer).unwrap();
    never_panics(dir.path(), "answer.json", &answer, |p| {
        let text = std::fs::read(p).unwrap();
        let _ = serde_json::from_slice::<formatbench_protocol::Answer>(&text);
    });
}

#[test]
fn an_ipc_block_past_the_end_of_the_file_is_refused_before_any_allocation() {
    // Found by `fuzz/run` (ingest_ipc): a footer whose block claims 4 TiB made arrow's reader
    // allocate that much before reading. It is refused from the footer alone.
    let dir = tempfile::tempdir().unwrap();
    let input =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ipc-block-past-end.arrow");
    let refused = formatbench::datasets::ingest(&input, None, &dir.path().join("s.arrow"));
    let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("past the file's 3462 bytes"), "{message}");
}
