//! A writer killed at random points leaves the old table or the new one, never a mix: a child
//! process applies a known sequence of changes until it is killed (SIGKILL), and the table
//! found afterwards must equal the model after some prefix of that sequence.

#![allow(clippy::expect_used, clippy::panic)]

mod common;

use common::*;
use ipc_parts::{Table, WriteOptions};
use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

const CHILD_DIR: &str = "IPC_PARTS_CRASH_DIR";
const CHILD_SEED: &str = "IPC_PARTS_CRASH_SEED";
const CHANGES: usize = 400;
const KILLS: u64 = 12;

fn initial() -> Vec<i64> {
    (0..150).map(|i| i * 4).collect()
}

/// The model's state after each prefix of the seed's sequence (index 0: before any change).
fn states(seed: u64) -> (Vec<Change>, Vec<BTreeMap<i64, Row>>) {
    let mut rng = Rng(seed);
    let mut model = rows_of(&batches(initial(), 1000));
    let mut changes = Vec::new();
    let mut states = vec![model.clone()];
    for step in 0..CHANGES {
        let change = random_change(&mut rng, &model, step as u64 + 1);
        apply_to_model(&mut model, &change);
        changes.push(change);
        states.push(model.clone());
    }
    (changes, states)
}

/// The child's work (run by `killed_writers_leave_a_whole_table` in a process of its own).
#[test]
#[ignore = "the crash test's child process; run by killed_writers_leave_a_whole_table"]
fn crash_child_writer() {
    let (Ok(dir), Ok(seed)) = (std::env::var(CHILD_DIR), std::env::var(CHILD_SEED)) else {
        panic!("run by killed_writers_leave_a_whole_table, which sets {CHILD_DIR}");
    };
    let seed: u64 = seed.parse().expect("a seed");
    let (changes, _) = states(seed);
    let mut table = Table::open(std::path::Path::new(&dir)).expect("the parent's table");
    for change in &changes {
        table = apply_to_table(&table, change, 2).expect("a change");
    }
}

#[test]
fn killed_writers_leave_a_whole_table() {
    let exe = std::env::current_exe().expect("the test binary");
    for kill in 0..KILLS {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = WriteOptions {
            index: Some("index".into()),
            partition_bytes: Some(1500),
            threads: 2,
            ..Default::default()
        };
        Table::create(dir.path(), schema(), &batches(initial(), 50), &options)
            .and_then(|p| p.commit())
            .expect("created");
        let seed = 1000 + kill;
        let mut child = Command::new(&exe)
            .args(["crash_child_writer", "--exact", "--ignored", "--nocapture"])
            .env(CHILD_DIR, dir.path())
            .env(CHILD_SEED, seed.to_string())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("the child writer");
        // From just after start-up to well into the sequence.
        std::thread::sleep(Duration::from_millis(5 + Rng(seed).below(400)));
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        let (_, states) = states(seed);
        let table = Table::open(dir.path()).expect("the table opens after the crash");
        let health = table.check().expect("invariants hold after the crash");
        let found = contents(&table);
        let step = states.iter().position(|s| *s == found);
        assert!(
            step.is_some(),
            "kill {kill}: the table is no state of the sequence ({} rows)",
            health.rows
        );
        // Files of the interrupted change are garbage, and removing them changes nothing.
        table.remove_unreferenced().expect("cleanup");
        assert!(table.check().expect("still whole").unreferenced.is_empty());
        assert_eq!(contents(&table), found);
        eprintln!(
            "kill {kill}: whole table after change {} of {CHANGES}, {} leftover files",
            step.unwrap_or(0),
            health.unreferenced.len()
        );
    }
}
