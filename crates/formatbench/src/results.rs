//! The append-only results file: one JSON object per line, flushed after each, so a crash or an
//! interrupt never loses a finished sample. The schema is documented in docs/results.md.

mod record;
mod store;

pub use record::{
    ArtifactRecord, CellKey, DatasetRecord, EnvironmentRecord, Record, SampleRecord, SampleStatus,
    ScheduleRecord, ScheduleSlot, VerificationRecord,
};
pub use store::{read_records, ResultsWriter, RESULTS_FILE};
