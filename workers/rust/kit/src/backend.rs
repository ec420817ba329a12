//! What a worker's backend is: the trait every backend implements, the settings it runs under
//! and what a read asks of it. The job runner (`execute`) and the matrix plan are written
//! against these.

use crate::KitError;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use formatbench_protocol::{FileSplit, Op};
use std::collections::BTreeMap;
use std::path::Path;

/// What a read asks of the backend.
#[derive(Debug, Clone, Copy)]
pub enum Request<'a> {
    All,
    /// These columns, in stored order.
    Columns(&'a [String]),
    /// Rows at positions, in request order; only the named columns if given.
    Take(&'a [u64], Option<&'a [String]>),
}

/// The settings a backend runs under for one job.
pub struct Context<'a> {
    pub profile: &'a str,
    pub layout: &'a str,
    /// The stored table's schema (the array layout's when that is the layout).
    pub schema: &'a SchemaRef,
    pub threads: usize,
    /// Tables of files: how a write splits the table, and whether it then deletes rows.
    pub split: Option<FileSplit>,
}

pub trait Backend: Sync {
    fn name(&self) -> &'static str;
    fn about(&self) -> &'static str;
    fn profiles(&self) -> &'static [&'static str];
    /// The layouts it stores with the operations it does natively on each (`wide` first).
    fn layouts(&self) -> Vec<(&'static str, Vec<Op>)>;
    /// The library's version.
    fn version(&self) -> String;
    /// `Err(reason)` when it cannot run here (e.g. a library missing at run time).
    fn available(&self) -> Result<(), String> {
        Ok(())
    }
    /// Writes the batches into `dir` (created by the caller); returns when files are closed.
    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError>;
    /// A read-type request on what `write` left in `dir`, and how it was done.
    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError>;
    /// Effective settings read back from the files (untimed).
    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String>;
    /// `first_row`: the first row the reader yields that is not deleted, and how.
    fn first_row(
        &self,
        _ctx: &Context,
        _dir: &Path,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
        Err(KitError::Unsupported(format!(
            "{} has no first-row read",
            self.name()
        )))
    }
    /// Whether its reads keep no row order: results are then sorted by the job's `order_by`
    /// column after the timer, before the digest and the verification output.
    fn unordered(&self) -> bool {
        false
    }
    /// The backend whose artifact it reads, when it writes none of its own (a Delta reader
    /// reads the tables delta-kernel writes).
    fn artifact_from(&self) -> Option<&'static str> {
        None
    }
    /// The profiles whose tables have rows deleted after writing ([`FileSplit`]).
    fn deletion_profiles(&self) -> &'static [&'static str] {
        &[]
    }
}
