//! Verification at scale (docs/protocol.md, "Partition digests"): a cluster peer's result
//! digested partition by partition where each partition lies, by the oracle's own program,
//! and combined by the runner. Plain data here; the digest itself is the oracle's.

use serde::{Deserialize, Serialize};

/// The target of a cluster peer's read whose result is materialized in the executors' memory
/// and left there, never collected into the driver: its partition digests are its only check.
pub const CLUSTER_TARGET: &str = "cluster";

/// What the oracle's partition-digest program prints for one partition: its row count, the sum
/// (mod 2^128) of its rows' hashes, and the columns it digested, each as its name and the
/// logical type it was digested in. A partition without rows digests no columns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartialDigest {
    pub rows: u64,
    /// 32 hexadecimal digits.
    pub row_sum: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<(String, String)>,
}
