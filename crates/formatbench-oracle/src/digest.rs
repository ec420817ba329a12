//! The result digest (docs/protocol.md, "Result digest"): what the runner computes from the
//! file every measured sample writes, to check it holds the values the cell's verified run
//! returned. It is over typed values, not bytes: a value's logical type, its nulls out of band
//! (a tag byte before every value, so no value can pass for a null), floats by their bits (−0.0
//! and NaN payloads are values), nested values by structure. Representations that hold the
//! same values digest alike: batch splits, string and list offset widths, view types,
//! dictionary encoding, whatever lies under a null slot, and equivalent zone names.

mod encode;
mod vector;

pub use vector::{flat_test_vector, test_vector, FLAT_TEST_VECTOR_DIGEST, TEST_VECTOR_DIGEST};

use crate::Error;
use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, Field, Schema};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// The first bytes hashed: the digest's name and version, so a changed definition never
/// matches an old digest.
const DOMAIN: &[u8] = b"formatbench result digest 1\n";

/// What digests begin with, naming the definition.
pub const PREFIX: &str = "rd1:";

/// Whether row order is part of the value (it is, except for readers that keep none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    Ordered,
    /// A multiset of rows: the sum of each row's own hash (mod 2^128).
    AnyOrder,
}

/// The digest of the Arrow IPC file at `path`; an error when it is missing or unreadable.
pub fn file_digest(path: &Path, rows: Rows) -> Result<String, Error> {
    let file = std::fs::File::open(path).map_err(Error::io("the worker wrote no result file"))?;
    let reader = arrow::ipc::reader::FileReader::try_new_buffered(file, None)
        .map_err(Error::unreadable("result file"))?;
    let schema = reader.schema();
    digest(&schema, reader.map(|b| b.map_err(Error::from)), rows)
}

/// The digest of `batches`, all of `schema`.
pub fn digest(
    schema: &Schema,
    batches: impl Iterator<Item = Result<RecordBatch, Error>>,
    rows: Rows,
) -> Result<String, Error> {
    check_schema(schema)?;
    let mut columns: Vec<Xxh3> = schema.fields().iter().map(|_| Xxh3::new()).collect();
    let mut row_sum: u128 = 0;
    let mut count: u64 = 0;
    let mut buffer = Vec::new();
    for batch in batches {
        let batch = batch?;
        count += batch.num_rows() as u64;
        let plain = plain_columns(&batch)?;
        match rows {
            Rows::Ordered => {
                for (hasher, column) in columns.iter_mut().zip(&plain) {
                    buffer.clear();
                    encode::values(column.as_ref(), 0..column.len(), &mut buffer)?;
                    hasher.update(&buffer);
                }
            }
            Rows::AnyOrder => {
                row_sum = row_sum.wrapping_add(row_hash_sum(&plain, batch.num_rows())?);
            }
        }
    }
    let named = named_columns(schema);
    Ok(match rows {
        Rows::Ordered => {
            let hashes: Vec<u128> = columns.iter().map(Xxh3::digest128).collect();
            finish(&named, Some(&hashes), 0, count)
        }
        Rows::AnyOrder => any_order_digest(&named, row_sum, count),
    })
}

/// Fails, naming the column, when a column's type has no digest.
pub(crate) fn check_schema(schema: &Schema) -> Result<(), Error> {
    for field in schema.fields() {
        encode::check_supported(field.data_type())
            .map_err(|t| Error::Input(format!("cannot digest column '{}': {t}", field.name())))?;
    }
    Ok(())
}

/// Each column's name and logical type, as the digest hashes them.
pub(crate) fn named_columns(schema: &Schema) -> Vec<(String, String)> {
    schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), logical_type(f)))
        .collect()
}

/// A batch's columns with dictionaries decoded: what values are encoded from.
pub(crate) fn plain_columns(batch: &RecordBatch) -> Result<Vec<arrow::array::ArrayRef>, Error> {
    batch
        .columns()
        .iter()
        .map(encode::without_dictionaries)
        .collect()
}

/// The sum (mod 2^128) of each row's own hash over `plain`'s columns: the multiset of rows,
/// which partitions of a result may each sum apart and add up.
pub(crate) fn row_hash_sum(plain: &[arrow::array::ArrayRef], rows: usize) -> Result<u128, Error> {
    let mut sum: u128 = 0;
    let mut buffer = Vec::new();
    for row in 0..rows {
        buffer.clear();
        for column in plain {
            encode::values(column.as_ref(), row..row + 1, &mut buffer)?;
        }
        sum = sum.wrapping_add(xxhash_rust::xxh3::xxh3_128(&buffer));
    }
    Ok(sum)
}

/// The digest of a multiset of `count` rows of `columns` whose hashes sum to `row_sum`.
pub(crate) fn any_order_digest(columns: &[(String, String)], row_sum: u128, count: u64) -> String {
    finish(columns, None, row_sum, count)
}

/// The digest from its parts: the domain, each column's name and type (and, in order, its own
/// hash), the rows' hash sum without order, the row count.
fn finish(
    columns: &[(String, String)],
    ordered: Option<&[u128]>,
    row_sum: u128,
    count: u64,
) -> String {
    let mut whole = Xxh3::new();
    whole.update(DOMAIN);
    whole.update(match ordered {
        Some(_) => b"ordered\n",
        None => b"any order",
    });
    for (i, (name, logical)) in columns.iter().enumerate() {
        length_prefixed(&mut whole, name.as_bytes());
        length_prefixed(&mut whole, logical.as_bytes());
        if let Some(hash) = ordered.and_then(|hashes| hashes.get(i)) {
            whole.update(&hash.to_le_bytes());
        }
    }
    if ordered.is_none() {
        whole.update(&row_sum.to_le_bytes());
    }
    whole.update(&count.to_le_bytes());
    format!("{PREFIX}{:032x}", whole.digest128())
}

fn length_prefixed(hasher: &mut Xxh3, bytes: &[u8]) {
    hasher.update(&(bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

/// A field's logical type as the digest names it: one name for the representations of the
/// same values (`utf8` for Utf8, LargeUtf8 and Utf8View; `list<…>` for every list; a
/// dictionary as its values; UTC by one name), nested types by their children's. A width is
/// part of the type (`int8`, `uint64`): a later sample that widens a column is another result.
pub fn logical_type(field: &Field) -> String {
    type_name(field.data_type())
}

fn type_name(data_type: &DataType) -> String {
    use DataType as T;
    match data_type {
        T::Utf8 | T::LargeUtf8 | T::Utf8View => "utf8".into(),
        T::Binary | T::LargeBinary | T::BinaryView => "binary".into(),
        T::FixedSizeBinary(n) => format!("fixed_binary[{n}]"),
        T::List(item) | T::LargeList(item) | T::ListView(item) | T::LargeListView(item) => {
            format!("list<{}>", type_name(item.data_type()))
        }
        T::FixedSizeList(item, n) => format!("fixed_list[{n}]<{}>", type_name(item.data_type())),
        T::Struct(fields) => {
            let children: Vec<String> = fields
                .iter()
                .map(|f| format!("{}: {}", f.name(), type_name(f.data_type())))
                .collect();
            format!("struct<{}>", children.join(", "))
        }
        T::Map(entries, _) => match entries.data_type() {
            T::Struct(kv) if kv.len() == 2 => format!(
                "map<{}, {}>",
                type_name(kv[0].data_type()),
                type_name(kv[1].data_type())
            ),
            other => format!("map<{}>", type_name(other)),
        },
        T::Dictionary(_, values) => type_name(values),
        T::RunEndEncoded(_, values) => type_name(values.data_type()),
        T::Timestamp(unit, zone) => match zone {
            Some(zone) => format!("timestamp[{unit:?}, {}]", canonical_zone(zone)),
            None => format!("timestamp[{unit:?}]"),
        },
        other => format!("{other:?}").to_lowercase(),
    }
}

/// One name for the zone names that all mean UTC.
pub fn canonical_zone(zone: &str) -> &str {
    match zone {
        "UTC" | "Etc/UTC" | "Etc/UCT" | "UCT" | "Etc/Universal" | "Universal" | "Etc/Zulu"
        | "Zulu" | "Z" | "+00:00" | "+0000" | "+00" | "GMT" | "Etc/GMT" | "Etc/GMT0"
        | "Etc/GMT+0" | "Etc/GMT-0" | "GMT0" | "Etc/Greenwich" | "Greenwich" => "UTC",
        other => other,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
