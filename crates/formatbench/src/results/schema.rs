//! The results schema version every line carries (`"schema_version": 2`), and what a line of
//! results.jsonl reads as: a record of a version this formatbench knows (converted to the
//! current one), a line that is no record, or a record of a version it does not know, which is
//! refused rather than shown as empty cells.

use super::Record;
use serde::{Deserialize, Serialize};

/// The version of the records this formatbench writes. Version 1 is every line written before
/// lines carried a version: it is read as version 2 once its CPU figures are made per call.
pub const RESULTS_SCHEMA: u64 = 2;

/// The oldest version this formatbench reads (and converts).
const OLDEST_SCHEMA: u64 = 1;

/// The worker protocol every results file of version 1 was measured under.
const VERSION_1_PROTOCOL: &str = "1";

/// A record as written: its own keys, then the schema version.
#[derive(Serialize)]
pub(super) struct Versioned<'a> {
    #[serde(flatten)]
    pub record: &'a Record,
    pub schema_version: u64,
}

/// What one line of a results file holds.
// Each line's is moved straight into the list of records: boxing would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(super) enum Line {
    Record(Record),
    /// Nothing but white space.
    Blank,
    /// Not a record of any version: why.
    Unreadable(String),
}

/// A record of a version this formatbench does not read: the version, as written.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownSchema(pub String);

impl UnknownSchema {
    /// The refusal, for the file at `path`, line `line`.
    pub fn refusal(&self, path: &std::path::Path, line: usize) -> crate::Error {
        crate::Error::Input(format!(
            "{}: line {line} is a record of results schema version {}; this formatbench ({}) \
             reads versions {OLDEST_SCHEMA} to {RESULTS_SCHEMA}: read it with the formatbench \
             that wrote it",
            path.display(),
            self.0,
            env!("CARGO_PKG_VERSION"),
        ))
    }
}

/// The version key alone, read before the record itself.
#[derive(Deserialize)]
struct Version {
    #[serde(default)]
    schema_version: Option<serde_json::Value>,
}

/// Reads one line (without its newline): a record converted to the current version, a blank,
/// or why it is no record; a record of an unknown or newer version is refused.
pub(super) fn parse_line(bytes: &[u8]) -> Result<Line, UnknownSchema> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Line::Blank);
    }
    let version = match serde_json::from_slice::<Version>(bytes) {
        Ok(version) => version,
        Err(e) => return Ok(Line::Unreadable(e.to_string())),
    };
    let schema = match version.schema_version {
        None => OLDEST_SCHEMA,
        Some(value) => match value.as_u64() {
            Some(n) if (OLDEST_SCHEMA..=RESULTS_SCHEMA).contains(&n) => n,
            _ => return Err(UnknownSchema(value.to_string())),
        },
    };
    let mut record = match serde_json::from_slice::<Record>(bytes) {
        Ok(record) => record,
        Err(e) => return Ok(Line::Unreadable(e.to_string())),
    };
    if schema == 1 {
        upgrade_from_1(&mut record)?;
    }
    if let Some(why) = incomplete(&record) {
        return Ok(Line::Unreadable(why));
    }
    Ok(Line::Record(record))
}

/// Version 1 to 2: CPU figures written as the whole sample's become per call. Version 1 was
/// only ever measured under worker protocol 1: an environment of another protocol without a
/// schema version is no version this formatbench knows.
fn upgrade_from_1(record: &mut Record) -> Result<(), UnknownSchema> {
    match record {
        Record::Sample(sample) => sample.cpu_to_per_call(),
        Record::Environment(env) => {
            if let Some(protocol) = env.versions.get("protocol") {
                if protocol != VERSION_1_PROTOCOL {
                    return Err(UnknownSchema(format!(
                        "(none, with worker protocol {protocol})"
                    )));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Why a record that parsed is still not one formatbench wrote: a measured ok sample always
/// has its time, so one without (a renamed timing key) would show as an empty cell.
fn incomplete(record: &Record) -> Option<String> {
    match record {
        Record::Sample(s)
            if s.round.is_some() && s.status == super::SampleStatus::Ok && s.wall_s.is_none() =>
        {
            Some("an ok sample without its time (`wall_s`)".into())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CellKey, SampleRecord, SampleStatus};

    fn ok_sample() -> SampleRecord {
        let mut s = SampleRecord::bare(
            "run",
            CellKey::example("b"),
            Some(1),
            SampleStatus::Ok,
            None,
        );
        s.wall_s = Some(0.5);
        s.calls = Some(4);
        s.cpu_user_s = Some(0.4);
        s
    }

    fn line_of(record: &Record) -> Vec<u8> {
        serde_json::to_vec(&Versioned {
            record,
            schema_version: RESULTS_SCHEMA,
        })
        .unwrap()
    }

    #[test]
    fn a_written_line_carries_the_version_and_reads_back_as_written() {
        let record = Record::Sample(Box::new(ok_sample()));
        let line = line_of(&record);
        let text = String::from_utf8(line.clone()).unwrap();
        assert!(text.starts_with("{\"kind\":\"sample\""), "{text}");
        assert!(text.ends_with(",\"schema_version\":2}"), "{text}");
        match parse_line(&line).unwrap() {
            Line::Record(back) => assert_eq!(back, record),
            other => panic!("{other:?}"),
        }
        // A record with keys of its own named like the version's (a dataset's `schema`).
        let dataset = Record::Dataset(crate::results::DatasetRecord {
            run_id: "run".into(),
            dataset: "d".into(),
            dataset_fingerprint: "f".into(),
            rows: 1,
            columns: 1,
            source_bytes: 8,
            parameters: Default::default(),
            schema: vec!["a: Int64".into()],
        });
        match parse_line(&line_of(&dataset)).unwrap() {
            Line::Record(back) => assert_eq!(back, dataset),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_line_without_a_version_is_version_1_and_converted() {
        let mut old = ok_sample();
        old.cpu_per_call = false;
        let line = serde_json::to_vec(&Record::Sample(Box::new(old))).unwrap();
        match parse_line(&line).unwrap() {
            Line::Record(Record::Sample(s)) => {
                assert!(s.cpu_per_call);
                assert_eq!(s.cpu_user_s, Some(0.1));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_newer_or_unknown_version_is_refused_naming_it() {
        let record = Record::Sample(Box::new(ok_sample()));
        let text = String::from_utf8(line_of(&record)).unwrap();
        for (schema, named) in [("3", "3"), ("\"2\"", "\"2\""), ("0", "0"), ("2.5", "2.5")] {
            let line = text.replace(
                "\"schema_version\":2",
                &format!("\"schema_version\":{schema}"),
            );
            let refused = parse_line(line.as_bytes()).unwrap_err();
            assert_eq!(refused, UnknownSchema(named.into()));
            let message = refused
                .refusal(std::path::Path::new("r/results.jsonl"), 7)
                .to_string();
            assert!(
                message.starts_with(&format!(
                    "r/results.jsonl: line 7 is a record of results schema version {named}; \
                     this formatbench"
                )) && message.contains("reads versions 1 to 2")
                    && !message.contains('\n'),
                "{message}"
            );
        }
        // An environment of another worker protocol is no version 1.
        let env = |protocol: &str| {
            serde_json::json!({
                "kind": "environment", "run_id": "run", "formatbench_version": "0.1.0",
                "cpu_model": "cpu", "cores": 2, "memory_bytes": 1, "kernel": "k", "os": "linux",
                "versions": {"protocol": protocol}, "settings": {}
            })
            .to_string()
        };
        assert!(matches!(
            parse_line(env("1").as_bytes()),
            Ok(Line::Record(_))
        ));
        assert_eq!(
            parse_line(env("7").as_bytes()).unwrap_err(),
            UnknownSchema("(none, with worker protocol 7)".into())
        );
    }

    #[test]
    fn a_renamed_timing_key_or_junk_is_no_record() {
        let record = Record::Sample(Box::new(ok_sample()));
        let text = String::from_utf8(line_of(&record)).unwrap();
        let renamed = text.replace("\"wall_s\"", "\"wall_seconds\"");
        assert!(matches!(
            parse_line(renamed.as_bytes()),
            Ok(Line::Unreadable(why)) if why.contains("wall_s")
        ));
        assert!(matches!(
            parse_line(b"{\"kind\":\"samp"),
            Ok(Line::Unreadable(_))
        ));
        assert!(matches!(parse_line(b"\xff\xfe"), Ok(Line::Unreadable(_))));
        assert!(matches!(parse_line(b"  \r"), Ok(Line::Blank)));
    }
}
