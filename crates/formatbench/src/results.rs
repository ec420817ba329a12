//! The append-only results file: one JSON object per line, flushed after each, so a crash or an
//! interrupt never loses a finished sample. The schema is documented in docs/results.md.

mod load;
mod point;
mod record;
mod repair;
mod schema;
mod settings;
mod store;

pub use load::{MachineLoad, BUSY_FLAG, MIN_CAPACITY_TICKS};
pub use point::{executors_label, files_label, point_label, rows_text};
pub use record::{
    ArtifactRecord, CappedCell, CellKey, DatasetRecord, EnvironmentRecord, Record, SampleRecord,
    SampleStatus, ScheduleRecord, ScheduleSlot, StopRecord, VerificationRecord,
};
pub use repair::{repair, Repair};
pub use schema::{UnknownSchema, RESULTS_SCHEMA};
pub use settings::{recorded, CacheChoice, CallMode, Prefer, RunSettings, WRITE_ENDS};
pub use store::{
    read_records, read_results, ResultsRead, ResultsWriter, SkippedLine, RESULTS_FILE,
};

/// Parallelism (CPU time over wall time) above this under a thread cap of 1 means the cap did
/// not hold: the runner flags such a sample and the statistics warn about such a cell.
pub const PARALLELISM_LIMIT: f64 = 1.2;
