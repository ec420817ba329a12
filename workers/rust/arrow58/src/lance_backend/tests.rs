//! The Lance backend's own checks: what its profiles write, and a scan of a 2.0 float matrix.

use super::*;
use arrow::array::{Array, FixedSizeListArray, Float32Array};
use arrow::datatypes::{DataType, Field, Schema};
use formatbench_worker_kit::layout::ARRAY;

fn ctx<'a>(schema: &'a SchemaRef, profile: &'a str) -> Context<'a> {
    Context::local(profile, ARRAY, schema, 2)
}

/// Ten batches of 256 rows of a 1,024-wide float32 list: 10 MiB, more than the 8 MiB a 2.0
/// writer buffers per column before it writes a page.
fn feature_batches() -> (SchemaRef, Vec<RecordBatch>) {
    let (width, rows) = (1_024, 256);
    let item = Arc::new(Field::new("item", DataType::Float32, true));
    let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new(
        "features",
        DataType::FixedSizeList(item.clone(), width),
        false,
    )]));
    let batches = (0..10)
        .map(|b| {
            let start = b * rows * width as usize;
            let values = Float32Array::from_iter_values(
                (start..start + rows * width as usize).map(|v| v as f32 * 0.25),
            );
            let list =
                FixedSizeListArray::try_new(item.clone(), width, Arc::new(values), None).unwrap();
            RecordBatch::try_new(schema.clone(), vec![Arc::new(list)]).unwrap()
        })
        .collect();
    (schema, batches)
}

fn values(batch: &RecordBatch) -> Vec<f32> {
    let list = batch
        .column(0)
        .as_any()
        .downcast_ref::<FixedSizeListArray>()
        .unwrap();
    let items = list.values().as_any().downcast_ref::<Float32Array>();
    items.unwrap().values().to_vec()
}

#[test]
fn large_pages_keep_a_column_in_one_page_and_a_2_0_matrix_scans_in_one_batch() {
    let (schema, batches) = feature_batches();
    let root = std::env::temp_dir().join(format!("lance-pages-{}", std::process::id()));
    let pages_of = |profile: &str| {
        let dir = root.join(profile);
        std::fs::create_dir_all(&dir).unwrap();
        let c = ctx(&schema, profile);
        Lance.write(&c, &batches, &dir).unwrap();
        let settings = Lance.settings(&c, &dir);
        assert_eq!(settings["data_storage_version"], "lance V2_0");
        settings["pages"].clone()
    };
    // The 2.0 writer's default cuts the column where its 8 MiB buffer fills.
    assert_eq!(pages_of(FORMAT_2_0), "2 (1 column(s) in 1 file(s))");
    assert_eq!(
        pages_of(FORMAT_2_0_LARGE_PAGES),
        "1 (1 column(s) in 1 file(s))"
    );
    let c = ctx(&schema, FORMAT_2_0_LARGE_PAGES);
    let (loaded, how) = Lance
        .read(&c, &root.join(FORMAT_2_0_LARGE_PAGES), Request::All)
        .unwrap();
    std::fs::remove_dir_all(&root).unwrap();
    let Loaded::Table(read) = loaded else {
        panic!("a table, not a matrix: {how}");
    };
    assert_eq!(read.len(), 1, "one batch of every row");
    let expected: Vec<f32> = batches.iter().flat_map(values).collect();
    assert_eq!(values(&read[0]), expected);
}

#[test]
fn whole_page_reads_are_for_tables_holding_a_float_matrix() {
    let (features, _) = feature_batches();
    // The array layout: the ids beside the matrix column.
    let mut fields = vec![Arc::new(Field::new("index", DataType::Int64, false))];
    fields.extend(features.fields().iter().cloned());
    let array_layout: SchemaRef = Arc::new(Schema::new(fields));
    assert!(whole_page_reads(&ctx(&array_layout, FORMAT_2_0)));
    let table: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("index", DataType::Int64, false),
        Field::new("x", DataType::Float32, false),
    ]));
    assert!(!whole_page_reads(&ctx(&table, FORMAT_2_0)));
}
