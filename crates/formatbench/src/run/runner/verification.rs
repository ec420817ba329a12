//! Each cell's first run: its result is checked against the source before any of its samples
//! counts. Workers without Arrow (R) get the source as CSV and return CSV, converted here.

use super::cell::Cell;
use super::cells;
use super::state::{Runner, LOSSY_FLOAT_TOLERANCE, NORM_TOLERANCE};
use crate::peers::exchange;
use crate::progress::say;
use crate::results::{Record, SampleRecord, SampleStatus};
use crate::run::SampleOutcome;
use crate::Error;
use formatbench_protocol::AnswerStatus;
use std::path::{Path, PathBuf};

impl Runner<'_> {
    /// Where a job writes what its operation returned (`returned`: CSV for workers without
    /// Arrow) and where the runner reads it as Arrow IPC (`verify_out`).
    pub(super) fn result_paths(&self, cell: &Cell, name: &str) -> (PathBuf, PathBuf) {
        let verify_out = self.scratch.join("verify").join(format!("{name}.arrow"));
        let text = cell.info.worker.exchanges_text();
        let returned = verify_out.with_extension(if text { "csv" } else { "arrow" });
        (returned, verify_out)
    }

    /// The first warmup: run the cell, check its result against the source, remember the digest.
    pub(super) fn verify(&mut self, cell: &mut Cell) -> Result<bool, Error> {
        let name = format!("{}", self.jobs_started + 1);
        let (returned, verify_out) = self.result_paths(cell, &name);
        let artifact = self.artifact_for(cell, 0);
        let job = self.job(cell, &artifact, Some(returned.clone()), false, cell.op);
        let mut outcome = self.spawn(cell.info.worker, job)?;
        collect_returned(&mut outcome, &returned, &verify_out);
        // A norm's float32 sum depends on its order, so every backend gets the study's 1e-5.
        let tolerance = if cell.op == formatbench_protocol::Op::VectorNorm {
            Some(NORM_TOLERANCE)
        } else {
            cell.info.lossy.then_some(LOSSY_FLOAT_TOLERANCE)
        };
        let record = cells::verification_record(self, cell, &outcome, &verify_out, tolerance)?;
        let _ = std::fs::remove_file(&verify_out);
        self.cleanup_write(cell, &artifact);
        let ok = record.status == SampleStatus::Ok;
        cell.digest = record.digest.clone();
        self.results.append(&Record::Verification(record.clone()))?;
        if !ok {
            say(&format!(
                "{}: {} — {}",
                cell.label(),
                record.status.name(),
                record.reason.clone().unwrap_or_default()
            ));
            let record = SampleRecord::bare(
                &self.run_id,
                cell.key.clone(),
                None,
                record.status,
                record.reason,
            );
            self.results.append(&Record::Sample(Box::new(record)))?;
            return Ok(false);
        }
        for _ in 1..self.plan.warmup {
            let artifact = self.artifact_for(cell, 0);
            let job = self.job(cell, &artifact, None, false, cell.op);
            self.spawn(cell.info.worker, job)?;
            self.cleanup_write(cell, &artifact);
        }
        Ok(true)
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
