//! The formatbench worker protocol: the runner writes a [`Job`] as JSON, starts a worker process
//! with `--job PATH`, and reads the worker's [`Answer`] from `job.answer` once it exits.
//!
//! Data never crosses this boundary in memory: sources, artifacts and verification outputs are
//! files (Arrow IPC), so workers on different Arrow majors, or in other languages, take part alike.

mod answer;
mod batching;
mod counters;
mod given;
mod job;
mod measure;
mod object_storage;
mod operations;
mod partition_digest;
pub mod phases;
mod residency;
pub mod rewrite;
mod worker;

pub use answer::{Answer, AnswerStatus, Phase};
pub use batching::{batch_rows, BATCH_BYTES, CSV_VALUE_BYTES, DECODED_VALUE_BYTES, MAX_BATCH_ROWS};
pub use counters::OpCounters;
pub use given::{is_format_name, GivenFile, AS_GIVEN, GIVEN_FORMATS};
pub use job::{
    session_queries, FileSplit, Job, Op, OpParams, RangeSpec, ALL_OPS, DEFAULT_SESSION_QUERIES,
    DELTA_OPS, MATRIX_OPS, MUTATION_OPS, MUTATION_STRIDE, SESSION_PHASES, STORE_OPS,
};
pub use measure::{
    measure, measure_each, measure_repeated, memory_snapshot, release_freed_memory,
    set_memory_release, Calls, Measured, MemorySnapshot,
};
pub use object_storage::{NetworkShape, ObjectTarget, ObjectTraffic, RequestKind, SplitTraffic};
pub use operations::{Family, OpSpec, Order, Param, Selection, OPERATIONS};
pub use partition_digest::{PartialDigest, CLUSTER_TARGET};
pub use residency::{files_under, resident_fraction, write_back_everything};
pub use worker::{describe_or_run, WorkerError};

/// Bumped whenever a field changes meaning; a worker refuses a job of another version.
pub const PROTOCOL_VERSION: u32 = 1;
