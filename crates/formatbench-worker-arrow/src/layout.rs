//! Layouts of a feature matrix (the layout study's): `wide` stores one float32 column per
//! feature; `array` stores every feature of a row in one field, in the format's
//! [`ArrayForm`]. The layout itself is shared with the heavy workers (formatbench-worker-kit);
//! the matrix operations on these backends' own access paths are in [`matrix`].

pub mod matrix;

use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::datatypes::{Schema, SchemaRef};
pub use formatbench_worker_kit::layout::{
    feature_names, write_sidecar, ArrayForm, ARRAY, FEATURES, SIDECAR, WIDE,
};

/// The schema a table of `source`'s schema has in the array layout.
pub fn array_schema(form: ArrayForm, source: &Schema) -> Result<SchemaRef, WorkerError> {
    Ok(formatbench_worker_kit::layout::array_schema_as(
        form, source,
    )?)
}

/// One batch of the source in the array layout (`schema` from [`array_schema`]).
pub fn to_array(
    form: ArrayForm,
    schema: &SchemaRef,
    batch: &RecordBatch,
) -> Result<RecordBatch, WorkerError> {
    Ok(formatbench_worker_kit::layout::to_array_as(
        form, schema, batch,
    )?)
}

/// A batch read from the array layout back in the source's wide shape, for verification.
pub fn to_wide(batch: &RecordBatch, source: &Schema) -> Result<RecordBatch, WorkerError> {
    Ok(formatbench_worker_kit::layout::to_wide(batch, source)?)
}
