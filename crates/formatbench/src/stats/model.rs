//! What a run's summary holds: one cell's statistics, a group of cells compared with each
//! other, geometric means and cache ratios across groups. `summary` fills these in from the
//! records and `across` combines groups; both read the types from here.

use super::completeness::Completeness;
use super::interval::{paired_estimate, RatioInterval};
use super::Summary;
use crate::results::CallMode;
use crate::results::{
    ArtifactRecord, CellKey, DatasetRecord, EnvironmentRecord, SampleStatus, ScheduleRecord,
    StopRecord,
};
use std::collections::BTreeMap;

/// A median under this many clock ticks is too close to the resolution to rank.
pub const MIN_TICKS: f64 = 100.0;
pub use crate::results::PARALLELISM_LIMIT;

/// What the report shows of one cell.
#[derive(Debug, Clone)]
pub struct CellSummary {
    pub cell: CellKey,
    /// `ok` only when the result was verified and every sample succeeded.
    pub status: SampleStatus,
    pub reason: Option<String>,
    /// Seconds per call of the operation over the ok samples: the call the run ranks by
    /// ([`RunSummary::call`]).
    pub wall: Option<Summary>,
    /// CPU seconds (user + system) per call, of the same call.
    pub cpu: Option<Summary>,
    /// Each sample's first call, and its warm calls, whichever ranks.
    pub first_call: Option<Summary>,
    pub warm_call: Option<Summary>,
    pub peak_rss_bytes: Option<u64>,
    pub size_bytes: Option<u64>,
    pub bytes_per_value: Option<f64>,
    /// The one ratio to the group's fastest that every view shows (tables, charts, geometric
    /// means, exports): the paired estimate when rounds pair up, else the ratio of medians;
    /// `None` when it cannot be trusted. See [`CellSummary::ratio_over`].
    pub ratio_to_best: Option<f64>,
    /// The paired ratio to the group's fastest with its 95 % t interval; `None` below two
    /// paired rounds, where no interval holds its coverage (the estimate alone is
    /// `ratio_to_best`).
    pub ratio: Option<RatioInterval>,
    /// The same for CPU time.
    pub cpu_ratio: Option<RatioInterval>,
    /// CPU seconds ÷ wall seconds of the ranked call, the median over the ok samples.
    pub parallelism: Option<f64>,
    pub resident_fraction: Option<f64>,
    /// Bytes fetched from storage per call (each sample's count ÷ its calls, the first call
    /// included), the median over the ok samples.
    pub read_bytes: Option<u64>,
    /// Bytes the worker asked the OS for through read calls per call, page-cache hits
    /// included (each sample's `requested_bytes` ÷ its calls), the median over the ok samples.
    pub requested_bytes: Option<u64>,
    /// A selective operation's (project, range, take, …) yardstick: the same competitor's full
    /// read in the same setting (`stats::full_read`).
    pub full_read: Option<FullRead>,
    /// Rows a call returned (the median over the ok samples that say).
    pub rows_returned: Option<u64>,
    /// Data per second of the ranked median ([`Throughput`]); `None` without a median.
    pub throughput: Option<Throughput>,
    /// Bytes fetched from storage ÷ Arrow bytes returned: for cold reads of local files (the
    /// kernel's count), and for every read from object storage (the S3 server's count).
    pub read_amplification: Option<f64>,
    /// Object storage: the S3 server's count per call of the ranked call (first or warm), the
    /// median of each field over the ok samples.
    pub object_traffic: Option<formatbench_protocol::ObjectTraffic>,
    /// Whether some sample's count is the mean over all its calls instead (its worker did not
    /// say when its first call ended).
    pub object_traffic_is_mean: bool,
    /// Object storage: the bytes a call needs by the artifact's own metadata, and in how many
    /// disjoint ranges (`run::needed`); the median over the samples that say (one figure per
    /// cell, so their common value).
    pub needed_bytes: Option<u64>,
    pub needed_ranges: Option<u64>,
    /// Seconds per call of each part the worker timed inside the operation (`first_batch`, a
    /// session's `init`, `plan`, `execute`), the median over the ok samples that have it.
    pub phases: BTreeMap<String, f64>,
    /// A `session`'s queries, as its samples record them.
    pub session_queries: Option<u64>,
    /// A cluster peer's cluster start (outside the timer), the median over the ok samples.
    pub cluster_start_s: Option<f64>,
    pub calls: Option<u64>,
    pub method: Option<String>,
    pub failed_samples: usize,
    /// Warnings (cache state missed, parallelism over a cap of 1, below clock resolution).
    pub flags: Vec<String>,
    /// Wall seconds per round, for paired comparisons.
    pub rounds: BTreeMap<u32, f64>,
    pub cpu_rounds: BTreeMap<u32, f64>,
}

/// The bytes of a full read (`read`, or `matrix` for the matrix operations) of the same
/// backend, profile, layout and target on the same dataset, cache state, thread cap and place,
/// per call: what a selective operation's bytes are shown beside.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FullRead {
    /// Fetched from storage (/proc/self/io `read_bytes`; real in cold reads of local files).
    pub read_bytes: Option<u64>,
    /// Asked for through read calls (`rchar`).
    pub requested_bytes: Option<u64>,
    /// Sent by the S3 server (object storage).
    pub object_bytes: Option<u64>,
}

/// How much data a cell handles per second at its median, as criterion's `Throughput`: the
/// source's logical size (its uncompressed Arrow IPC bytes) for the operations that handle the
/// whole source (`write`, `read`, `scan`), and rows: the source's for a write, the result's
/// (the same for every competitor, as verified) for every operation that returns rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throughput {
    pub bytes_per_s: Option<f64>,
    pub rows_per_s: Option<f64>,
}

impl Throughput {
    /// Its one figure for narrow tables: "523 MB/s" where bytes apply, else "1.20 M rows/s".
    pub fn headline(&self) -> String {
        match (self.bytes_per_s, self.rows_per_s) {
            (Some(b), _) => crate::units::rate(b, "B/s"),
            (None, Some(r)) => crate::units::rate(r, "rows/s"),
            (None, None) => crate::units::DASH.to_string(),
        }
    }

    /// Every figure it has: "523 MB/s · 1.20 M rows/s".
    pub fn text(&self) -> String {
        let parts: Vec<String> = [
            self.bytes_per_s.map(|b| crate::units::rate(b, "B/s")),
            self.rows_per_s.map(|r| crate::units::rate(r, "rows/s")),
        ]
        .into_iter()
        .flatten()
        .collect();
        parts.join(" · ")
    }
}

/// The operations whose throughput in bytes is the source's whole logical size.
pub const WHOLE_SOURCE_OPS: [&str; 3] = ["write", "read", "scan"];

/// All competitors of one operation on one dataset under one cache state, thread cap and place
/// of storage (local files, or object storage over one network), fastest first, then the
/// cells that did not run. Groups are never pooled across those keys.
#[derive(Debug, Clone)]
pub struct OpGroup {
    pub dataset: String,
    pub op: String,
    pub threads: u32,
    pub cache: String,
    /// The cells' `storage` and `network` keys (`local` and `n/a` for local files).
    pub storage: String,
    pub network: String,
    pub cells: Vec<CellSummary>,
    /// The runner-up's interval against the fastest contains 1.
    pub no_clear_winner: bool,
    /// Fairness warnings (competitors differ in measured parallelism, …).
    pub warnings: Vec<String>,
    /// How an adaptive run's sampling of this group ended (`StopRecord::detail`).
    pub stopped: Option<String>,
}

impl OpGroup {
    /// Where its cells read from, for titles and keys: empty for local files, else
    /// `s3 over region`.
    pub fn place(&self) -> String {
        place(&self.storage, &self.network)
    }
}

/// Empty for local files, else `STORAGE over NETWORK`.
pub fn place(storage: &str, network: &str) -> String {
    match storage {
        "local" | "" => String::new(),
        storage => format!("{storage} over {network}"),
    }
}

/// A competitor's geometric mean of ratios to the fastest across the operations of one
/// (dataset, cache, threads).
#[derive(Debug, Clone)]
pub struct GeoMean {
    pub dataset: String,
    pub cache: String,
    pub threads: u32,
    /// [`OpGroup::place`]: means never pool local files with object storage, or networks.
    pub place: String,
    pub backend: String,
    pub profile: String,
    pub layout: String,
    pub target: String,
    pub ratio: f64,
    pub ops: usize,
}

/// What a cold page cache costs one competitor on one operation: its cold time over its warm
/// time (the ratio of geometric means), with an unpaired t interval (the two states are
/// scheduled apart).
#[derive(Debug, Clone)]
pub struct CacheRatio {
    pub dataset: String,
    pub op: String,
    pub threads: u32,
    pub backend: String,
    pub profile: String,
    pub cold_median: f64,
    pub warm_median: f64,
    pub ratio: RatioInterval,
}

#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub environment: Option<EnvironmentRecord>,
    /// The format of each backend's files, from every run's environment (pooled runs add
    /// theirs): backend name → format.
    pub formats: std::collections::BTreeMap<String, String>,
    pub datasets: Vec<DatasetRecord>,
    pub artifacts: Vec<ArtifactRecord>,
    pub schedule: Option<ScheduleRecord>,
    pub groups: Vec<OpGroup>,
    pub geomeans: Vec<GeoMean>,
    /// Cold ÷ warm per competitor and read operation, when a run measured both.
    pub cache_ratios: Vec<CacheRatio>,
    /// Whether every scheduled sample is here (an interrupted run's are not).
    pub completeness: Completeness,
    /// Which call of each sample the times rank by.
    pub call: CallMode,
    /// How each group of an adaptive run stopped; empty for a fixed design.
    pub stops: Vec<StopRecord>,
    /// How busy the machine was over the samples.
    pub load: super::LoadSummary,
}

impl RunSummary {
    /// True when any cell failed (a crash, a timeout or a failed verification).
    pub fn any_failed(&self) -> bool {
        self.groups
            .iter()
            .flat_map(|g| &g.cells)
            .any(|c| c.status == SampleStatus::Failed)
    }
}

impl CellSummary {
    /// This cell's wall time over `base`'s, the way every view computes it: the paired
    /// estimate (geometric mean of per-round ratios) over the rounds both ran, else the ratio
    /// of medians (unpaired schedules).
    pub fn ratio_over(&self, base: &CellSummary) -> Option<f64> {
        let (median, base_median) = (self.wall?.median, base.wall?.median);
        if base_median <= 0.0 {
            return None;
        }
        Some(paired_estimate(&self.rounds, &base.rounds).unwrap_or(median / base_median))
    }
}

/// A recommendation (`report::recommend` makes them; the exports and `recommendation.json`
/// hold them): for one dataset and priority, the competitor and the sentence that says
/// why, with the margin over the runner-up where the priority is one figure.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Pick {
    pub dataset: String,
    pub prefer: &'static str,
    pub backend: String,
    pub profile: String,
    pub text: String,
    pub margin: Option<Margin>,
}

/// How far the pick is ahead of the runner-up: the runner-up's figure over the pick's, with
/// the paired interval for times (none for sizes, which have one value each).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Margin {
    pub runner_up: String,
    pub ratio: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
    /// False where the interval includes 1 (no clear winner), true where it excludes 1, null
    /// where the samples support no interval (too few rounds) or for sizes.
    pub clear: Option<bool>,
}
