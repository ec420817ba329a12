//! One measured sample: the cache state set, the job run in a fresh worker, the server's count
//! of its traffic when artifacts live in object storage, and the record it leaves.

use super::cells;
use super::state::Runner;
use super::Cell;
use crate::progress::say;
use crate::results::SampleRecord;
use crate::run::prepare_cache;
use crate::Error;
use formatbench_protocol::Op;

impl Runner<'_> {
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
        let mut job = self.job(cell, &artifact, None, false, cell.op);
        // A reader that keeps no row order may return another valid first row each time:
        // each such sample's row is verified against the source (after its timer) instead
        // of compared with the first one's digest.
        let returned = (cell.op == Op::FirstRow && cell.info.table.unordered).then(|| {
            self.scratch
                .join("verify")
                .join(format!("{}-r{round}.arrow", cell.slug()))
        });
        job.verify_out = returned.clone();
        let outcome = self.spawn(cell.info.worker, job)?;
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
        let checked = match &returned {
            Some(path) => Some(cells::check_returned(cell, &outcome, path)?),
            None => None,
        };
        let mut record = cells::sample_record(&self.run_id, cell, round, &outcome, checked);
        cells::add_traffic(&mut record, traffic);
        Ok(record)
    }
}
