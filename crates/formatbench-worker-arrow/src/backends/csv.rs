//! CSV through arrow-csv: header line, the source schema given to the reader (inference would read
//! the file twice and guess types), batches of 65,536 rows.

use super::{column_indices, data_file, Backend, Context, Loaded, Request};
use crate::rows::{batch_rows, filter_index_range, take_positions};
use crate::WorkerError;
use arrow::array::RecordBatch;
use arrow::csv::{ReaderBuilder, WriterBuilder};
use formatbench_protocol::{Op, RangeSpec, ALL_OPS};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;

mod parallel;

pub struct Csv;

const BATCH_ROWS: usize = 65_536;

impl Csv {
    fn reader(
        &self,
        ctx: &Context,
        dir: &Path,
        projection: Option<Vec<usize>>,
        bounds: Option<(usize, usize)>,
    ) -> Result<Vec<RecordBatch>, WorkerError> {
        if bounds.is_none() && ctx.threads > 1 {
            if let Some(batches) = parallel::read(ctx, dir, projection.clone(), BATCH_ROWS)? {
                return Ok(batches);
            }
        }
        let file = File::open(data_file(dir, "csv"))?;
        let mut builder = ReaderBuilder::new(ctx.schema.clone())
            .with_header(true)
            .with_batch_size(BATCH_ROWS);
        if let Some(projection) = projection {
            builder = builder.with_projection(projection);
        }
        if let Some((start, end)) = bounds {
            builder = builder.with_bounds(start, end);
        }
        let reader = builder.build(BufReader::with_capacity(1 << 20, file))?;
        Ok(reader.collect::<Result<Vec<_>, _>>()?)
    }
}

impl Backend for Csv {
    fn name(&self) -> &'static str {
        "csv"
    }
    fn about(&self) -> &'static str {
        "CSV text via arrow-csv (header, schema given, 64 Ki-row batches)"
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default"]
    }
    fn ops(&self) -> &'static [Op] {
        &ALL_OPS
    }
    fn lossy(&self) -> bool {
        true
    }
    fn can_store(&self, schema: &arrow::datatypes::Schema) -> Result<(), String> {
        match schema.fields().iter().find(|f| f.data_type().is_nested()) {
            Some(f) => Err(format!(
                "CSV cannot store the nested column '{}' ({})",
                f.name(),
                f.data_type()
            )),
            None => Ok(()),
        }
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), WorkerError> {
        if ctx.threads > 1 {
            return parallel::write(ctx.threads, batches, &data_file(dir, "csv"));
        }
        let file = BufWriter::with_capacity(1 << 20, File::create(data_file(dir, "csv"))?);
        let mut writer = WriterBuilder::new().with_header(true).build(file);
        for batch in batches {
            writer.write(batch)?;
        }
        let file = writer.into_inner();
        file.into_inner().map_err(|e| e.into_error())?;
        Ok(())
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), WorkerError> {
        Ok(match request {
            Request::All => (
                Loaded::Table(self.reader(ctx, dir, None, None)?),
                "full parse",
            ),
            Request::Columns(names) => {
                let projection = column_indices(ctx.schema, names)?;
                (
                    Loaded::Table(self.reader(ctx, dir, Some(projection), None)?),
                    "every line tokenized, projected columns parsed",
                )
            }
            Request::Range(RangeSpec::Position { start, end }) => {
                // Bounds count data lines; the header line is skipped before them.
                let batches =
                    self.reader(ctx, dir, None, Some((*start as usize, *end as usize)))?;
                (
                    Loaded::Table(batches),
                    "lines before the range skipped unparsed",
                )
            }
            Request::Range(RangeSpec::Index { column, start, end }) => {
                let batches = self
                    .reader(ctx, dir, None, None)?
                    .iter()
                    .map(|b| filter_index_range(b, column, *start, *end))
                    .collect::<Result<Vec<_>, _>>()?;
                (
                    Loaded::Table(batches),
                    "full parse + filter on the index column",
                )
            }
            Request::Take(rows) => {
                let batches = self.reader(ctx, dir, None, None)?;
                let taken =
                    take_positions(&batch_rows(&batches), rows, |i| Ok(batches[i].clone()))?;
                (
                    Loaded::Table(taken.into_iter().collect()),
                    "full parse + take",
                )
            }
        })
    }

    fn settings(&self, _ctx: &Context, _dir: &Path) -> BTreeMap<String, String> {
        BTreeMap::from([
            ("header".into(), "true".into()),
            (
                "library".into(),
                format!("arrow-csv {}", crate::ARROW_VERSION),
            ),
            ("schema".into(), "given (not inferred)".into()),
            ("batch_rows".into(), BATCH_ROWS.to_string()),
            (
                "parallelism".into(),
                "row chunks parsed and formatted on every thread (one thread when quotes occur)"
                    .into(),
            ),
        ])
    }
}
