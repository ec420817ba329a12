//! What the statistics' tests share, apart from the modules they test (so no test imports
//! another module's tests back).

use crate::results::CellKey;
use std::collections::BTreeMap;

/// Times by round, rounds numbered from 1.
pub(crate) fn rounds(values: &[f64]) -> BTreeMap<u32, f64> {
    (1..).zip(values.iter().copied()).collect()
}

/// A warm read's cell of `backend` on one dataset: the keys a test of grouping, ranking or
/// stopping does not vary.
pub(crate) fn key(backend: &str) -> CellKey {
    CellKey {
        dataset: "d".into(),
        dataset_fingerprint: "xxh3:0".into(),
        backend: backend.into(),
        profile: "default".into(),
        layout: "wide".into(),
        target: "arrow".into(),
        op: "read".into(),
        threads: 2,
        cache: "warm".into(),
        storage: "local".into(),
        network: "n/a".into(),
        row_group_rows: None,
        parquet_files: None,
        sort_by: None,
        executors: None,
    }
}
