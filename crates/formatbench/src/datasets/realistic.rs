//! Columns shaped like real data, for `--shape realistic`: skewed counts, low-cardinality codes,
//! prices rounded to cents, numbers printed to two decimals, events and dates in time order,
//! ids in runs, rare flags, sparse activations, and nulls. The studies' own tables are uniform
//! random values with no nulls, the worst case for every encoding (the layout study's stated
//! limitation); these are what dictionaries, run lengths and deltas are for. Seeded like the
//! random generators, and like them independent of the batch size: values draw from their
//! column's stream in row order, nulls and ids hash the row number.

use crate::rng::Rng;
use arrow::array::{
    ArrayRef, BooleanArray, Date32Array, Float32Array, Float64Array, Int64Array, StringArray,
    TimestampSecondArray, UInt64Array,
};
use arrow::buffer::NullBuffer;
use arrow::datatypes::{DataType, TimeUnit};
use std::sync::Arc;

/// 2020-01-01T00:00:00Z in Unix seconds, and 2022-01-01 in days.
const EVENTS_START: i64 = 1_577_836_800;
const DAYS_START: i64 = 18_993;

/// Currency codes: a low-cardinality text column, the first far more common than the last.
pub const CURRENCIES: [&str; 40] = [
    "USD", "EUR", "JPY", "GBP", "CNY", "AUD", "CAD", "CHF", "HKD", "SGD", "SEK", "KRW", "NOK",
    "NZD", "INR", "MXN", "TWD", "ZAR", "BRL", "DKK", "PLN", "THB", "ILS", "IDR", "CZK", "AED",
    "TRY", "HUF", "CLP", "SAR", "PHP", "MYR", "COP", "RUB", "RON", "PEN", "BHD", "BGN", "ARS",
    "ISK",
];

/// One realistic column.
#[derive(Debug, Clone)]
pub enum Realistic {
    /// Quantities: log-uniform over 1..n, Zipf's law with exponent 1 (most are small).
    Skewed { n: u64 },
    /// Codes from a list, the rank log-uniform: the first ones far more common.
    Codes(&'static [&'static str]),
    /// Money: log-normal amounts rounded to cents.
    Price,
    /// In [0, 1) rounded to `decimals` places, as the R study's table prints its numbers.
    Rounded { decimals: i32 },
    /// Events in time order: one every `step` seconds, with jitter within the step, from 2020.
    SortedTimestamp { step: i64 },
    /// Dates in order, `per_day` rows a day from 2022-01-01.
    SortedDate { per_day: u64 },
    /// Ids in runs of `run` rows (a customer's orders, a sensor's readings), hashed from the
    /// run's number.
    Clustered { run: u64, salt: u64 },
    /// True for about `percent` % of the rows.
    Rare { percent: u64 },
    /// Activations: `zero_percent` % exact zeros, the rest |N(0, 1)| to the nearest 1/1024.
    Sparse { zero_percent: u64 },
}

/// SplitMix64 of `salt` and `x`: a row's own random bits, whatever the batch.
pub fn row_hash(salt: u64, x: u64) -> u64 {
    let mut z = salt ^ x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A log-uniform rank in [0, n): rank r has weight about 1/(r+1).
fn skewed_rank(rng: &mut Rng, n: u64) -> u64 {
    let rank = ((n + 1) as f64).powf(rng.unit_f64()).floor() as u64;
    rank.saturating_sub(1).min(n.saturating_sub(1))
}

impl Realistic {
    pub fn data_type(&self) -> DataType {
        match self {
            Realistic::Skewed { .. } => DataType::Int64,
            Realistic::Codes(_) => DataType::Utf8,
            Realistic::Price | Realistic::Rounded { .. } => DataType::Float64,
            Realistic::SortedTimestamp { .. } => DataType::Timestamp(TimeUnit::Second, None),
            Realistic::SortedDate { .. } => DataType::Date32,
            Realistic::Clustered { .. } => DataType::UInt64,
            Realistic::Rare { .. } => DataType::Boolean,
            Realistic::Sparse { .. } => DataType::Float32,
        }
    }

    /// Bytes of one value in the canonical source, for sizing before generating.
    pub fn value_bytes(&self) -> u64 {
        match self {
            Realistic::Codes(codes) => {
                let total: usize = codes.iter().map(|c| c.len()).sum();
                (total / codes.len().max(1)) as u64 + 4
            }
            Realistic::SortedDate { .. } | Realistic::Sparse { .. } => 4,
            Realistic::Rare { .. } => 1,
            _ => 8,
        }
    }

    /// Values for rows `[first, first + n)`.
    pub fn next(&self, rng: &mut Rng, first: u64, n: usize) -> ArrayRef {
        let rows = first..first + n as u64;
        match self {
            Realistic::Skewed { n: top } => Arc::new(Int64Array::from_iter_values(
                rows.map(|_| 1 + skewed_rank(rng, *top) as i64),
            )),
            Realistic::Codes(codes) => Arc::new(StringArray::from_iter_values(
                rows.map(|_| codes[skewed_rank(rng, codes.len() as u64) as usize]),
            )),
            Realistic::Price => Arc::new(Float64Array::from_iter_values(rows.map(|_| {
                let amount = (3.0 + 1.2 * rng.normal()).exp();
                (amount * 100.0).round() / 100.0
            }))),
            Realistic::Rounded { decimals } => {
                let scale = 10f64.powi(*decimals);
                Arc::new(Float64Array::from_iter_values(
                    rows.map(|_| (rng.unit_f64() * scale).round() / scale),
                ))
            }
            Realistic::SortedTimestamp { step } => {
                Arc::new(TimestampSecondArray::from_iter_values(rows.map(|row| {
                    EVENTS_START + row as i64 * step + rng.below(*step as u64) as i64
                })))
            }
            Realistic::SortedDate { per_day } => Arc::new(Date32Array::from_iter_values(
                rows.map(|row| (DAYS_START + (row / per_day.max(&1)) as i64) as i32),
            )),
            Realistic::Clustered { run, salt } => Arc::new(UInt64Array::from_iter_values(
                rows.map(|row| row_hash(*salt, row / run.max(&1)) % 1_000_000),
            )),
            Realistic::Rare { percent } => Arc::new(BooleanArray::from_iter(
                rows.map(|_| Some(rng.below(100) < *percent)),
            )),
            Realistic::Sparse { zero_percent } => {
                Arc::new(Float32Array::from_iter_values(rows.map(|_| {
                    if rng.below(100) < *zero_percent {
                        0.0
                    } else {
                        ((rng.normal().abs() * 1024.0).round() / 1024.0) as f32
                    }
                })))
            }
        }
    }
}

/// `array` with about `percent` % of its rows null, chosen by hashing the row number.
pub fn with_nulls(
    array: ArrayRef,
    first: u64,
    percent: u64,
    salt: u64,
) -> Result<ArrayRef, arrow::error::ArrowError> {
    let valid: Vec<bool> = (0..array.len() as u64)
        .map(|i| row_hash(salt, first + i) % 100 >= percent)
        .collect();
    let data = array
        .to_data()
        .into_builder()
        .nulls(Some(NullBuffer::from(valid)))
        .build()?;
    Ok(arrow::array::make_array(data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray};

    #[test]
    fn values_do_not_depend_on_the_batch_size() {
        let columns = [
            Realistic::Skewed { n: 1000 },
            Realistic::SortedTimestamp { step: 60 },
            Realistic::Clustered { run: 7, salt: 3 },
        ];
        for column in columns {
            let whole = column.next(&mut Rng::new(1, 2), 0, 100);
            let mut rng = Rng::new(1, 2);
            let halves = [column.next(&mut rng, 0, 40), column.next(&mut rng, 40, 60)];
            let joined = arrow::compute::concat(&[halves[0].as_ref(), halves[1].as_ref()]).unwrap();
            assert_eq!(whole.as_ref(), joined.as_ref(), "{column:?}");
        }
        let nulls = |first, n| {
            let array: ArrayRef = Arc::new(Int64Array::from(vec![1; n]));
            with_nulls(array, first, 10, 5).unwrap()
        };
        let joined =
            arrow::compute::concat(&[nulls(0, 40).as_ref(), nulls(40, 60).as_ref()]).unwrap();
        assert_eq!(nulls(0, 100).as_ref(), joined.as_ref());
    }

    #[test]
    fn skewed_values_favour_the_first_and_sorted_ones_are_in_order() {
        let codes = Realistic::Codes(&CURRENCIES).next(&mut Rng::new(1, 1), 0, 10_000);
        let codes = codes.as_string::<i32>();
        let count = |code: &str| codes.iter().filter(|c| *c == Some(code)).count();
        assert!(
            count("USD") > 10 * count("ISK").max(1),
            "{} USD",
            count("USD")
        );
        let times = Realistic::SortedTimestamp { step: 60 }.next(&mut Rng::new(1, 1), 0, 1_000);
        let times = times.as_primitive::<arrow::datatypes::TimestampSecondType>();
        assert!(times.values().windows(2).all(|w| w[0] < w[1]));
        let rounded = Realistic::Rounded { decimals: 2 }.next(&mut Rng::new(1, 1), 0, 100);
        let rounded = rounded.as_primitive::<arrow::datatypes::Float64Type>();
        assert!(rounded
            .values()
            .iter()
            .all(|v| ((v * 100.0).round() - v * 100.0).abs() < 1e-9));
        let with = with_nulls(Arc::new(Int64Array::from(vec![1; 10_000])), 0, 5, 9).unwrap();
        let share = with.null_count() as f64 / 10_000.0;
        assert!((0.04..0.06).contains(&share), "{share}");
    }
}
