//! A table read through `RemoteFiles` (objects in a bucket, as formatbench's `--storage s3`
//! reads it): the same rows as from its directory, and a pruned read fetches only the
//! partitions it needs. The files here are the local ones, counted as they are fetched.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use common::{batches, contents, rows_of, schema};
use ipc_parts::file::RangeSource;
use ipc_parts::{Cols, Key, ReadOptions, RemoteFiles, Rows, Table, WriteOptions};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Local files, each fetch and range read counted.
struct Counted {
    dir: PathBuf,
    opened: Mutex<BTreeSet<String>>,
    bytes: Mutex<u64>,
    /// Every range read: (file, offset, length).
    ranges: Mutex<Vec<(String, u64, u64)>>,
}

struct CountedFile {
    name: String,
    bytes: Vec<u8>,
    owner: Arc<Counted>,
}

impl RangeSource for CountedFile {
    fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read_range(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        *self.owner.bytes.lock().unwrap_or_else(|e| e.into_inner()) += len as u64;
        self.owner
            .ranges
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((self.name.clone(), offset, len as u64));
        let start = offset as usize;
        self.bytes
            .get(start..start + len)
            .map(<[u8]>::to_vec)
            .ok_or_else(|| std::io::Error::other("a range past the end"))
    }
}

struct Files(Arc<Counted>);

impl RemoteFiles for Files {
    fn fetch(&self, name: &str) -> std::io::Result<Vec<u8>> {
        std::fs::read(self.0.dir.join(name))
    }
    fn open(&self, name: &str) -> std::io::Result<Box<dyn RangeSource>> {
        self.0
            .opened
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string());
        Ok(Box::new(CountedFile {
            name: name.to_string(),
            bytes: std::fs::read(self.0.dir.join(name))?,
            owner: self.0.clone(),
        }))
    }
}

fn remote(dir: &std::path::Path) -> (Table, Arc<Counted>) {
    let counted = Arc::new(Counted {
        dir: dir.to_path_buf(),
        opened: Mutex::new(BTreeSet::new()),
        bytes: Mutex::new(0),
        ranges: Mutex::new(Vec::new()),
    });
    let table = Table::open_remote(dir, Arc::new(Files(counted.clone()))).expect("opens");
    (table, counted)
}

#[test]
fn a_remote_table_reads_the_same_rows_and_prunes_partitions() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let options = WriteOptions {
        index: Some("index".into()),
        partition_bytes: Some(2_000),
        threads: 2,
        ..Default::default()
    };
    let local = Table::create(dir.path(), schema(), &batches(0..600, 50), &options)
        .and_then(|p| p.commit())
        .expect("writes");
    let partitions = local.partitions().len();
    assert!(partitions >= 4, "{partitions} partitions");

    let (table, counted) = remote(dir.path());
    let read = ReadOptions::default();
    let whole = table.read(&Rows::All, &Cols::All, &read).expect("reads");
    assert_eq!(rows_of(&whole.batches), contents(&local));
    let all_bytes = *counted.bytes.lock().unwrap_or_else(|e| e.into_inner());

    let (table, counted) = remote(dir.path());
    let rows = Rows::Between(Key::Int(100), Key::Int(149));
    let some = table.read(&rows, &Cols::All, &read).expect("reads");
    let expected = local.read(&rows, &Cols::All, &read).expect("reads");
    assert_eq!(rows_of(&some.batches), rows_of(&expected.batches));
    let opened = counted
        .opened
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    // The schema's partition, and those that can hold the range: not every one.
    let needed: BTreeSet<String> = some
        .partitions_opened
        .iter()
        .map(|&p| local.partitions()[p].file.clone())
        .chain(std::iter::once(local.partitions()[0].file.clone()))
        .collect();
    assert_eq!(opened, needed);
    assert!(opened.len() < partitions, "{opened:?}");
    let some_bytes = *counted.bytes.lock().unwrap_or_else(|e| e.into_inner());
    assert!(some_bytes < all_bytes, "{some_bytes} of {all_bytes}");
}

/// The bytes read so far, after checking that no byte was read twice.
fn read_once(counted: &Counted) -> u64 {
    let mut ranges = counted
        .ranges
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    ranges.sort();
    for pair in ranges.windows(2) {
        let ((a, start, len), (b, next, _)) = (&pair[0], &pair[1]);
        assert!(a != b || start + len <= *next, "read twice: {pair:?}");
    }
    ranges.iter().map(|r| r.2).sum()
}

#[test]
fn a_remote_read_fetches_no_byte_twice_and_only_the_blocks_it_needs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // One partition of twelve blocks of 50 rows.
    let options = WriteOptions {
        index: Some("index".into()),
        partition_bytes: None,
        ..Default::default()
    };
    let local = Table::create(dir.path(), schema(), &batches(0..600, 50), &options)
        .and_then(|p| p.commit())
        .expect("writes");
    let read = ReadOptions::default();

    let (table, counted) = remote(dir.path());
    let whole = table.read(&Rows::All, &Cols::All, &read).expect("reads");
    assert_eq!(rows_of(&whole.batches), contents(&local));
    let all_bytes = read_once(&counted);

    // Blocks 2, 3 and 4 whole; of the others, the index column only.
    let (table, counted) = remote(dir.path());
    let rows = Rows::Between(Key::Int(120), Key::Int(219));
    let some = table.read(&rows, &Cols::All, &read).expect("reads");
    let expected = local.read(&rows, &Cols::All, &read).expect("reads");
    assert_eq!(rows_of(&some.batches), rows_of(&expected.batches));
    assert_eq!(some.blocks_decoded, 3);
    let some_bytes = read_once(&counted);
    // Every block's header and index are needed too: small blocks leave less to save.
    assert!(
        some_bytes * 3 < all_bytes * 2,
        "{some_bytes} of {all_bytes}"
    );

    // A projection without the index fetches none of its buffers.
    let (table, counted) = remote(dir.path());
    let only = Cols::Only(vec!["score".into()]);
    let got = table.read(&Rows::All, &only, &read).expect("reads");
    assert_eq!(got.schema.fields().len(), 1);
    let only_bytes = read_once(&counted);
    let (table, counted) = remote(dir.path());
    let list = Cols::List(vec!["score".into()]);
    table.read(&Rows::All, &list, &read).expect("reads");
    let list_bytes = read_once(&counted);
    // The index: 600 labels of 8 bytes (each block's buffers padded to 64 bytes).
    assert!(
        list_bytes >= only_bytes + 600 * 8,
        "{only_bytes} and {list_bytes}"
    );
}
