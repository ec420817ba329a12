//! The run: materialise datasets, prepare each backend's artifact, verify every cell once, then
//! take the measured samples in a balanced order, appending each to results.jsonl as it lands.

mod cell;
mod cells;
mod engine_digest;
mod forecast;
mod given;
mod identity;
mod independent;
mod kept;
mod measure;
mod resume;
mod sample;
mod state;
mod stopping;
mod verification;

use super::lock::{Activity, RunLock};
use crate::datasets::Source;
use crate::environment::{environment, new_run_id};
use crate::plan::CacheState;
use crate::plan::{OpInputs, Plan};
use crate::results::{
    DatasetRecord, Record, ResultsWriter, SampleRecord, SampleStatus, RESULTS_FILE,
};
use crate::Error;
use cell::Cell;
use formatbench_protocol::{Op, AS_GIVEN};
use identity::{clock_resolution, worker_build};
use resume::{read_resumed, reusable_samples};
use state::Runner;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Instant;

pub struct RunOptions {
    /// Where run directories go (`formatbench-results` by default).
    pub out_dir: PathBuf,
    /// Finish this interrupted run instead of starting a new one.
    pub resume: Option<PathBuf>,
    /// Take samples with identical keys from earlier runs under `out_dir`.
    pub reuse: bool,
    /// With `resume`: take every failed sample again, not only those the store failed.
    pub retry_failed: bool,
    pub keep_artifacts: bool,
    /// Settings recorded in the environment block.
    pub settings: crate::results::RunSettings,
    /// The address the S3 server listens on (`--s3-listen`); a free loopback port otherwise.
    pub s3_listen: Option<String>,
}

pub struct RunOutcome {
    pub run_dir: PathBuf,
    /// The run folder's lock, held until dropped: the reports are written under it.
    pub lock: super::lock::RunLock,
    /// The run's results file: everything it measured, for the reports to be written from.
    pub results: PathBuf,
    pub interrupted: bool,
    pub wall_s: f64,
}

use crate::progress::{say, Progress};

pub const PLAN_FILE: &str = "plan.json";

pub fn execute_plan(plan: &Plan, options: &RunOptions) -> Result<RunOutcome, Error> {
    let started = Instant::now();
    // One writer per run folder: taken before anything in it is read or removed.
    let resumed_lock = match &options.resume {
        Some(dir) => Some(RunLock::exclusive(dir, Activity::Measuring)?),
        None => None,
    };
    let worker_build = worker_build()?;
    let call = options.settings.call;
    let resumed = match &options.resume {
        Some(dir) => Some(read_resumed(
            dir,
            &worker_build,
            call,
            options.retry_failed,
        )?),
        None => None,
    };
    let run_id = resumed
        .as_ref()
        .map_or_else(new_run_id, |r| r.run_id.clone());
    let run_dir = options
        .resume
        .clone()
        .unwrap_or_else(|| options.out_dir.join(&run_id));
    let lock = match resumed_lock {
        Some(lock) => lock,
        None => {
            std::fs::create_dir_all(&run_dir).map_err(Error::at("create", &run_dir))?;
            RunLock::exclusive(&run_dir, Activity::Measuring)?
        }
    };
    let scratch = run_dir.join("scratch");
    // A crashed run may have left its scratch behind; a resumed run rebuilds it.
    let _ = std::fs::remove_dir_all(&scratch);
    for dir in ["sources", "artifacts", "writes", "jobs", "verify"] {
        std::fs::create_dir_all(scratch.join(dir))
            .map_err(|e| Error::at("create", &scratch.join(dir))(e))?;
    }
    if plan.caches.contains(&CacheState::Cold) {
        crate::plan::check_cold_possible(&scratch)?;
    }
    let storage = match super::storage::ObjectStorage::start_for_run(
        &plan.storage,
        &scratch,
        &run_id,
        options.s3_listen.clone(),
    ) {
        Ok(storage) => storage,
        Err(e) => {
            // Nothing was measured: a new run leaves no folder behind.
            if options.resume.is_none() {
                let _ = std::fs::remove_dir_all(&run_dir);
            } else {
                let _ = std::fs::remove_dir_all(&scratch);
            }
            return Err(e);
        }
    };
    let results_path = run_dir.join(RESULTS_FILE);
    let reusable = if options.reuse {
        reusable_samples(&options.out_dir, &run_dir, &worker_build, &options.settings)
    } else {
        HashMap::new()
    };
    let mut runner = Runner {
        plan,
        run_id: run_id.clone(),
        scratch: scratch.clone(),
        results: ResultsWriter::open(&results_path)?,
        jobs_started: 0,
        worker_build: worker_build.clone(),
        done: HashSet::new(),
        resumed_schedule: None,
        resumed_stops: Vec::new(),
        resumed_walls: Vec::new(),
        reusable,
        reused: 0,
        call,
        renditions: HashMap::new(),
        readers: HashMap::new(),
        prepared: HashMap::new(),
        given_objects: HashMap::new(),
        storage,
        neighbours: super::beside::Neighbours::enter(&run_dir),
    };
    match resumed {
        Some(resumed) => {
            say(&format!(
                "resuming run {run_id}: {} samples already recorded{}",
                resumed.done.len(),
                resume::retaking(&resumed)
            ));
            runner.done = resumed.done;
            runner.resumed_schedule = resumed.schedule;
            runner.resumed_stops = resumed.stops;
            runner.resumed_walls = resumed.walls;
        }
        None => {
            let text = serde_json::to_vec_pretty(plan).map_err(Error::encode("the plan"))?;
            std::fs::write(run_dir.join(PLAN_FILE), text)?;
            let mut env = environment(&run_id, options.settings.clone());
            env.clock_resolution_s = Some(clock_resolution());
            env.worker_build = Some(worker_build);
            env.versions.extend(backend_versions(plan));
            env.formats = backend_formats(plan);
            runner.results.append(&Record::Environment(env))?;
            say(&format!("run {run_id} → {}", run_dir.display()));
        }
    }
    let outcome = runner.run_all();
    if let Some(note) = runner.neighbours.note() {
        say(&note);
    }
    // The server stops (and its namespace goes) before its files are removed; a store of the
    // user's own is emptied of what the run wrote.
    if let Some(storage) = runner.storage.take() {
        storage.finish(options.keep_artifacts);
    }
    if !options.keep_artifacts {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    let interrupted = match outcome {
        Ok(()) => false,
        Err(Error::Interrupted) => {
            say("interrupted: the samples already written stay valid; finish with --resume");
            true
        }
        Err(e) => {
            // A run that stopped on bad input before measuring anything leaves no folder: there
            // is nothing in it to resume or report.
            if options.resume.is_none() && !holds_samples(&results_path) {
                let _ = std::fs::remove_dir_all(&run_dir);
            } else {
                say(&format!(
                    "stopped: every complete sample in {} is kept; once the cause below is \
                     fixed, finish with `formatbench run --resume {}`",
                    results_path.display(),
                    run_dir.display()
                ));
            }
            return Err(e);
        }
    };
    Ok(RunOutcome {
        run_dir,
        lock,
        results: results_path,
        interrupted,
        wall_s: started.elapsed().as_secs_f64(),
    })
}

/// The library version of each backend the plan runs that reports one (the peers: pyarrow,
/// Polars, DuckDB, …), as `backend NAME`: a change of version is the usual cause of a change
/// of time, and `compare` lists it first.
fn backend_versions(plan: &Plan) -> Vec<(String, String)> {
    backend_names(plan)
        .into_iter()
        .filter_map(|name| {
            let version = super::catalog::find(name)?.version?;
            Some((format!("backend {name}"), version))
        })
        .collect()
}

/// Each backend of the plan, once.
fn backend_names(plan: &Plan) -> Vec<&str> {
    let mut names: Vec<&str> = plan
        .competitors
        .iter()
        .map(|c| c.backend.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The format each backend of the plan declares (those that declare one).
fn backend_formats(plan: &Plan) -> std::collections::BTreeMap<String, String> {
    backend_names(plan)
        .into_iter()
        .filter_map(|name| Some((name.to_string(), super::catalog::find(name)?.format?)))
        .collect()
}

/// Whether the results file holds any sample record (measured or not run).
fn holds_samples(path: &std::path::Path) -> bool {
    crate::results::read_records(path)
        .map(|records| records.iter().any(|r| matches!(r, Record::Sample(_))))
        .unwrap_or(true)
}

impl Runner<'_> {
    fn run_all(&mut self) -> Result<(), Error> {
        let mut cells = Vec::new();
        for (index, spec) in self.plan.datasets.iter().enumerate() {
            say(&format!(
                "dataset {}: {}",
                spec.name(),
                spec.materializing()
            ));
            let source = spec.materialize(&self.scratch.join("sources"))?;
            if let Some(cast) = source.parameters.get("feature_type") {
                say(&format!("dataset {}: --feature-type {cast}", source.name));
            }
            self.results.append(&Record::Dataset(DatasetRecord {
                run_id: self.run_id.clone(),
                dataset: source.name.clone(),
                dataset_fingerprint: source.fingerprint.clone(),
                rows: source.rows,
                columns: source.schema.fields().len() as u64,
                source_bytes: source.bytes,
                parameters: source.parameters.clone(),
                schema: source
                    .schema
                    .fields()
                    .iter()
                    .map(|f| format!("{}: {}", f.name(), f.data_type()))
                    .collect(),
            }))?;
            let inputs = OpInputs::for_source(&source, self.plan.seed)?
                .with_files(self.plan.files)
                .with_session_queries(self.plan.session_queries);
            inputs.check_selections(&source.name, &self.plan.ops)?;
            if self.plan.ops.contains(&formatbench_protocol::Op::Range) {
                say(&format!(
                    "dataset {}: 'range' selects {} of {} rows ({})",
                    source.name, inputs.range_rows, source.rows, inputs.range
                ));
            }
            cells.extend(self.prepare_dataset(index, &source, &inputs)?);
        }
        say(&format!(
            "verifying {} cells against their sources",
            cells.len()
        ));
        let mut verified = Vec::new();
        let mut progress = Progress::new("verify", cells.len());
        let total = cells.len();
        for (i, mut cell) in cells.into_iter().enumerate() {
            // Set-up stops on Ctrl-C or SIGTERM as measuring does (an oracle's pass over a
            // large source launches no worker that would notice).
            if crate::interrupt::interrupted() {
                return Err(Error::Interrupted);
            }
            progress.begin(&cell.label(), total - i, None);
            if self.verify(&mut cell)? {
                verified.push(cell);
            }
            progress.end_item();
        }
        progress.finish();
        if self.plan.verify_only {
            return Ok(());
        }
        self.measure(&verified)
    }

    /// Writes each competitor's artifact (untimed) and lists the cells to measure; cells that
    /// cannot run are recorded now, with their reason.
    fn prepare_dataset(
        &mut self,
        dataset: usize,
        source: &Source,
        inputs: &OpInputs,
    ) -> Result<Vec<Cell>, Error> {
        // The sweep's sort column, checked before any file is written for this dataset.
        let sorts = self
            .plan
            .competitors
            .iter()
            .filter_map(|c| c.sort_by.as_ref());
        if let Some(column) = sorts
            .into_iter()
            .find(|column| source.schema.index_of(column).is_err())
        {
            return Err(Error::Input(format!(
                "--sort-by {column}: dataset {} has no such column",
                source.name
            )));
        }
        let mut out = Vec::new();
        let mut resolved_points: Vec<crate::plan::Competitor> = Vec::new();
        for competitor in &self.plan.competitors {
            // A sweep point sized in bytes gets its rows per group from this dataset; two sizes
            // that come to the same rows here (both past the table's rows, or a size in rows
            // beside it) are one competitor, measured once.
            let competitor = &crate::plan::sweep::resolved(competitor, source.rows, source.bytes);
            if competitor.row_group_bytes.is_some() || competitor.row_group_rows.is_some() {
                let identity = crate::plan::Competitor {
                    row_group_bytes: None,
                    ..competitor.clone()
                };
                if resolved_points.contains(&identity) {
                    continue;
                }
                resolved_points.push(identity);
            }
            let info = super::find(&competitor.backend)
                .ok_or_else(|| Error::Input(format!("unknown backend '{}'", competitor.backend)))?;
            let as_given = competitor.profile == AS_GIVEN;
            let point = crate::plan::sweep::is_point(competitor);
            let (artifact_dir, artifact) = match given::given_input(&info, source) {
                Some(input) if as_given => {
                    let object = match self.plan.datasets.get(dataset) {
                        Some(crate::datasets::DatasetSpec::Input { object, .. }) => object.clone(),
                        _ => None,
                    };
                    given::given_artifact(self, &info, competitor, source, input, object)?
                }
                // The user's file of another format, or a generated dataset: nothing given.
                None if as_given => continue,
                _ => cells::artifact_of(self, &info, competitor, source, inputs)?,
            };
            for (op, cache) in self.cache_states() {
                if (as_given || point) && op == Op::Write {
                    // Writing is re-encoding: the re-encodings are the other profiles. A sweep
                    // point's file is written once, untimed; its writer's time is the default's.
                    continue;
                }
                let mut cell = Cell::new(
                    dataset,
                    source,
                    competitor,
                    op,
                    cache,
                    &info,
                    &artifact_dir,
                    inputs,
                    self.plan.threads,
                );
                cell.key.storage = self.plan.storage.key().into();
                cell.key.network = self.plan.storage.network_key().into();
                if self.given_objects.contains_key(&artifact_dir) {
                    // The user's object, read where it lies, across whatever is between.
                    cell.key.storage = "s3".into();
                    cell.key.network = "endpoint".into();
                }
                let matrix_refusal = op
                    .is_matrix()
                    .then(|| inputs.matrix_refusal())
                    .flatten()
                    .or_else(|| inputs.store_refusal(op))
                    .or_else(|| crate::plan::sweep::refusal(competitor, op, &cell.params));
                let refusal = match &artifact.status {
                    SampleStatus::Ok if matrix_refusal.is_some() => Some((
                        SampleStatus::Unsupported,
                        matrix_refusal.unwrap_or_default(),
                    )),
                    SampleStatus::Ok if !info.ops_on(&competitor.layout).contains(&op) => Some((
                        SampleStatus::Unsupported,
                        match (&info.table.artifact_from, op) {
                            (Some(writer), Op::Write) => format!(
                                "{} writes no tables: it reads the ones {writer} writes",
                                info.name
                            ),
                            _ => format!(
                                "{} does not do '{op}' natively on the {} layout",
                                info.name, competitor.layout
                            ),
                        },
                    )),
                    SampleStatus::Ok => None,
                    status => Some((*status, artifact.reason.clone().unwrap_or_default())),
                };
                match refusal {
                    Some((status, reason)) => {
                        let mut record = SampleRecord::bare(
                            &self.run_id,
                            cell.key.clone(),
                            None,
                            status,
                            Some(reason),
                        );
                        record.size_bytes = artifact.size_bytes;
                        self.results.append(&Record::Sample(Box::new(record)))?;
                    }
                    None => {
                        // The yardstick of reads from object storage, from the local copy
                        // (a user's object read where it lies has none).
                        if cell.key.storage == "s3"
                            && !self.given_objects.contains_key(&artifact_dir)
                        {
                            let format = cells::writer_of(&info, competitor);
                            cell.needed = super::needed::for_cell(
                                &artifact_dir,
                                format.unwrap_or(&competitor.backend),
                                &competitor.layout,
                                op,
                                &cell.params,
                                &source.schema,
                            );
                        }
                        out.push(cell.with_size(artifact.size_bytes));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Every (operation, cache state) to measure: reads under each state, writes once.
    fn cache_states(&self) -> Vec<(Op, Option<CacheState>)> {
        let mut out = Vec::new();
        for &op in &self.plan.ops {
            if op == Op::Write {
                out.push((op, None));
            } else {
                out.extend(self.plan.caches.iter().map(|&c| (op, Some(c))));
            }
        }
        out
    }
}
