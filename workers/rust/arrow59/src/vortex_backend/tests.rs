//! The Vortex backend's own checks: types it refuses, conformed columns, round trips.

use super::*;
use arrow::array::{DurationSecondArray, Float32Array, Int64Array};

fn ctx<'a>(schema: &'a SchemaRef, profile: &'a str) -> Context<'a> {
    Context::local(profile, formatbench_worker_kit::layout::WIDE, schema, 2)
}

#[test]
fn a_type_vortex_cannot_store_is_unsupported() {
    let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new(
        "d",
        DataType::Duration(arrow::datatypes::TimeUnit::Second),
        false,
    )]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(DurationSecondArray::from(vec![1, 2, 3]))],
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("vortex-unsupported-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let err = Vortex
        .write(&ctx(&schema, "default"), &[batch], &dir)
        .unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    match err {
        KitError::Unsupported(reason) => assert!(reason.contains("column 'd'"), "{reason}"),
        other => panic!("expected unsupported, got {other}"),
    }
}

#[test]
fn take_keeps_the_request_order_and_duplicates() {
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("i", DataType::Int64, false),
        Field::new("f", DataType::Float32, false),
    ]));
    let n = 20_000i64;
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(Int64Array::from_iter_values(0..n)),
            Arc::new(Float32Array::from_iter_values(
                (0..n).map(|v| v as f32 * 0.5),
            )),
        ],
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("vortex-take-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = ctx(&schema, "compact");
    Vortex.write(&c, &[batch], &dir).unwrap();
    let rows = [19_999u64, 3, 8_192, 3, 0];
    let names = ["f".to_string()];
    let (batches, _) = Vortex
        .do_read(&c, &dir, Request::Take(&rows, Some(&names)))
        .unwrap();
    let (all, _) = Vortex.do_read(&c, &dir, Request::All).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let got = batches[0]
        .column(0)
        .as_any()
        .downcast_ref::<Float32Array>()
        .unwrap()
        .values()
        .to_vec();
    assert_eq!(got, vec![9_999.5, 1.5, 4_096.0, 1.5, 0.0]);
    assert_eq!(all.iter().map(|b| b.num_rows()).sum::<usize>(), n as usize);
}

/// 300 rows of a 1,024-wide float32 list (1.2 MiB, more than the default 1 MiB chunk target),
/// values spread over many exponents as the features dataset's normal draws are.
fn feature_matrix() -> (SchemaRef, RecordBatch) {
    let width = 1_024;
    let rows = 300;
    let item = Arc::new(Field::new("item", DataType::Float32, false));
    let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new(
        "features",
        DataType::FixedSizeList(item.clone(), width),
        false,
    )]));
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let values = Float32Array::from_iter_values((0..rows * width).map(|_| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let unit = (state >> 40) as f32 / (1u64 << 24) as f32;
        (unit - 0.5) * 8.0
    }));
    let list = FixedSizeListArray::try_new(item, width, Arc::new(values), None).unwrap();
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(list)]).unwrap();
    (schema, batch)
}

#[test]
fn the_uncompressed_profile_stores_plain_floats_in_whole_row_blocks() {
    let (schema, batch) = feature_matrix();
    let dir = std::env::temp_dir().join(format!("vortex-uncompressed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let c = ctx(&schema, "uncompressed");
    Vortex
        .write(&c, std::slice::from_ref(&batch), &dir)
        .unwrap();
    let settings = Vortex.settings(&c, &dir);
    let (read, _) = Vortex.do_read(&c, &dir, Request::All).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    // One chunk: the fixed-size list and its plain float elements, nothing else.
    let encodings = &settings["encodings"];
    assert_eq!(
        encodings, "column 'features': vortex.fixed_size_list×1, vortex.primitive×1",
        "{settings:?}"
    );
    assert!(settings["write_strategy"].starts_with("no compression"));
    assert_eq!(read.len(), 1);
    assert_eq!(read[0], batch);
}
