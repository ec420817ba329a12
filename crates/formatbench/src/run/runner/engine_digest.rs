//! A cluster peer's verification run also digests its result partition by partition inside
//! the engine (docs/protocol.md, "Partition digests"): the check that stays when a result is
//! too large for one process. Asked of every read of a cluster the run started; its outcome
//! goes in the verification record's `engine_digest`, and a sum that differs from the source's
//! digest fails the cell like any other mismatch.

use super::cell::Cell;
use super::state::Runner;
use crate::results::{SampleStatus, VerificationRecord};
use crate::verify::{partitions, Leeway};
use crate::Error;
use formatbench_protocol::{Answer, Job, Op, Selection};
use std::path::PathBuf;

/// Whether a verification run asks for partition digests.
pub(super) enum EngineDigest {
    /// Asked: the expected result's schema is in this file (removed after the check).
    Asked(PathBuf),
    /// Not asked; the reason goes in the record where there is one to give.
    NotAsked(Option<String>),
}

impl Runner<'_> {
    /// Decides for `cell`'s verification run (`name`) and sets `job` to ask when it does.
    pub(super) fn ask_engine_digest(
        &self,
        cell: &Cell,
        name: &str,
        leeway: Leeway,
        job: &mut Job,
    ) -> Result<EngineDigest, Error> {
        let selection = cell.op.spec().selection;
        if cell.competitor.executors.is_none()
            || cell.op == Op::Write
            || selection == Selection::AnyOneRow
        {
            return Ok(EngineDigest::NotAsked(None));
        }
        if self.plan.cluster.is_some() {
            return Ok(EngineDigest::NotAsked(Some(
                "not asked: the executors of a cluster this run attached to (--cluster) may \
                 not have this formatbench binary"
                    .into(),
            )));
        }
        if leeway.float_tolerance.is_some() {
            return Ok(EngineDigest::NotAsked(Some(
                "not asked: this backend's floats are compared within a tolerance, which a \
                 digest of exact values cannot do"
                    .into(),
            )));
        }
        Ok(EngineDigest::Asked(
            self.ask_partitions(cell, name, leeway, job)?,
        ))
    }

    /// Sets `job` (the run `name`) to digest its result's partitions in the engine; returns the
    /// file holding the expected result's schema, which the program reads (remove it after).
    pub(super) fn ask_partitions(
        &self,
        cell: &Cell,
        name: &str,
        leeway: Leeway,
        job: &mut Job,
    ) -> Result<PathBuf, Error> {
        let schema = self
            .scratch
            .join("verify")
            .join(format!("{name}.expected-schema.arrow"));
        partitions::write_expected_schema(&cell.source_path, cell.op, &cell.params, &schema)?;
        job.partition_digest = Some(partitions::command(&schema, leeway)?);
        Ok(schema)
    }

    /// Checks the partition digests a verified run answered against the source's digest, in
    /// the column types of its result file (`verify_out`), and records the outcome.
    pub(super) fn check_engine_digest(
        &self,
        cell: &Cell,
        asked: EngineDigest,
        answer: Option<&Answer>,
        verify_out: &std::path::Path,
        leeway: Leeway,
        record: &mut VerificationRecord,
    ) -> Result<(), Error> {
        let schema = match asked {
            EngineDigest::NotAsked(reason) => {
                record.engine_digest = reason;
                return Ok(());
            }
            EngineDigest::Asked(schema) => schema,
        };
        let _ = std::fs::remove_file(&schema);
        if record.status != SampleStatus::Ok {
            return Ok(());
        }
        let Some(parts) = answer.and_then(|a| a.partition_digests.as_deref()) else {
            record.engine_digest =
                Some("not computed: the worker answered no partition digests".into());
            return Ok(());
        };
        let checked = partitions::check(
            &cell.source_path,
            cell.op,
            &cell.params,
            Some(verify_out),
            parts,
            leeway,
        )?;
        match checked {
            Ok(summed) => record.engine_digest = Some(summed.described),
            Err(why) => {
                record.status = SampleStatus::Failed;
                record.reason = Some(format!(
                    "verification failed: the partitions digested in the engine do not add up \
                     to the source: {why}"
                ));
                record.engine_digest = Some(why);
            }
        }
        Ok(())
    }
}
