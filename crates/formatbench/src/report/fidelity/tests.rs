use super::{fidelity, Outcome};
use crate::results::{
    CellKey, DatasetRecord, Record, SampleRecord, SampleStatus, VerificationRecord,
};

fn dataset(column: &str, ty: &str) -> Record {
    Record::Dataset(DatasetRecord {
        run_id: "r".into(),
        dataset: column.into(),
        dataset_fingerprint: "f".into(),
        rows: 10,
        columns: 1,
        source_bytes: 100,
        parameters: Default::default(),
        schema: vec![format!("{column}: {ty}")],
    })
}

fn cell(column: &str, backend: &str) -> CellKey {
    CellKey {
        dataset: column.into(),
        ..CellKey::example(backend)
    }
}

fn verified(column: &str, backend: &str, status: SampleStatus, notes: &[&str]) -> Record {
    Record::Verification(VerificationRecord {
        run_id: "r".into(),
        cell: cell(column, backend),
        status,
        reason: (status != SampleStatus::Ok)
            .then(|| "verification failed: column 'uint64', row 1: expected 18446744073709551615, got null".into()),
        digest: None,
        rows: Some(10),
        representation: notes.iter().map(|s| s.to_string()).collect(),
        float_tolerance: None,
        other_widths: false,
        independent_check: None,
        engine_digest: None,
    })
}

fn refused(column: &str, backend: &str) -> Record {
    Record::Sample(Box::new(SampleRecord::bare(
        "r",
        cell(column, backend),
        None,
        SampleStatus::Unsupported,
        Some("npy stores float columns only".into()),
    )))
}

#[test]
fn each_cell_says_what_became_of_its_type() {
    let records = vec![
        dataset("int8", "Int8"),
        dataset("uint64", "UInt64"),
        dataset("timestamp_s", "Timestamp(s)"),
        verified(
            "int8",
            "parquet",
            SampleStatus::Ok,
            &["2 batches (source 1)"],
        ),
        verified("uint64", "parquet", SampleStatus::Ok, &[]),
        verified(
            "timestamp_s",
            "parquet",
            SampleStatus::Ok,
            &["timestamp_s: Timestamp(ms) (source Timestamp(s))"],
        ),
        verified("uint64", "csv", SampleStatus::Failed, &[]),
        refused("int8", "npy"),
    ];
    let matrix = fidelity(&records);
    assert_eq!(
        matrix.types,
        [
            ("int8".to_string(), "Int8".to_string()),
            ("uint64".into(), "UInt64".into()),
            ("timestamp_s".into(), "Timestamp(s)".into())
        ]
    );
    let outcome = |column: &str, backend: &str| {
        matrix
            .cells
            .iter()
            .find(|c| c.column == column && c.backend == backend)
            .map(|c| (c.outcome, c.detail.clone()))
    };
    // A batch split is not a change of the type.
    assert_eq!(outcome("int8", "parquet"), Some((Outcome::Same, None)));
    assert_eq!(
        outcome("timestamp_s", "parquet"),
        Some((
            Outcome::Changed,
            Some("timestamp_s: Timestamp(ms) (source Timestamp(s))".into())
        ))
    );
    assert_eq!(
        outcome("uint64", "csv").map(|o| o.0),
        Some(Outcome::Altered)
    );
    assert_eq!(
        outcome("int8", "npy"),
        Some((
            Outcome::Refused,
            Some("npy stores float columns only".into())
        ))
    );
    assert_eq!(matrix.tally(), "1 altered, 1 changed, 1 refused, 2 same");
    let markdown = matrix.markdown();
    assert!(
        markdown.contains("| type | source | csv | npy | parquet |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| uint64 | UInt64 | ✗ |  | ✓ |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| npy | int8 | — | npy stores float columns only |"),
        "{markdown}"
    );
    // The same matrix on a terminal and a page: the same symbols in the same places.
    let document = matrix.document();
    let text = crate::document::terminal(&document);
    let row = text
        .lines()
        .find(|l| l.starts_with("uint64"))
        .unwrap_or_default();
    assert_eq!(
        row.split_whitespace().collect::<Vec<_>>(),
        ["uint64", "UInt64", "✗", "✓"]
    );
    assert!(
        text.trim_end()
            .ends_with("1 altered, 1 changed, 1 refused, 2 same"),
        "{text}"
    );
    let page = crate::document::html(&document);
    assert!(
        page.contains("<td>uint64</td><td>UInt64</td><td class=\"t-worse\">✗</td>"),
        "{page}"
    );
    let json: serde_json::Value = serde_json::from_str(&matrix.json().unwrap()).unwrap();
    assert_eq!(json["cells"].as_array().unwrap().len(), 5);
    assert_eq!(json["types"][1][0], "uint64");
}

#[test]
fn a_refusal_never_overrides_a_verification() {
    let records = vec![
        dataset("int8", "Int8"),
        verified("int8", "parquet", SampleStatus::Ok, &[]),
        refused("int8", "parquet"),
    ];
    let matrix = fidelity(&records);
    assert_eq!(matrix.cells.len(), 1);
    assert_eq!(matrix.cells[0].outcome, Outcome::Same);
}
