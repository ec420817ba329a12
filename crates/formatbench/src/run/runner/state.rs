//! The runner's state through a run, and how it starts one job: the job file for a cell, a
//! fresh worker process through the launcher, the CSV rendition a worker without Arrow reads.
//! The passes over cells (preparing, verifying, measuring) are written on top of it.

use super::cell::Cell;
use crate::catalog::WorkerKind;
use crate::peers::exchange;
use crate::plan::{CacheState, Plan};
use crate::results::{ResultsWriter, SampleRecord, ScheduleSlot};
use crate::run::{run_job, Limits, SampleOutcome};
use crate::Error;
use formatbench_protocol::{Answer, AnswerStatus, Job, Op, PROTOCOL_VERSION};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Relative float tolerance for lossy (text) formats.
pub(super) const LOSSY_FLOAT_TOLERANCE: f64 = 1e-9;
/// Relative tolerance of `vector_norm` results, as in the layout study.
pub(super) const NORM_TOLERANCE: f64 = 1e-5;

pub(super) struct Runner<'a> {
    pub(super) plan: &'a Plan,
    pub(super) run_id: String,
    pub(super) scratch: PathBuf,
    pub(super) results: ResultsWriter,
    pub(super) jobs_started: u64,
    /// A hash of the binary the workers run from: part of every sample's key.
    pub(super) worker_build: String,
    /// Slots already measured (when resuming): never run twice.
    pub(super) done: HashSet<ScheduleSlot>,
    /// The schedule hash of the run being resumed.
    pub(super) resumed_schedule: Option<String>,
    /// The groups an interrupted adaptive run had stopped, and its ranked times by slot.
    pub(super) resumed_stops: Vec<crate::results::StopRecord>,
    pub(super) resumed_walls: Vec<(ScheduleSlot, Option<f64>)>,
    /// Samples of earlier runs with identical keys (`--reuse`), and how many were taken.
    pub(super) reusable: HashMap<ScheduleSlot, SampleRecord>,
    pub(super) reused: usize,
    /// The call the run ranks by (`--call`): the adaptive stopper decides on it too.
    pub(super) call: crate::stats::CallMode,
    /// Each source's CSV rendition for workers without Arrow, made on first use, or why the
    /// source cannot be rendered.
    pub(super) renditions: HashMap<PathBuf, Result<PathBuf, String>>,
    /// The independent readers' catalog entries, looked up on first use.
    pub(super) readers: HashMap<String, Option<crate::catalog::BackendInfo>>,
    /// Artifacts already prepared in this run, by directory: a reader of another backend's
    /// artifact (a Delta reader) shares the one its writer made.
    pub(super) prepared: HashMap<PathBuf, crate::results::ArtifactRecord>,
    /// Artifacts that are a user's object read in place (`--input s3://…`), by directory:
    /// their jobs name that object, whatever the run's own storage.
    pub(super) given_objects: HashMap<PathBuf, formatbench_protocol::ObjectTarget>,
    /// The run's S3 server, when artifacts live in object storage.
    pub(super) storage: Option<crate::run::storage::ObjectStorage>,
    /// Other formatbench runs measuring on this machine: samples taken beside one are flagged.
    pub(super) neighbours: crate::run::beside::Neighbours,
}

impl Runner<'_> {
    /// Where a job writes what its operation returned (`returned`: CSV for workers without
    /// Arrow) and where the runner reads it as Arrow IPC (`verify_out`).
    pub(super) fn result_paths(&self, cell: &Cell, name: &str) -> (PathBuf, PathBuf) {
        let verify_out = self.scratch.join("verify").join(format!("{name}.arrow"));
        let text = cell.info.worker.exchanges_text();
        let returned = verify_out.with_extension(if text { "csv" } else { "arrow" });
        (returned, verify_out)
    }

    pub(super) fn job(
        &self,
        cell: &Cell,
        artifact: &Path,
        verify_out: Option<PathBuf>,
        prepare: bool,
        op: Op,
    ) -> Job {
        // Verification and preparation run once; only measured samples repeat, and never cold
        // ones: every call after the first would find the pages the first brought in.
        let once = verify_out.is_some() || prepare || cell.cache == Some(CacheState::Cold);
        // Measured warm samples make a second call whatever the first took: the warm figure.
        let (min_sample_s, min_calls, max_calls) = if once {
            (0.0, 1, 1)
        } else {
            let (min_calls, max_calls) = crate::plan::MEASURED_CALLS;
            (self.plan.min_sample_s, min_calls, max_calls)
        };
        Job {
            protocol: PROTOCOL_VERSION,
            backend: cell.competitor.backend.clone(),
            profile: cell.competitor.profile.clone(),
            profile_settings: crate::catalog::external::profile_settings(
                &cell.competitor.backend,
                &cell.competitor.profile,
            ),
            layout: cell.competitor.layout.clone(),
            target: cell.competitor.target.clone(),
            op,
            source: cell.source_path.clone(),
            artifact: artifact.to_path_buf(),
            storage: self.object_target(artifact),
            answer: PathBuf::new(),
            verification: verify_out.is_some() && !prepare,
            verify_out,
            source_text: None,
            params: cell.params.clone(),
            threads: self.plan.threads,
            executors: cell.competitor.executors,
            executor_memory_bytes: cell.competitor.executors.and(self.plan.executor_memory),
            cluster: cell
                .competitor
                .executors
                .and_then(|_| self.plan.cluster.clone()),
            partition_digest: None,
            prepare,
            min_sample_s,
            min_calls,
            max_calls,
        }
    }

    /// Runs one job through launcher and worker; each gets its own job, answer and log files.
    pub(super) fn spawn(
        &mut self,
        worker: WorkerKind,
        mut job: Job,
    ) -> Result<SampleOutcome, Error> {
        self.jobs_started += 1;
        let n = self.jobs_started;
        let jobs = self.scratch.join("jobs");
        job.answer = jobs.join(format!("{n:06}.answer.json"));
        if worker.exchanges_text() {
            match self.rendition(&job.source)? {
                Ok(csv) => job.source_text = Some(csv),
                Err(reason) => {
                    return Ok(SampleOutcome {
                        answer: Ok(Answer::unsupported(reason)),
                        process: None,
                    })
                }
            }
        }
        let outcome = run_job(
            &crate::run::worker_command(worker)?,
            &job,
            &jobs.join(format!("{n:06}.job.json")),
            &jobs.join(format!("{n:06}.log")),
            Limits {
                timeout: self.plan.timeout,
                memory: self.plan.memory_limit,
                thread_environment: matches!(worker, WorkerKind::External(_))
                    .then_some(self.plan.threads),
            },
        )?;
        Ok(outcome)
    }

    /// Where a sample reads from, or for a write, a fresh directory it writes into.
    pub(super) fn artifact_for(&self, cell: &Cell, round: u32) -> PathBuf {
        if cell.op == Op::Write {
            self.scratch
                .join("writes")
                .join(format!("{}-r{round}", cell.slug()))
        } else {
            cell.artifact_dir.clone()
        }
    }

    pub(super) fn cleanup_write(&self, cell: &Cell, artifact: &Path) {
        if cell.op == Op::Write {
            let _ = std::fs::remove_dir_all(artifact);
            if let (Some(storage), Some(target)) = (&self.storage, self.object_target(artifact)) {
                storage.remove(&target);
            }
        }
    }

    /// Where an artifact lives in object storage, when the run's artifacts do.
    pub(super) fn object_target(
        &self,
        artifact: &Path,
    ) -> Option<formatbench_protocol::ObjectTarget> {
        if let Some(given) = self.given_objects.get(artifact) {
            return Some(given.clone());
        }
        let storage = self.storage.as_ref()?;
        let relative = artifact.strip_prefix(&self.scratch).unwrap_or(artifact);
        Some(storage.target(relative))
    }

    /// The source as CSV for workers without Arrow, written once per run and source.
    fn rendition(&mut self, source: &Path) -> Result<Result<PathBuf, String>, Error> {
        if let Some(known) = self.renditions.get(source) {
            return Ok(known.clone());
        }
        let stem = source.file_stem().unwrap_or_default().to_string_lossy();
        let dir = self.scratch.join("exchange");
        std::fs::create_dir_all(&dir)?;
        let csv = dir.join(format!("{stem}-{}.csv", self.renditions.len()));
        let made = exchange::write_rendition(source, &csv)?.map(|()| csv);
        self.renditions.insert(source.to_path_buf(), made.clone());
        Ok(made)
    }
}

/// Workers without Arrow return CSV: converted to `verify_out` here (a table that cannot be
/// converted fails the job, with the reason).
pub(super) fn collect_returned(outcome: &mut SampleOutcome, returned: &Path, verify_out: &Path) {
    if returned == verify_out {
        return;
    }
    if matches!(&outcome.answer, Ok(a) if a.status == AnswerStatus::Ok) {
        if let Err(reason) = exchange::returned_to_ipc(returned, verify_out) {
            outcome.answer = Err(format!("the worker's returned table: {reason}"));
        }
    }
    let _ = std::fs::remove_file(exchange::schema_path(returned));
    let _ = std::fs::remove_file(returned);
}
