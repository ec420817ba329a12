use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One operation a backend may perform. Its properties are its row of [`crate::OPERATIONS`]
/// (declared in the same order); what each times is defined in docs/results.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Write the source table to the backend's format; the timer ends when files are closed.
    Write,
    /// The library's full read into its in-memory object.
    Read,
    /// A full read, then a cheap fold over every value inside the timer.
    Scan,
    /// Read a subset of the columns, in stored order.
    Project,
    /// Read a contiguous range of rows, by index value or by position.
    Range,
    /// Read rows at given positions, returned in request order.
    Take,
    /// Feature matrices: every feature as one N × D row-major float32 buffer.
    Matrix,
    /// Feature matrices: the features of given rows (sorted positions), as a matrix.
    RandomRows,
    /// Feature matrices: a few features of every row, as a matrix.
    FeatureProject,
    /// Feature matrices: the metadata columns plus a few features of given rows.
    Mixed,
    /// Feature matrices: the matrix, then each row's L2 norm.
    VectorNorm,
    /// Tables of files (Delta): open the table and stop after the first row that is not
    /// deleted; which row that is, is the reader's choice.
    FirstRow,
    /// Table stores: the rows whose index label is at most a bound (the first quarter).
    RangeBefore,
    /// Table stores: the rows whose index label is at least a bound (the last quarter).
    RangeAfter,
    /// Table stores: the rows whose label lies between two bounds, inclusive (rows N/4..N/2).
    RangeBetween,
    /// Table stores: the rows N/4..N/2 asked for as a list of their index labels.
    Labels,
    /// Table stores: appending the last 1 % of rows to a table holding the rest.
    Append,
    /// Table stores: inserting 1 % of rows, spread over the table, into a table without them.
    Insert,
    /// Table stores: setting every data column of 1 % of rows, spread over the table.
    Update,
    /// Tables of files (Delta), seed 003's session: open the table once, then run the
    /// projection [`session_queries`] times, each planned and executed; the phases `init`,
    /// `plan` and `execute` are timed apart, so a reader that loads more at initialization
    /// shows where it pays back.
    Session,
}

/// A session's phases: the table's initialization, and each query's planning and execution.
pub const SESSION_PHASES: [&str; 3] = ["init", "plan", "execute"];

/// The queries of a `session` unless the plan says otherwise: seed 003's session ran two
/// queries three times each on one loaded table.
pub const DEFAULT_SESSION_QUERIES: u64 = 6;

/// How many queries a `session` runs: the job's `queries` option, else the default.
pub fn session_queries(params: &OpParams) -> u64 {
    params
        .options
        .get("queries")
        .and_then(|q| q.parse().ok())
        .filter(|q| *q > 0)
        .unwrap_or(DEFAULT_SESSION_QUERIES)
}

/// The table operations: what "all" means for a suite or `--ops`.
pub const ALL_OPS: [Op; 6] = [
    Op::Write,
    Op::Read,
    Op::Scan,
    Op::Project,
    Op::Range,
    Op::Take,
];

/// The operations on feature matrices (the layout study's), run on `features` datasets; `--ops
/// matrix` names them all.
pub const MATRIX_OPS: [Op; 5] = [
    Op::Matrix,
    Op::RandomRows,
    Op::FeatureProject,
    Op::Mixed,
    Op::VectorNorm,
];

/// The operations on tables of files with deletion vectors (the Delta reader study); `--ops
/// delta` names them.
pub const DELTA_OPS: [Op; 4] = [Op::FirstRow, Op::Read, Op::Scan, Op::Project];

/// The operations of FeatherStore's table benchmark on label-indexed table stores; `--ops
/// store` names them.
pub const STORE_OPS: [Op; 11] = [
    Op::Write,
    Op::Read,
    Op::Scan,
    Op::Project,
    Op::RangeBefore,
    Op::RangeAfter,
    Op::RangeBetween,
    Op::Labels,
    Op::Append,
    Op::Insert,
    Op::Update,
];

/// The changes among [`STORE_OPS`]: each call starts from a table prepared without the change.
pub const MUTATION_OPS: [Op; 3] = [Op::Append, Op::Insert, Op::Update];

/// One row in this many is appended, inserted or updated by a mutation.
pub const MUTATION_STRIDE: u64 = 100;
/// Rows of a `range` operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum RangeSpec {
    /// Rows whose integer `column` value lies in `[start, end)`.
    Index {
        column: String,
        start: i64,
        end: i64,
    },
    /// Rows at positions `[start, end)`.
    Position { start: u64, end: u64 },
}

impl std::fmt::Display for RangeSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RangeSpec::Index { column, start, end } => {
                write!(f, "{column} in [{start}, {end})")
            }
            RangeSpec::Position { start, end } => write!(f, "positions [{start}, {end})"),
        }
    }
}

/// Parameters of the operation; only the ones the operation needs are set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OpParams {
    /// `project`, `feature_project`, `mixed`: the column names to return, in stored order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
    /// `range`, `range_before`, `range_after`, `range_between`: which rows (by index value);
    /// `labels`: the positions whose labels are asked for; `append`: the rows appended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<RangeSpec>,
    /// `take`, `random_rows`, `mixed`: row positions, distinct, in request order; `insert`,
    /// `update`: the positions of the rows inserted or updated, ascending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<Vec<u64>>,
    /// Tables of files (Delta): how the writer splits the table and which rows it deletes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<FileSplit>,
    /// The column that orders the source's rows. A backend whose reads keep no row order sorts
    /// its result by it after the timer, before the digest and the verification output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_by: Option<String>,
    /// Backend-specific knobs (e.g. the self-test worker's allocation size).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub options: BTreeMap<String, String>,
}

/// How a table of files is laid out: the source, in order, cut into `files` runs of rows of
/// nearly equal length, one file each; with `deletions`, one row of every file is then deleted
/// through a deletion vector ([`FileSplit::deleted_rows`] says which). Writers and the verifier
/// both follow this, so the rows a reader must leave out are known before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSplit {
    pub files: u64,
    #[serde(default)]
    pub deletions: bool,
}

impl FileSplit {
    /// The `[start, end)` rows of each file of a table of `rows` rows; never an empty file.
    pub fn bounds(&self, rows: u64) -> Vec<(u64, u64)> {
        let files = self.files.clamp(1, rows.max(1));
        (0..files)
            .map(|i| (i * rows / files, (i + 1) * rows / files))
            .filter(|(start, end)| start < end)
            .collect()
    }

    /// The deleted row of each file, as a position in the source (sorted); none without
    /// `deletions`. The row within file `i` is spread by a fixed multiplier, so deletions fall
    /// at the start, the middle and the end of files alike.
    pub fn deleted_rows(&self, rows: u64) -> Vec<u64> {
        if !self.deletions {
            return Vec::new();
        }
        self.bounds(rows)
            .iter()
            .enumerate()
            .map(|(i, (start, end))| start + (i as u64 * 7_919 + 13) % (end - start))
            .collect()
    }
}

/// What the runner asks of a worker for one sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub protocol: u32,
    pub backend: String,
    pub profile: String,
    /// The settings the backend's manifest gives `profile` (workers outside the tree:
    /// docs/protocol.md §9), for a worker whose profiles are configured there rather than in
    /// its code; absent for every built-in backend.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profile_settings: BTreeMap<String, String>,
    pub layout: String,
    pub target: String,
    pub op: Op,
    /// The canonical Arrow IPC file holding the dataset.
    pub source: PathBuf,
    /// The file or directory the backend writes (for `write`) or reads (for every other op).
    pub artifact: PathBuf,
    /// When set, the artifact lives in object storage: reads fetch it from there, and a write
    /// uploads what it wrote at `artifact` within its timer (docs/protocol.md §7a).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<crate::ObjectTarget>,
    /// For workers without an Arrow reader (R): the source as CSV, with its typed schema at
    /// `<source_text>.schema.json` (docs/protocol.md §6b).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_text: Option<PathBuf>,
    /// Where the worker writes its [`crate::Answer`] as JSON.
    pub answer: PathBuf,
    /// When set, the worker writes what the operation returned to this Arrow IPC file after the
    /// timer has stopped, so the runner can verify it against the source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_out: Option<PathBuf>,
    #[serde(default)]
    pub params: OpParams,
    /// The thread cap: the number of threads the backend may use (≥ 1); a cluster peer's
    /// per executor.
    pub threads: u32,
    /// A cluster peer's executors: the worker processes of the cluster it starts for the
    /// sample (docs/protocol.md, Cluster peers); absent for every other backend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executors: Option<u32>,
    /// A cluster peer's memory cap per executor, in bytes; absent: the engine's own default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor_memory_bytes: Option<u64>,
    /// A cluster the user runs (`dask://HOST:PORT`, `ray://HOST:PORT`, `spark://HOST:PORT`):
    /// a cluster peer attaches to it instead of starting one, checks that it has `executors`
    /// executors, and accounts only its own process (docs/protocol.md, Cluster peers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// On a cluster peer's verification run: the command (program and arguments) that digests
    /// one partition of the result, run by the engine where each partition lies with the
    /// partition's Arrow IPC file appended; the worker answers `partition_digests` with what it
    /// printed for each (docs/protocol.md, "Partition digests").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition_digest: Option<Vec<String>>,
    /// Set on the untimed write that prepares the artifact every read reads; a backend that only
    /// reads (e.g. `ipc-mmap`) still writes its format then.
    #[serde(default)]
    pub prepare: bool,
    /// Set on a cell's verification run, whose result is checked against the source (every
    /// measured sample's is then checked against it). A worker behaves the same either way;
    /// only self-test backends that misbehave on purpose read it.
    #[serde(default)]
    pub verification: bool,
    /// Repeat the operation inside one sample until it has lasted this long (seconds), so short
    /// operations are not lost in the clock's resolution; `op_s` is then per call.
    #[serde(default)]
    pub min_sample_s: f64,
    /// At most this many calls in one sample.
    #[serde(default = "default_max_calls")]
    pub max_calls: u64,
    /// At least this many calls in one sample: 2 asks for a warm figure (a second call in the
    /// same process) however long the first took. Workers report it as `warm_call_s`.
    #[serde(default = "default_min_calls")]
    pub min_calls: u64,
}

fn default_min_calls() -> u64 {
    1
}

impl Job {
    /// How many times a sample calls the operation.
    pub fn calls(&self) -> crate::Calls {
        crate::Calls {
            min_seconds: self.min_sample_s,
            min_calls: self.min_calls,
            max_calls: self.max_calls,
        }
    }
}

fn default_max_calls() -> u64 {
    1000
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_covers_every_row_once_and_deletes_one_row_per_file() {
        let split = FileSplit {
            files: 200,
            deletions: true,
        };
        let bounds = split.bounds(200_000);
        assert_eq!(bounds.len(), 200);
        assert_eq!(bounds.first(), Some(&(0, 1_000)));
        assert_eq!(bounds.last(), Some(&(199_000, 200_000)));
        assert!(bounds.windows(2).all(|w| w[0].1 == w[1].0));
        let deleted = split.deleted_rows(200_000);
        assert_eq!(deleted.len(), 200);
        for ((start, end), row) in bounds.iter().zip(&deleted) {
            assert!(start <= row && row < end);
        }
        // Spread within files: not all at the same offset.
        let offsets: std::collections::BTreeSet<u64> = bounds
            .iter()
            .zip(&deleted)
            .map(|((s, _), r)| r - s)
            .collect();
        assert!(offsets.len() > 100);
    }

    #[test]
    fn a_split_of_fewer_rows_than_files_has_one_row_per_file() {
        let split = FileSplit {
            files: 200,
            deletions: false,
        };
        assert_eq!(split.bounds(3), vec![(0, 1), (1, 2), (2, 3)]);
        assert!(split.deleted_rows(3).is_empty());
        assert_eq!(split.bounds(0), Vec::<(u64, u64)>::new());
    }

    #[test]
    fn store_operations_parse_by_name() {
        for op in STORE_OPS {
            assert_eq!(op.name().parse::<Op>(), Ok(op));
        }
        assert!(Op::Insert.is_mutation() && !Op::Labels.is_mutation());
    }

    #[test]
    fn first_row_parses_by_name() {
        assert_eq!("first_row".parse::<Op>(), Ok(Op::FirstRow));
        assert!("nope".parse::<Op>().unwrap_err().contains("first_row"));
    }
}
