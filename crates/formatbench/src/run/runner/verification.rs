//! Each cell's first run: its result is checked against the source before any of its samples
//! counts. Workers without Arrow (R) get the source as CSV and return CSV, converted here.

use super::cell::Cell;
use super::cells;
use super::independent::ReadBack;
use super::kept;
use super::state::Runner;
use crate::progress::say;
use crate::results::{Record, SampleRecord, SampleStatus};
use crate::Error;

impl Runner<'_> {
    /// The first warmup: run the cell, check its result against the source, remember the digest.
    pub(super) fn verify(&mut self, cell: &mut Cell) -> Result<bool, Error> {
        let name = format!("{}", self.jobs_started + 1);
        let artifact = self.artifact_for(cell, 0);
        let mut record = if kept::is_kept(cell) {
            self.verify_kept(cell, &name, &artifact)?
        } else {
            self.verify_returned(cell, &name, &artifact)?
        };
        if record.status == SampleStatus::Ok && cell.op == formatbench_protocol::Op::Write {
            match self.read_back_independently(cell, &artifact)? {
                ReadBack::Verified(what) | ReadBack::NotChecked(what) => {
                    record.independent_check = Some(what);
                }
                ReadBack::Differs(what) => {
                    record.status = SampleStatus::Failed;
                    record.reason = Some(format!("verification failed: {what}"));
                    record.independent_check = Some(what);
                }
            }
        }
        self.cleanup_write(cell, &artifact);
        let ok = record.status == SampleStatus::Ok;
        if !ok {
            // A store gone stops the run here; a resume verifies the cell again.
            self.store_gone()?;
        }
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

    /// The verification record of a run whose result the worker returns as a file: checked
    /// against the source value by value (and, on a cluster, partition by partition too).
    fn verify_returned(
        &mut self,
        cell: &Cell,
        name: &str,
        artifact: &std::path::Path,
    ) -> Result<crate::results::VerificationRecord, Error> {
        let (returned, verify_out) = self.result_paths(cell, name);
        let mut job = self.job(cell, artifact, Some(returned.clone()), false, cell.op);
        let leeway = cells::leeway(cell);
        let engine = self.ask_engine_digest(cell, name, leeway, &mut job)?;
        let mut outcome = self.spawn(cell.info.worker, job)?;
        super::state::collect_returned(&mut outcome, &returned, &verify_out);
        let mut record = cells::verification_record(self, cell, &outcome, &verify_out, leeway)?;
        let answer = outcome.answer.as_ref().ok();
        self.check_engine_digest(cell, engine, answer, &verify_out, leeway, &mut record)?;
        let _ = std::fs::remove_file(&verify_out);
        Ok(record)
    }
}
