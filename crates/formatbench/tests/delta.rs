#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The Delta reader study through the real runner: delta-kernel writes a table of files (and,
//! in the `dv` profile, deletes one row of every file through deletion vectors); every Delta
//! reader that is available reads it, and each result (deleted rows left out, first row one that
//! survives) is verified against the source before it counts. delta-kernel and the readers need
//! `workers/rust/build` and `formatbench peers install`; each missing one is skipped with its
//! reason unless FORMATBENCH_REQUIRE_ALL=1.

mod common;

use arrow::array::{Int64Array, RecordBatch, UInt64Array};
use arrow::datatypes::{DataType, Field, Schema};
use common::{formatbench, mixed_run, records, run_dir, stderr, verified};
use formatbench::results::{Record, SampleStatus};
use formatbench_protocol::DELTA_OPS;

const READERS: [&str; 5] = [
    "delta-kernel",
    "delta-rs",
    "delta-arrow-reader",
    "py-deltalake",
    "py-polars-delta",
];

fn ready(name: &str) -> bool {
    common::ready("Delta backend", name)
}

#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn every_delta_reader_leaves_out_the_deleted_rows() {
    if !ready("delta-kernel") {
        return;
    }
    let readers: Vec<&str> = READERS.into_iter().filter(|n| ready(n)).collect();
    let out = tempfile::tempdir().unwrap();
    let result = formatbench(&[
        "run",
        "--dataset",
        "long",
        "--rows",
        "3000",
        "--files",
        "20",
        "--backends",
        &readers.join(","),
        "--profiles",
        "default,dv",
        "--targets",
        "all",
        "--ops",
        "write,delta",
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--threads",
        "2",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let records = records(&run_dir(out.path()));
    // The table delta-kernel wrote: 20 files, and in `dv` one deleted row in each.
    let written = records
        .iter()
        .find_map(|r| match r {
            Record::Artifact(a) if a.backend == "delta-kernel" && a.profile == "dv" => Some(a),
            _ => None,
        })
        .expect("delta-kernel's dv table");
    assert_eq!(written.status, SampleStatus::Ok, "{:?}", written.reason);
    assert_eq!(written.settings["data_files"], "20");
    assert_eq!(written.settings["files_with_deletion_vectors"], "20");
    assert_eq!(written.settings["deleted_rows"], "20");
    for reader in &readers {
        for profile in ["default", "dv"] {
            for op in DELTA_OPS {
                let verified = verified(&records, |c| {
                    c.backend == *reader && c.profile == profile && c.op == op.name()
                });
                let sample = records.iter().find_map(|r| match r {
                    Record::Sample(s)
                        if s.cell.backend == *reader
                            && s.cell.profile == profile
                            && s.cell.op == op.name() =>
                    {
                        Some(s)
                    }
                    _ => None,
                });
                let sample = sample.unwrap_or_else(|| panic!("{reader}/{profile} {op}: none"));
                assert_eq!(
                    sample.status,
                    SampleStatus::Ok,
                    "{reader}/{profile} {op}: {:?}",
                    sample.reason
                );
                assert!(verified, "{reader}/{profile} {op}: not verified");
                let rows = match (op.name(), profile) {
                    ("first_row", _) => 1,
                    (_, "dv") => 2_980,
                    _ => 3_000,
                };
                assert_eq!(sample.rows_returned, Some(rows), "{reader}/{profile} {op}");
            }
        }
        // A reader writes nothing of its own: its `write` is refused with the writer's name.
        if *reader != "delta-kernel" {
            let write = records.iter().find_map(|r| match r {
                Record::Sample(s) if s.cell.backend == *reader && s.cell.op == "write" => Some(s),
                _ => None,
            });
            let write = write.unwrap_or_else(|| panic!("{reader} write: none"));
            assert_eq!(write.status, SampleStatus::Unsupported);
            assert!(write
                .reason
                .clone()
                .unwrap_or_default()
                .contains("delta-kernel"));
        }
    }
}

#[test]
fn unsigned_integers_are_stored_as_deltas_signed_ones_and_refused_beyond_them() {
    if !ready("delta-kernel") {
        return;
    }
    let readers = if ready("py-deltalake") {
        "delta-kernel,py-deltalake"
    } else {
        "delta-kernel"
    };
    // The mixed table's uint64 columns (values below 200,000) fit Delta's long: written,
    // read back by every reader, verified with the width recorded.
    let out = tempfile::tempdir().unwrap();
    let args = ["--backends", readers, "--ops", "read", "--samples", "1"];
    let result = mixed_run(100, &args, out.path());
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let all = records(&run_dir(out.path()));
    for reader in readers.split(',') {
        let noted = all.iter().any(|r| {
            matches!(r, Record::Verification(v) if v.status == SampleStatus::Ok
                && v.cell.backend == reader
                && v.other_widths
                && v.representation.iter().any(|n| n.contains("Int64 (source UInt64; integer width)")))
        });
        assert!(noted, "{reader}: no verified read with the width noted");
    }

    // A uint64 beyond a long is refused, for the writer and for every reader of its tables,
    // never wrapped to a negative number or made null.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("beyond.arrow");
    let schema = std::sync::Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("count", DataType::UInt64, false),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            std::sync::Arc::new(Int64Array::from(vec![1, 2, 3])),
            std::sync::Arc::new(UInt64Array::from(vec![1, u64::MAX - 1, 7])),
        ],
    )
    .unwrap();
    let mut writer =
        arrow::ipc::writer::FileWriter::try_new(std::fs::File::create(&file).unwrap(), &schema)
            .unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    let out = tempfile::tempdir().unwrap();
    let result = formatbench(&[
        "run",
        "--input",
        file.to_str().unwrap(),
        "--backends",
        readers,
        "--profiles",
        "default",
        "--ops",
        "read",
        "--samples",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    // Every cell refused: nothing was measured, which exits 2 with the reasons (issue 43).
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(stderr(&result).contains("nothing was measured"));
    let refused = common::samples(&run_dir(out.path()));
    for reader in readers.split(',') {
        let reason = refused
            .iter()
            .find(|s| s.cell.backend == reader && s.status == SampleStatus::Unsupported)
            .and_then(|s| s.reason.clone())
            .unwrap_or_else(|| panic!("{reader}: not refused"));
        assert!(
            reason.contains("column 'count' (UInt64) holds a value beyond its signed Int64"),
            "{reader}: {reason}"
        );
    }
}
