//! The yardstick on small files written here: every expected figure is added up in the test
//! from the file's own layout (its tail, its blocks and pages) and the data written.

use super::spans::Spans;
use super::{needed, Needed};
use arrow::array::{
    Array, ArrayRef, FixedSizeListArray, Float32Array, Float64Array, Int64Array, RecordBatch,
    StringArray,
};
use arrow::datatypes::{DataType, Field, Schema};
use arrow::ipc::writer::FileWriter;
use formatbench_protocol::{Op, OpParams, RangeSpec};
use parquet::arrow::ArrowWriter;
use parquet::file::metadata::{PageIndexPolicy, ParquetMetaData, ParquetMetaDataReader};
use parquet::file::properties::WriterProperties;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const ROWS: i64 = 1_000;
/// IPC record batches, and Parquet pages, of this many rows.
const BATCH: i64 = 100;
/// Each string value's bytes ("s00042").
const STRING_BYTES: u64 = 6;

/// `index` (0..1000, the row's position), `a`, `s` and `f`, without nulls.
fn table(start: i64, rows: i64) -> RecordBatch {
    let range = start..start + rows;
    let columns: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from_iter_values(range.clone())),
        Arc::new(Int64Array::from_iter_values(range.clone().map(|i| i * 7))),
        Arc::new(StringArray::from_iter_values(
            range.clone().map(|i| format!("s{i:05}")),
        )),
        Arc::new(Float64Array::from_iter_values(
            range.map(|i| i as f64 / 2.0),
        )),
    ];
    let schema = Schema::new(vec![
        Field::new("index", DataType::Int64, false),
        Field::new("a", DataType::Int64, false),
        Field::new("s", DataType::Utf8, false),
        Field::new("f", DataType::Float64, false),
    ]);
    RecordBatch::try_new(Arc::new(schema), columns).unwrap()
}

fn params(columns: Option<&[&str]>, range: Option<RangeSpec>, rows: Option<&[u64]>) -> OpParams {
    OpParams {
        columns: columns.map(|c| c.iter().map(|s| s.to_string()).collect()),
        range,
        rows: rows.map(<[u64]>::to_vec),
        ..OpParams::default()
    }
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

/// The length of a file's footer from its tail: `trailer` bytes at the end, the footer's
/// length in the first four.
fn footer_len(path: &Path, trailer: u64) -> u64 {
    let bytes = std::fs::read(path).unwrap();
    let at = bytes.len() - trailer as usize;
    u64::from(u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()))
}

fn run(dir: &Path, backend: &str, op: Op, params: &OpParams) -> Needed {
    let schema = table(0, 1).schema();
    needed(dir, backend, "wide", op, params, &schema)
        .unwrap()
        .expect("a yardstick")
}

#[test]
fn touching_ranges_join_and_disjoint_ones_count_apart() {
    let mut spans = Spans::default();
    for range in [10..20, 20..30, 25..28, 40..41, 5..5] {
        spans.add(range);
    }
    assert_eq!(
        spans.needed(),
        Needed {
            bytes: 21,
            ranges: 2
        }
    );
}

// ---- Parquet: 1,000 rows in row groups of 400 rows, pages of 100.

fn parquet_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.parquet");
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(400))
        .set_data_page_row_count_limit(BATCH as usize)
        .set_write_batch_size(BATCH as usize)
        .build();
    let batch = table(0, ROWS);
    let file = std::fs::File::create(&path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    (dir, path)
}

fn parquet_meta(path: &Path) -> ParquetMetaData {
    let file = std::fs::File::open(path).unwrap();
    ParquetMetaDataReader::new()
        .with_page_index_policy(PageIndexPolicy::Required)
        .parse_and_finish(&file)
        .unwrap()
}

#[test]
fn a_parquet_projection_needs_the_footer_and_its_chunks() {
    let (dir, path) = parquet_dir();
    let meta = parquet_meta(&path);
    assert_eq!(meta.num_row_groups(), 3);
    let footer = 8 + footer_len(&path, 8);
    // Leaves 1 (`a`) and 3 (`f`) of every row group, whole.
    let chunks: u64 = meta
        .row_groups()
        .iter()
        .flat_map(|g| [g.column(1).byte_range().1, g.column(3).byte_range().1])
        .sum();
    let got = run(
        dir.path(),
        "parquet",
        Op::Project,
        &params(Some(&["a", "f"]), None, None),
    );
    assert_eq!(got.bytes, footer + chunks);
    // Two chunks per row group (`s` lies between them, `index` of the next group after `f`),
    // and the footer behind the page index.
    assert_eq!(got.ranges, 3 * 2 + 1);
}

/// A table cut into files (the sweep's shared files): each part needs its own footer and its
/// projected chunks; rows by position, which count across the table, are not said per part.
#[test]
fn a_table_cut_into_parquet_files_needs_each_parts_footer_and_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let mut expected = Needed::default();
    for (index, start) in [0, 400, 800].into_iter().enumerate() {
        let part = tempfile::tempdir().unwrap();
        let batch = table(start, 200);
        let path = part.path().join("data.parquet");
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let one = run(
            part.path(),
            "parquet",
            Op::Project,
            &params(Some(&["a"]), None, None),
        );
        expected = expected.plus(one);
        std::fs::rename(&path, dir.path().join(format!("part-{index:05}.parquet"))).unwrap();
    }
    let projected = params(Some(&["a"]), None, None);
    assert_eq!(
        run(dir.path(), "parquet", Op::Project, &projected),
        expected
    );
    assert_eq!(
        expected.ranges,
        3 * 2,
        "each part: its chunk of `a`, its footer"
    );
    let by_position = params(None, Some(RangeSpec::Position { start: 0, end: 10 }), None);
    let schema = table(0, 1).schema();
    let got = needed(
        dir.path(),
        "parquet",
        "wide",
        Op::Range,
        &by_position,
        &schema,
    )
    .unwrap();
    assert_eq!(got, None);
}

/// Rows 450..520 lie in the second row group (rows 400..800), in its pages 0 and 1.
fn parquet_range_expectation(meta: &ParquetMetaData, footer: u64) -> (u64, Vec<u64>) {
    let index = meta.page_index().unwrap();
    let group = meta.row_group(1);
    let mut bytes = footer;
    for leaf in 0..4 {
        let pages = index.offset_index(1, leaf).unwrap().page_locations();
        let first_rows: Vec<i64> = pages.iter().map(|p| p.first_row_index).collect();
        assert_eq!(first_rows, [0, 100, 200, 300], "the pages the test expects");
        let (chunk_start, _) = group.column(leaf).byte_range();
        // The dictionary page (what lies before the first data page), then pages 0 and 1.
        bytes += pages[0].offset as u64 - chunk_start;
        bytes += pages[0].compressed_page_size as u64 + pages[1].compressed_page_size as u64;
        bytes += group.column(leaf).offset_index_length().unwrap() as u64;
    }
    let page_sizes = (0..4)
        .map(|leaf| group.column(leaf).compressed_size() as u64)
        .collect();
    (bytes, page_sizes)
}

#[test]
fn a_parquet_position_range_needs_only_the_pages_holding_it() {
    let (dir, path) = parquet_dir();
    let meta = parquet_meta(&path);
    let footer = 8 + footer_len(&path, 8);
    let (expected, chunk_sizes) = parquet_range_expectation(&meta, footer);
    let range = RangeSpec::Position {
        start: 450,
        end: 520,
    };
    let got = run(
        dir.path(),
        "parquet",
        Op::Range,
        &params(None, Some(range), None),
    );
    assert_eq!(got.bytes, expected);
    // Less than the group's four whole chunks: pages 2 and 3 are left out.
    assert!(got.bytes - footer < chunk_sizes.iter().sum::<u64>());
    // Per leaf its dictionary and pages 0–1 in one run; the group's offset index entries lie
    // together; the footer.
    assert_eq!(got.ranges, 4 + 1 + 1);
}

#[test]
fn a_parquet_index_range_adds_the_index_columns_column_index() {
    let (dir, path) = parquet_dir();
    let meta = parquet_meta(&path);
    let footer = 8 + footer_len(&path, 8);
    let (by_position, _) = parquet_range_expectation(&meta, footer);
    // The index's statistics rule out row groups 0 and 2; in group 1 its column index keeps
    // pages 0 (400..499) and 1 (500..599), the pages that hold rows 450..520 anyway.
    let column_index = meta.row_group(1).column(0).column_index_length().unwrap() as u64;
    let range = RangeSpec::Index {
        column: "index".into(),
        start: 450,
        end: 520,
    };
    let got = run(
        dir.path(),
        "parquet",
        Op::Range,
        &params(None, Some(range), None),
    );
    assert_eq!(got.bytes, by_position + column_index);
    assert_eq!(got.ranges, 4 + 1 + 1 + 1);
}

// ---- IPC: 1,000 rows in 10 record batches of 100.

fn ipc_file(path: &Path, batches: &[RecordBatch]) {
    let file = std::fs::File::create(path).unwrap();
    let mut writer = FileWriter::try_new(file, &batches[0].schema()).unwrap();
    for batch in batches {
        writer.write(batch).unwrap();
    }
    writer.finish().unwrap();
}

fn ipc_dir() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.arrow");
    let batches: Vec<RecordBatch> = (0..ROWS / BATCH).map(|b| table(b * BATCH, BATCH)).collect();
    ipc_file(&path, &batches);
    (dir, path)
}

/// Each record batch block's (header length, body length), from the footer.
fn ipc_blocks(path: &Path) -> Vec<(u64, u64)> {
    let bytes = std::fs::read(path).unwrap();
    let len = footer_len(path, 10) as usize;
    let end = bytes.len() - 10;
    let footer = arrow::ipc::root_as_footer(&bytes[end - len..end]).unwrap();
    footer
        .recordBatches()
        .unwrap()
        .iter()
        .map(|b| (b.metaDataLength() as u64, b.bodyLength() as u64))
        .collect()
}

#[test]
fn an_ipc_projection_needs_the_footer_every_header_and_its_buffers() {
    let (dir, path) = ipc_dir();
    let blocks = ipc_blocks(&path);
    assert_eq!(blocks.len(), 10);
    let headers: u64 = blocks.iter().map(|b| b.0).sum();
    // `a` and `f`: 100 values of 8 bytes each per block (no nulls: empty validity buffers).
    let buffers = 10 * 2 * (BATCH as u64 * 8);
    let got = run(
        dir.path(),
        "ipc",
        Op::Project,
        &params(Some(&["a", "f"]), None, None),
    );
    assert_eq!(got.bytes, 10 + footer_len(&path, 10) + headers + buffers);
    // Per block its header, `a`'s values and `f`'s (`index` and `s` lie between, 64-byte
    // padding after `f`); the footer with the trailer.
    assert_eq!(got.ranges, 10 * 3 + 1);

    // A string column: its offsets (101 × 4 bytes) and values per block.
    let got = run(
        dir.path(),
        "ipc",
        Op::Project,
        &params(Some(&["s"]), None, None),
    );
    let strings = 10 * ((BATCH as u64 + 1) * 4 + BATCH as u64 * STRING_BYTES);
    assert_eq!(got.bytes, 10 + footer_len(&path, 10) + headers + strings);
}

#[test]
fn an_ipc_position_range_needs_only_the_blocks_holding_it() {
    let (dir, path) = ipc_dir();
    let blocks = ipc_blocks(&path);
    let headers: u64 = blocks.iter().map(|b| b.0).sum();
    let range = RangeSpec::Position {
        start: 250,
        end: 420,
    };
    let got = run(
        dir.path(),
        "ipc",
        Op::Range,
        &params(None, Some(range), None),
    );
    // Every column: blocks 2, 3 and 4 whole.
    let bodies: u64 = blocks[2..5].iter().map(|b| b.1).sum();
    assert_eq!(got.bytes, 10 + footer_len(&path, 10) + headers + bodies);
    // Headers 0 and 1; blocks 2–4 run on into header 5; headers 6–9; the footer.
    assert_eq!(got.ranges, 2 + 1 + 4 + 1);

    // A take of rows in blocks 0 and 7 only.
    let got = run(
        dir.path(),
        "ipc",
        Op::Take,
        &params(None, None, Some(&[705, 3, 799])),
    );
    let bodies = blocks[0].1 + blocks[7].1;
    assert_eq!(got.bytes, 10 + footer_len(&path, 10) + headers + bodies);
}

#[test]
fn an_ipc_index_range_reads_every_blocks_index_column() {
    let (dir, path) = ipc_dir();
    let blocks = ipc_blocks(&path);
    let headers: u64 = blocks.iter().map(|b| b.0).sum();
    let range = RangeSpec::Index {
        column: "index".into(),
        start: 250,
        end: 420,
    };
    let got = run(
        dir.path(),
        "ipc",
        Op::Range,
        &params(None, Some(range), None),
    );
    // Blocks 2–4 whole; the other seven blocks' index values (the first buffer with bytes,
    // right behind the header).
    let bodies: u64 = blocks[2..5].iter().map(|b| b.1).sum();
    let index_values = 7 * BATCH as u64 * 8;
    assert_eq!(
        got.bytes,
        10 + footer_len(&path, 10) + headers + bodies + index_values
    );
    assert_eq!(got.ranges, 2 + 1 + 4 + 1);
}

#[test]
fn an_array_layout_feature_projection_needs_the_whole_list_column() {
    const WIDTH: i32 = 16;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data.arrow");
    let item = Arc::new(Field::new("item", DataType::Float32, false));
    let batches: Vec<RecordBatch> = (0..4)
        .map(|b| {
            let values =
                Float32Array::from_iter_values((0..BATCH * WIDTH as i64).map(|v| v as f32));
            let list =
                FixedSizeListArray::try_new(item.clone(), WIDTH, Arc::new(values), None).unwrap();
            let schema = Schema::new(vec![
                Field::new("index", DataType::Int64, false),
                Field::new("features", list.data_type().clone(), false),
            ]);
            let index = Int64Array::from_iter_values(b * BATCH..(b + 1) * BATCH);
            RecordBatch::try_new(Arc::new(schema), vec![Arc::new(index), Arc::new(list)]).unwrap()
        })
        .collect();
    ipc_file(&path, &batches);
    // The source: the index and 16 float32 features, 8 of them picked.
    let mut fields = vec![Field::new("index", DataType::Int64, false)];
    fields.extend((0..WIDTH).map(|i| Field::new(format!("f{i}"), DataType::Float32, false)));
    let source = Schema::new(fields);
    let picked: Vec<String> = (0..8).map(|i| format!("f{}", 2 * i)).collect();
    let params = OpParams {
        columns: Some(picked),
        ..OpParams::default()
    };
    let got = needed(
        dir.path(),
        "ipc",
        "array",
        Op::FeatureProject,
        &params,
        &source,
    )
    .unwrap()
    .unwrap();
    let blocks = ipc_blocks(&path);
    let headers: u64 = blocks.iter().map(|b| b.0).sum();
    // Every row's 16 features, 4 bytes each: the picked 8 are not stored apart.
    let list = 4 * BATCH as u64 * WIDTH as u64 * 4;
    assert_eq!(got.bytes, 10 + footer_len(&path, 10) + headers + list);
}

#[test]
fn ipc_parts_needs_the_metadata_and_only_the_partitions_holding_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    // Two partitions of 500 rows, 5 batches each.
    for (p, name) in ["part-0.arrow", "part-1.arrow"].iter().enumerate() {
        let start = p as i64 * 500;
        let batches: Vec<RecordBatch> = (0..5).map(|b| table(start + b * BATCH, BATCH)).collect();
        ipc_file(&dir.path().join(name), &batches);
    }
    let meta = r#"{"format": "ipc-parts", "version": 1, "partitions": [
        {"file": "part-0.arrow", "rows": 500, "bytes": 1, "min": 0, "max": 499},
        {"file": "part-1.arrow", "rows": 500, "bytes": 1, "min": 500, "max": 999}]}"#;
    std::fs::write(dir.path().join("table.json"), meta).unwrap();
    let second = dir.path().join("part-1.arrow");
    let blocks = ipc_blocks(&second);
    let headers: u64 = blocks.iter().map(|b| b.0).sum();
    // Rows 620 and 930: the second partition's blocks 1 and 4, nothing of the first.
    let got = run(
        dir.path(),
        "ipc-parts",
        Op::Take,
        &params(None, None, Some(&[930, 620])),
    );
    let partition = 10 + footer_len(&second, 10) + headers + blocks[1].1 + blocks[4].1;
    assert_eq!(got.bytes, meta.len() as u64 + partition);
    // By index value, the bounds in the metadata prune the first partition too.
    let range = RangeSpec::Index {
        column: "index".into(),
        start: 600,
        end: 700,
    };
    let got = run(
        dir.path(),
        "ipc-parts",
        Op::Range,
        &params(None, Some(range), None),
    );
    let index_values = 4 * BATCH as u64 * 8;
    assert_eq!(
        got.bytes,
        meta.len() as u64 + 10 + footer_len(&second, 10) + headers + blocks[1].1 + index_values
    );
    assert!(file_size(&second) > partition);
}

#[test]
fn writes_changes_and_other_formats_have_no_yardstick() {
    let (dir, _) = parquet_dir();
    let schema = table(0, 1).schema();
    let none = |backend: &str, op: Op, layout: &str| {
        needed(
            dir.path(),
            backend,
            layout,
            op,
            &OpParams::default(),
            &schema,
        )
        .unwrap()
    };
    assert_eq!(none("parquet", Op::Write, "wide"), None);
    assert_eq!(none("parquet", Op::Update, "wide"), None);
    assert_eq!(none("csv", Op::Read, "wide"), None);
    assert_eq!(none("parquet", Op::Read, "packed"), None);
    // A whole read needs every chunk and the footer: all but the magic and the page index.
    let whole = none("parquet", Op::Read, "wide").unwrap();
    let path = dir.path().join("data.parquet");
    assert!(whole.bytes < file_size(&path));
    // A column the file lacks: the yardstick does not guess.
    let params = params(Some(&["nope"]), None, None);
    assert_eq!(
        needed(dir.path(), "parquet", "wide", Op::Project, &params, &schema).unwrap(),
        None
    );
}
