//! Inside a partition, a read decodes only the blocks holding its rows (a label range finds
//! them from each block's index column first), through a mapping and with plain reads alike;
//! and `Cols::Only` returns exactly the columns listed, the index only when listed.

#![allow(clippy::expect_used, clippy::panic)]

mod common;

use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::Int64Type;
use common::*;
use ipc_parts::{Access, Cols, IpcFile, Key, ReadOptions, Rows, Table, WriteOptions};

/// Labels 0..600 in blocks of 50 rows, all in one partition (`partition_bytes: None`) or in
/// partitions of about `partition_bytes`.
fn table(dir: &std::path::Path, partition_bytes: Option<u64>) -> Table {
    let options = WriteOptions {
        index: Some("index".into()),
        partition_bytes,
        ..Default::default()
    };
    Table::create(dir, schema(), &batches(0..600, 50), &options)
        .and_then(|p| p.commit())
        .expect("created")
}

fn accesses() -> [ReadOptions; 2] {
    [
        ReadOptions::default(),
        ReadOptions {
            access: Access::Plain,
            threads: 2,
        },
    ]
}

#[test]
fn a_label_range_in_one_partition_decodes_only_the_blocks_holding_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = table(dir.path(), None);
    assert_eq!(t.partitions().len(), 1);
    let all = contents(&t);
    // (rows, the blocks of 50 labels holding them)
    let cases = [
        (Rows::Between(Key::Int(120), Key::Int(219)), 3), // blocks 2, 3, 4
        (Rows::Between(Key::Int(150), Key::Int(199)), 1), // block 3 exactly
        (Rows::Between(Key::Int(149), Key::Int(150)), 2), // across a block boundary
        (Rows::Before(Key::Int(74)), 2),
        (Rows::After(Key::Int(560)), 1),
        (Rows::Between(Key::Int(-5), Key::Int(-1)), 0),
    ];
    for options in accesses() {
        for (rows, blocks) in &cases {
            let got = t.read(rows, &Cols::All, &options).expect("reads");
            assert_eq!(got.blocks_decoded, *blocks, "{rows:?} {:?}", options.access);
            let (lo, hi) = match rows {
                Rows::Between(Key::Int(a), Key::Int(b)) => (*a, *b),
                Rows::Before(Key::Int(b)) => (i64::MIN, *b),
                Rows::After(Key::Int(a)) => (*a, i64::MAX),
                other => panic!("{other:?}"),
            };
            let expected: Vec<_> = all
                .iter()
                .filter(|(k, _)| (lo..=hi).contains(*k))
                .map(|(k, v)| (*k, v.clone()))
                .collect();
            let got_rows: Vec<_> = rows_of(&got.batches).into_iter().collect();
            assert_eq!(got_rows, expected, "{rows:?} {:?}", options.access);
            assert_eq!(got.schema.fields().len(), 4);
        }
    }
}

#[test]
fn a_label_range_over_partitions_decodes_the_blocks_holding_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = table(dir.path(), Some(4_000));
    assert!(
        t.partitions().len() >= 3,
        "{} partitions",
        t.partitions().len()
    );
    let all = contents(&t);
    let rows = Rows::Between(Key::Int(30), Key::Int(570));
    for options in accesses() {
        let got = t.read(&rows, &Cols::All, &options).expect("reads");
        let expected: Vec<i64> = all
            .keys()
            .copied()
            .filter(|k| (30..=570).contains(k))
            .collect();
        assert_eq!(labels_of(&got.batches), expected);
        // The blocks holding a label of the range, counted from the files themselves.
        let mut holding = 0;
        for part in t.partitions() {
            let file = IpcFile::map(&dir.path().join(&part.file)).expect("maps");
            for block in file.read_all(Some(vec![0])).expect("reads") {
                let labels = block.column(0).as_primitive::<Int64Type>();
                holding += usize::from(labels.values().iter().any(|k| (30..=570).contains(k)));
            }
        }
        assert_eq!(got.blocks_decoded, holding, "{:?}", options.access);
    }
}

#[test]
fn rows_by_position_decode_only_the_blocks_holding_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = table(dir.path(), None);
    for options in accesses() {
        let rows = Rows::Positions(vec![130, 5, 131, 599]);
        let got = t.read(&rows, &Cols::All, &options).expect("reads");
        assert_eq!(got.blocks_decoded, 3, "{:?}", options.access); // blocks 0, 2, 11
        assert_eq!(labels_of(&got.batches), [130, 5, 131, 599]);
    }
}

fn names(batches: &[RecordBatch]) -> Vec<String> {
    batches[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect()
}

fn ints(batches: &[RecordBatch], column: &str) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| {
            b.column_by_name(column)
                .expect("the column")
                .as_primitive::<Int64Type>()
                .values()
                .to_vec()
        })
        .collect()
}

#[test]
fn only_returns_exactly_the_columns_listed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = table(dir.path(), Some(4_000));
    let only = Cols::Only(vec!["score".into(), "amount".into()]);
    let list = Cols::List(vec!["score".into(), "amount".into()]);
    let every = [
        Rows::All,
        Rows::Between(Key::Int(120), Key::Int(219)),
        Rows::Between(Key::Int(30), Key::Int(570)),
        Rows::Before(Key::Int(74)),
        Rows::After(Key::Int(560)),
        Rows::Positions(vec![130, 5, 131, 599]),
        Rows::Labels(keys([599, 3, 4, 250])),
    ];
    for options in accesses() {
        for rows in &every {
            let got = t.read(rows, &only, &options).expect("reads");
            let with_index = t.read(rows, &list, &options).expect("reads");
            let what = format!("{rows:?} {:?}", options.access);
            assert_eq!(names(&got.batches), ["score", "amount"], "{what}");
            let fields: Vec<&str> = got
                .schema
                .fields()
                .iter()
                .map(|f| f.name().as_str())
                .collect();
            assert_eq!(fields, ["score", "amount"], "{what}");
            assert_eq!(
                names(&with_index.batches),
                ["index", "score", "amount"],
                "{what}"
            );
            assert_eq!(
                ints(&got.batches, "amount"),
                ints(&with_index.batches, "amount"),
                "{what}"
            );
            assert_eq!(got.num_rows(), with_index.num_rows(), "{what}");
        }
    }
    // Listed, the index comes where the list places it.
    let placed = Cols::Only(vec!["amount".into(), "index".into()]);
    let got = t
        .read(
            &Rows::Between(Key::Int(120), Key::Int(219)),
            &placed,
            &ReadOptions::default(),
        )
        .expect("reads");
    assert_eq!(names(&got.batches), ["amount", "index"]);
    assert_eq!(labels_of(&got.batches), (120..=219).collect::<Vec<_>>());
    // Nothing listed: the rows, no columns.
    let none = t
        .read(
            &Rows::Between(Key::Int(120), Key::Int(219)),
            &Cols::Only(vec![]),
            &ReadOptions::default(),
        )
        .expect("reads");
    assert_eq!(none.num_rows(), 100);
    assert_eq!(none.schema.fields().len(), 0);
}
