//! What every Delta reader shares: the tables it reads are delta-kernel's (the one Rust writer
//! of deletion vectors), in the same profiles, and a reader keeps no row order. A library that
//! can scan a table implements [`DeltaLibrary`]; [`DeltaReader`] makes it a backend.

use crate::{Backend, Context, KitError, Loaded, Request};
use arrow::array::RecordBatch;
use formatbench_protocol::Op;
use std::collections::BTreeMap;
use std::path::Path;

/// The backend that writes the tables every Delta reader reads.
pub const WRITER: &str = "delta-kernel";
/// The format every Delta backend declares ([`crate::Backend::format`]).
pub const DELTA_FORMAT: &str = "delta";
/// `default`: the table of files; `dv`: the same with one row of every file deleted.
pub const PROFILES: &[&str] = &["default", "dv"];
/// The profiles whose tables have deleted rows.
pub const DELETION_PROFILES: &[&str] = &["dv"];

/// The operations a Delta reader does natively on the wide table.
pub const READER_OPS: [Op; 4] = [Op::Read, Op::Scan, Op::Project, Op::FirstRow];

/// The operations of the writer of the tables: a write, then what every reader does, and a
/// session (seed 003's: one table initialization, several queries).
pub const WRITER_OPS: [Op; 6] = [
    Op::Write,
    Op::Read,
    Op::Scan,
    Op::Project,
    Op::FirstRow,
    Op::Session,
];

/// How a scan is asked of a Delta library.
#[derive(Debug, Clone, Copy)]
pub enum Scan<'a> {
    All,
    /// These columns, in stored order.
    Columns(&'a [String]),
    /// Every column, stopping after the first row that is not deleted.
    FirstRow,
}

/// A library that reads Delta tables.
pub trait DeltaLibrary: Sync {
    fn name(&self) -> &'static str;
    fn about(&self) -> &'static str;
    fn version(&self) -> String;
    /// Scans the table in `dir`, deletion vectors applied; returns the batches and how.
    fn scan(
        &self,
        ctx: &Context,
        dir: &Path,
        scan: Scan,
    ) -> Result<(Vec<RecordBatch>, &'static str), KitError>;
    /// Settings it ran under (untimed).
    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String>;
    /// `Ok` when it reads tables from object storage ([`Context::remote`]), else why not.
    fn object_storage(&self) -> Result<(), String> {
        Err(format!(
            "{} has no object-storage route in formatbench yet",
            self.name()
        ))
    }
}

/// A read-type request as a scan; Delta tables have no row positions to take.
pub fn read(
    library: &dyn DeltaLibrary,
    ctx: &Context,
    dir: &Path,
    request: Request,
) -> Result<(Vec<RecordBatch>, &'static str), KitError> {
    match request {
        Request::All => library.scan(ctx, dir, Scan::All),
        Request::Columns(names) => library.scan(ctx, dir, Scan::Columns(names)),
        Request::Take(..) | Request::Range(_) => Err(KitError::Unsupported(format!(
            "{} reads no rows by position",
            library.name()
        ))),
    }
}

/// A Delta library as a backend that reads the tables delta-kernel writes.
pub struct DeltaReader<L>(pub L);

impl<L: DeltaLibrary> Backend for DeltaReader<L> {
    type Error = KitError;

    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn about(&self) -> &'static str {
        self.0.about()
    }

    fn profiles(&self) -> &'static [&'static str] {
        PROFILES
    }

    fn deletion_profiles(&self) -> &'static [&'static str] {
        DELETION_PROFILES
    }

    fn artifact_from(&self) -> Option<&'static str> {
        Some(WRITER)
    }

    fn unordered(&self) -> bool {
        true
    }

    fn format(&self) -> Option<String> {
        Some(DELTA_FORMAT.into())
    }

    fn ops(&self) -> &'static [Op] {
        &READER_OPS
    }

    fn version(&self) -> String {
        self.0.version()
    }

    fn object_storage(&self) -> Result<(), String> {
        self.0.object_storage()
    }

    fn write(&self, _: &Context, _: &[RecordBatch], _: &Path) -> Result<(), KitError> {
        // The runner sends every preparing write to delta-kernel instead.
        Err(KitError::Unsupported(format!(
            "{} writes no tables: it reads the ones {WRITER} writes",
            self.0.name()
        )))
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), KitError> {
        read(&self.0, ctx, dir, request).map(|(batches, how)| (batches.into(), how))
    }

    fn first_row(&self, ctx: &Context, dir: &Path) -> Result<(Loaded, &'static str), KitError> {
        self.0
            .scan(ctx, dir, Scan::FirstRow)
            .map(|(batches, how)| (batches.into(), how))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        self.0.settings(ctx, dir)
    }
}

/// Adds a scanned batch to the result; false once a first-row scan has its row (stop reading).
pub fn collect(out: &mut Vec<RecordBatch>, batch: RecordBatch, scan: Scan) -> bool {
    match scan {
        Scan::FirstRow if batch.num_rows() > 0 => {
            out.push(batch.slice(0, 1));
            false
        }
        Scan::FirstRow => true,
        _ => {
            out.push(batch);
            true
        }
    }
}
