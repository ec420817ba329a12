//! The records made from cells' outcomes: artifacts, verifications and samples.

use super::cell::Cell;
use super::state::{Runner, LOSSY_FLOAT_TOLERANCE, NORM_TOLERANCE};
use crate::catalog::BackendInfo;
use crate::datasets::Source;
use crate::plan::{Competitor, OpInputs};
use crate::results::{ArtifactRecord, Record, SampleRecord, SampleStatus, VerificationRecord};
use crate::run::storage::SampleTraffic;
use crate::run::SampleOutcome;
use crate::verify::digest::{file_digest, Rows};
use crate::verify::{verify_output, Leeway, RowOrder};
use crate::Error;
use formatbench_protocol::{Answer, AnswerStatus, Job, Op};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The backend whose artifact `competitor` reads when it is not its own: the native Parquet
/// writer's for a reader of the sweep's shared files, else the one its backend reads from.
pub fn writer_of<'a>(info: &'a BackendInfo, competitor: &Competitor) -> Option<&'a str> {
    match crate::plan::sweep::reads_shared_files(competitor) {
        true => Some(crate::plan::sweep::SWEEP_BACKEND),
        false => info.table.artifact_from.as_deref(),
    }
}

/// The artifact every read of this competitor uses, prepared once per run: its own, or, for a
/// reader of another backend's artifact, the one that backend writes (shared by every reader).
/// Records the artifact for this competitor either way.
pub fn artifact_of(
    runner: &mut Runner,
    info: &BackendInfo,
    competitor: &Competitor,
    source: &Source,
    inputs: &OpInputs,
) -> Result<(PathBuf, ArtifactRecord), Error> {
    let shared = crate::plan::sweep::reads_shared_files(competitor);
    let writer = match writer_of(info, competitor) {
        Some(name) => Some(crate::run::find(name).ok_or_else(|| {
            Error::Input(format!(
                "backend '{}' reads the artifacts of '{name}', which is not a backend",
                info.name
            ))
        })?),
        None => None,
    };
    let (writer_info, writer_competitor) = match &writer {
        Some(w) => (
            w,
            Competitor {
                backend: w.name.clone(),
                target: "arrow".into(),
                // The shared files are the native writer's default ones, whoever reads them.
                profile: match shared {
                    true => "default".into(),
                    false => competitor.profile.clone(),
                },
                executors: None,
                ..competitor.clone()
            },
        ),
        None => (info, competitor.clone()),
    };
    let dir = runner
        .scratch
        .join("artifacts")
        .join(&source.name)
        .join(format!(
            "{}-{}-{}{}",
            writer_competitor.backend,
            writer_competitor.profile,
            competitor.layout,
            crate::plan::sweep::slug(competitor)
        ));
    if let (Some(_), Ok(()), Err(reason)) = (&runner.storage, &info.available, &info.object_storage)
    {
        // It would never read the artifact from the bucket: none is written or uploaded for
        // it (py-duckdb-parquet's was 250–330 MB at the egress suite's size).
        let record = ArtifactRecord {
            status: SampleStatus::Unsupported,
            reason: Some(reason.clone()),
            ..empty_artifact(&runner.run_id, source, competitor)
        };
        runner.results.append(&Record::Artifact(record.clone()))?;
        return Ok((dir, record));
    }
    if let (Some(_), Err(reason)) = (&writer, &info.available) {
        // A reader that cannot run here needs no table written for it.
        let record = ArtifactRecord {
            status: SampleStatus::Unavailable,
            reason: Some(reason.clone()),
            ..empty_artifact(&runner.run_id, source, competitor)
        };
        runner.results.append(&Record::Artifact(record.clone()))?;
        return Ok((dir, record));
    }
    let mut record = match runner.prepared.get(&dir) {
        Some(record) => record.clone(),
        None => {
            let record = prepare_artifact(
                runner,
                writer_info,
                &writer_competitor,
                source,
                inputs,
                &dir,
            )?;
            runner.prepared.insert(dir.clone(), record.clone());
            record
        }
    };
    if record.backend != competitor.backend {
        if let Some(reason) = &record.reason {
            record.reason = Some(format!(
                "it reads the tables {} writes, and {}: {reason}",
                record.backend,
                match record.status {
                    SampleStatus::Unavailable => "that backend is unavailable",
                    _ => "writing one did not succeed",
                }
            ));
        }
        record.backend = competitor.backend.clone();
        record.profile = competitor.profile.clone();
        if shared {
            record.settings.insert(
                "written_by".into(),
                format!(
                    "{} (default profile): the sweep's shared files, read by every reader of them",
                    writer_competitor.backend
                ),
            );
        }
        runner.results.append(&Record::Artifact(record.clone()))?;
    }
    Ok((dir, record))
}

/// An artifact record with nothing known yet but whose it is.
pub(super) fn empty_artifact(
    run_id: &str,
    source: &Source,
    competitor: &Competitor,
) -> ArtifactRecord {
    ArtifactRecord {
        run_id: run_id.to_string(),
        dataset: source.name.clone(),
        dataset_fingerprint: source.fingerprint.clone(),
        backend: competitor.backend.clone(),
        profile: competitor.profile.clone(),
        layout: competitor.layout.clone(),
        row_group_rows: competitor.row_group_rows,
        parquet_files: competitor.parquet_files,
        sort_by: competitor.sort_by.clone(),
        status: SampleStatus::Ok,
        reason: None,
        size_bytes: None,
        bytes_per_value: None,
        settings: Default::default(),
    }
}

/// Writes the artifact every read of this competitor uses, and records its size and settings.
fn prepare_artifact(
    runner: &mut Runner,
    info: &BackendInfo,
    competitor: &Competitor,
    source: &Source,
    inputs: &OpInputs,
    dir: &Path,
) -> Result<ArtifactRecord, Error> {
    let mut record = empty_artifact(&runner.run_id, source, competitor);
    if let Err(reason) = &info.available {
        record.status = SampleStatus::Unavailable;
        record.reason = Some(reason.clone());
    } else {
        let mut cell = Cell::new(
            0,
            source,
            competitor,
            Op::Write,
            None,
            info,
            dir,
            inputs,
            runner.plan.threads,
        );
        // A point of the row-group sweep: its row-group size and order, for the writer.
        crate::plan::sweep::write_options(competitor, &mut cell.params);
        // The writer writes local files; the runner uploads them (below), so that every
        // artifact reaches the bucket the same way, whoever wrote it.
        let job = Job {
            storage: None,
            ..runner.job(&cell, dir, None, true, Op::Write)
        };
        let outcome = runner.spawn(info.worker, job)?;
        let uploaded = match (&outcome.answer, runner.object_target(dir)) {
            (Ok(answer), Some(target)) if answer.status == AnswerStatus::Ok => {
                formatbench_s3_client::upload_artifact(dir, &target).map(|_| Some(target))
            }
            _ => Ok(None),
        };
        match (outcome.answer, uploaded) {
            (_, Err(reason)) => {
                record.status = SampleStatus::Failed;
                record.reason = Some(format!("preparing the artifact failed: {reason}"));
            }
            (Ok(answer), Ok(uploaded)) if answer.status == AnswerStatus::Ok => {
                // A local artifact enters the page cache as if read from storage, whoever
                // wrote it and in whatever write calls.
                if uploaded.is_none() {
                    crate::run::cache::settle(&formatbench_protocol::files_under(dir))?;
                }
                record.size_bytes = answer.size_bytes;
                let values = source.rows * source.schema.fields().len() as u64;
                record.bytes_per_value = answer
                    .size_bytes
                    .filter(|_| values > 0)
                    .map(|s| s as f64 / values as f64);
                record.settings = answer.settings;
                // A manifest's profile settings, unless the worker described its own.
                let declared = crate::catalog::external::profile_settings(
                    &competitor.backend,
                    &competitor.profile,
                );
                if !declared.is_empty() {
                    record
                        .settings
                        .entry("profile_settings".into())
                        .or_insert_with(|| crate::catalog::external::settings_text(&declared));
                }
                if let Some(bytes) = competitor.row_group_bytes {
                    // The sweep's size as asked for; `row_group_rows` is what it became.
                    record
                        .settings
                        .insert("row_group_bytes".into(), bytes.to_string());
                }
                // Where it lies in the bucket (keys are short names of the paths).
                if let Some(target) = uploaded {
                    record.settings.insert("object_url".into(), target.url());
                }
            }
            (Ok(answer), Ok(_)) => {
                record.status = match answer.status {
                    AnswerStatus::Unsupported => SampleStatus::Unsupported,
                    _ => SampleStatus::Failed,
                };
                record.reason = answer.reason;
            }
            (Err(reason), Ok(_)) => {
                record.status = SampleStatus::Failed;
                record.reason = Some(format!("preparing the artifact failed: {reason}"));
            }
        }
    }
    if record.status == SampleStatus::Failed {
        // A store gone stops the run here, recording nothing a resume would not redo.
        runner.store_gone()?;
    }
    runner.results.append(&Record::Artifact(record.clone()))?;
    Ok(record)
}

/// The parts timed inside the operation (not `op` itself, nor the untimed `load` and
/// `commit`), per call as `warm_call_s` is: the mean of the calls after the first when there
/// were several, else the one call; and the first call's alone when there were several.
fn inner_phases(answer: &Answer) -> (BTreeMap<String, f64>, BTreeMap<String, f64>) {
    let inner = |phases: &[formatbench_protocol::Phase]| -> BTreeMap<String, f64> {
        phases
            .iter()
            .filter(|p| !matches!(p.name.as_str(), "op" | "load" | "commit" | "cluster_start"))
            .map(|p| (p.name.clone(), p.seconds))
            .collect()
    };
    let (totals, first) = (inner(&answer.phases), inner(&answer.first_call_phases));
    if answer.calls <= 1 {
        return (totals, BTreeMap::new());
    }
    let later = (answer.calls - 1) as f64;
    let warm = totals
        .iter()
        .map(|(name, total)| {
            let first = first.get(name).copied().unwrap_or(0.0);
            (name.clone(), ((total - first) / later).max(0.0))
        })
        .collect();
    (warm, first)
}

fn answer_status(answer: &Answer) -> SampleStatus {
    match answer.status {
        AnswerStatus::Ok => SampleStatus::Ok,
        AnswerStatus::Unsupported => SampleStatus::Unsupported,
        AnswerStatus::Failed => SampleStatus::Failed,
    }
}

/// What a cell's backend declares its format allows beyond the representation table.
pub fn leeway(cell: &Cell) -> Leeway {
    // A norm's float32 sum depends on its order, so every backend gets the study's 1e-5.
    let float_tolerance = if cell.op == Op::VectorNorm {
        Some(NORM_TOLERANCE)
    } else {
        cell.info.lossy.then_some(LOSSY_FLOAT_TOLERANCE)
    };
    Leeway {
        float_tolerance,
        other_widths: cell.info.other_widths,
    }
}

/// A verification record of `cell` that says nothing yet but that it failed.
pub fn failed_verification(runner: &Runner, cell: &Cell, leeway: Leeway) -> VerificationRecord {
    VerificationRecord {
        run_id: runner.run_id.clone(),
        cell: cell.key.clone(),
        status: SampleStatus::Failed,
        reason: None,
        digest: None,
        rows: None,
        representation: Vec::new(),
        float_tolerance: leeway.float_tolerance,
        other_widths: leeway.other_widths,
        independent_check: None,
        engine_digest: None,
    }
}

/// Whether the worker answered ok; if not, `record` says what it answered instead.
pub fn answered_ok(outcome: &SampleOutcome, record: &mut VerificationRecord) -> bool {
    match &outcome.answer {
        Err(reason) => record.reason = Some(reason.clone()),
        Ok(answer) if answer.status != AnswerStatus::Ok => {
            record.status = answer_status(answer);
            record.reason = answer.reason.clone();
        }
        Ok(_) => return true,
    }
    false
}

/// Checks a verification run's output against the source.
pub fn verification_record(
    runner: &Runner,
    cell: &Cell,
    outcome: &SampleOutcome,
    verify_out: &Path,
    leeway: Leeway,
) -> Result<VerificationRecord, Error> {
    let mut record = failed_verification(runner, cell, leeway);
    if !answered_ok(outcome, &mut record) {
        return Ok(record);
    }
    // A layout that keeps only the matrix (the .npy floor) cannot give the table back:
    // its write is checked on the matrix it holds.
    let holds_only_matrix = cell.op == Op::Write
        && !cell
            .info
            .ops_on(&cell.competitor.layout)
            .contains(&Op::Read);
    let verdict = verify_output(
        &cell.source_path,
        if holds_only_matrix {
            Op::Matrix
        } else {
            cell.op
        },
        &cell.params,
        verify_out,
        leeway,
        row_order(cell),
    )
    .or_else(unreadable_fails)?;
    record.rows = Some(verdict.rows);
    record.representation = verdict.representation;
    if verdict.ok {
        // The runner's own digest of what was verified: every later sample's result
        // must digest alike.
        match file_digest(verify_out, digest_rows(cell)) {
            Ok(digest) => {
                record.status = SampleStatus::Ok;
                record.digest = Some(digest);
            }
            Err(e) => record.reason = Some(format!("verification failed: {e}")),
        }
    } else {
        record.reason = verdict.reason.map(|r| format!("verification failed: {r}"));
    }
    Ok(record)
}

/// Whether row order is part of a cell's digest: not for a backend that keeps no row order,
/// nor for a file sorted by another column (the row-group sweep's).
fn digest_rows(cell: &Cell) -> Rows {
    match row_order(cell) {
        RowOrder::Defined => Rows::Ordered,
        RowOrder::Any => Rows::AnyOrder,
    }
}

/// Checks a measured sample's result (the file it wrote after its timer) by the runner's
/// digest against the verified one; `Ok(None)` when the worker did not answer ok (its record
/// says why). The file is removed.
pub fn check_digest(
    cell: &Cell,
    outcome: &SampleOutcome,
    returned: &Path,
) -> Result<Option<String>, String> {
    if !matches!(&outcome.answer, Ok(a) if a.status == AnswerStatus::Ok) {
        let _ = std::fs::remove_file(returned);
        return Ok(None);
    }
    let checked = digest_check(cell.digest.as_deref(), digest_rows(cell), returned);
    let _ = std::fs::remove_file(returned);
    checked.map(Some)
}

/// The runner's digest of the result file at `returned` when it equals `verified`, else why
/// not: a missing or unreadable file, another digest, or no verified one to compare with.
fn digest_check(verified: Option<&str>, rows: Rows, returned: &Path) -> Result<String, String> {
    // A corrupt file must fail the sample with a line, not panic the runner in arrow's reader.
    let what = format!("result file {}", returned.display());
    let digest =
        crate::error::reading(&what, || file_digest(returned, rows)).map_err(|e| e.to_string())?;
    match verified {
        Some(verified) if verified == digest => Ok(digest),
        Some(verified) => Err(format!(
            "its result digest {digest} differs from the verified {verified}"
        )),
        None => Err("the cell has no verified digest to check it against".into()),
    }
}

/// How a cell's results are compared with the source: as sets of rows when its backend keeps
/// no row order, or its file holds the rows sorted by a column (plan/sweep.rs).
fn row_order(cell: &Cell) -> RowOrder {
    if cell.info.table.unordered || cell.competitor.sort_by.is_some() {
        RowOrder::Any
    } else {
        RowOrder::Defined
    }
}

/// Verifies what one measured sample returned (written to `returned` after its timer); `Ok`
/// when the worker did not answer ok (its record says why).
pub fn check_returned(
    cell: &Cell,
    outcome: &SampleOutcome,
    returned: &Path,
) -> Result<Result<Option<String>, String>, Error> {
    if !matches!(&outcome.answer, Ok(a) if a.status == AnswerStatus::Ok) {
        let _ = std::fs::remove_file(returned);
        return Ok(Ok(None));
    }
    let verdict = verify_output(
        &cell.source_path,
        cell.op,
        &cell.params,
        returned,
        leeway(cell),
        row_order(cell),
    )
    .or_else(unreadable_fails)?;
    let _ = std::fs::remove_file(returned);
    Ok(if verdict.ok {
        Ok(None)
    } else {
        Err(verdict.reason.unwrap_or_default())
    })
}

/// The S3 server's count of a sample's traffic, per call: the first call's and the warm
/// calls' apart where the worker said when its first call ended, and the mean over every call.
/// A server that died during the sample fails it (the worker may have been told nothing
/// clearer), and so does an ok answer for which the server served nothing: the worker read or
/// wrote local files instead (an out-of-tree worker that ignores the job's `storage`), and its
/// time is not an object store's.
pub fn add_traffic(
    record: &mut SampleRecord,
    traffic: Option<Result<Option<SampleTraffic>, String>>,
) {
    match traffic {
        Some(Ok(Some(traffic))) if record.status == SampleStatus::Ok => {
            let all = match &traffic {
                SampleTraffic::Whole(all) => all,
                SampleTraffic::Split(split) => &split.all,
            };
            if all.bytes_sent == 0 && all.bytes_received == 0 {
                record.status = SampleStatus::Failed;
                record.wall_s = None;
                record.reason = Some(format!(
                    "{} answered ok, but the S3 server served it nothing during the sample: it \
                     did not use object storage (a worker must read the job's `storage` or \
                     answer unsupported)",
                    record.cell.backend
                ));
                return;
            }
            let calls = record.calls.unwrap_or(1).max(1);
            record.object_traffic = Some(all.per_call(calls));
            match traffic {
                SampleTraffic::Split(split) if calls > 1 => {
                    let split = *split;
                    record.first_call_object_traffic = Some(split.first_call);
                    record.warm_call_object_traffic = Some(split.later_calls.per_call(calls - 1));
                }
                // One call: it is the first.
                SampleTraffic::Whole(all) if calls == 1 => {
                    record.first_call_object_traffic = Some(all);
                }
                _ => {}
            }
        }
        None | Some(Ok(_)) => {}
        Some(Err(reason)) => {
            let said = record.reason.take();
            record.status = SampleStatus::Failed;
            record.wall_s = None;
            record.reason = Some(match said {
                Some(said) => format!("{reason}: {said}"),
                None => reason,
            });
        }
    }
}

/// A measured sample: ok only when the worker answered ok and what it returned was `checked`:
/// its digest equals the verified one, or, where each sample's result is verified against
/// the source instead, that check passed.
pub fn sample_record(
    run_id: &str,
    cell: &Cell,
    round: u32,
    outcome: &SampleOutcome,
    checked: Result<Option<String>, String>,
) -> SampleRecord {
    let mut record = SampleRecord::bare(
        run_id,
        cell.key.clone(),
        Some(round),
        SampleStatus::Failed,
        None,
    );
    record.size_bytes = cell.size_bytes;
    record.needed_bytes = cell.needed.map(|n| n.bytes);
    record.needed_ranges = cell.needed.map(|n| n.ranges);
    if let Some(p) = &outcome.process {
        record.process_wall_s = Some(p.wall_s);
        record.process_cpu_user_s = Some(p.cpu_user_s);
        record.process_cpu_sys_s = Some(p.cpu_sys_s);
        record.process_unwaited_cpu_s = Some(p.unwaited_cpu_s).filter(|s| *s > 0.0);
        record.process_maxrss_bytes = Some(p.maxrss_bytes);
        record.process_minflt = Some(p.minflt);
        record.process_majflt = Some(p.majflt);
        record.process_nvcsw = Some(p.nvcsw);
        record.process_nivcsw = Some(p.nivcsw);
    }
    let answer = match &outcome.answer {
        Ok(answer) => answer,
        Err(reason) => {
            record.reason = Some(reason.clone());
            return record;
        }
    };
    record.status = answer_status(answer);
    record.reason = answer.reason.clone();
    if answer.status != AnswerStatus::Ok {
        return record;
    }
    record.wall_s = Some(answer.op_s);
    // Per call, like `wall_s`: the counters cover every call of a repeated sample.
    let calls = answer.calls.max(1) as f64;
    record.cpu_user_s = Some(answer.counters.cpu_user_s / calls);
    record.cpu_sys_s = Some(answer.counters.cpu_sys_s / calls);
    record.minflt = Some(answer.counters.minflt);
    record.majflt = Some(answer.counters.majflt);
    record.nvcsw = Some(answer.counters.nvcsw);
    record.nivcsw = Some(answer.counters.nivcsw);
    record.peak_rss_bytes = answer.peak_rss_bytes;
    record.rss_before_bytes = answer.rss_before_bytes;
    record.rss_anon_bytes = answer.rss_anon_bytes;
    record.rss_file_bytes = answer.rss_file_bytes;
    record.calls = Some(answer.calls);
    record.rows_returned = answer.rows;
    record.columns_returned = answer.columns;
    record.method = answer.settings.get("method").cloned();
    record.first_call_s = answer.first_call_s;
    record.warm_call_s = answer.warm_call_s;
    record.first_call_cpu_s = answer.first_call_cpu_s;
    record.warm_call_cpu_s = answer.warm_call_cpu_s;
    record.commit_s = answer
        .phases
        .iter()
        .find(|p| p.name == "commit")
        .map(|p| p.seconds / answer.calls.max(1) as f64);
    (record.phases, record.first_call_phases) = inner_phases(answer);
    record.accounted_processes = answer.accounted_processes;
    record.cluster_start_s = answer
        .phases
        .iter()
        .find(|p| p.name == "cluster_start")
        .map(|p| p.seconds);
    record.session_queries =
        (cell.op == Op::Session).then(|| formatbench_protocol::session_queries(&cell.params));
    record.result_bytes = answer.result_bytes;
    record.read_bytes = Some(answer.counters.read_bytes);
    record.write_bytes = Some(answer.counters.write_bytes);
    record.requested_bytes = Some(answer.counters.rchar);
    let cpu = answer.counters.cpu_user_s + answer.counters.cpu_sys_s;
    let wall = answer.op_s * answer.calls as f64;
    record.parallelism = (wall > 0.0).then(|| cpu / wall);
    // A cluster's cap is per executor, and its driver and scheduler run beside them.
    if let (Some(p), 1, None) = (record.parallelism, cell.key.threads, cell.key.executors) {
        if p > crate::results::PARALLELISM_LIMIT {
            record
                .flags
                .push(format!("parallelism {p:.2} under a thread cap of 1"));
        }
    }
    record.resident_fraction = answer.resident_fraction;
    if let (Some(state), Some(fraction)) = (cell.cache, answer.resident_fraction) {
        if state.missed(fraction) {
            record.flags.push(format!(
                "cache state missed: {:.0} % resident for a {} read",
                fraction * 100.0,
                state.name()
            ));
        }
    }
    if cell.op == Op::Write {
        record.size_bytes = answer.size_bytes.or(cell.size_bytes);
    }
    match checked {
        Ok(digest) => record.digest = digest,
        Err(reason) => {
            record.status = SampleStatus::Failed;
            record.reason = Some(format!(
                "this sample's result failed verification: {reason}"
            ));
        }
    }
    record
}

/// What a worker wrote for verification cannot be read (garbage, cut off): the cell fails with
/// the reason and the run goes on; only an interrupt stops it.
fn unreadable_fails(e: Error) -> Result<crate::verify::Verification, Error> {
    match e {
        Error::Interrupted => Err(e),
        e => Ok(crate::verify::Verification::failed(
            e.to_string(),
            Vec::new(),
            0,
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
