use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Every line of results.jsonl is one of these, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Record {
    Environment(EnvironmentRecord),
    Dataset(DatasetRecord),
    Artifact(ArtifactRecord),
    Verification(VerificationRecord),
    Schedule(ScheduleRecord),
    Sample(Box<SampleRecord>),
    Stop(StopRecord),
}

/// Why a group of an adaptive run took no more rounds (`--precision`, `--budget`), written when
/// it stops: its later scheduled samples were not measured, by design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StopRecord {
    pub run_id: String,
    /// The group: one operation on one dataset under one cache state and thread cap.
    pub dataset: String,
    pub op: String,
    pub threads: u32,
    pub cache: String,
    /// The last round measured (every competitor's sample of it is in).
    pub after_round: u32,
    /// The rounds the full design had.
    pub planned_rounds: u32,
    /// `precision` (every ratio known to the target), `budget` (its share of the time budget
    /// spent) or `design` (the full design ran).
    pub reason: String,
    /// The sentence a report shows.
    pub detail: String,
    /// Cells whose samples cost far more than the group's: measured fewer times.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capped: Vec<CappedCell>,
    /// What `report A B` added to this run's rounds when it pooled it after others (its rounds
    /// are `round_offset + 1 ..= round_offset + planned_rounds`); 0 in a run's own file.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub round_offset: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A cell of an adaptive run measured at most `samples` times because one of its samples cost
/// `cost_s` against the group's median `group_median_s`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CappedCell {
    #[serde(flatten)]
    pub cell: CellKey,
    pub samples: u32,
    pub cost_s: f64,
    pub group_median_s: f64,
}

impl StopRecord {
    /// Whether `cell` belongs to the group this record stops.
    pub fn covers(&self, cell: &CellKey) -> bool {
        (
            self.dataset.as_str(),
            self.op.as_str(),
            self.threads,
            self.cache.as_str(),
        ) == (
            cell.dataset.as_str(),
            cell.op.as_str(),
            cell.threads,
            cell.cache.as_str(),
        )
    }

    /// Whether `other` stops the same group.
    pub fn covers_group(&self, other: &StopRecord) -> bool {
        (&self.dataset, &self.op, self.threads, &self.cache)
            == (&other.dataset, &other.op, other.threads, &other.cache)
    }

    /// Whether `round` is one of this record's run's rounds (pooled runs' rounds are shifted).
    pub fn holds_round(&self, round: u32) -> bool {
        round > self.round_offset && round - self.round_offset <= self.planned_rounds
    }

    /// The last round `cell` was to be measured in: the group's, or its cap's.
    pub fn last_round_of(&self, cell: &CellKey) -> Option<u32> {
        if !self.covers(cell) {
            return None;
        }
        let cap = self
            .capped
            .iter()
            .find(|c| &c.cell == cell)
            .map_or(u32::MAX, |c| c.samples);
        Some(self.round_offset + self.after_round.min(cap))
    }
}

/// The order of every measured sample, written (with its hash) before the first is timed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleRecord {
    pub run_id: String,
    /// `xxh3:` hash of `slots`.
    pub hash: String,
    /// Blocks of 2n rounds per group (n competitors).
    pub blocks: u32,
    /// One entry per measured sample, in run order.
    pub slots: Vec<ScheduleSlot>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ScheduleSlot {
    #[serde(flatten)]
    pub cell: CellKey,
    pub round: u32,
    pub position: u32,
}

/// The machine, the build and the settings of a run; written once, first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvironmentRecord {
    pub run_id: String,
    pub formatbench_version: String,
    pub git_commit: Option<String>,
    pub git_dirty: Option<bool>,
    pub cpu_model: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub kernel: String,
    pub os: String,
    pub versions: BTreeMap<String, String>,
    /// The smallest step the monotonic clock was seen to take, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_resolution_s: Option<f64>,
    /// A hash of the formatbench binary that ran the workers: part of every sample's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_build: Option<String>,
    /// The command-line settings the run used (suite, rounds, warmup, threads, timeout, …).
    pub settings: super::RunSettings,
    /// The kernel's memory settings that move write and allocation timings (huge pages,
    /// dirty-page limits, free page reporting to a hypervisor), as read from /proc and /sys.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub memory: BTreeMap<String, String>,
    /// The format of each backend's files, by backend name (`py-dask-csv` → `csv`), as the
    /// backends of the run declare them; a backend that declares none is not listed. Empty
    /// in runs from before the key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub formats: BTreeMap<String, String>,
}

/// One dataset's canonical source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetRecord {
    pub run_id: String,
    pub dataset: String,
    pub dataset_fingerprint: String,
    pub rows: u64,
    pub columns: u64,
    /// Bytes of the canonical (uncompressed IPC) source; a reference for sizes.
    pub source_bytes: u64,
    pub parameters: BTreeMap<String, String>,
    pub schema: Vec<String>,
}

/// The identity of a measured cell: everything but the round. Names stay bare; the other
/// dimensions are their own keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    pub dataset: String,
    pub dataset_fingerprint: String,
    pub backend: String,
    pub profile: String,
    pub layout: String,
    pub target: String,
    pub op: String,
    pub threads: u32,
    /// `warm` or `cold` for reads; `n/a` for writes, whose input is in memory.
    pub cache: String,
    /// Where the artifact lives: `local` files, or `s3` (formatbench's S3 server, or the
    /// user's store with `--storage s3://…`).
    #[serde(default = "local_storage")]
    pub storage: String,
    /// The network profile between worker and object store (`local`, `lan`, `region`,
    /// `internet`); `n/a` for local files.
    #[serde(default = "no_network")]
    pub network: String,
    /// A point of the row-group sweep (`run --row-group-rows`): the rows per row group its
    /// file was re-written with; absent for every other competitor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_group_rows: Option<u64>,
    /// A point of the sweep cut into this many Parquet files of consecutive rows (`run
    /// --parquet-files`); absent for a file written the backend's own way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parquet_files: Option<u64>,
    /// A point of the sweep re-written sorted by this column (`run --sort-by`); absent when
    /// the file keeps the source's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_by: Option<String>,
    /// A cluster peer's executors (`run --executors`); absent for one process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executors: Option<u32>,
}

fn local_storage() -> String {
    "local".into()
}

fn no_network() -> String {
    "n/a".into()
}

/// The artifact a backend wrote for the reads: its size and effective settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArtifactRecord {
    pub run_id: String,
    pub dataset: String,
    pub dataset_fingerprint: String,
    pub backend: String,
    pub profile: String,
    pub layout: String,
    /// A point of the row-group sweep (`run --row-group-rows`): the rows per row group its
    /// file was re-written with; absent for every other competitor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_group_rows: Option<u64>,
    /// A point of the sweep cut into this many Parquet files of consecutive rows (`run
    /// --parquet-files`); absent for a file written the backend's own way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parquet_files: Option<u64>,
    /// A point of the sweep re-written sorted by this column (`run --sort-by`); absent when
    /// the file keeps the source's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_by: Option<String>,
    pub status: SampleStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// size ÷ (rows × columns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes_per_value: Option<f64>,
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
}

/// The check of one cell's result against the source, done before any of its timings counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerificationRecord {
    pub run_id: String,
    #[serde(flatten)]
    pub cell: CellKey,
    pub status: SampleStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The digest every timed sample of this cell must report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Differences of representation that are allowed (string encodings, batch splits, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub representation: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub float_tolerance: Option<f64>,
    /// The backend declared that numbers may come back at other widths (R, text formats).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub other_widths: bool,
    /// A write's artifact read back by another implementation of its format, and what that
    /// found ("read back by py-pyarrow-parquet 25.0.1"), or why there was no such check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub independent_check: Option<String>,
    /// A cluster peer's read: its result digested partition by partition inside the engine and
    /// added up ("16 partitions, 4000 rows, digested in the engine: rd1:…, the source's"), or
    /// why that check was not made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_digest: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleStatus {
    Ok,
    Failed,
    Unsupported,
    Unavailable,
}

impl SampleStatus {
    pub fn name(self) -> &'static str {
        match self {
            SampleStatus::Ok => "ok",
            SampleStatus::Failed => "failed",
            SampleStatus::Unsupported => "unsupported",
            SampleStatus::Unavailable => "unavailable",
        }
    }
}

/// One measured sample (or, with `round` absent, the one line of a cell that could not run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    pub run_id: String,
    #[serde(flatten)]
    pub cell: CellKey,
    /// Object storage: what the S3 server served for this sample, per call (`storage` s3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_traffic: Option<formatbench_protocol::ObjectTraffic>,
    /// The same count for the sample's first call alone, and per call for the calls after it,
    /// where the worker said when its first call ended (a one-call sample has only the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_call_object_traffic: Option<formatbench_protocol::ObjectTraffic>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_call_object_traffic: Option<formatbench_protocol::ObjectTraffic>,
    /// Who counted `object_traffic`: absent for the S3 server (formatbench's own), `client`
    /// for the worker's own S3 client (a store of the user's, which counts nothing for us).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic_counted_by: Option<String>,
    /// Object storage: the bytes a call needs to fetch by the artifact's own metadata (footer,
    /// page index or block headers, the selected pages or buffers), and in how many disjoint
    /// ranges; absent where that yardstick does not say (docs/results.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needed_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub needed_ranges: Option<u64>,
    pub round: Option<u32>,
    /// 0-based position of the sample within its round.
    #[serde(default)]
    pub position: Option<u32>,
    pub status: SampleStatus,
    pub reason: Option<String>,
    /// Seconds of the timed operation (per call).
    pub wall_s: Option<f64>,
    /// CPU seconds of the timed operation per call, like `wall_s`: the worker's getrusage over
    /// every call of the sample, all threads, divided by `calls`.
    pub cpu_user_s: Option<f64>,
    pub cpu_sys_s: Option<f64>,
    /// Whether `cpu_user_s` and `cpu_sys_s` are per call. Results written before they were
    /// hold the whole sample's CPU there; reading converts them (`cpu_to_per_call`).
    #[serde(default)]
    pub cpu_per_call: bool,
    /// The worker's own peak resident memory over the operation (VmHWM).
    pub peak_rss_bytes: Option<u64>,
    /// Bytes on disk of the backend's artifact for this dataset and profile.
    pub size_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_returned: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns_returned: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minflt: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub majflt: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvcsw: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nivcsw: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_before_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_anon_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_file_bytes: Option<u64>,
    /// The processes the counters and memory figures sum: the worker and a cluster peer's
    /// cluster below it (driver, executors); absent for one process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accounted_processes: Option<u64>,
    /// Seconds a cluster peer's cluster took to start, before the timer (not scored).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_start_s: Option<f64>,
    /// The whole worker process, spawn to reap, from the launcher's wait4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_wall_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_cpu_user_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_cpu_sys_s: Option<f64>,
    /// CPU seconds of processes below the worker that exited without a wait to report them
    /// (their parent ignored SIGCHLD, as Ray's raylet does for its workers), read from /proc
    /// while the worker ran: this run's own work, not other processes'. Cluster peers only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_unwaited_cpu_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_maxrss_bytes: Option<u64>,
    /// Page faults and context switches of the whole worker process (wait4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_minflt: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_majflt: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_nvcsw: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_nivcsw: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Byte-weighted fraction of the artifact resident in the page cache when the timer started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resident_fraction: Option<f64>,
    /// Bytes fetched from storage and dirtied for writeback during the operation (/proc/self/io).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_bytes: Option<u64>,
    /// Bytes the worker asked the OS for through read calls during the operation, page-cache
    /// hits included and memory-mapped reads not (/proc/self/io `rchar`): what a read asks
    /// for whatever the cache holds, so warm reads show their selectivity too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_bytes: Option<u64>,
    /// (CPU user + system) ÷ wall over the operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<f64>,
    /// Seconds of the sample's first call alone, in a fresh worker process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_call_s: Option<f64>,
    /// Mean seconds of the calls after the first, in the same process (absent for one call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_call_s: Option<f64>,
    /// CPU seconds (user + system) of the first call, and the mean of the later calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_call_cpu_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_call_cpu_s: Option<f64>,
    /// Seconds per call of the commit a store runs after the timed write or change (its syncs
    /// and metadata rename), timed apart from the operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_s: Option<f64>,
    /// Seconds of the named parts the worker timed inside the operation (the time to its first
    /// batch, `first_batch`; a session's `init`, `plan` and `execute`), per call as
    /// `warm_call_s`: the mean of the calls after the first, or the only call.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub phases: BTreeMap<String, f64>,
    /// The same parts in the sample's first call, when it made several (as `first_call_s`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub first_call_phases: BTreeMap<String, f64>,
    /// A `session`'s queries (`--queries`): its `plan` and `execute` phases cover them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_queries: Option<u64>,
    /// Arrow in-memory bytes of the result (the denominator of read amplification).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_bytes: Option<u64>,
    /// The worker build that took the sample (with the cell and round, the sample's key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_build: Option<String>,
    /// Set when the sample was taken over from an earlier run by `--reuse`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<String>,
    /// Warnings about this sample: a cache state not met, parallelism over a cap of 1, a busy
    /// machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// How busy the machine was around the sample (absent in results written before it was
    /// recorded; a sample reused from an earlier run keeps its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_load: Option<super::MachineLoad>,
    /// A failed sample whose object store (`--endpoint`) no longer answered: the store failed,
    /// not the backend, so `--resume` takes it again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub store_unreachable: bool,
}

#[cfg(test)]
impl CellKey {
    /// A cell of `backend` reading a small local table, for tests.
    pub(crate) fn example(backend: &str) -> Self {
        CellKey {
            dataset: "d".into(),
            dataset_fingerprint: "f".into(),
            backend: backend.into(),
            profile: "default".into(),
            layout: "wide".into(),
            target: "arrow".into(),
            op: "read".into(),
            threads: 1,
            cache: "warm".into(),
            storage: "local".into(),
            network: "n/a".into(),
            row_group_rows: None,
            parquet_files: None,
            sort_by: None,
            executors: None,
        }
    }
}

impl SampleRecord {
    /// CPU figures written as the whole sample's (before they were per call) become per call,
    /// so a sample that repeated its operation compares with one that did not.
    pub fn cpu_to_per_call(&mut self) {
        if self.cpu_per_call {
            return;
        }
        let calls = self.calls.unwrap_or(1).max(1) as f64;
        self.cpu_user_s = self.cpu_user_s.map(|s| s / calls);
        self.cpu_sys_s = self.cpu_sys_s.map(|s| s / calls);
        self.cpu_per_call = true;
    }

    /// A record with only the identity and status filled in.
    pub fn bare(
        run_id: &str,
        cell: CellKey,
        round: Option<u32>,
        status: SampleStatus,
        reason: Option<String>,
    ) -> Self {
        SampleRecord {
            run_id: run_id.to_string(),
            cell,
            object_traffic: None,
            first_call_object_traffic: None,
            warm_call_object_traffic: None,
            traffic_counted_by: None,
            needed_bytes: None,
            needed_ranges: None,
            round,
            position: None,
            status,
            reason,
            wall_s: None,
            cpu_user_s: None,
            cpu_sys_s: None,
            cpu_per_call: true,
            peak_rss_bytes: None,
            size_bytes: None,
            calls: None,
            rows_returned: None,
            columns_returned: None,
            minflt: None,
            majflt: None,
            nvcsw: None,
            nivcsw: None,
            rss_before_bytes: None,
            rss_anon_bytes: None,
            rss_file_bytes: None,
            accounted_processes: None,
            cluster_start_s: None,
            process_wall_s: None,
            process_cpu_user_s: None,
            process_cpu_sys_s: None,
            process_unwaited_cpu_s: None,
            process_maxrss_bytes: None,
            process_minflt: None,
            process_majflt: None,
            process_nvcsw: None,
            process_nivcsw: None,
            method: None,
            digest: None,
            resident_fraction: None,
            read_bytes: None,
            write_bytes: None,
            requested_bytes: None,
            parallelism: None,
            first_call_s: None,
            warm_call_s: None,
            first_call_cpu_s: None,
            warm_call_cpu_s: None,
            commit_s: None,
            phases: BTreeMap::new(),
            first_call_phases: BTreeMap::new(),
            session_queries: None,
            result_bytes: None,
            worker_build: None,
            reused_from: None,
            flags: Vec::new(),
            machine_load: None,
            store_unreachable: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_totals_written_before_become_per_call() {
        let cell = CellKey::example("b");
        let mut old = SampleRecord::bare("run", cell.clone(), Some(0), SampleStatus::Ok, None);
        old.cpu_per_call = false;
        old.calls = Some(400);
        old.cpu_user_s = Some(0.04);
        old.cpu_sys_s = Some(0.01);
        old.cpu_to_per_call();
        assert!(old.cpu_per_call);
        assert_eq!(old.cpu_user_s, Some(0.04 / 400.0));
        assert_eq!(old.cpu_sys_s, Some(0.01 / 400.0));
        // Converting twice changes nothing; new records are per call already.
        old.cpu_to_per_call();
        assert_eq!(old.cpu_user_s, Some(0.04 / 400.0));
        let mut new = SampleRecord::bare("run", cell, Some(0), SampleStatus::Ok, None);
        new.calls = Some(400);
        new.cpu_user_s = Some(0.0001);
        new.cpu_to_per_call();
        assert_eq!(new.cpu_user_s, Some(0.0001));
    }
}
