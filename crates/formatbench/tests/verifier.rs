#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The verifier rejects wrong results at equal row counts and accepts representation changes.
//! (That its oracle cannot call the readers it checks is a property of the dependency graph:
//! crates/formatbench-oracle/tests/boundary.rs.)

mod common;

use arrow::array::{ArrayRef, AsArray, Int64Array, RecordBatch, StringViewArray};
use arrow::compute::{cast, concat_batches};
use arrow::datatypes::{DataType, Field, Int64Type, Schema};
use formatbench::verify::{verify_output, verify_output_in_buckets, Leeway, RowOrder};
use formatbench_protocol::{FileSplit, Op, OpParams};
use formatbench_worker_kit::source::{read_all, write_ipc};
use std::path::Path;
use std::sync::Arc;

/// The whole source as one batch, for tampering.
fn whole(path: &Path) -> RecordBatch {
    let (schema, batches) = read_all(path).unwrap();
    concat_batches(&schema, &batches).unwrap()
}

fn check(
    source: &Path,
    op: Op,
    params: &OpParams,
    actual: &RecordBatch,
    dir: &Path,
) -> formatbench::verify::Verification {
    check_in(source, op, params, actual, dir, RowOrder::Defined)
}

fn check_in(
    source: &Path,
    op: Op,
    params: &OpParams,
    actual: &RecordBatch,
    dir: &Path,
    order: RowOrder,
) -> formatbench::verify::Verification {
    let out = dir.join("actual.arrow");
    write_ipc(&out, &actual.schema(), std::slice::from_ref(actual)).unwrap();
    verify_output(source, op, params, &out, Leeway::EXACT, order).unwrap()
}

fn replace_column(batch: &RecordBatch, index: usize, column: ArrayRef) -> RecordBatch {
    let mut columns = batch.columns().to_vec();
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields[index] = Field::new(fields[index].name(), column.data_type().clone(), true);
    columns[index] = column;
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

#[test]
fn an_exact_copy_passes() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 2_000);
    let verdict = check(
        &src.path,
        Op::Read,
        &OpParams::default(),
        &whole(&src.path),
        dir.path(),
    );
    assert!(verdict.ok, "{:?}", verdict.reason);
    assert_eq!(verdict.rows, 2_000);
}

#[test]
fn one_changed_value_is_caught_and_located() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 2_000);
    let batch = whole(&src.path);
    let mut values = batch
        .column(1)
        .as_primitive::<Int64Type>()
        .values()
        .to_vec();
    values[1234] += 1;
    let corrupted = replace_column(&batch, 1, Arc::new(Int64Array::from(values)));
    let verdict = check(
        &src.path,
        Op::Read,
        &OpParams::default(),
        &corrupted,
        dir.path(),
    );
    assert!(!verdict.ok);
    let reason = verdict.reason.unwrap();
    assert!(reason.contains("column 'c0', row 1234"), "{reason}");
}

#[test]
fn a_missing_or_duplicated_row_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 500);
    let batch = whole(&src.path);
    let short = batch.slice(0, 499);
    let verdict = check(
        &src.path,
        Op::Read,
        &OpParams::default(),
        &short,
        dir.path(),
    );
    assert_eq!(
        verdict.reason.as_deref(),
        Some("expected 500 rows, got 499")
    );
    let doubled = concat_batches(&batch.schema(), &[batch.clone(), batch.slice(0, 1)]).unwrap();
    let verdict = check(
        &src.path,
        Op::Read,
        &OpParams::default(),
        &doubled,
        dir.path(),
    );
    assert_eq!(
        verdict.reason.as_deref(),
        Some("expected 500 rows, got 501")
    );
}

#[test]
fn take_must_keep_the_request_order() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 500);
    let batch = whole(&src.path);
    let params = OpParams {
        rows: Some(vec![7, 3, 400]),
        ..Default::default()
    };
    let in_order = arrow::compute::take_record_batch(
        &batch,
        &arrow::array::UInt32Array::from(vec![7, 3, 400]),
    )
    .unwrap();
    assert!(check(&src.path, Op::Take, &params, &in_order, dir.path()).ok);
    let sorted = arrow::compute::take_record_batch(
        &batch,
        &arrow::array::UInt32Array::from(vec![3, 7, 400]),
    )
    .unwrap();
    let verdict = check(&src.path, Op::Take, &params, &sorted, dir.path());
    assert!(!verdict.ok);
    assert!(verdict
        .reason
        .unwrap()
        .contains("column 'index', row 0: expected 7, got 3"));
}

#[test]
fn wrong_columns_or_types_are_caught() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 100);
    let batch = whole(&src.path);
    let params = OpParams {
        columns: Some(vec!["c0".into(), "c2".into()]),
        ..Default::default()
    };
    let verdict = check(
        &src.path,
        Op::Project,
        &params,
        &batch.project(&[1]).unwrap(),
        dir.path(),
    );
    assert!(verdict.reason.unwrap().starts_with("columns differ"));
    let as_float = cast(batch.column(1), &DataType::Float64).unwrap();
    let verdict = check(
        &src.path,
        Op::Read,
        &OpParams::default(),
        &replace_column(&batch, 1, as_float),
        dir.path(),
    );
    assert_eq!(
        verdict.reason.as_deref(),
        Some("'c0' is Float64, expected Int64 (not a representation of the same values)")
    );
}

#[test]
fn string_encoding_and_batch_splits_are_representation_differences() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 300);
    let batch = whole(&src.path);
    let views: ArrayRef = Arc::new(StringViewArray::from_iter(
        batch.column(2).as_string::<i32>().iter(),
    ));
    let viewed = replace_column(&batch, 2, views);
    let out = dir.path().join("split.arrow");
    write_ipc(
        &out,
        &viewed.schema(),
        &[viewed.slice(0, 100), viewed.slice(100, 200)],
    )
    .unwrap();
    let verdict = verify_output(
        &src.path,
        Op::Read,
        &OpParams::default(),
        &out,
        Leeway::EXACT,
        RowOrder::Defined,
    )
    .unwrap();
    assert!(verdict.ok, "{:?}", verdict.reason);
    assert!(
        verdict
            .representation
            .iter()
            .any(|r| r.starts_with("c1: Utf8View")),
        "{:?}",
        verdict.representation
    );
    assert!(
        verdict.representation.iter().any(|r| r.contains("batches")),
        "{:?}",
        verdict.representation
    );
}

#[test]
fn float_tolerance_applies_only_when_granted() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 100);
    let batch = whole(&src.path);
    let floats = batch
        .column(3)
        .as_primitive::<arrow::datatypes::Float64Type>();
    let nudged: ArrayRef = Arc::new(arrow::array::Float64Array::from_iter_values(
        floats.values().iter().map(|v| v * (1.0 + 1e-12)),
    ));
    let nudged = replace_column(&batch, 3, nudged);
    let out = dir.path().join("nudged.arrow");
    write_ipc(&out, &nudged.schema(), std::slice::from_ref(&nudged)).unwrap();
    assert!(
        !verify_output(
            &src.path,
            Op::Read,
            &OpParams::default(),
            &out,
            Leeway::EXACT,
            RowOrder::Defined
        )
        .unwrap()
        .ok
    );
    assert!(
        verify_output(
            &src.path,
            Op::Read,
            &OpParams::default(),
            &out,
            Leeway {
                float_tolerance: Some(1e-9),
                other_widths: true,
            },
            RowOrder::Defined
        )
        .unwrap()
        .ok
    );
}

/// The parameters of a table of 10 files with one deleted row each, ordered by `index`.
fn deleting(columns: Option<Vec<String>>) -> OpParams {
    OpParams {
        files: Some(FileSplit {
            files: 10,
            deletions: true,
        }),
        order_by: Some("index".into()),
        columns,
        ..OpParams::default()
    }
}

/// The source without the rows the split deletes, rows reversed (an unordered reader's).
fn surviving_reversed(path: &Path, split: FileSplit) -> RecordBatch {
    let all = whole(path);
    let deleted = split.deleted_rows(all.num_rows() as u64);
    let keep: Vec<u32> = (0..all.num_rows() as u32)
        .rev()
        .filter(|r| !deleted.contains(&u64::from(*r)))
        .collect();
    let indices = arrow::array::UInt32Array::from(keep);
    let columns = all
        .columns()
        .iter()
        .map(|c| arrow::compute::take(c, &indices, None).unwrap())
        .collect();
    RecordBatch::try_new(all.schema(), columns).unwrap()
}

#[test]
fn deleted_rows_must_be_left_out_in_any_order_by_an_unordered_reader() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 1_000);
    let params = deleting(None);
    let split = params.files.unwrap();
    let survivors = surviving_reversed(&src.path, split);
    assert_eq!(survivors.num_rows(), 990);
    let verdict = check_in(
        &src.path,
        Op::Scan,
        &params,
        &survivors,
        dir.path(),
        RowOrder::Any,
    );
    assert!(verdict.ok, "{:?}", verdict.reason);
    // The same rows in a defined order are out of order.
    let verdict = check(&src.path, Op::Scan, &params, &survivors, dir.path());
    assert!(!verdict.ok);
    // Every row, deletions ignored, fails.
    let verdict = check_in(
        &src.path,
        Op::Read,
        &params,
        &whole(&src.path),
        dir.path(),
        RowOrder::Any,
    );
    assert!(!verdict.ok);
    // A projection without the index is compared as a multiset of rows.
    let columns = vec!["c0".to_string(), "c1".to_string()];
    let projected = survivors.project(&[1, 2]).unwrap();
    let params = deleting(Some(columns));
    let verdict = check_in(
        &src.path,
        Op::Project,
        &params,
        &projected,
        dir.path(),
        RowOrder::Any,
    );
    assert!(verdict.ok, "{:?}", verdict.reason);
}

/// Verifies `actual` as an unordered reader's scan result, comparing in buckets of about
/// `bucket_bytes` of result each.
fn in_buckets(
    source: &Path,
    params: &OpParams,
    actual: &RecordBatch,
    dir: &Path,
    bucket_bytes: u64,
) -> formatbench::verify::Verification {
    let out = dir.join("actual.arrow");
    write_ipc(&out, &actual.schema(), std::slice::from_ref(actual)).unwrap();
    verify_output_in_buckets(
        source,
        Op::Scan,
        params,
        &out,
        Leeway::EXACT,
        RowOrder::Any,
        bucket_bytes,
    )
    .unwrap()
}

#[test]
fn an_unordered_result_compared_in_many_buckets_gets_the_whole_comparisons_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 1_000);
    let params = deleting(None);
    let survivors = surviving_reversed(&src.path, params.files.unwrap());
    // A 4 KiB bucket cuts this result into dozens of passes; 1 GiB keeps it whole.
    for bytes in [4 << 10, 1 << 30] {
        let verdict = in_buckets(&src.path, &params, &survivors, dir.path(), bytes);
        assert!(verdict.ok, "{bytes}: {:?}", verdict.reason);
        assert_eq!(verdict.rows, 990, "{bytes}");
    }
    let tampered: Vec<(&str, RecordBatch)> = vec![
        ("one value changed", {
            let mut values = survivors
                .column(1)
                .as_primitive::<Int64Type>()
                .values()
                .to_vec();
            values[700] += 1;
            replace_column(&survivors, 1, Arc::new(Int64Array::from(values)))
        }),
        ("an index set to null", {
            let mut index: Vec<Option<i64>> = survivors
                .column(0)
                .as_primitive::<Int64Type>()
                .iter()
                .collect();
            index[3] = None;
            replace_column(&survivors, 0, Arc::new(Int64Array::from(index)))
        }),
        (
            "a row returned twice",
            concat_batches(
                &survivors.schema(),
                &[survivors.clone(), survivors.slice(500, 1)],
            )
            .unwrap(),
        ),
        ("a row left out", survivors.slice(1, 989)),
    ];
    for (what, batch) in &tampered {
        for bytes in [4 << 10, 1 << 30] {
            let verdict = in_buckets(&src.path, &params, batch, dir.path(), bytes);
            assert!(!verdict.ok, "{what} passed with {bytes}-byte buckets");
        }
    }
}

#[test]
fn first_row_must_be_a_row_that_survives() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 1_000);
    let params = deleting(None);
    let all = whole(&src.path);
    let deleted = params.files.unwrap().deleted_rows(1_000);
    let alive = (0..1_000u64).find(|r| !deleted.contains(r)).unwrap();
    let verdict = check_in(
        &src.path,
        Op::FirstRow,
        &params,
        &all.slice(alive as usize, 1),
        dir.path(),
        RowOrder::Any,
    );
    assert!(verdict.ok, "{:?}", verdict.reason);
    // A deleted row, two rows, or a row with altered values fail.
    let verdict = check_in(
        &src.path,
        Op::FirstRow,
        &params,
        &all.slice(deleted[3] as usize, 1),
        dir.path(),
        RowOrder::Any,
    );
    assert!(!verdict.ok);
    let out = dir.path().join("two.arrow");
    let two = all.slice(alive as usize, 2);
    write_ipc(&out, &two.schema(), std::slice::from_ref(&two)).unwrap();
    let verdict = verify_output(
        &src.path,
        Op::FirstRow,
        &params,
        &out,
        Leeway::EXACT,
        RowOrder::Any,
    )
    .unwrap();
    assert!(!verdict.ok);
    assert!(verdict.reason.unwrap_or_default().contains("2 rows"));
    let row = all.slice(alive as usize, 1);
    let changed = replace_column(&row, 1, Arc::new(Int64Array::from(vec![i64::MIN])));
    let verdict = check_in(
        &src.path,
        Op::FirstRow,
        &params,
        &changed,
        dir.path(),
        RowOrder::Any,
    );
    assert!(!verdict.ok);
}

/// `formatbench __partition-digest` on each of `parts`, as an engine runs it per partition.
fn partition_digests(
    schema_file: &Path,
    parts: &[RecordBatch],
    dir: &Path,
) -> Vec<formatbench_protocol::PartialDigest> {
    parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let file = dir.join(format!("part-{i}.arrow"));
            write_ipc(&file, &part.schema(), std::slice::from_ref(part)).unwrap();
            let out = common::formatbench(&[
                "__partition-digest",
                "--expected",
                schema_file.to_str().unwrap(),
                file.to_str().unwrap(),
            ]);
            assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
            serde_json::from_str(&common::stdout(&out)).unwrap()
        })
        .collect()
}

#[test]
fn partition_digests_add_up_to_the_sources_digest_and_a_missing_row_does_not() {
    use formatbench::verify::partitions::{check, sum, write_expected_schema};
    let dir = tempfile::tempdir().unwrap();
    let src = common::mixed_source(&dir.path().join("s"), 300);
    let params = OpParams::default();
    let schema_file = dir.path().join("expected.arrow");
    write_expected_schema(&src.path, Op::Read, &params, &schema_file).unwrap();
    let all = whole(&src.path);
    // Three partitions, out of order; the result file the driver would have collected.
    let parts = [all.slice(200, 100), all.slice(0, 120), all.slice(120, 80)];
    let result = dir.path().join("result.arrow");
    write_ipc(&result, &all.schema(), std::slice::from_ref(&all)).unwrap();
    let verdict = |parts: &[RecordBatch]| {
        let digests = partition_digests(&schema_file, parts, dir.path());
        check(
            &src.path,
            Op::Read,
            &params,
            Some(&result),
            &digests,
            Leeway::EXACT,
        )
        .unwrap()
    };
    let summed = verdict(&parts).unwrap();
    assert!(
        summed.described.starts_with("3 partitions, 300 rows") && summed.rows == 300,
        "{summed:?}"
    );
    // A result kept in the cluster has no result file: the expected types stand in, and the
    // parts add up alike.
    let digests = partition_digests(&schema_file, &parts, dir.path());
    let kept = sum(&src.path, Op::Read, &params, None, &digests, Leeway::EXACT)
        .unwrap()
        .unwrap();
    assert_eq!(kept.digest, summed.digest);
    // A partition that lost its first row.
    let short = [all.slice(200, 100), all.slice(1, 119), all.slice(120, 80)];
    assert!(verdict(&short)
        .unwrap_err()
        .contains("the source's is rd1:"));
}

#[test]
fn the_partition_digest_program_refuses_bad_input_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.arrow");
    std::fs::write(&garbage, b"ARROW1\0\0not an arrow file at all").unwrap();
    let g = garbage.to_str().unwrap();
    for args in [
        vec!["__partition-digest"],
        vec!["__partition-digest", "--expected", g],
        vec!["__partition-digest", "--expected", g, g],
        vec!["__partition-digest", "--expected", g, "--bogus", g],
    ] {
        let out = common::formatbench(&args);
        let err = common::stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("formatbench __partition-digest: error: "),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}
