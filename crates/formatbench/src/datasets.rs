//! Datasets: seeded generators and user files, each streamed batch by batch into a canonical
//! Arrow IPC source file with a content fingerprint. Generated data is never whole in memory.

mod feature_type;
mod generate;
pub mod given;
mod ingest;
mod materialize;
mod realistic;
mod spec;
mod types;
mod words;

pub use crate::rng::Rng;
pub use feature_type::FeatureType;
pub use generate::{generate, row_shape, ColumnGenerator};
pub use ingest::{ingest, ingest_as, input_format};
pub use spec::{DatasetKind, DatasetSpec, Shape, DATASET_KINDS};
pub use types::{types_table, TYPES_INDEX};

use crate::Error;
use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use arrow::ipc::writer::{FileWriter, IpcWriteOptions};
use formatbench_worker_kit::digest::TableDigest;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A dataset made canonical: where its IPC source lies and what it holds.
#[derive(Debug, Clone)]
pub struct Source {
    /// The dataset's key in results (`mixed-100000x61`, the input file's stem, …).
    pub name: String,
    pub path: PathBuf,
    pub fingerprint: String,
    pub rows: u64,
    pub schema: SchemaRef,
    /// The integer column `range` selects by, when there is one.
    pub index_column: Option<String>,
    pub parameters: BTreeMap<String, String>,
    pub bytes: u64,
}

impl Source {
    /// Columns other than the index: the ones `project` chooses from.
    pub fn data_columns(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .filter(|n| Some(n) != self.index_column.as_ref())
            .collect()
    }
}

/// Writes batches to the canonical IPC file while fingerprinting them.
pub(crate) struct SourceWriter {
    writer: FileWriter<BufWriter<File>>,
    digest: TableDigest,
    rows: u64,
    path: PathBuf,
}

impl SourceWriter {
    pub(crate) fn create(path: &Path, schema: &SchemaRef) -> Result<Self, Error> {
        let file = File::create(path).map_err(Error::at("create", path))?;
        let options = IpcWriteOptions::default();
        let writer = FileWriter::try_new_with_options(
            BufWriter::with_capacity(1 << 20, file),
            schema,
            options,
        )
        .map_err(Error::failed(format!(
            "cannot start the source {}",
            path.display()
        )))?;
        Ok(SourceWriter {
            writer,
            digest: TableDigest::new(schema),
            rows: 0,
            path: path.to_path_buf(),
        })
    }

    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<(), Error> {
        self.digest.update(batch)?;
        self.rows += batch.num_rows() as u64;
        self.writer.write(batch).map_err(Error::failed(format!(
            "cannot write {}",
            self.path.display()
        )))
    }

    /// Closes the file; returns (fingerprint, rows, bytes).
    pub(crate) fn finish(mut self) -> Result<(String, u64, u64), Error> {
        self.writer.finish().map_err(Error::failed(format!(
            "cannot finish {}",
            self.path.display()
        )))?;
        let bytes = std::fs::metadata(&self.path)
            .map_err(Error::at("read", &self.path))?
            .len();
        Ok((self.digest.finish(), self.rows, bytes))
    }
}

/// Rows per batch of a generated source: 64 Ki rows, fewer for wide tables so a batch stays near
/// 64 MiB. Generators build exactly the values they return, so this is not the readers'
/// `formatbench_protocol::batch_rows`: a generated source's batches are part of its layout, which
/// artifacts inherit, and stay as earlier runs had them.
pub(crate) fn batch_rows(columns: usize) -> usize {
    ((8 << 20) / columns.max(1)).clamp(1024, 65_536)
}
