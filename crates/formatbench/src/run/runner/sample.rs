//! One measured sample: the cache state set, the job run in a fresh worker, the server's count
//! of its traffic when artifacts live in object storage, and the record it leaves.

use super::cells;
use super::state::Runner;
use super::Cell;
use crate::progress::{detail, say};
use crate::results::{Record, SampleRecord, SampleStatus};
use crate::run::storage::SampleTraffic;
use crate::run::{prepare_cache, SampleOutcome};
use crate::Error;
use formatbench_protocol::Op;
use std::path::Path;

impl Runner<'_> {
    /// Takes cell `index`'s sample of `round` at `position` with the machine's load and any
    /// run beside it recorded, tells the stopper what it cost since `started`, and appends it.
    pub(super) fn measure_sample(
        &mut self,
        cell: &Cell,
        (round, position, index): (u32, u32, usize),
        stopper: Option<&mut super::stopping::Stopper>,
        started: std::time::Instant,
    ) -> Result<(), Error> {
        let beside = self.neighbours.check();
        let server = self.storage.as_ref().and_then(|s| s.server_pid());
        let load_before = crate::run::load::Reading::now(server);
        let mut record = self.take_sample(cell, round)?;
        let mut load_after = crate::run::load::Reading::now(server);
        // The run's own processes that no wait reported are its work, not other processes'.
        load_after.add_own_cpu(record.process_unwaited_cpu_s.unwrap_or(0.0));
        let load = load_before.until(&load_after);
        // A run that started or ended during the sample was beside it too.
        if self.neighbours.check() || beside {
            self.neighbours.flag(&mut record);
        }
        if load.busy().is_some() {
            record.flags.push(crate::results::BUSY_FLAG.to_string());
        }
        record.machine_load = Some(load);
        if let Some(stopper) = stopper {
            let wall = super::stopping::ranked_time(&record, self.call);
            stopper.record(index, round, wall, started.elapsed().as_secs_f64());
        }
        record.position = Some(position);
        record.worker_build = Some(self.worker_build.clone());
        let record = self.unless_store_gone(record)?;
        if record.status != SampleStatus::Ok {
            say(&format!(
                "{} round {round}: {}",
                cell.label(),
                record.reason.clone().unwrap_or_default()
            ));
        } else {
            detail(&format!(
                "{} round {round} position {position}: {:.6} s",
                cell.label(),
                record.wall_s.unwrap_or(f64::NAN)
            ));
        }
        self.results.append(&Record::Sample(Box::new(record)))?;
        Ok(())
    }

    pub(super) fn take_sample(&mut self, cell: &Cell, round: u32) -> Result<SampleRecord, Error> {
        let artifact = self.artifact_for(cell, round);
        if let Some(state) = cell.cache {
            prepare_cache(state, &formatbench_protocol::files_under(&artifact))?;
        }
        if cell.op == Op::Write || cell.op.is_mutation() {
            // Earlier samples' dirty pages are written back first, so a write is never
            // throttled by the writeback of what another competitor wrote before it.
            formatbench_protocol::write_back_everything();
        }
        // A server that died is restarted before the job names its endpoint.
        let restarted = match self.storage.as_mut() {
            Some(storage) => storage.begin_sample()?,
            None => None,
        };
        if let Some(note) = restarted {
            say(&format!("{} round {round}: {note}", cell.label()));
        }
        let name = format!("{}-r{round}", cell.slug());
        let (outcome, checked) = if super::kept::is_kept(cell) {
            self.sample_kept(cell, &name, &artifact)?
        } else {
            self.sample_returned(cell, &name, &artifact)?
        };
        let first_call_ended = outcome
            .answer
            .as_ref()
            .ok()
            .and_then(|a| a.first_call_ended_unix_s.filter(|_| a.calls > 1));
        let traffic = self
            .storage
            .as_mut()
            .map(|s| s.end_sample(first_call_ended));
        self.cleanup_write(cell, &artifact);
        let mut record = cells::sample_record(&self.run_id, cell, round, &outcome, checked);
        let server_counted = matches!(traffic, Some(Ok(Some(_))) | Some(Err(_)));
        let counted_here = match &outcome.answer {
            // No server of formatbench's counted it (a user's store): the worker's client did.
            Ok(answer) if !server_counted && cell.key.storage == "s3" => answer
                .client_traffic
                .clone()
                .map(|t| Ok(Some(SampleTraffic::Whole(t)))),
            _ => None,
        };
        let traffic = match counted_here {
            Some(counted) => {
                record.traffic_counted_by = Some("client".into());
                Some(counted)
            }
            None => traffic,
        };
        cells::add_traffic(&mut record, traffic);
        Ok(record)
    }

    /// A measured sample whose result the worker writes after its timer, and its check: the
    /// runner checks the file (a worker's word for its result is not a check). A reader that
    /// keeps no row order may return another valid first row each time: such a sample's row
    /// is verified against the source; every other result must digest as the verified one did.
    fn sample_returned(
        &mut self,
        cell: &Cell,
        name: &str,
        artifact: &Path,
    ) -> Result<(SampleOutcome, Result<Option<String>, String>), Error> {
        let mut job = self.job(cell, artifact, None, false, cell.op);
        let (returned, verify_out) = self.result_paths(cell, name);
        job.verify_out = Some(returned.clone());
        let mut outcome = self.spawn(cell.info.worker, job)?;
        super::state::collect_returned(&mut outcome, &returned, &verify_out);
        let checked = if cell.op == Op::FirstRow && cell.info.table.unordered {
            cells::check_returned(cell, &outcome, &verify_out)?
        } else {
            cells::check_digest(cell, &outcome, &verify_out)
        };
        Ok((outcome, checked))
    }

    /// After a failure (a sample, a verification, an artifact): the error that stops the run
    /// when its store of the user's own no longer answers (the store failed, not the
    /// backend; every sample left would fail the same way).
    pub(super) fn store_gone(&self) -> Result<(), Error> {
        match self.storage.as_ref().and_then(|s| s.unreachable()) {
            Some(why) => Err(Error::Unavailable(why)),
            None => Ok(()),
        }
    }

    /// A measured sample as it is, unless it failed because its store stopped answering:
    /// then it is recorded marked `store_unreachable` (a `--resume` takes it again) and the
    /// run stops.
    pub(super) fn unless_store_gone(
        &mut self,
        mut record: SampleRecord,
    ) -> Result<SampleRecord, Error> {
        if record.status != SampleStatus::Failed {
            return Ok(record);
        }
        if let Err(gone) = self.store_gone() {
            record.store_unreachable = true;
            self.results.append(&Record::Sample(Box::new(record)))?;
            return Err(gone);
        }
        Ok(record)
    }
}
