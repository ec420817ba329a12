//! arrow-csv infers `2013-01-01 05:00:00+00:00` as a timestamp *without* a zone: it parses the
//! offset into the instant and drops it. A CSV whose timestamps all carry an offset (or `Z`)
//! keeps it here as the column's zone, so the source says what the file said.

use arrow::array::AsArray;
use arrow::csv::ReaderBuilder;
use arrow::datatypes::{DataType, Field, Schema};
use arrow::error::ArrowError;
use formatbench_protocol::{batch_rows, CSV_VALUE_BYTES};
use std::collections::BTreeSet;
use std::io::Read;
use std::sync::Arc;

/// The offset a timestamp text ends with, as `+HH:MM` (`Z` is `+00:00`); `None` without one.
fn offset_of(text: &str) -> Option<String> {
    let text = text.trim();
    if text.ends_with('Z') || text.ends_with('z') {
        return Some("+00:00".into());
    }
    // The last `+` or `-` after the time's colon: `+05:30`, `-0800`, `+02`.
    let time = text.rfind(':')?;
    let sign = text
        .rfind(['+', '-'])
        .filter(|&i| i > text.len().saturating_sub(7))?;
    let digits: String = text[sign + 1..].chars().filter(|c| *c != ':').collect();
    if sign < time.saturating_sub(3) || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (hours, minutes) = match digits.len() {
        2 => (&digits[..2], "00"),
        4 => (&digits[..2], &digits[2..]),
        _ => return None,
    };
    Some(format!("{}{hours}:{minutes}", &text[sign..=sign]))
}

/// `schema` with each zoneless timestamp column given the zone its sampled texts all carry:
/// their one offset, or `+00:00` when they differ (arrow stores instants in UTC either way).
/// A column where some texts lack an offset stays zoneless.
pub(super) fn keep_offsets(
    schema: Schema,
    sample: impl Read,
    rows: usize,
) -> Result<Schema, ArrowError> {
    let zoneless: Vec<usize> = schema
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| matches!(f.data_type(), DataType::Timestamp(_, None)))
        .map(|(i, _)| i)
        .collect();
    if zoneless.is_empty() {
        return Ok(schema);
    }
    let as_text = Schema::new(
        schema
            .fields()
            .iter()
            .map(|f| Field::new(f.name(), DataType::Utf8, true))
            .collect::<Vec<_>>(),
    );
    let reader = ReaderBuilder::new(Arc::new(as_text))
        .with_header(true)
        .with_projection(zoneless.clone())
        // The decoder reserves every field of a batch's lines, projected or not.
        .with_batch_size(batch_rows(schema.fields().len(), CSV_VALUE_BYTES).min(rows.max(1)))
        .build(sample)?;
    let mut offsets: Vec<Option<BTreeSet<String>>> = vec![Some(BTreeSet::new()); zoneless.len()];
    let mut seen = 0;
    for batch in reader {
        let batch = batch?;
        for (column, found) in batch.columns().iter().zip(offsets.iter_mut()) {
            for text in column.as_string::<i32>().iter().flatten() {
                match (offset_of(text), found.as_mut()) {
                    (Some(offset), Some(set)) => {
                        set.insert(offset);
                    }
                    (None, _) => *found = None,
                    (Some(_), None) => {}
                }
            }
        }
        seen += batch.num_rows();
        if seen >= rows {
            break;
        }
    }
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    for (&i, found) in zoneless.iter().zip(offsets) {
        let Some(found) = found.filter(|set| !set.is_empty()) else {
            continue;
        };
        let zone = match found.len() {
            1 => found.into_iter().next().unwrap_or_default(),
            _ => "+00:00".to_string(),
        };
        if let DataType::Timestamp(unit, None) = fields[i].data_type().clone() {
            fields[i] = fields[i]
                .clone()
                .with_data_type(DataType::Timestamp(unit, Some(zone.into())));
        }
    }
    Ok(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_read_from_the_end_of_the_text() {
        assert_eq!(
            offset_of("2013-01-01 05:00:00+00:00").as_deref(),
            Some("+00:00")
        );
        assert_eq!(offset_of("2013-01-01T05:00:00Z").as_deref(), Some("+00:00"));
        assert_eq!(
            offset_of("2013-01-01T05:00:00-0800").as_deref(),
            Some("-08:00")
        );
        assert_eq!(
            offset_of("2013-01-01T05:00:00.25+05:30").as_deref(),
            Some("+05:30")
        );
        assert_eq!(
            offset_of("2013-01-01 05:00:00+02").as_deref(),
            Some("+02:00")
        );
        assert_eq!(offset_of("2013-01-01 05:00:00"), None);
        assert_eq!(offset_of("2013-01-01"), None);
    }

    #[test]
    fn a_column_keeps_its_one_offset_and_mixed_ones_become_utc() {
        let schema = |types: [DataType; 3]| {
            Schema::new(
                ["same", "mixed", "some"]
                    .iter()
                    .zip(types)
                    .map(|(n, t)| Field::new(*n, t, true))
                    .collect::<Vec<_>>(),
            )
        };
        let ns = || DataType::Timestamp(arrow::datatypes::TimeUnit::Nanosecond, None);
        let zoned =
            |z: &str| DataType::Timestamp(arrow::datatypes::TimeUnit::Nanosecond, Some(z.into()));
        let text = "same,mixed,some\n\
            2013-01-01 05:00:00-05:00,2013-01-01 05:00:00+01:00,2013-01-01 05:00:00Z\n\
            2013-07-01 05:00:00-05:00,2013-01-01 05:00:00Z,2013-01-01 05:00:00\n";
        let kept = keep_offsets(schema([ns(), ns(), ns()]), text.as_bytes(), 100).unwrap();
        let types: Vec<DataType> = kept
            .fields()
            .iter()
            .map(|f| f.data_type().clone())
            .collect();
        assert_eq!(types, [zoned("-05:00"), zoned("+00:00"), ns()]);
    }
}
