//! What the yardstick adds up: the byte ranges of one object that an operation needs, joined
//! where they overlap or touch, and the errors of reading a file's metadata.

use std::ops::Range;
use std::path::{Path, PathBuf};

/// The bytes a selective operation needs from object storage, by the file's own metadata.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Needed {
    /// Bytes of the needed ranges, each byte once.
    pub bytes: u64,
    /// Disjoint needed ranges (touching ones joined), over every object the operation reads:
    /// the fewest ranged requests a reader fetching no unneeded byte could make.
    pub ranges: u64,
}

impl Needed {
    /// Two objects' needs together (ranges of different objects never join).
    pub fn plus(self, other: Needed) -> Needed {
        Needed {
            bytes: self.bytes + other.bytes,
            ranges: self.ranges + other.ranges,
        }
    }
}

/// Why the yardstick could not be computed for an artifact.
#[derive(Debug, thiserror::Error)]
pub enum NeededError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {source}", path.display())]
    Parquet {
        path: PathBuf,
        source: parquet::errors::ParquetError,
    },
    #[error("{}: {source}", path.display())]
    Arrow {
        path: PathBuf,
        source: arrow::error::ArrowError,
    },
    /// The file's metadata contradicts itself (a block past the end, a header cut short).
    #[error("{}: {what}", path.display())]
    Malformed { path: PathBuf, what: String },
}

impl NeededError {
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> NeededError + '_ {
        move |source| NeededError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn parquet(path: &Path) -> impl FnOnce(parquet::errors::ParquetError) -> NeededError + '_ {
        move |source| NeededError::Parquet {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn arrow(path: &Path) -> impl FnOnce(arrow::error::ArrowError) -> NeededError + '_ {
        move |source| NeededError::Arrow {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn malformed(path: &Path, what: impl Into<String>) -> NeededError {
        NeededError::Malformed {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }
}

/// The needed byte ranges of one object, in any order; empty ranges are left out.
#[derive(Debug, Default)]
pub struct Spans {
    ranges: Vec<Range<u64>>,
}

impl Spans {
    pub fn add(&mut self, range: Range<u64>) {
        if range.start < range.end {
            self.ranges.push(range);
        }
    }

    /// Their union: each byte once, and how many disjoint runs it makes.
    pub fn needed(mut self) -> Needed {
        self.ranges.sort_unstable_by_key(|r| (r.start, r.end));
        let mut out = Needed::default();
        let mut current: Option<Range<u64>> = None;
        for range in self.ranges {
            current = match current {
                // Touching ranges join: one request fetches both with no byte to spare.
                Some(run) if range.start <= run.end => Some(run.start..run.end.max(range.end)),
                Some(run) => {
                    out.bytes += run.end - run.start;
                    out.ranges += 1;
                    Some(range)
                }
                None => Some(range),
            };
        }
        if let Some(run) = current {
            out.bytes += run.end - run.start;
            out.ranges += 1;
        }
        out
    }
}

/// Sorted, disjoint row ranges from positions in any order (repeats allowed), adjacent ones
/// joined.
/// The rows whose value in the batches' one column (the index, read by the yardstick itself)
/// lies in `[lo, hi)`, as ranges of positions.
pub fn index_rows(
    batches: impl IntoIterator<Item = Result<arrow::array::RecordBatch, arrow::error::ArrowError>>,
    path: &Path,
    lo: i64,
    hi: i64,
) -> Result<Vec<Range<u64>>, NeededError> {
    use arrow::array::{Array, AsArray};
    let mut positions = Vec::new();
    let mut row = 0u64;
    for batch in batches {
        let batch = batch.map_err(NeededError::arrow(path))?;
        let values = arrow::compute::cast(batch.column(0), &arrow::datatypes::DataType::Int64)
            .map_err(NeededError::arrow(path))?;
        let values = values.as_primitive::<arrow::datatypes::Int64Type>();
        for i in 0..values.len() {
            if values.is_valid(i) && (lo..hi).contains(&values.value(i)) {
                positions.push(row + i as u64);
            }
        }
        row += values.len() as u64;
    }
    Ok(row_ranges(positions))
}

pub fn row_ranges(positions: impl IntoIterator<Item = u64>) -> Vec<Range<u64>> {
    let mut sorted: Vec<u64> = positions.into_iter().collect();
    sorted.sort_unstable();
    let mut out: Vec<Range<u64>> = Vec::new();
    for p in sorted {
        match out.last_mut() {
            Some(last) if p <= last.end => last.end = last.end.max(p + 1),
            _ => out.push(p..p + 1),
        }
    }
    out
}

/// Whether sorted, disjoint `rows` hold a row of `span`.
pub fn holds(rows: &[Range<u64>], span: Range<u64>) -> bool {
    let first = rows.partition_point(|r| r.end <= span.start);
    rows.get(first).is_some_and(|r| r.start < span.end)
}

/// Reads `len` bytes at `offset` of the local file.
pub fn read_at(
    file: &std::fs::File,
    path: &Path,
    offset: u64,
    len: u64,
) -> Result<Vec<u8>, NeededError> {
    use std::os::unix::fs::FileExt;
    let len = usize::try_from(len)
        .map_err(|_| NeededError::malformed(path, format!("a length of {len} bytes")))?;
    let mut buf = vec![0u8; len];
    file.read_exact_at(&mut buf, offset)
        .map_err(NeededError::io(path))?;
    Ok(buf)
}
