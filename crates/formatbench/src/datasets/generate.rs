//! The seeded generators. Each column draws from its own stream, so values do not depend on the
//! batch size; batches are written as they are made.

use super::realistic::{with_nulls, Realistic, CURRENCIES};
use super::{batch_rows, DatasetKind, DatasetSpec, Rng, Shape, Source, SourceWriter};
use crate::Error;
use arrow::array::{
    ArrayRef, BooleanArray, Date32Array, Float32Array, Float64Array, Int64Array, RecordBatch,
    StringArray, TimestampSecondArray, UInt64Array,
};
use arrow::datatypes::{DataType, Field, Schema, TimeUnit};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// 1943-01-01T00:00:00Z and 2022-01-01T00:00:00Z in Unix seconds.
const TIMESTAMP_START: i64 = -852_076_800;
const TIMESTAMP_END: i64 = 1_640_995_200;
/// 2022-01-01 and 2024-01-01 in days since the epoch.
const DATE_START: i64 = 18_993;
const DATE_END: i64 = 19_723;

const US_STATES: [&str; 50] = [
    "Alabama",
    "Alaska",
    "Arizona",
    "Arkansas",
    "California",
    "Colorado",
    "Connecticut",
    "Delaware",
    "Florida",
    "Georgia",
    "Hawaii",
    "Idaho",
    "Illinois",
    "Indiana",
    "Iowa",
    "Kansas",
    "Kentucky",
    "Louisiana",
    "Maine",
    "Maryland",
    "Massachusetts",
    "Michigan",
    "Minnesota",
    "Mississippi",
    "Missouri",
    "Montana",
    "Nebraska",
    "Nevada",
    "New Hampshire",
    "New Jersey",
    "New Mexico",
    "New York",
    "North Carolina",
    "North Dakota",
    "Ohio",
    "Oklahoma",
    "Oregon",
    "Pennsylvania",
    "Rhode Island",
    "South Carolina",
    "South Dakota",
    "Tennessee",
    "Texas",
    "Utah",
    "Vermont",
    "Virginia",
    "Washington",
    "West Virginia",
    "Wisconsin",
    "Wyoming",
];

/// What one column holds; `next` makes its values for rows `[first, first + n)`.
#[derive(Debug, Clone)]
pub enum ColumnGenerator {
    Index,
    Int64 {
        lo: i64,
        hi: i64,
    },
    UInt64 {
        hi: u64,
    },
    Float64,
    Float32Normal,
    Bool,
    Timestamp,
    Date,
    /// `len` characters drawn from `alphabet`.
    Chars {
        alphabet: &'static [u8],
        len: usize,
    },
    Choice(&'static [&'static str]),
    /// Deterministic labels of the row number (sample, plate and well ids).
    Label(fn(u64) -> String),
    /// Zipf-distributed words, about `bytes` bytes a value.
    Words {
        bytes: usize,
    },
    /// A column shaped like real data (`--shape realistic`).
    Realistic(Realistic),
    /// `inner` with about `percent` % of its values null (which ones: a hash of the row).
    Nullable {
        inner: Box<ColumnGenerator>,
        percent: u64,
        salt: u64,
    },
}

impl ColumnGenerator {
    /// About how many bytes one value takes in the canonical source (a string's bytes plus
    /// its 4-byte offset), for sizing a dataset before it is generated.
    fn value_bytes(&self) -> u64 {
        let text = |len: usize| len as u64 + 4;
        match self {
            ColumnGenerator::Index
            | ColumnGenerator::Int64 { .. }
            | ColumnGenerator::UInt64 { .. }
            | ColumnGenerator::Float64
            | ColumnGenerator::Timestamp => 8,
            ColumnGenerator::Float32Normal | ColumnGenerator::Date => 4,
            ColumnGenerator::Bool => 1,
            ColumnGenerator::Chars { len, .. } => text(*len),
            ColumnGenerator::Choice(values) => {
                let total: usize = values.iter().map(|v| v.len()).sum();
                text(total / values.len().max(1))
            }
            ColumnGenerator::Label(label) => text(label(0).len()),
            ColumnGenerator::Words { bytes } => text(*bytes),
            ColumnGenerator::Realistic(column) => column.value_bytes(),
            ColumnGenerator::Nullable { inner, .. } => inner.value_bytes(),
        }
    }

    fn nullable(&self) -> bool {
        matches!(self, ColumnGenerator::Nullable { .. })
    }

    fn data_type(&self) -> DataType {
        match self {
            ColumnGenerator::Index | ColumnGenerator::Int64 { .. } => DataType::Int64,
            ColumnGenerator::UInt64 { .. } => DataType::UInt64,
            ColumnGenerator::Float64 => DataType::Float64,
            ColumnGenerator::Float32Normal => DataType::Float32,
            ColumnGenerator::Bool => DataType::Boolean,
            ColumnGenerator::Timestamp => DataType::Timestamp(TimeUnit::Second, None),
            ColumnGenerator::Date => DataType::Date32,
            ColumnGenerator::Chars { .. }
            | ColumnGenerator::Choice(_)
            | ColumnGenerator::Label(_)
            | ColumnGenerator::Words { .. } => DataType::Utf8,
            ColumnGenerator::Realistic(column) => column.data_type(),
            ColumnGenerator::Nullable { inner, .. } => inner.data_type(),
        }
    }

    fn next(&self, rng: &mut Rng, first: u64, n: usize) -> Result<ArrayRef, Error> {
        Ok(match self {
            ColumnGenerator::Realistic(column) => column.next(rng, first, n),
            ColumnGenerator::Nullable {
                inner,
                percent,
                salt,
            } => with_nulls(inner.next(rng, first, n)?, first, *percent, *salt)?,
            ColumnGenerator::Index => Arc::new(Int64Array::from_iter_values(
                (first..first + n as u64).map(|i| i as i64),
            )),
            ColumnGenerator::Int64 { lo, hi } => Arc::new(Int64Array::from_iter_values(
                (0..n).map(|_| rng.range_i64(*lo, *hi)),
            )),
            ColumnGenerator::UInt64 { hi } => Arc::new(UInt64Array::from_iter_values(
                (0..n).map(|_| rng.below(*hi)),
            )),
            ColumnGenerator::Float64 => Arc::new(Float64Array::from_iter_values(
                (0..n).map(|_| rng.unit_f64()),
            )),
            ColumnGenerator::Float32Normal => Arc::new(Float32Array::from_iter_values(
                (0..n).map(|_| rng.normal() as f32),
            )),
            ColumnGenerator::Bool => Arc::new(BooleanArray::from_iter(
                (0..n).map(|_| Some(rng.next_u64() >> 63 == 1)),
            )),
            ColumnGenerator::Timestamp => Arc::new(TimestampSecondArray::from_iter_values(
                (0..n).map(|_| rng.range_i64(TIMESTAMP_START, TIMESTAMP_END)),
            )),
            ColumnGenerator::Date => Arc::new(Date32Array::from_iter_values(
                (0..n).map(|_| rng.range_i64(DATE_START, DATE_END) as i32),
            )),
            ColumnGenerator::Chars { alphabet, len } => {
                let mut buf = vec![0u8; *len];
                Arc::new(StringArray::from_iter_values((0..n).map(|_| {
                    for b in buf.iter_mut() {
                        *b = alphabet[rng.below(alphabet.len() as u64) as usize];
                    }
                    String::from_utf8_lossy(&buf).into_owned()
                })))
            }
            ColumnGenerator::Choice(options) => Arc::new(StringArray::from_iter_values(
                (0..n).map(|_| options[rng.below(options.len() as u64) as usize]),
            )),
            ColumnGenerator::Label(label) => Arc::new(StringArray::from_iter_values(
                (first..first + n as u64).map(label),
            )),
            ColumnGenerator::Words { bytes } => Arc::new(StringArray::from_iter_values(
                (0..n).map(|_| super::words::line(rng, *bytes)),
            )),
        })
    }
}

/// The text-heavy table: six text columns, about 1 KB a row in all.
const TEXT_COLUMNS: usize = 6;
const TEXT_ROW_BYTES: usize = 1_024;

const LOWERCASE: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
const LOWERCASE_AND_SPACE: &[u8] = b"abcdefghijklmnopqrstuvwxyz ";

fn sample_id(row: u64) -> String {
    format!("sample-{row:07}")
}
fn plate_id(row: u64) -> String {
    format!("plate-{:04}", row / 384)
}
fn well_id(row: u64) -> String {
    let well = row % 384;
    format!("{}{:02}", (b'A' + (well / 24) as u8) as char, well % 24 + 1)
}

/// About how many bytes a row of a generated dataset takes, and how many columns it has,
/// worked out without building its columns (a million features would take gigabytes).
pub fn row_shape(kind: DatasetKind, per_type: usize, features: usize) -> (u64, u64) {
    let bytes = |cols: &[(String, ColumnGenerator)]| -> u64 {
        cols.iter().map(|(_, g)| g.value_bytes()).sum()
    };
    match kind {
        DatasetKind::Mixed => {
            let one = random_columns(kind, 1, 0);
            let index = bytes(&one[..1]);
            let cycle = bytes(&one[1..]);
            let per = per_type as u64;
            (
                index.saturating_add(cycle.saturating_mul(per)),
                1 + (one.len() as u64 - 1).saturating_mul(per),
            )
        }
        DatasetKind::Features => {
            let fixed = random_columns(kind, 0, 0);
            let feature = ColumnGenerator::Float32Normal.value_bytes();
            (
                bytes(&fixed).saturating_add(feature.saturating_mul(features as u64)),
                (fixed.len() as u64).saturating_add(features as u64),
            )
        }
        DatasetKind::Long | DatasetKind::Text => {
            let cols = random_columns(kind, 0, 0);
            (bytes(&cols), cols.len() as u64)
        }
    }
}

/// The columns of a generated dataset, in order: the same names and types in either shape.
pub fn columns(
    kind: DatasetKind,
    shape: Shape,
    per_type: usize,
    features: usize,
) -> Vec<(String, ColumnGenerator)> {
    match shape {
        Shape::Random => random_columns(kind, per_type, features),
        Shape::Realistic => realistic_columns(kind, per_type, features),
    }
}

/// `inner` with `percent` % nulls, salted by its column's place.
fn nulls(inner: ColumnGenerator, percent: u64, column: usize) -> ColumnGenerator {
    ColumnGenerator::Nullable {
        inner: Box::new(inner),
        percent,
        salt: 0x5EED_0000 + column as u64,
    }
}

/// Each kind's columns shaped like real data (docs/guide/realistic-data.md).
fn realistic_columns(
    kind: DatasetKind,
    per_type: usize,
    features: usize,
) -> Vec<(String, ColumnGenerator)> {
    let random = random_columns(kind, per_type, features);
    let real = |column: Realistic| ColumnGenerator::Realistic(column);
    random
        .into_iter()
        .enumerate()
        .map(|(i, (name, random))| {
            let shaped = match (kind, &random) {
                (_, ColumnGenerator::Index) => random.clone(),
                // FeatherStore's cycle: quantities, currency codes, prices, event times in
                // order, rare flags, customer ids in runs.
                (DatasetKind::Mixed, ColumnGenerator::Int64 { .. }) => {
                    nulls(real(Realistic::Skewed { n: 10_000 }), 5, i)
                }
                (DatasetKind::Mixed, ColumnGenerator::Chars { .. }) => {
                    nulls(real(Realistic::Codes(&CURRENCIES)), 2, i)
                }
                (DatasetKind::Mixed, ColumnGenerator::Float64) => {
                    nulls(real(Realistic::Price), 5, i)
                }
                (DatasetKind::Mixed, ColumnGenerator::Timestamp) => {
                    real(Realistic::SortedTimestamp { step: 60 })
                }
                (DatasetKind::Mixed, ColumnGenerator::Bool) => {
                    nulls(real(Realistic::Rare { percent: 10 }), 5, i)
                }
                (DatasetKind::Mixed, ColumnGenerator::UInt64 { .. }) => {
                    real(Realistic::Clustered {
                        run: 20,
                        salt: i as u64,
                    })
                }
                // The R study's table as it prints it: states skewed, dates in order, numbers
                // to two decimals, a few missing.
                (DatasetKind::Long, ColumnGenerator::Choice(values)) if values.len() > 2 => {
                    real(Realistic::Codes(values))
                }
                (DatasetKind::Long, ColumnGenerator::Date) => {
                    real(Realistic::SortedDate { per_day: 1_000 })
                }
                (DatasetKind::Long, ColumnGenerator::Float64) => {
                    nulls(real(Realistic::Rounded { decimals: 2 }), 3, i)
                }
                (DatasetKind::Long, ColumnGenerator::Chars { .. }) => nulls(random.clone(), 1, i),
                // Activations after a ReLU: a third exact zeros, the rest to 1/1024.
                (DatasetKind::Features, ColumnGenerator::Float32Normal) => {
                    real(Realistic::Sparse { zero_percent: 30 })
                }
                (DatasetKind::Text, ColumnGenerator::Words { .. }) => nulls(random.clone(), 3, i),
                _ => random.clone(),
            };
            (name, shaped)
        })
        .collect()
}

/// The columns of the studies' own tables: uniform random values, no nulls.
fn random_columns(
    kind: DatasetKind,
    per_type: usize,
    features: usize,
) -> Vec<(String, ColumnGenerator)> {
    let mut cols = vec![("index".to_string(), ColumnGenerator::Index)];
    match kind {
        DatasetKind::Mixed => {
            let cycle = [
                ColumnGenerator::Int64 {
                    lo: -100_000,
                    hi: 100_000,
                },
                ColumnGenerator::Chars {
                    alphabet: LOWERCASE_AND_SPACE,
                    len: 5,
                },
                ColumnGenerator::Float64,
                ColumnGenerator::Timestamp,
                ColumnGenerator::Bool,
                ColumnGenerator::UInt64 { hi: 200_000 },
            ];
            for i in 0..per_type * cycle.len() {
                cols.push((format!("c{i}"), cycle[i % cycle.len()].clone()));
            }
        }
        DatasetKind::Long => {
            cols.push(("cat_A".into(), ColumnGenerator::Choice(&US_STATES)));
            cols.push(("cat_B".into(), ColumnGenerator::Choice(&["A", "B"])));
            cols.push(("date".into(), ColumnGenerator::Date));
            for i in 1..=4 {
                cols.push((format!("num_{i}"), ColumnGenerator::Float64));
            }
            for i in 1..=4 {
                cols.push((
                    format!("chr_{i}"),
                    ColumnGenerator::Chars {
                        alphabet: LOWERCASE,
                        len: 1,
                    },
                ));
            }
        }
        DatasetKind::Text => {
            for i in 1..=TEXT_COLUMNS {
                cols.push((
                    format!("text_{i}"),
                    ColumnGenerator::Words {
                        bytes: TEXT_ROW_BYTES / TEXT_COLUMNS,
                    },
                ));
            }
        }
        DatasetKind::Features => {
            cols.push(("sample_id".into(), ColumnGenerator::Label(sample_id)));
            cols.push(("plate_id".into(), ColumnGenerator::Label(plate_id)));
            cols.push(("well_id".into(), ColumnGenerator::Label(well_id)));
            let width = features.saturating_sub(1).to_string().len().max(4);
            for i in 0..features {
                cols.push((
                    format!("feature_{i:0width$}"),
                    ColumnGenerator::Float32Normal,
                ));
            }
        }
    }
    cols
}

/// Streams a generated dataset into the canonical IPC file at `path`.
pub fn generate(spec: &DatasetSpec, path: &Path) -> Result<Source, Error> {
    let DatasetSpec::Generated {
        kind,
        rows,
        per_type,
        features,
        seed,
        shape,
    } = spec
    else {
        return Err(Error::Input("not a generated dataset".into()));
    };
    let cols = columns(*kind, *shape, *per_type, *features);
    let schema = Arc::new(Schema::new(
        cols.iter()
            .map(|(name, g)| Field::new(name, g.data_type(), g.nullable()))
            .collect::<Vec<_>>(),
    ));
    let mut rngs: Vec<Rng> = (0..cols.len()).map(|i| Rng::new(*seed, i as u64)).collect();
    let mut writer = SourceWriter::create(path, &schema)?;
    let step = batch_rows(cols.len()) as u64;
    let mut first = 0;
    while first < *rows {
        if crate::interrupt::interrupted() {
            return Err(Error::Interrupted);
        }
        let n = step.min(rows - first) as usize;
        let arrays: Vec<ArrayRef> = cols
            .iter()
            .zip(rngs.iter_mut())
            .map(|((_, g), rng)| g.next(rng, first, n))
            .collect::<Result<_, _>>()?;
        writer.write(&RecordBatch::try_new(schema.clone(), arrays)?)?;
        first += n as u64;
    }
    let (fingerprint, rows_written, bytes) = writer.finish()?;
    let mut parameters = BTreeMap::from([
        ("generator".into(), kind.name().to_string()),
        ("rows".into(), rows.to_string()),
        ("seed".into(), seed.to_string()),
        ("per_type".into(), per_type.to_string()),
        ("features".into(), features.to_string()),
    ]);
    if *shape != Shape::Random {
        parameters.insert("shape".into(), shape.name().to_string());
    }
    Ok(Source {
        name: spec.name(),
        path: path.to_path_buf(),
        fingerprint,
        rows: rows_written,
        schema,
        index_column: Some("index".into()),
        parameters,
        bytes,
    })
}
