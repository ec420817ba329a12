#![allow(clippy::expect_used, clippy::panic)]
//! The gathered IPC writer: files that arrow's own reader reads back equal to what was
//! written, for every type it covers, sliced at offsets that are not byte- or zero-aligned.

use arrow::array::*;
use arrow::datatypes::{DataType, Field, Fields, Int32Type};
use ipc_parts::file::{write_file, write_with_arrow, Compression, IpcFile};
use std::sync::Arc;

fn every_type(rows: usize) -> RecordBatch {
    let ints = Int64Array::from_iter((0..rows).map(|i| (i % 7 != 0).then_some(i as i64 * 3 - 50)));
    let flags = BooleanArray::from_iter((0..rows).map(|i| (i % 5 != 0).then_some(i % 3 == 0)));
    let words = StringArray::from_iter((0..rows).map(|i| (i % 4 != 0).then(|| "w".repeat(i % 9))));
    let large = LargeBinaryArray::from_iter((0..rows).map(|i| Some(vec![i as u8; i % 5])));
    let fixed =
        FixedSizeBinaryArray::try_from_iter((0..rows).map(|i| [i as u8, 7, 9])).expect("fixed");
    let stamps =
        TimestampMicrosecondArray::from_iter_values((0..rows).map(|i| i as i64 * 1_000_003))
            .with_timezone("UTC");
    let money = Decimal128Array::from_iter_values((0..rows).map(|i| i as i128 * 12345))
        .with_precision_and_scale(20, 2)
        .expect("decimal");
    let list = FixedSizeListArray::from_iter_primitive::<Int32Type, _, _>(
        (0..rows).map(|i| (i % 6 != 0).then(|| vec![Some(i as i32), None, Some(-1)])),
        3,
    );
    let inner = Fields::from(vec![
        Field::new("x", DataType::Float32, true),
        Field::new("y", DataType::Utf8, false),
    ]);
    let nested = StructArray::new(
        inner.clone(),
        vec![
            Arc::new(Float32Array::from_iter(
                (0..rows).map(|i| (i % 2 == 0).then_some(i as f32)),
            )),
            Arc::new(StringArray::from_iter_values(
                (0..rows).map(|i| format!("s{i}")),
            )),
        ],
        None,
    );
    RecordBatch::try_from_iter(vec![
        ("ints", Arc::new(ints) as ArrayRef),
        ("flags", Arc::new(flags)),
        ("words", Arc::new(words)),
        ("large", Arc::new(large)),
        ("fixed", Arc::new(fixed)),
        ("stamps", Arc::new(stamps)),
        ("money", Arc::new(money)),
        ("list", Arc::new(list)),
        ("nested", Arc::new(nested)),
    ])
    .expect("a batch")
}

#[test]
fn gathered_files_read_back_equal_through_arrow() {
    let dir = tempfile::tempdir().expect("tempdir");
    let whole = every_type(1000);
    // Slices starting mid-byte of the bitmaps and mid-way through the string offsets.
    let batches = vec![
        whole.slice(0, 333),
        whole.slice(333, 5),
        whole.slice(338, 0),
        whole.slice(338, 662),
    ];
    let schema = whole.schema();
    let path = dir.path().join("gathered.arrow");
    let bytes = write_file(&path, &schema, &batches, Compression::None).expect("written");
    assert_eq!(bytes, std::fs::metadata(&path).expect("file").len());
    let reader =
        arrow::ipc::reader::FileReader::try_new(std::fs::File::open(&path).expect("open"), None)
            .expect("arrow reads it");
    let read: Vec<RecordBatch> = reader.collect::<Result<_, _>>().expect("batches");
    assert_eq!(read.len(), batches.len());
    for (got, want) in read.iter().zip(&batches) {
        assert_eq!(got, want);
    }
    // Mapped and decoded zero-copy, which needs every buffer aligned.
    let mapped = IpcFile::map(&path).expect("mapped");
    let again = arrow::compute::concat_batches(&schema, &mapped.read_all(None).expect("decoded"))
        .expect("concat");
    assert_eq!(again, whole);
    // The same bytes of data as arrow's own writer, give or take its padding.
    let arrow_path = dir.path().join("arrow.arrow");
    let arrow_bytes =
        write_with_arrow(&arrow_path, &schema, &batches, Compression::None).expect("written");
    assert!(
        bytes.abs_diff(arrow_bytes) * 10 < arrow_bytes,
        "{bytes} vs {arrow_bytes}"
    );
}

/// A projection read by plain reads takes only its columns' buffers: few columns of many go
/// into a compact body whose header is rewritten to point there, most columns into the body
/// as stored. Compressed blocks decompress in arrow's decoder, or first on several threads
/// into a plain body with a header of its own. Every way, each column decodes equal to what
/// was written, in every codec, plain or mapped.
#[test]
fn projections_read_by_plain_reads_decode_equal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let whole = every_type(1000);
    let batches = vec![whole.slice(0, 400), whole.slice(400, 600)];
    let schema = whole.schema();
    let columns = schema.fields().len();
    let mut projections: Vec<Option<Vec<usize>>> = (0..columns).map(|c| Some(vec![c])).collect();
    projections.push(Some(vec![0, columns - 1]));
    projections.push(Some(vec![columns - 1, 2, 0]));
    projections.push(Some((0..columns).filter(|c| c % 4 != 1).collect()));
    projections.push(None);
    for compression in [Compression::None, Compression::Lz4, Compression::Zstd] {
        let path = dir.path().join(format!("{compression:?}.arrow"));
        write_file(&path, &schema, &batches, compression).expect("written");
        let files = [
            ("plain", IpcFile::open(&path).expect("opened")),
            (
                "plain, 3 threads",
                IpcFile::open(&path).expect("opened").with_threads(3),
            ),
            (
                "mapped, 2 threads",
                IpcFile::map(&path).expect("mapped").with_threads(2),
            ),
        ];
        for (how, file) in &files {
            for projection in &projections {
                let read = file.read_all(projection.clone()).expect("decoded");
                let got = arrow::compute::concat_batches(&read[0].schema(), &read).expect("concat");
                let want = match projection {
                    Some(p) => whole.project(p).expect("projected"),
                    None => whole.clone(),
                };
                assert_eq!(got, want, "{compression:?}, {how}, columns {projection:?}");
            }
        }
    }
}
