//! Partials of any split of a result, in any representation the table allows, add up to the
//! source's digest; a missing row, a changed value or other columns do not.

use super::*;
use arrow::array::{
    ArrayRef, Decimal128Array, Int64Array, LargeStringArray, NullArray, StringArray,
    TimestampMicrosecondArray, TimestampNanosecondArray, UInt64Array,
};
use arrow::datatypes::{DataType, TimeUnit};

const ROWS: i64 = 10;

fn source_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("n", DataType::UInt64, true),
        Field::new(
            "t",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            true,
        ),
        Field::new("s", DataType::Utf8, true),
    ]))
}

fn text(i: i64) -> Option<String> {
    (i % 4 != 0).then(|| format!("row {i}"))
}

/// The source: ids 0..10, a uint64 past i64's range, microsecond times, strings with nulls.
fn source_file(dir: &Path) -> std::path::PathBuf {
    let ids: Vec<i64> = (0..ROWS).collect();
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids.clone())),
        Arc::new(UInt64Array::from_iter(
            ids.iter()
                .map(|&i| (i % 3 != 0).then(|| u64::MAX - i as u64)),
        )),
        Arc::new(
            TimestampMicrosecondArray::from_iter(ids.iter().map(|&i| Some(i * 1_000_003)))
                .with_timezone("UTC"),
        ),
        Arc::new(StringArray::from_iter(ids.iter().map(|&i| text(i)))),
    ];
    let batch = RecordBatch::try_new(source_schema(), columns).unwrap();
    let path = dir.join("source.arrow");
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = arrow::ipc::writer::FileWriter::try_new(file, &batch.schema()).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap();
    path
}

/// What an engine might return for `ids`: the uint64 as decimal(20, 0), times in nanoseconds
/// under another name of UTC, strings with 64-bit offsets.
fn engine_partition(ids: &[i64]) -> RecordBatch {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("n", DataType::Decimal128(20, 0), true),
        Field::new(
            "t",
            DataType::Timestamp(TimeUnit::Nanosecond, Some("Etc/UTC".into())),
            true,
        ),
        Field::new("s", DataType::LargeUtf8, true),
    ]));
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(ids.to_vec())),
        Arc::new(
            Decimal128Array::from_iter(
                ids.iter()
                    .map(|&i| (i % 3 != 0).then(|| i128::from(u64::MAX - i as u64))),
            )
            .with_precision_and_scale(20, 0)
            .unwrap(),
        ),
        Arc::new(
            TimestampNanosecondArray::from_iter(ids.iter().map(|&i| Some(i * 1_000_003_000)))
                .with_timezone("Etc/UTC"),
        ),
        Arc::new(LargeStringArray::from_iter(ids.iter().map(|&i| text(i)))),
    ];
    RecordBatch::try_new(schema, columns).unwrap()
}

const WIDTHS: Leeway = Leeway {
    float_tolerance: None,
    other_widths: true,
};

fn partial_of(batches: Vec<RecordBatch>) -> PartialDigest {
    let actual = batches[0].schema();
    partial(
        &source_schema(),
        &actual,
        batches.into_iter().map(Ok),
        &WIDTHS,
    )
    .unwrap()
}

/// The partitions' digest and the source's, in the common schema.
fn digests(parts: &[PartialDigest], source: &Path) -> (String, String) {
    let common =
        common_schema(&source_schema(), &engine_partition(&[0]).schema(), &WIDTHS).unwrap();
    let want = expected_digest(source, Op::Read, &OpParams::default(), &common).unwrap();
    (combine(parts, &common).unwrap(), want)
}

#[test]
fn partitions_in_any_split_order_and_representation_add_up_to_the_sources_digest() {
    let dir = tempfile::tempdir().unwrap();
    let source = source_file(dir.path());
    // Out of order, one partition of two batches, one without rows of a type of its own.
    let empty = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("id", DataType::Null, true),
            Field::new("n", DataType::Null, true),
            Field::new("t", DataType::Null, true),
            Field::new("s", DataType::Null, true),
        ])),
        (0..4)
            .map(|_| Arc::new(NullArray::new(0)) as ArrayRef)
            .collect(),
    )
    .unwrap();
    let parts = vec![
        partial_of(vec![engine_partition(&[7, 3, 9]), engine_partition(&[0])]),
        partial(
            &source_schema(),
            &empty.schema(),
            std::iter::once(Ok(empty.clone())),
            &WIDTHS,
        )
        .unwrap(),
        partial_of(vec![engine_partition(&[8, 1, 2, 6, 5, 4])]),
    ];
    assert_eq!(parts[1].rows, 0);
    assert!(parts[1].columns.is_empty());
    let (got, want) = digests(&parts, &source);
    assert_eq!(got, want);
    // The same rows in one partition, and the source itself, digest alike.
    let whole = partial_of(vec![engine_partition(&(0..ROWS).collect::<Vec<_>>())]);
    assert_eq!(digests(&[whole], &source).0, want);
}

#[test]
fn a_missing_row_a_repeated_row_or_a_changed_value_gives_another_digest() {
    let dir = tempfile::tempdir().unwrap();
    let source = source_file(dir.path());
    let cases: Vec<Vec<i64>> = vec![
        (1..ROWS).collect(),
        (0..ROWS).chain([3]).collect(),
        (0..ROWS).map(|i| if i == 5 { 50 } else { i }).collect(),
    ];
    for ids in cases {
        let (got, want) = digests(&[partial_of(vec![engine_partition(&ids)])], &source);
        assert_ne!(got, want, "{ids:?}");
    }
}

#[test]
fn a_partition_of_other_columns_or_types_is_refused() {
    let common =
        common_schema(&source_schema(), &engine_partition(&[0]).schema(), &WIDTHS).unwrap();
    let mut part = partial_of(vec![engine_partition(&[1, 2])]);
    part.columns[3].1 = "binary".into();
    assert!(combine(&[part], &common).is_err());
    // Without other widths declared, a decimal cannot stand for the uint64.
    let exact = common_schema(
        &source_schema(),
        &engine_partition(&[0]).schema(),
        &Leeway::EXACT,
    );
    assert!(exact.is_err());
    let renamed = Schema::new(vec![Field::new("other", DataType::Int64, true)]);
    assert!(common_schema(&source_schema(), &renamed, &WIDTHS).is_err());
}

#[test]
fn a_row_sum_that_is_not_hexadecimal_is_an_error() {
    let common = common_schema(&source_schema(), &source_schema(), &WIDTHS).unwrap();
    let part = PartialDigest {
        rows: 1,
        row_sum: "not hex".into(),
        columns: named_columns(&common),
    };
    assert!(combine(&[part], &common).is_err());
}
