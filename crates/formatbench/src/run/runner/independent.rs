//! A write read back by another implementation of its format: a writer's bug that its own
//! reader shares (both ends of one library) cancels out in the write's verification, so the
//! artifact a cell's verification run wrote is also read by an independent reader among the
//! project's parts, once per cell, and that result verified against the source too.

use super::cell::Cell;
use super::state::collect_returned;
use super::state::{Runner, LOSSY_FLOAT_TOLERANCE};
use crate::catalog::BackendInfo;
use crate::verify::{verify_output, Leeway, RowOrder};
use crate::Error;
use formatbench_protocol::{AnswerStatus, Op};
use std::path::Path;

/// The reader of another implementation that reads what `writer` writes (the same file in
/// the artifact's directory), for the formats that have one: arrow-rs's Parquet and IPC
/// against Arrow C++'s (pyarrow), each way; the native CSV parser against pyarrow's, each way.
pub fn independent_reader(writer: &str) -> Option<&'static str> {
    match writer {
        "parquet" => Some("py-pyarrow-parquet"),
        "ipc" => Some("py-pyarrow-feather"),
        "py-pyarrow-parquet" | "py-duckdb-parquet" | "py-polars-parquet" => Some("parquet"),
        "py-pyarrow-feather" => Some("ipc"),
        "csv" => Some("py-pyarrow-csv"),
        "py-pyarrow-csv" | "py-pandas-csv" | "py-polars-csv" => Some("csv"),
        _ => None,
    }
}

/// What the independent check of a cell's write found.
pub enum ReadBack {
    /// Read and verified: what the record says.
    Verified(String),
    /// The reader returned other values: the cell fails.
    Differs(String),
    /// No check (no independent reader, or it cannot run here, or could not read it): why.
    NotChecked(String),
}

impl Runner<'_> {
    /// Reads `artifact` (what `cell`'s verification write left) through its format's
    /// independent reader and verifies the result against the source.
    pub(super) fn read_back_independently(
        &mut self,
        cell: &Cell,
        artifact: &Path,
    ) -> Result<ReadBack, Error> {
        let Some(name) = independent_reader(&cell.competitor.backend) else {
            return Ok(ReadBack::NotChecked(format!(
                "no independent reader of {}'s files among formatbench's parts",
                cell.competitor.backend
            )));
        };
        if cell.competitor.layout != "wide" || cell.key.storage != "local" {
            return Ok(ReadBack::NotChecked(format!(
                "{name} reads the wide layout's local files only"
            )));
        }
        let reader = match self.reader_info(name) {
            Ok(reader) => reader,
            Err(why) => return Ok(ReadBack::NotChecked(why)),
        };
        let (returned, verify_out) =
            self.result_paths(cell, &format!("{}-read-by-{name}", cell.slug()));
        let mut job = self.job(cell, artifact, Some(returned.clone()), false, Op::Read);
        job.backend = reader.name.clone();
        job.profile = "default".into();
        job.target = reader
            .targets
            .first()
            .cloned()
            .unwrap_or_else(|| "arrow".into());
        job.params = formatbench_protocol::OpParams::default();
        let mut outcome = self.spawn(reader.worker, job)?;
        collect_returned(&mut outcome, &returned, &verify_out);
        let version = reader.version.as_deref().unwrap_or("");
        let check = match &outcome.answer {
            Ok(answer) if answer.status == AnswerStatus::Ok => {
                let verdict = crate::error::reading("an independent read-back", || {
                    verify_output(
                        &cell.source_path,
                        Op::Read,
                        &formatbench_protocol::OpParams::default(),
                        &verify_out,
                        Leeway {
                            float_tolerance: (reader.lossy || cell.info.lossy)
                                .then_some(LOSSY_FLOAT_TOLERANCE),
                            other_widths: reader.other_widths || cell.info.other_widths,
                        },
                        RowOrder::Defined,
                    )
                });
                match verdict {
                    Ok(v) if v.ok => ReadBack::Verified(format!("read back by {name} {version}")),
                    Ok(v) => ReadBack::Differs(format!(
                        "read back by {name} {version}, it differs from the source: {}",
                        v.reason.unwrap_or_default()
                    )),
                    Err(Error::Interrupted) => return Err(Error::Interrupted),
                    Err(e) => ReadBack::NotChecked(format!("{name} returned no table: {e}")),
                }
            }
            Ok(answer) => ReadBack::NotChecked(format!(
                "{name} could not read it: {}",
                answer.reason.clone().unwrap_or_default()
            )),
            Err(reason) => ReadBack::NotChecked(format!("{name} could not read it: {reason}")),
        };
        let _ = std::fs::remove_file(&verify_out);
        Ok(check)
    }

    /// The reader's catalog entry (looked up once a run: a peer's costs a worker start), or
    /// why it cannot run here.
    fn reader_info(&mut self, name: &str) -> Result<BackendInfo, String> {
        let found = self
            .readers
            .entry(name.to_string())
            .or_insert_with(|| crate::run::find(name))
            .clone();
        match found {
            Some(info) => match &info.available {
                Ok(()) => Ok(info),
                Err(why) => Err(format!("{name} cannot run here: {why}")),
            },
            None => Err(format!("{name} is not known here")),
        }
    }
}
