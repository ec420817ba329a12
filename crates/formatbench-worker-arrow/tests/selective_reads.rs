#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Selective reads are selective in bytes (issue 44, item 2): on a Parquet file of 20 row
//! groups with a page index and an IPC file of 20 record batches, each written here with
//! arrow-rs, a range of a quarter of the rows and a take of 128 rows read a fraction of the
//! file. Bytes are this thread's own (/proc/thread-self/io) with one decoding thread: `rchar`,
//! what the reader asked the kernel for, against the file's size, on any file system; and,
//! where the file system reports it, `read_bytes` of a cold read (pages dropped first), what
//! the kernel fetched from the device with its readahead, against a cold full read's.

use arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use formatbench_protocol::RangeSpec;
use formatbench_worker_arrow::backends::Context;
use formatbench_worker_arrow::{find_backend, Loaded, Request};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Arc;

/// Enough rows that 128 rows' pages, each at least one 4 KiB page of the kernel's when cold,
/// are a small part of the file.
const ROWS: usize = 1_000_000;
const GROUPS: usize = 20;
/// Pages of this many rows: 10,000 a column, so 128 rows spread over the file touch few.
const PAGE_ROWS: usize = 100;

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("x", DataType::Float64, true),
        Field::new("n", DataType::Int64, true),
        Field::new("s", DataType::Utf8, true),
    ]))
}

/// Rows `start..end`: `id` sorted, values that do not compress away.
fn batch(start: usize, end: usize) -> RecordBatch {
    let mut state = start as u64 ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(start as i64..end as i64));
    let x: ArrayRef = Arc::new(Float64Array::from_iter_values(
        (start..end).map(|_| next() as f64 / u64::MAX as f64),
    ));
    let n: ArrayRef = Arc::new(Int64Array::from_iter_values(
        (start..end).map(|_| next() as i64),
    ));
    let s: ArrayRef = Arc::new(StringArray::from_iter_values(
        (start..end).map(|_| format!("{:x}", next())),
    ));
    RecordBatch::try_new(schema(), vec![ids, x, n, s]).unwrap()
}

fn batches() -> Vec<RecordBatch> {
    let step = ROWS / GROUPS;
    (0..GROUPS)
        .map(|g| batch(g * step, (g + 1) * step))
        .collect()
}

fn write_parquet(dir: &Path) {
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(Some(ROWS / GROUPS))
        .set_data_page_row_count_limit(PAGE_ROWS)
        .set_write_batch_size(PAGE_ROWS)
        .build();
    let file = std::fs::File::create(dir.join("data.parquet")).unwrap();
    let mut writer = ArrowWriter::try_new(file, schema(), Some(props)).unwrap();
    for b in batches() {
        writer.write(&b).unwrap();
    }
    writer.close().unwrap();
}

fn write_ipc(dir: &Path) {
    ipc_parts::file::write_with_arrow(
        &dir.join("data.arrow"),
        &schema(),
        &batches(),
        ipc_parts::Compression::None,
    )
    .unwrap();
}

/// This thread's I/O counters: (rchar, read_bytes).
fn io() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/thread-self/io").unwrap();
    let field = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().parse().unwrap())
            .unwrap()
    };
    (field("rchar:"), field("read_bytes:"))
}

/// Syncs the file and drops its pages from the page cache, as `--cache cold` does.
fn drop_cache(path: &Path) {
    let file = std::fs::File::open(path).unwrap();
    file.sync_all().unwrap();
    // SAFETY: posix_fadvise only advises the kernel about a descriptor this test holds.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    assert_eq!(rc, 0);
}

struct Read {
    rows: usize,
    /// Bytes asked for through read calls.
    asked: u64,
    /// Bytes fetched from the device (cold).
    fetched: u64,
    method: &'static str,
}

/// `backend` reading `request` from `dir` on this thread, from a cold page cache.
fn read(backend: &str, dir: &Path, file: &str, request: Request) -> Read {
    let schema = schema();
    let ctx = Context {
        index: Some("id"),
        ..Context::local("default", "wide", &schema, 1)
    };
    drop_cache(&dir.join(file));
    let backend = find_backend(backend).unwrap();
    let before = io();
    let (loaded, method) = backend.read(&ctx, dir, request).unwrap();
    let after = io();
    let Loaded::Table(batches) = loaded else {
        panic!("a table")
    };
    Read {
        rows: batches.iter().map(|b| b.num_rows()).sum(),
        asked: after.0 - before.0,
        fetched: after.1 - before.1,
        method,
    }
}

/// The middle quarter of rows, [3N/8, 5N/8), as the runner plans it, and 128 spread rows.
fn requests() -> (RangeSpec, RangeSpec, Vec<u64>) {
    let (start, end) = (3 * ROWS as u64 / 8, 5 * ROWS as u64 / 8);
    let position = RangeSpec::Position { start, end };
    let index = RangeSpec::Index {
        column: "id".into(),
        start: start as i64,
        end: end as i64,
    };
    // 128 distinct rows spread over the file (a fixed odd stride).
    let take = (0..128u64)
        .map(|i| (i * 2_654_435_761) % ROWS as u64)
        .collect();
    (position, index, take)
}

/// Whether `part` is at most `percent` % of `whole`, with both in the message.
fn at_most(what: &str, part: u64, whole: u64, percent: u64) {
    eprintln!(
        "{what}: {part} of {whole} bytes ({:.1} %)",
        part as f64 * 100.0 / whole as f64
    );
    assert!(
        part * 100 <= whole * percent,
        "{what}: {part} of {whole} bytes ({:.1} %), over {percent} %",
        part as f64 * 100.0 / whole as f64
    );
}

/// Cold `read_bytes` where this file system counts them (tmpfs has no device to fetch from).
fn fetched_counts(full: &Read) -> bool {
    if full.fetched == 0 {
        eprintln!("skipped the cold read_bytes checks: this file system reports no read_bytes");
        return false;
    }
    true
}

#[test]
fn parquet_range_and_take_read_only_their_row_groups_and_pages() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    write_parquet(dir.path());
    let (position, index, take) = requests();
    let full = read("parquet", dir.path(), "data.parquet", Request::All);
    assert_eq!(full.rows, ROWS);
    let by_position = read(
        "parquet",
        dir.path(),
        "data.parquet",
        Request::Range(&position),
    );
    let by_index = read(
        "parquet",
        dir.path(),
        "data.parquet",
        Request::Range(&index),
    );
    let taken = read(
        "parquet",
        dir.path(),
        "data.parquet",
        Request::Take(&take, None),
    );
    assert_eq!(
        (by_position.rows, by_index.rows, taken.rows),
        (ROWS / 4, ROWS / 4, 128)
    );
    let size = std::fs::metadata(dir.path().join("data.parquet"))
        .unwrap()
        .len();
    for r in [&by_position, &by_index] {
        assert!(r.method.contains("pruned"), "{}", r.method);
        at_most(r.method, r.asked, size, 35);
    }
    at_most(taken.method, taken.asked, size, 10);
    if fetched_counts(&full) {
        for r in [&by_position, &by_index] {
            at_most(r.method, r.fetched, full.fetched, 35);
        }
        at_most(taken.method, taken.fetched, full.fetched, 10);
    }
}

#[test]
fn ipc_ranges_and_projections_read_only_the_blocks_and_buffers_they_need() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    write_ipc(dir.path());
    let (position, index, take) = requests();
    let full = read("ipc", dir.path(), "data.arrow", Request::All);
    assert_eq!(full.rows, ROWS);
    let by_position = read("ipc", dir.path(), "data.arrow", Request::Range(&position));
    let by_index = read("ipc", dir.path(), "data.arrow", Request::Range(&index));
    let columns = ["x".to_string()];
    let projected = read("ipc", dir.path(), "data.arrow", Request::Columns(&columns));
    assert_eq!((by_position.rows, by_index.rows), (ROWS / 4, ROWS / 4));
    let size = std::fs::metadata(dir.path().join("data.arrow"))
        .unwrap()
        .len();
    // A quarter of the rows: 6 of the 20 blocks (the range's ends fall inside two of them).
    assert!(
        by_position.method.contains("pruned"),
        "{}",
        by_position.method
    );
    at_most(by_position.method, by_position.asked, size, 35);
    // The index column of every block (no statistics in an IPC file), then 6 whole blocks.
    assert!(by_index.method.contains("pruned"), "{}", by_index.method);
    at_most(by_index.method, by_index.asked, size, 50);
    // One float column of four: its buffers alone.
    at_most(projected.method, projected.asked, size, 30);
    if fetched_counts(&full) {
        at_most(by_position.method, by_position.fetched, full.fetched, 35);
        // What the device sent rounds each of the 26 reads out to whole pages, and the page
        // cache may fetch a page more: 48.2 % asked was 50.5 % fetched in one run here.
        at_most(by_index.method, by_index.fetched, full.fetched, 55);
        at_most(projected.method, projected.fetched, full.fetched, 30);
        // Mapped, a take touches only the pages its rows lie on (no read calls to count).
        let mapped_take = read(
            "ipc-mmap",
            dir.path(),
            "data.arrow",
            Request::Take(&take, None),
        );
        assert_eq!(mapped_take.rows, 128);
        at_most(mapped_take.method, mapped_take.fetched, full.fetched, 10);
    }
}
