//! Rows per batch for every reader of outside data (a user's file, an artifact made of it): by
//! bytes, never a fixed count. Readers reserve a batch's rows times its columns before they see
//! a byte (arrow-csv an offset and 8 bytes of text per field, parquet each column's values), so
//! a fixed 65,536 rows asked for 5 GB to read a 2-row CSV of 10,001 columns. The runner and the
//! workers share this one function; it lives here because neither depends on the other.

/// The bytes one batch's values (and a reader's per-value bookkeeping) aim at.
pub const BATCH_BYTES: usize = 8 << 20;

/// The most rows a batch holds, however narrow the table.
pub const MAX_BATCH_ROWS: usize = 65_536;

/// Bytes of one value as decoded (8 for most types; a guess for strings).
pub const DECODED_VALUE_BYTES: usize = 8;

/// Bytes per value that arrow-csv's reader holds for a batch: an 8-byte field offset and 8
/// bytes of text reserved per field before it reads, then the decoded value.
pub const CSV_VALUE_BYTES: usize = 16 + DECODED_VALUE_BYTES;

/// Rows per batch for a table of `columns` columns whose values take about `value_bytes` each
/// while read: [`BATCH_BYTES`] worth, between 1 (a very wide table) and [`MAX_BATCH_ROWS`].
pub fn batch_rows(columns: usize, value_bytes: usize) -> usize {
    let row_bytes = columns.max(1).saturating_mul(value_bytes.max(1));
    (BATCH_BYTES / row_bytes).clamp(1, MAX_BATCH_ROWS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_stays_near_its_bytes_down_to_one_row() {
        assert_eq!(batch_rows(1, DECODED_VALUE_BYTES), MAX_BATCH_ROWS);
        assert_eq!(batch_rows(0, 0), MAX_BATCH_ROWS);
        let rows = batch_rows(401, CSV_VALUE_BYTES);
        assert!(rows * 401 * CSV_VALUE_BYTES <= BATCH_BYTES);
        assert!((rows + 1) * 401 * CSV_VALUE_BYTES > BATCH_BYTES);
        assert!(batch_rows(10_001, CSV_VALUE_BYTES) * 10_001 * CSV_VALUE_BYTES <= BATCH_BYTES);
        assert_eq!(batch_rows(1 << 20, CSV_VALUE_BYTES), 1);
        assert_eq!(batch_rows(usize::MAX, usize::MAX), 1);
    }
}
