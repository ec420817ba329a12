//! One error type for the store: every message is one line a user can act on.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    Arrow(#[from] arrow::error::ArrowError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The directory holds no table, or one this version cannot read.
    #[error("{0}")]
    NotATable(String),
    /// A table already exists where one is created without `replace`.
    #[error("{0} already holds a table (write with replace to overwrite it)")]
    Exists(PathBuf),
    /// Metadata and files disagree, or a file is not what the metadata says.
    #[error("inconsistent table: {0}")]
    Corrupt(String),
    /// Labels asked for (read, update, drop) that the table does not hold.
    #[error("rows not found: {0}")]
    RowsNotFound(String),
    /// Labels inserted that the table already holds.
    #[error("rows already exist: {0}")]
    RowsExist(String),
    /// The index is not unique, or appended labels do not come after the stored ones.
    #[error("{0}")]
    IndexOrder(String),
    /// A column type the index cannot have, or a label of the wrong type.
    #[error("{0}")]
    IndexType(String),
    #[error("no column named {0}")]
    UnknownColumns(String),
    /// New data whose columns or types differ from the table's.
    #[error("schema mismatch: {0}")]
    SchemaMismatch(String),
    /// A request the store refuses (dropping every row, the index, or every column).
    #[error("{0}")]
    Invalid(String),
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Attaches the path to an I/O error.
pub(crate) fn at(path: &Path) -> impl Fn(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Lists up to a handful of values, then how many more there are.
pub(crate) fn listing<T: std::fmt::Display>(values: &[T]) -> String {
    const SHOWN: usize = 10;
    let shown: Vec<String> = values.iter().take(SHOWN).map(|v| v.to_string()).collect();
    match values.len().saturating_sub(SHOWN) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}
