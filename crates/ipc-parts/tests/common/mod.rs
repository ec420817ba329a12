//! Test tables, a seeded generator, and an in-memory reference model of a table.
#![allow(dead_code)]

use arrow::array::{Array, AsArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Float64Type, Int64Type, Schema, SchemaRef};
use ipc_parts::{Cols, Key, ReadOptions, Rows, Table};
use std::collections::BTreeMap;
use std::sync::Arc;

/// splitmix64: deterministic across platforms, no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// A row of the test table: (index) → (amount, name, score).
pub type Row = (i64, Option<String>, Option<f64>);

pub fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("index", DataType::Int64, false),
        Field::new("amount", DataType::Int64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("score", DataType::Float64, true),
    ]))
}

/// The value row `label` holds in generation `version` (so updates are visible).
pub fn row(label: i64, version: u64) -> Row {
    let amount = label * 7 + version as i64;
    let name = (label % 5 != 0).then(|| format!("n{label}-{version}"));
    let score = (label % 7 != 0).then_some(label as f64 / 4.0 + version as f64);
    (amount, name, score)
}

pub fn batch(rows: &[(i64, Row)]) -> RecordBatch {
    let schema = schema();
    RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0))),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.1 .0))),
            Arc::new(StringArray::from_iter(rows.iter().map(|r| r.1 .1.clone()))),
            Arc::new(Float64Array::from_iter(rows.iter().map(|r| r.1 .2))),
        ],
    )
    .expect("a valid batch")
}

/// Rows `labels` at version 0, in batches of `chunk`.
pub fn batches(labels: impl IntoIterator<Item = i64>, chunk: usize) -> Vec<RecordBatch> {
    let rows: Vec<(i64, Row)> = labels.into_iter().map(|l| (l, row(l, 0))).collect();
    rows.chunks(chunk.max(1)).map(batch).collect()
}

/// Everything the table holds, read back into rows (index first column).
pub fn contents(table: &Table) -> BTreeMap<i64, Row> {
    let selection = table
        .read(&Rows::All, &Cols::All, &ReadOptions::default())
        .expect("a full read");
    rows_of(&selection.batches)
}

pub fn rows_of(batches: &[RecordBatch]) -> BTreeMap<i64, Row> {
    let mut out = BTreeMap::new();
    for b in batches {
        let index = b
            .column_by_name("index")
            .expect("index")
            .as_primitive::<Int64Type>();
        let amount = b
            .column_by_name("amount")
            .map(|c| c.as_primitive::<Int64Type>().clone());
        let name = b
            .column_by_name("name")
            .map(|c| c.as_string::<i32>().clone());
        let score = b
            .column_by_name("score")
            .map(|c| c.as_primitive::<Float64Type>().clone());
        for i in 0..b.num_rows() {
            let value = (
                amount.as_ref().map_or(0, |a| a.value(i)),
                name.as_ref()
                    .and_then(|a| a.is_valid(i).then(|| a.value(i).to_string())),
                score
                    .as_ref()
                    .and_then(|a| a.is_valid(i).then(|| a.value(i))),
            );
            assert!(out.insert(index.value(i), value).is_none(), "label twice");
        }
    }
    out
}

/// The labels of a read, in returned order.
pub fn labels_of(batches: &[RecordBatch]) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| {
            b.column_by_name("index")
                .expect("index")
                .as_primitive::<Int64Type>()
                .values()
                .to_vec()
        })
        .collect()
}

pub fn keys(labels: impl IntoIterator<Item = i64>) -> Vec<Key> {
    labels.into_iter().map(Key::Int).collect()
}

/// One change of a random sequence, applied to the store or to the model alike.
#[derive(Debug, Clone)]
pub enum Change {
    Append(Vec<i64>),
    Insert(Vec<i64>),
    Update(Vec<i64>, u64),
    DropLabels(Vec<i64>),
    DropBetween(i64, i64),
}

/// A random change that is valid for a table holding `model` (labels 0..~10 × rows, spaced
/// so inserts have room).
pub fn random_change(rng: &mut Rng, model: &BTreeMap<i64, Row>, version: u64) -> Change {
    let max = model.keys().next_back().copied().unwrap_or(-1);
    let present: Vec<i64> = model.keys().copied().collect();
    match rng.below(5) {
        0 => {
            let n = 1 + rng.below(40) as i64;
            let mut next = max + 1 + rng.below(5) as i64;
            Change::Append(
                (0..n)
                    .map(|_| {
                        let label = next;
                        next += 1 + rng.below(3) as i64;
                        label
                    })
                    .collect(),
            )
        }
        1 => {
            let mut labels: Vec<i64> = (0..1 + rng.below(30))
                .map(|_| rng.below((max + 20).max(1) as u64) as i64 - 10)
                .filter(|l| !model.contains_key(l))
                .collect();
            labels.sort_unstable();
            labels.dedup();
            if labels.is_empty() {
                Change::Append(vec![max + 1])
            } else {
                Change::Insert(labels)
            }
        }
        2 if !present.is_empty() => {
            let mut labels: Vec<i64> = (0..1 + rng.below(20))
                .map(|_| present[rng.below(present.len() as u64) as usize])
                .collect();
            labels.sort_unstable();
            labels.dedup();
            Change::Update(labels, version)
        }
        3 if present.len() > 40 => {
            let mut labels: Vec<i64> = (0..1 + rng.below(15))
                .map(|_| present[rng.below(present.len() as u64) as usize])
                .collect();
            labels.sort_unstable();
            labels.dedup();
            Change::DropLabels(labels)
        }
        4 if present.len() > 40 => {
            let a = present[rng.below(present.len() as u64) as usize];
            Change::DropBetween(a, a + rng.below(12) as i64)
        }
        _ => Change::Append(vec![max + 1, max + 2]),
    }
}

pub fn apply_to_model(model: &mut BTreeMap<i64, Row>, change: &Change) {
    match change {
        Change::Append(labels) | Change::Insert(labels) => {
            for &l in labels {
                model.insert(l, row(l, 0));
            }
        }
        Change::Update(labels, version) => {
            for &l in labels {
                model.insert(l, row(l, *version));
            }
        }
        Change::DropLabels(labels) => {
            for l in labels {
                model.remove(l);
            }
        }
        Change::DropBetween(a, b) => model.retain(|l, _| l < a || l > b),
    }
}

/// Applies the change to the store and commits it.
pub fn apply_to_table(table: &Table, change: &Change, threads: usize) -> ipc_parts::Result<Table> {
    let pending = match change {
        Change::Append(labels) => table.append(&batches(labels.iter().copied(), 7), threads)?,
        Change::Insert(labels) => table.insert(&batches(labels.iter().copied(), 5), threads)?,
        Change::Update(labels, version) => {
            let rows: Vec<(i64, Row)> = labels.iter().map(|&l| (l, row(l, *version))).collect();
            table.update(&batch(&rows), threads)?
        }
        Change::DropLabels(labels) => {
            table.drop_rows(&Rows::Labels(keys(labels.iter().copied())), threads)?
        }
        Change::DropBetween(a, b) => {
            table.drop_rows(&Rows::Between(Key::Int(*a), Key::Int(*b)), threads)?
        }
    };
    pending.commit()
}
