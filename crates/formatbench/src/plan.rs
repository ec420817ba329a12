//! The plan: datasets × competitors (backend, profile, layout, target) × operations, the
//! parameters of each operation, and the order samples run in.

mod cache;
mod inputs;
pub mod limits;
mod schedule;
mod storage;
mod suite;
pub mod sweep;

pub use cache::{cache_states, check_cold_possible, CacheState};
pub use inputs::{OpInputs, DEFAULT_FILES, DEFAULT_SESSION_QUERIES};
pub use schedule::{balanced_orders, slots, Slot};
pub use storage::{Network, Storage, StorageChoice, UserStore, NETWORKS};
pub use suite::{builtin_suite, load_suite, parse_suite, Suite, SuiteDataset, BUILTIN_SUITES};

use crate::datasets::DatasetSpec;
use formatbench_protocol::Op;
use std::time::Duration;

/// A competitor in a cell: everything that distinguishes two rows of the same operation table.
#[derive(
    Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Competitor {
    pub backend: String,
    pub profile: String,
    pub layout: String,
    pub target: String,
    /// A point of the row-group sweep (`run --row-group-rows`): the rows per row group its
    /// file was re-written with; absent for every other competitor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_group_rows: Option<u64>,
    /// A point of the sweep cut into this many Parquet files of consecutive rows (`run
    /// --parquet-files`); absent for a file written the backend's own way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parquet_files: Option<u64>,
    /// A point of the sweep whose row groups hold about this many bytes of the source's Arrow
    /// data (`run --row-group-bytes`): the runner turns it into `row_group_rows` per dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_group_bytes: Option<u64>,
    /// A point of the sweep re-written sorted by this column (`run --sort-by`); absent when
    /// the file keeps the source's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_by: Option<String>,
    /// A cluster peer's executors (`run --executors`): the worker processes of the cluster it
    /// starts; absent for every single-process backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executors: Option<u32>,
}

/// The layout study's sampling rule: a sample repeats a short operation until it has lasted
/// this long (`--min-sample-ms`).
pub const DEFAULT_MIN_SAMPLE_S: f64 = 0.05;

/// A measured warm sample's calls: at least two (the first, then the warm ones), and at most
/// this many however short each is.
pub const MEASURED_CALLS: (u64, u64) = (2, 1_000);

/// Everything a run needs to know before it starts.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Plan {
    pub suite: String,
    pub datasets: Vec<DatasetSpec>,
    pub competitors: Vec<Competitor>,
    pub ops: Vec<Op>,
    /// Balanced blocks: each is 2n rounds of a group's n competitors, so every competitor takes
    /// every position twice and follows every other twice.
    pub blocks: u32,
    /// At most this many measured rounds per cell (`--samples`): the design is cut after this
    /// round, so each round is still a full permutation but positions are balanced only over
    /// complete blocks. For many competitors, where 2n rounds would take too long.
    #[serde(default)]
    pub max_rounds: Option<u32>,
    /// Cache states reads run under (never pooled); writes run once, their input in memory.
    pub caches: Vec<CacheState>,
    /// Each sample repeats a short operation until it lasts this long.
    pub min_sample_s: f64,
    /// Untimed runs per cell before the measured ones (the first also verifies the result).
    pub warmup: u32,
    pub threads: u32,
    /// The executor counts each cluster peer runs at (`--executors`), each its own competitor.
    #[serde(default = "default_executors")]
    pub executors: Vec<u32>,
    /// A cluster peer's memory cap per executor (`--executor-memory`); the engine's own when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor_memory: Option<u64>,
    /// The user's cluster the cluster peers attach to (`--cluster`), instead of starting one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    pub timeout: Duration,
    /// Bytes of address space each worker may map (`--memory-limit`); none when uncapped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<u64>,
    /// Seeds the choice of projected columns and taken rows.
    pub seed: u64,
    /// Tables of files (Delta): files each table is cut into.
    #[serde(default = "default_files")]
    pub files: u64,
    /// Tables of files: the queries one `session` runs on its opened table (`--queries`).
    #[serde(default = "default_session_queries")]
    pub session_queries: u64,
    /// Adaptive stopping (`--precision`, `--budget`): groups stop taking rounds once their
    /// answer is known; `None` runs the whole design.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopping: Option<Stopping>,
    /// Where artifacts live (`--storage`, `--network`): local files unless told otherwise.
    #[serde(default)]
    pub storage: Storage,
    /// Verify every cell and measure nothing (`formatbench fidelity`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify_only: bool,
}

/// When a group of an adaptive run stops: after a complete round, once every competitor's
/// paired ratio to the group's fastest has a 95 % interval within ±`precision` of it (0: never
/// for precision), or once the group's share of `budget_s` is spent.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Stopping {
    /// Relative half-width of the intervals, e.g. 0.05 for ±5 %.
    pub precision: f64,
    /// Seconds of measuring for the whole run, shared among the groups by their competitors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
}

/// The precision adaptive stopping aims at unless told otherwise: ±5 %.
pub const DEFAULT_PRECISION: f64 = 0.05;

fn default_session_queries() -> u64 {
    DEFAULT_SESSION_QUERIES
}

/// Cluster peers run on one executor unless told otherwise, as backends run on one thread.
pub const DEFAULT_EXECUTORS: u32 = 1;

fn default_executors() -> Vec<u32> {
    vec![DEFAULT_EXECUTORS]
}

fn default_files() -> u64 {
    DEFAULT_FILES
}
