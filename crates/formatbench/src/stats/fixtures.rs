//! What the statistics' tests share, apart from the modules they test (so no test imports
//! another module's tests back).

use std::collections::BTreeMap;

/// Times by round, rounds numbered from 1.
pub(crate) fn rounds(values: &[f64]) -> BTreeMap<u32, f64> {
    (1..).zip(values.iter().copied()).collect()
}
