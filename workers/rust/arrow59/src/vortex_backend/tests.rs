//! The Vortex backend's own checks: types it refuses, conformed columns, round trips.

use super::*;
use arrow::array::{DurationSecondArray, Float32Array, Int64Array};

fn ctx<'a>(schema: &'a SchemaRef, profile: &'a str) -> Context<'a> {
    Context {
        profile,
        profile_settings: &formatbench_worker_kit::NO_PROFILE_SETTINGS,
        layout: formatbench_worker_kit::layout::WIDE,
        schema,
        threads: 2,
        index: None,
        split: None,
        remote: None,
        row_group_rows: None,
    }
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
