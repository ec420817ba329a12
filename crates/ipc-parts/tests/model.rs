//! Property tests: random sequences of changes applied to the store and to an in-memory model
//! must leave the same rows, the invariants intact, and random reads equal to the model's.

#![allow(clippy::expect_used, clippy::panic)]

mod common;

use arrow::array::Int64Array;
use common::*;
use ipc_parts::{Access, Cols, Key, ReadOptions, Rows, Table, WriteOptions};
use std::sync::Arc;

const SEEDS: u64 = 16;
const CHANGES: usize = 30;

#[test]
fn random_changes_match_the_model() {
    for seed in 0..SEEDS {
        let mut rng = Rng(seed);
        let dir = tempfile::tempdir().expect("tempdir");
        let start: Vec<i64> = (0..60 + rng.below(200) as i64).map(|i| i * 3).collect();
        let options = WriteOptions {
            index: Some("index".into()),
            partition_bytes: Some(300 + rng.below(3000)),
            threads: 1 + rng.below(3) as usize,
            ..Default::default()
        };
        let mut table = Table::create(
            dir.path(),
            schema(),
            &batches(start.iter().copied(), 17),
            &options,
        )
        .and_then(|p| p.commit())
        .expect("created");
        let mut model = rows_of(&batches(start.iter().copied(), 1000));
        for step in 0..CHANGES {
            let change = random_change(&mut rng, &model, step as u64 + 1);
            table = apply_to_table(&table, &change, options.threads)
                .unwrap_or_else(|e| panic!("seed {seed} step {step} {change:?}: {e}"));
            apply_to_model(&mut model, &change);
            let health = table
                .check()
                .unwrap_or_else(|e| panic!("seed {seed} step {step} {change:?}: {e}"));
            assert!(
                health.unreferenced.is_empty(),
                "seed {seed} step {step}: {:?}",
                health.unreferenced
            );
            assert_eq!(
                contents(&table),
                model,
                "seed {seed} step {step} {change:?}"
            );
            check_random_reads(&table, &model, &mut rng);
        }
        // A reopened table is the same table.
        assert_eq!(contents(&Table::open(dir.path()).expect("reopen")), model);
    }
}

fn check_random_reads(table: &Table, model: &std::collections::BTreeMap<i64, Row>, rng: &mut Rng) {
    let max = model.keys().next_back().copied().unwrap_or(0);
    let a = rng.below(max as u64 + 10) as i64 - 5;
    let b = a + rng.below(60) as i64;
    let present: Vec<i64> = model.keys().copied().collect();
    let labels: Vec<i64> = (0..rng.below(20))
        .map(|_| present[rng.below(present.len() as u64) as usize])
        .collect();
    let access = if rng.below(2) == 0 {
        Access::Mmap
    } else {
        Access::Plain
    };
    let options = ReadOptions { access, threads: 2 };
    let cases: Vec<(Rows, Vec<i64>)> = vec![
        (
            Rows::Before(Key::Int(a)),
            present.iter().copied().filter(|l| *l <= a).collect(),
        ),
        (
            Rows::After(Key::Int(a)),
            present.iter().copied().filter(|l| *l >= a).collect(),
        ),
        (
            Rows::Between(Key::Int(a), Key::Int(b)),
            present
                .iter()
                .copied()
                .filter(|l| a <= *l && *l <= b)
                .collect(),
        ),
        (Rows::Labels(keys(labels.iter().copied())), labels.clone()),
        (
            Rows::LabelArray(Arc::new(Int64Array::from(labels.clone()))),
            labels.clone(),
        ),
    ];
    for (rows, want) in cases {
        let got = table
            .read(&rows, &Cols::List(vec!["score".into()]), &options)
            .unwrap_or_else(|e| panic!("{rows:?}: {e}"));
        assert_eq!(labels_of(&got.batches), want, "{rows:?}");
        // Only partitions whose label range meets the request were opened.
        let (from, to) = match &rows {
            Rows::Before(Key::Int(x)) => (i64::MIN, *x),
            Rows::After(Key::Int(x)) => (*x, i64::MAX),
            Rows::Between(Key::Int(x), Key::Int(y)) => (*x, *y),
            _ => (i64::MIN, i64::MAX),
        };
        for p in &got.partitions_opened {
            let part = &table.partitions()[*p];
            let (Some(Key::Int(lo)), Some(Key::Int(hi))) = (&part.min, &part.max) else {
                continue;
            };
            let meets = match &rows {
                Rows::Labels(_) | Rows::LabelArray(_) => want.iter().any(|l| lo <= l && l <= hi),
                _ => *lo <= to && from <= *hi,
            };
            assert!(
                meets,
                "{rows:?} opened partition {p} ({lo}..={hi}) needlessly"
            );
        }
    }
}
