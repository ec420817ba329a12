//! The store's semantics and invariants (FeatherStore's, ../shared/reference/featherstore.md
//! §2, §6, §7, §9), each checked on small tables.

#![allow(clippy::expect_used, clippy::panic)]

mod common;

use arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray, StructArray};
use arrow::datatypes::{DataType, Field, Schema};
use common::*;
use ipc_parts::{Access, Cols, Key, ReadOptions, Rows, StoreError, Table, WriteOptions};
use std::sync::Arc;

fn options(partition_bytes: u64) -> WriteOptions {
    WriteOptions {
        index: Some("index".into()),
        partition_bytes: Some(partition_bytes),
        threads: 2,
        ..Default::default()
    }
}

/// 100 rows labelled 0, 10, …, 990, in several partitions.
fn spaced(dir: &std::path::Path) -> Table {
    let data = batches((0..100).map(|i| i * 10), 13);
    let table = Table::create(dir, schema(), &data, &options(700))
        .and_then(|p| p.commit())
        .expect("created");
    assert!(
        table.partitions().len() >= 4,
        "{} partitions",
        table.partitions().len()
    );
    table.check().expect("invariants hold");
    table
}

fn read(table: &Table, rows: Rows) -> ipc_parts::Selection {
    table
        .read(&rows, &Cols::All, &ReadOptions::default())
        .expect("read")
}

fn bound(table: &Table, p: usize, max: bool) -> i64 {
    let part = &table.partitions()[p];
    match if max { &part.max } else { &part.min } {
        Some(Key::Int(v)) => *v,
        other => panic!("label {other:?}"),
    }
}

#[test]
fn round_trip_sorts_input_and_keeps_every_row() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut labels: Vec<i64> = (0..500).map(|i| (i * 7919) % 1000).collect();
    labels.dedup();
    let data = batches(labels.iter().copied(), 64);
    let table = Table::create(dir.path(), schema(), &data, &options(4000))
        .and_then(|p| p.commit())
        .expect("created");
    let health = table.check().expect("invariants hold");
    assert_eq!(health.rows, 500);
    assert!(health.unreferenced.is_empty());
    let got = read(&table, Rows::All);
    let mut sorted = labels.clone();
    sorted.sort_unstable();
    assert_eq!(labels_of(&got.batches), sorted);
    assert_eq!(rows_of(&got.batches), rows_of(&data));
    // Plain reads return the same as memory-mapped ones.
    let plain = ReadOptions {
        access: Access::Plain,
        threads: 2,
    };
    let again = table
        .read(&Rows::All, &Cols::All, &plain)
        .expect("plain read");
    assert_eq!(rows_of(&again.batches), rows_of(&data));
    // The metadata file is plain JSON naming the format and version.
    let text = std::fs::read_to_string(dir.path().join("table.json")).expect("metadata");
    assert!(text.contains("\"format\": \"ipc-parts\"") && text.contains("\"version\": 1"));
}

#[test]
fn an_empty_table_round_trips_with_its_schema() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = Table::create(dir.path(), schema(), &[], &options(700))
        .and_then(|p| p.commit())
        .expect("created");
    assert_eq!(table.partitions().len(), 1);
    let got = read(&table, Rows::All);
    assert_eq!(got.num_rows(), 0);
    assert_eq!(got.schema.fields().len(), 4);
    let table = table
        .append(&batches(0..3, 2), 1)
        .and_then(|p| p.commit())
        .expect("append");
    assert_eq!(labels_of(&read(&table, Rows::All).batches), vec![0, 1, 2]);
    table.check().expect("invariants hold");
}

#[test]
fn partitions_follow_the_sizing_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let table = spaced(dir.path());
    let per = table.meta().rows_per_partition;
    let parts = table.partitions();
    for p in &parts[..parts.len() - 1] {
        assert_eq!(p.rows, per);
    }
    let last = parts[parts.len() - 1].rows;
    assert!(last * 2 >= per && last < 2 * per, "last {last}, per {per}");
}

#[test]
fn reads_at_seams_open_exactly_the_partitions_featherstore_opens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let last = t.partitions().len() - 1;
    let int = Key::Int;
    let cases: Vec<(Rows, Vec<usize>)> = vec![
        (Rows::Before(int(bound(&t, 0, true))), vec![0]),
        (Rows::Before(int(bound(&t, 1, true))), vec![0, 1]),
        (Rows::Before(int(bound(&t, 2, false))), vec![0, 1, 2]),
        (Rows::After(int(bound(&t, 1, true))), (1..=last).collect()),
        (Rows::After(int(bound(&t, 2, false))), (2..=last).collect()),
        (Rows::After(int(bound(&t, last, false))), vec![last]),
        (
            Rows::Between(int(bound(&t, 1, true)), int(bound(&t, 2, false))),
            vec![1, 2],
        ),
        (
            Rows::Between(int(bound(&t, 2, false)), int(bound(&t, 2, true))),
            vec![2],
        ),
        (
            Rows::Labels(keys([bound(&t, 1, true), bound(&t, 2, false)])),
            vec![1, 2],
        ),
        // Sparse lists open only the partitions holding a label (FeatherStore opens the span).
        (
            Rows::Labels(keys([bound(&t, 0, false), bound(&t, last, true)])),
            vec![0, last],
        ),
    ];
    for (rows, expected) in cases {
        let got = read(&t, rows.clone());
        assert_eq!(got.partitions_opened, expected, "{rows:?}");
        // And the rows are exactly the inclusive range.
        let want: Vec<i64> = (0..100)
            .map(|i| i * 10)
            .filter(|l| match &rows {
                Rows::Before(Key::Int(x)) => l <= x,
                Rows::After(Key::Int(x)) => l >= x,
                Rows::Between(Key::Int(a), Key::Int(b)) => a <= l && l <= b,
                Rows::Labels(k) => k.contains(&Key::Int(*l)),
                _ => true,
            })
            .collect();
        assert_eq!(labels_of(&got.batches), want, "{rows:?}");
    }
}

#[test]
fn absent_bounds_snap_to_stored_labels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    assert_eq!(read(&t, Rows::Before(Key::Int(-5))).num_rows(), 0);
    assert_eq!(read(&t, Rows::Before(Key::Int(5000))).num_rows(), 100);
    assert_eq!(
        labels_of(&read(&t, Rows::Between(Key::Int(15), Key::Int(41))).batches),
        vec![20, 30, 40]
    );
    assert_eq!(
        labels_of(&read(&t, Rows::After(Key::Int(985))).batches),
        vec![990]
    );
    assert_eq!(
        read(&t, Rows::Between(Key::Int(41), Key::Int(15))).num_rows(),
        0
    );
    let wrong = t.read(
        &Rows::Before(Key::Str("a".into())),
        &Cols::All,
        &ReadOptions::default(),
    );
    assert!(matches!(wrong, Err(StoreError::IndexType(_))), "{wrong:?}");
}

#[test]
fn label_lists_come_back_in_request_order_and_missing_labels_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let asked = vec![500, 10, 990, 0, 20, 30];
    assert_eq!(
        labels_of(&read(&t, Rows::Labels(keys(asked.clone()))).batches),
        asked
    );
    // A long contiguous list comes back as zero-copy slices, in order.
    let run: Vec<i64> = (10..90).map(|i| i * 10).collect();
    let got = read(&t, Rows::Labels(keys(run.clone())));
    assert_eq!(labels_of(&got.batches), run);
    assert_eq!(
        rows_of(&got.batches),
        rows_of(&batches(run.iter().copied(), 100))
    );
    let empty = read(&t, Rows::Labels(vec![]));
    assert_eq!((empty.num_rows(), empty.schema.fields().len()), (0, 4));
    match t.read(
        &Rows::Labels(keys([10, 15, 20, 2000])),
        &Cols::All,
        &ReadOptions::default(),
    ) {
        Err(StoreError::RowsNotFound(which)) => assert_eq!(which, "15, 2000"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn label_arrays_read_as_label_lists_do() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let array = |labels: &[i64]| Rows::LabelArray(Arc::new(Int64Array::from(labels.to_vec())));
    // Scattered labels, then a run long enough to be sliced, then more scattered ones.
    let mut asked = vec![990, 10, 0];
    asked.extend((10..90).map(|i| i * 10));
    asked.extend([20, 30, 980]);
    let got = read(&t, array(&asked));
    assert_eq!(labels_of(&got.batches), asked);
    assert_eq!(
        rows_of(&got.batches),
        rows_of(&read(&t, Rows::Labels(keys(asked.clone()))).batches)
    );
    let options = ReadOptions::default();
    match t.read(&array(&[15, 10, 2000, 25]), &Cols::All, &options) {
        Err(StoreError::RowsNotFound(which)) => assert_eq!(which, "15, 2000, 25"),
        other => panic!("{other:?}"),
    }
    let with_null: ArrayRef = Arc::new(Int64Array::from(vec![Some(10), None]));
    let null = t.read(&Rows::LabelArray(with_null), &Cols::All, &options);
    assert!(matches!(null, Err(StoreError::Invalid(_))), "{null:?}");
    let strings: ArrayRef = Arc::new(StringArray::from(vec!["10"]));
    let wrong = t.read(&Rows::LabelArray(strings), &Cols::All, &options);
    assert!(matches!(wrong, Err(StoreError::IndexType(_))), "{wrong:?}");
}

#[test]
fn positions_address_rows_across_partitions_in_request_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let asked = vec![99, 0, 42, 43, 44, 17];
    let got = read(&t, Rows::Positions(asked.clone()));
    assert_eq!(
        labels_of(&got.batches),
        asked.iter().map(|&p| p as i64 * 10).collect::<Vec<_>>()
    );
    match t.read(
        &Rows::Positions(vec![3, 100]),
        &Cols::All,
        &ReadOptions::default(),
    ) {
        Err(StoreError::RowsNotFound(which)) => assert!(which.contains("100"), "{which}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn columns_by_list_or_pattern_keep_the_index_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let names = |cols: Cols| -> Vec<String> {
        let got = t
            .read(&Rows::All, &cols, &ReadOptions::default())
            .expect("read");
        got.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    };
    assert_eq!(
        names(Cols::List(vec!["score".into(), "amount".into()])),
        ["index", "score", "amount"]
    );
    assert_eq!(
        names(Cols::List(vec!["name".into(), "index".into()])),
        ["name", "index"]
    );
    assert_eq!(names(Cols::Like("%A%".into())), ["index", "amount", "name"]);
    assert_eq!(names(Cols::Like("s?ore".into())), ["index", "score"]);
    let unknown = t.read(
        &Rows::All,
        &Cols::List(vec!["nope".into(), "amount".into(), "gone".into()]),
        &ReadOptions::default(),
    );
    match unknown {
        Err(StoreError::UnknownColumns(which)) => assert_eq!(which, "'nope', 'gone'"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn append_touches_only_the_end_and_checks_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let before = t.partitions().to_vec();
    let pending = t
        .append(&batches((100..130).map(|i| i * 10), 8), 2)
        .expect("append");
    assert!(
        pending.footprint().partitions_rewritten.is_empty(),
        "{:?}",
        pending.footprint()
    );
    // Not visible until the commit.
    assert_eq!(Table::open(dir.path()).expect("open").num_rows(), 100);
    let t = pending.commit().expect("commit");
    assert_eq!(
        &t.partitions()[..before.len()],
        &before[..],
        "old partitions untouched"
    );
    let new_min = bound(&t, before.len(), false);
    assert_eq!(new_min, 1000);
    assert_eq!(
        read(&t, Rows::After(Key::Int(new_min))).partitions_opened,
        vec![before.len()]
    );
    t.check().expect("invariants hold");
    assert_eq!(contents(&t).len(), 130);
    for bad in [vec![1290], vec![500], vec![1300, 1300]] {
        let result = t.append(&batches(bad.clone(), 8), 1);
        assert!(
            matches!(result, Err(StoreError::IndexOrder(_))),
            "{bad:?}: {:?}",
            result.err()
        );
    }
    let other = RecordBatch::try_new(
        Arc::new(Schema::new(vec![Field::new(
            "index",
            DataType::Int64,
            false,
        )])),
        vec![Arc::new(Int64Array::from(vec![5000]))],
    )
    .expect("batch");
    assert!(matches!(
        t.append(&[other], 1),
        Err(StoreError::SchemaMismatch(_))
    ));
}

#[test]
fn an_insert_at_a_seam_extends_the_preceding_partition() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let seam = bound(&t, 0, true) + 5;
    let pending = t.insert(&batches([seam], 1), 1).expect("insert");
    assert_eq!(pending.footprint().partitions_rewritten, vec![0]);
    let t = pending.commit().expect("commit");
    assert_eq!(bound(&t, 0, true), seam);
    t.check().expect("invariants hold");
    let got = read(&t, Rows::Between(Key::Int(seam - 5), Key::Int(seam + 5)));
    assert_eq!(labels_of(&got.batches), vec![seam - 5, seam, seam + 5]);
    // Below the first label: the first partition; existing labels are refused by name.
    let t = t
        .insert(&batches([-3], 1), 1)
        .and_then(|p| p.commit())
        .expect("insert");
    assert_eq!(bound(&t, 0, false), -3);
    match t.insert(&batches([7, 20, 30], 1), 1) {
        Err(StoreError::RowsExist(which)) => assert_eq!(which, "20, 30"),
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn many_inserts_split_a_partition_without_losing_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut t = spaced(dir.path());
    let count = t.partitions().len();
    for round in 0..9 {
        let labels: Vec<i64> = (0..10).map(|i| 100 + i * 10 + round + 1).collect();
        t = t
            .insert(&batches(labels, 3), 1)
            .and_then(|p| p.commit())
            .expect("insert");
        t.check().expect("invariants hold");
    }
    assert!(t.partitions().len() > count, "the grown partition split");
    assert_eq!(contents(&t).len(), 190);
}

#[test]
fn update_rewrites_only_the_holding_partitions_and_can_set_nulls() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let before = t.partitions().to_vec();
    let labels = [bound(&t, 0, true), bound(&t, 1, false)];
    let update = RecordBatch::try_new(
        Arc::new(Schema::new(vec![
            Field::new("score", DataType::Float64, true),
            Field::new("index", DataType::Int64, false),
            Field::new("amount", DataType::Int32, true),
        ])),
        vec![
            Arc::new(arrow::array::Float64Array::from(vec![None, Some(2.5)])),
            Arc::new(Int64Array::from(labels.to_vec())),
            Arc::new(arrow::array::Int32Array::from(vec![Some(-1), None])),
        ],
    )
    .expect("batch");
    let pending = t.update(&update, 1).expect("update");
    assert_eq!(pending.footprint().partitions_rewritten, vec![0, 1]);
    let t = pending.commit().expect("commit");
    t.check().expect("invariants hold");
    for (old, new) in before.iter().zip(t.partitions()) {
        assert_eq!(
            (old.rows, &old.min, &old.max),
            (new.rows, &new.min, &new.max)
        );
    }
    let rows = contents(&t);
    assert_eq!(rows[&labels[0]], (-1, row(labels[0], 0).1, None));
    assert_eq!(
        rows[&labels[1]],
        (0, row(labels[1], 0).1, Some(2.5)),
        "a null amount reads as 0 here"
    );
    let missing = t.update(&batch(&[(5, row(5, 1))]), 1);
    assert!(
        matches!(missing, Err(StoreError::RowsNotFound(_))),
        "{:?}",
        missing.err()
    );
}

#[test]
fn dropping_rows_removes_emptied_partitions_and_refuses_to_empty_the_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let count = t.partitions().len();
    let (lo, hi) = (bound(&t, 1, false), bound(&t, 1, true));
    let t = t
        .drop_rows(&Rows::Between(Key::Int(lo), Key::Int(hi)), 1)
        .and_then(|p| p.commit())
        .expect("drop");
    assert_eq!(t.partitions().len(), count - 1);
    t.check().expect("invariants hold");
    let across = read(&t, Rows::Between(Key::Int(lo - 10), Key::Int(hi + 10)));
    assert_eq!(labels_of(&across.batches), vec![lo - 10, hi + 10]);
    let t = t
        .drop_rows(&Rows::Labels(keys([0])), 1)
        .and_then(|p| p.commit())
        .expect("drop");
    assert_eq!(bound(&t, 0, false), 10);
    let all = t.drop_rows(&Rows::All, 1);
    assert!(
        matches!(all, Err(StoreError::Invalid(_))),
        "{:?}",
        all.err()
    );
    let missing = t.drop_rows(&Rows::Labels(keys([0])), 1);
    assert!(
        matches!(missing, Err(StoreError::RowsNotFound(_))),
        "{:?}",
        missing.err()
    );
}

#[test]
fn dropping_columns_keeps_the_index_and_one_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = spaced(dir.path());
    let t = t
        .drop_columns(&["name".into()], 2)
        .and_then(|p| p.commit())
        .expect("drop");
    assert_eq!(
        t.meta().column_names().collect::<Vec<_>>(),
        ["index", "amount", "score"]
    );
    t.check().expect("invariants hold");
    let reopened = Table::open(dir.path()).expect("open");
    assert_eq!(reopened.schema().fields().len(), 3);
    assert!(matches!(
        t.drop_columns(&["index".into()], 1),
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        t.drop_columns(&["amount".into(), "score".into()], 1),
        Err(StoreError::Invalid(_))
    ));
    assert!(matches!(
        t.drop_columns(&["nope".into()], 1),
        Err(StoreError::UnknownColumns(_))
    ));
}

#[test]
fn a_row_number_index_continues_on_append_until_an_insert_breaks_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data: Vec<RecordBatch> = batches(0..10, 4)
        .iter()
        .map(|b| b.project(&[1, 2, 3]).expect("project"))
        .collect();
    let opts = WriteOptions {
        index: None,
        ..options(700)
    };
    let t = Table::create(dir.path(), data[0].schema(), &data, &opts)
        .and_then(|p| p.commit())
        .expect("created");
    assert!(t.meta().index.row_number);
    assert_eq!(t.index_name(), ipc_parts::ROW_NUMBER_INDEX);
    let t = t
        .append(&data[..1], 1)
        .and_then(|p| p.commit())
        .expect("append");
    assert!(t.meta().index.row_number);
    assert_eq!(t.num_rows(), 14);
    let t = t
        .drop_rows(&Rows::After(Key::Int(12)), 1)
        .and_then(|p| p.commit())
        .expect("drop tail");
    assert!(
        t.meta().index.row_number,
        "removing rows from the end keeps it"
    );
    let t = t
        .drop_rows(&Rows::Labels(keys([3])), 1)
        .and_then(|p| p.commit())
        .expect("drop");
    assert!(!t.meta().index.row_number);
    t.check().expect("invariants hold");
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dup = batches([1, 2, 2, 3], 4);
    let result = Table::create(dir.path(), schema(), &dup, &options(700));
    assert!(
        matches!(&result, Err(StoreError::IndexOrder(r)) if r.contains("duplicate index value 2")),
        "{:?}",
        result.err()
    );
    let unsorted = WriteOptions {
        sort: false,
        ..options(700)
    };
    assert!(matches!(
        Table::create(dir.path(), schema(), &batches([2, 1], 4), &unsorted),
        Err(StoreError::IndexOrder(_))
    ));
    let no_index = WriteOptions {
        index: Some("nope".into()),
        ..options(700)
    };
    assert!(matches!(
        Table::create(dir.path(), schema(), &batches([1], 1), &no_index),
        Err(StoreError::UnknownColumns(_))
    ));
    let nested = StructArray::from(vec![(
        Arc::new(Field::new("a", DataType::Int64, false)),
        Arc::new(Int64Array::from(vec![1])) as arrow::array::ArrayRef,
    )]);
    let nested =
        RecordBatch::try_from_iter(vec![("index", Arc::new(nested) as arrow::array::ArrayRef)])
            .expect("batch");
    let result = Table::create(dir.path(), nested.schema(), &[nested], &options(700));
    assert!(
        matches!(result, Err(StoreError::IndexType(_))),
        "{:?}",
        result.err()
    );
    spaced(dir.path());
    assert!(matches!(
        Table::create(dir.path(), schema(), &batches([1], 1), &options(700)),
        Err(StoreError::Exists(_))
    ));
    let replace = WriteOptions {
        replace: true,
        ..options(700)
    };
    let t = Table::create(dir.path(), schema(), &batches([1, 2], 1), &replace)
        .and_then(|p| p.commit())
        .expect("replaced");
    assert_eq!(
        t.check().expect("invariants hold").unreferenced,
        Vec::<String>::new()
    );
    let nothing = tempfile::tempdir().expect("tempdir");
    assert!(matches!(
        Table::open(nothing.path()),
        Err(StoreError::NotATable(_))
    ));
    std::fs::write(nothing.path().join("table.json"), "{not json").expect("write");
    assert!(matches!(
        Table::open(nothing.path()),
        Err(StoreError::NotATable(_))
    ));
}
