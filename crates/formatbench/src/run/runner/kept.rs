//! The cluster target (`--targets cluster`): a cluster peer's read whose result is
//! materialized in the executors' memory and left there, as a job over a table larger than
//! one process leaves it, instead of being collected into the driver. No file of its rows
//! ever exists, so its verification and every sample's check are its partition digests alone
//! (docs/protocol.md, "Partition digests"): the partitions must add up to the source's digest
//! when the cell is verified, and to the verified digest in every sample after.

use super::cell::Cell;
use super::cells;
use super::state::Runner;
use crate::results::{SampleStatus, VerificationRecord};
use crate::run::SampleOutcome;
use crate::verify::partitions;
use crate::verify::Leeway;
use crate::Error;
use formatbench_protocol::{Job, PartialDigest, CLUSTER_TARGET};
use std::path::{Path, PathBuf};

/// Whether `cell`'s result stays in the cluster.
pub(super) fn is_kept(cell: &Cell) -> bool {
    cell.competitor.target == CLUSTER_TARGET
}

impl Runner<'_> {
    /// Why a result kept in the cluster cannot be checked in this run, if it cannot: then its
    /// cell is unsupported, never measured unverified.
    fn kept_unverifiable(&self, leeway: Leeway) -> Option<String> {
        if self.plan.cluster.is_some() {
            return Some(
                "the cluster target is verified by partition digests only, which the \
                 executors of a cluster this run attached to (--cluster) cannot compute: they \
                 may not have this formatbench binary"
                    .into(),
            );
        }
        leeway.float_tolerance.map(|_| {
            "the cluster target is verified by partition digests of exact values, and this \
             backend's floats are compared within a tolerance"
                .into()
        })
    }

    /// The verification run of a cell whose result stays in the cluster: the run digests its
    /// partitions in the engine, and they must add up to the source's digest.
    pub(super) fn verify_kept(
        &mut self,
        cell: &Cell,
        name: &str,
        artifact: &Path,
    ) -> Result<VerificationRecord, Error> {
        let leeway = cells::leeway(cell);
        let mut record = cells::failed_verification(self, cell, leeway);
        if let Some(why) = self.kept_unverifiable(leeway) {
            record.status = SampleStatus::Unsupported;
            record.reason = Some(why);
            return Ok(record);
        }
        let (outcome, schema, result) = self.run_kept(cell, name, artifact, true)?;
        if cells::answered_ok(&outcome, &mut record) {
            let checked = parts_of(&outcome)
                .map(|parts| added_up(partitions::check, cell, &result, parts, leeway));
            match checked {
                None => record.reason = Some(no_digests()),
                Some(checked) => match checked? {
                    Ok(summed) => {
                        record.status = SampleStatus::Ok;
                        record.rows = Some(summed.rows);
                        record.digest = Some(summed.digest);
                        record.engine_digest = Some(format!(
                            "{}; the result stayed in the cluster (target cluster): not \
                             compared value by value",
                            summed.described
                        ));
                    }
                    Err(why) => {
                        record.reason = Some(format!(
                            "verification failed: the partitions digested in the engine do \
                             not add up to the source: {why}"
                        ));
                        record.engine_digest = Some(why);
                    }
                },
            }
        }
        let _ = std::fs::remove_file(&schema);
        let _ = std::fs::remove_file(&result);
        Ok(record)
    }

    /// A measured sample of a cell whose result stays in the cluster, and its check: its
    /// partitions must add up to the verified digest (`Ok(None)`: the worker did not answer
    /// ok, and its record says why).
    pub(super) fn sample_kept(
        &mut self,
        cell: &Cell,
        name: &str,
        artifact: &Path,
    ) -> Result<(SampleOutcome, Result<Option<String>, String>), Error> {
        let leeway = cells::leeway(cell);
        let (outcome, schema, result) = self.run_kept(cell, name, artifact, false)?;
        let answered = matches!(&outcome.answer,
            Ok(a) if a.status == formatbench_protocol::AnswerStatus::Ok);
        let checked = match parts_of(&outcome) {
            _ if !answered => Ok(None),
            None => Err(no_digests()),
            Some(parts) => {
                let summed = added_up(partitions::sum, cell, &result, parts, leeway)?;
                match (summed, cell.digest.as_deref()) {
                    (Err(why), _) => Err(why),
                    (Ok(summed), Some(verified)) if summed.digest == verified => {
                        Ok(Some(summed.digest))
                    }
                    (Ok(summed), Some(verified)) => Err(format!(
                        "its partitions' digest {} differs from the verified {verified}",
                        summed.digest
                    )),
                    (Ok(_), None) => {
                        Err("the cell has no verified digest to check it against".into())
                    }
                }
            }
        };
        let _ = std::fs::remove_file(&schema);
        let _ = std::fs::remove_file(&result);
        Ok((outcome, checked))
    }

    /// Runs `cell` on `artifact` (once when `verifying`, else as a measured sample) asking for
    /// its partition digests; the outcome, the expected schema's file and the file the worker
    /// writes the result's schema to (both to remove).
    fn run_kept(
        &mut self,
        cell: &Cell,
        name: &str,
        artifact: &Path,
        verifying: bool,
    ) -> Result<(SampleOutcome, PathBuf, PathBuf), Error> {
        let (_, result) = self.result_paths(cell, name);
        let mut job: Job = self.job(
            cell,
            artifact,
            verifying.then(|| result.clone()),
            false,
            cell.op,
        );
        job.verify_out = Some(result.clone());
        let schema = self.ask_partitions(cell, name, cells::leeway(cell), &mut job)?;
        let outcome = self.spawn(cell.info.worker, job)?;
        Ok((outcome, schema, result))
    }
}

/// The partitions of `cell`'s result added up by `how` (the oracle's `check` against the
/// source, or its `sum`), in the types of the schema file the worker wrote at `result`, if
/// it wrote one.
fn added_up(
    how: AddUp,
    cell: &Cell,
    result: &Path,
    parts: &[PartialDigest],
    leeway: Leeway,
) -> Result<Result<partitions::Summed, String>, Error> {
    let written = result.exists().then_some(result);
    how(
        &cell.source_path,
        cell.op,
        &cell.params,
        written,
        parts,
        leeway,
    )
}

/// The signature `partitions::check` and `partitions::sum` share.
type AddUp = fn(
    &Path,
    formatbench_protocol::Op,
    &formatbench_protocol::OpParams,
    Option<&Path>,
    &[PartialDigest],
    Leeway,
) -> Result<Result<partitions::Summed, String>, Error>;

fn parts_of(outcome: &SampleOutcome) -> Option<&[PartialDigest]> {
    outcome
        .answer
        .as_ref()
        .ok()
        .and_then(|a| a.partition_digests.as_deref())
}

fn no_digests() -> String {
    "the worker answered no partition digests, which are the only check of a result kept in \
     the cluster"
        .into()
}
