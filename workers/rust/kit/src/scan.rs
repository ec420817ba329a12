//! The `scan` operation's fold: every byte of every buffer of the result (validity bitmaps and
//! children included) summed as little-endian 64-bit words, inside the timer, so lazy and
//! memory-mapped reads cannot look free. A plain wrapping sum, as the Python worker's numpy
//! sum: it runs at memory speed, so a scan measures the read, not the fold.

use crate::backend::{Loaded, MatrixData};
use arrow::array::{ArrayData, RecordBatch};

/// The fold of a read's result, a table's or a matrix's.
pub fn fold_loaded(loaded: &Loaded) -> u64 {
    match loaded {
        Loaded::Table(batches) => fold_batches(batches),
        Loaded::Matrix(m) => std::hint::black_box(match &m.data {
            MatrixData::F32(v) => v
                .iter()
                .fold(0u64, |acc, x| acc.wrapping_add(u64::from(x.to_bits()))),
            MatrixData::F64(v) => v.iter().fold(0u64, |acc, x| acc.wrapping_add(x.to_bits())),
        }),
    }
}

pub fn fold_batches(batches: &[RecordBatch]) -> u64 {
    let mut acc = 0u64;
    for batch in batches {
        for column in batch.columns() {
            acc = fold_data(acc, &column.to_data());
        }
    }
    std::hint::black_box(acc)
}

fn fold_data(mut acc: u64, data: &ArrayData) -> u64 {
    if let Some(nulls) = data.nulls() {
        acc = fold_bytes(acc, nulls.buffer().as_slice());
    }
    for buffer in data.buffers() {
        acc = fold_bytes(acc, buffer.as_slice());
    }
    for child in data.child_data() {
        acc = fold_data(acc, child);
    }
    acc
}

/// The wrapping sum of the bytes as little-endian words, the tail bytes added one by one.
pub fn fold_bytes(acc: u64, bytes: &[u8]) -> u64 {
    let (words, tail) = bytes.as_chunks::<8>();
    let words = words
        .iter()
        .fold(0u64, |a, w| a.wrapping_add(u64::from_le_bytes(*w)));
    tail.iter().fold(acc.wrapping_add(words), |a, &b| {
        a.wrapping_add(u64::from(b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_words_and_tail() {
        let mut bytes = 5u64.to_le_bytes().to_vec();
        bytes.extend(7u64.to_le_bytes());
        bytes.extend([1, 2]);
        assert_eq!(fold_bytes(100, &bytes), 115);
        assert_eq!(fold_bytes(0, &[]), 0);
    }
}
