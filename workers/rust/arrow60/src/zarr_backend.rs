//! Zarr v3 through zarrs 0.23.14: a store directory `data.zarr` per artifact holding a root
//! group and one array per column, laid out as in the layout study (§3):
//!
//! - `wide`: one 1-D float32 array per feature under `features/<name>`, chunks of
//!   min(rows, 1024);
//! - `array`: one 2-D float32 array `features` of shape (rows, D), chunks
//!   (min(rows, 1024), min(D, 1024));
//! - both: every other column as a 1-D array under `columns/<name>` (numbers as themselves,
//!   utf8 as `string` with the `vlen-utf8` codec, binary as `bytes`, timestamps, dates and
//!   durations as `numpy.datetime64` / `numpy.timedelta64`, bool as `bool`).
//!
//! The root group's attributes list the columns (name, array path, Arrow type) in table order.
//! zarrs encodes and decodes chunks on rayon's global pool, built once with the job's thread cap;
//! columns are read and written in parallel on that same pool.
//!
//! zarrs 0.23.14's plain (non-`_opt`) sync calls use `CodecOptions::default()`, not the global
//! configuration, so this backend always passes the configured options explicitly: otherwise
//! chunks equal to the fill value would still be skipped.

use arrow::array::{Array as _, AsArray, RecordBatch, RecordBatchOptions};
use formatbench_protocol::Op;
use formatbench_worker_kit::layout::ArrayForm;
use formatbench_worker_kit::{
    ranges_unsupported, Backend, Context, KitError, Loaded, Request, TABLE_FORMAT_OPS,
};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use zarrs::array::Array;
use zarrs::filesystem::FilesystemStore;
use zarrs::group::GroupBuilder;

pub struct Zarr;

mod read;
mod remote;
mod store;
mod types;
mod write;

use read::*;
use store::*;
use types::*;
use write::*;

fn read_json(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// `name(key=value, ...)` for each codec of an array's metadata, joined by ` > `.
fn describe_codecs(metadata: &serde_json::Value) -> String {
    let Some(codecs) = metadata.get("codecs").and_then(|c| c.as_array()) else {
        return "unknown".into();
    };
    codecs
        .iter()
        .map(|codec| {
            let name = codec.get("name").and_then(|n| n.as_str()).unwrap_or("?");
            let config = codec
                .get("configuration")
                .and_then(|c| c.as_object())
                .map(|c| {
                    c.iter()
                        .map(|(k, v)| match v {
                            serde_json::Value::String(s) => format!("{k}={s}"),
                            other => format!("{k}={other}"),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            if config.is_empty() {
                name.to_string()
            } else {
                format!("{name}({config})")
            }
        })
        .collect::<Vec<_>>()
        .join(" > ")
}

fn chunk_shape(metadata: &serde_json::Value) -> String {
    metadata
        .pointer("/chunk_grid/configuration/chunk_shape")
        .map_or_else(|| "unknown".into(), |s| s.to_string())
}

impl Backend for Zarr {
    type Error = KitError;

    fn name(&self) -> &'static str {
        "zarr"
    }

    fn format(&self) -> Option<String> {
        Some("zarr".into())
    }

    /// Reads through zarrs_object_store on formatbench's S3 client: one GET per chunk and
    /// metadata document.
    fn object_storage(&self) -> Result<(), String> {
        Ok(())
    }
    fn about(&self) -> &'static str {
        "Zarr v3 store via zarrs 0.23.14: wide = one 1-D float32 array per feature, array = one 2-D \
         float32 array (chunks of min(rows,1024) rows x min(D,1024) features), other columns as \
         1-D arrays (utf8 as vlen-utf8 strings). Profiles: default = Blosc lz4 level 5 + byte \
         shuffle (zarr-python 2's default, as in the layout study; zarrs itself writes \
         uncompressed), compact = Blosc zstd level 5 + byte shuffle. Empty chunks are stored."
    }
    fn profiles(&self) -> &'static [&'static str] {
        &["default", "compact"]
    }
    fn ops(&self) -> &'static [Op] {
        &TABLE_FORMAT_OPS
    }
    fn array_form(&self) -> Option<ArrayForm> {
        Some(ArrayForm::FixedList)
    }
    fn version(&self) -> String {
        "0.23.14".into()
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError> {
        init(ctx.threads);
        let columns = plan(ctx)?;
        for column in &columns {
            for batch in batches {
                let array = batch.column(column.index);
                let nulls = match column.map.kind {
                    Kind::Matrix { .. } => {
                        array.null_count() + array.as_fixed_size_list().values().null_count()
                    }
                    _ => array.null_count(),
                };
                if nulls > 0 {
                    return Err(KitError::Unsupported(format!(
                        "zarr: column '{}' has null values; Zarr arrays have no validity mask \
                         (only a fill value), so nulls would not read back",
                        column.name
                    )));
                }
            }
        }
        let rows: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
        let root = root(dir);
        std::fs::create_dir_all(&root)?;
        let store = Arc::new(FilesystemStore::new(&root).map_err(library)?);

        let listed: Vec<serde_json::Value> = columns
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "path": c.path,
                    "arrow_type": ctx.schema.field(c.index).data_type().to_string(),
                })
            })
            .collect();
        let mut attributes = serde_json::Map::new();
        attributes.insert(
            ATTRIBUTE.into(),
            serde_json::json!({
                "layout": ctx.layout,
                "profile": ctx.profile,
                "rows": rows,
                "columns": listed,
            }),
        );
        GroupBuilder::new()
            .attributes(attributes)
            .build(store.clone(), "/")
            .map_err(library)?
            .store_metadata()
            .map_err(library)?;
        for group in ["/features", "/columns"] {
            let prefix = format!("{group}/");
            if columns.iter().any(|c| c.path.starts_with(&prefix)) {
                GroupBuilder::new()
                    .build(store.clone(), group)
                    .map_err(library)?
                    .store_metadata()
                    .map_err(library)?;
            }
        }
        let options = codec_options();
        columns
            .par_iter()
            .try_for_each(|c| write_column(ctx, &store, c, batches, rows, &options))
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), KitError> {
        let read = || -> Result<(Vec<RecordBatch>, &'static str), KitError> {
            init(ctx.threads);
            let store = match ctx.remote {
                Some(target) => remote::open_remote(target, ctx.threads)?,
                None => open_store(dir)?,
            };
            let (stored, stored_rows) = stored_columns(&store)?;
            let all: Vec<String> = ctx
                .schema
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect();
            let (names, rows, method): (&[String], Option<&[u64]>, &'static str) = match request {
                Request::All => (
                    &all,
                    None,
                    "every array read whole, arrays in parallel on the rayon pool",
                ),
                Request::Columns(names) => (
                    names,
                    None,
                    "only the named arrays read, each whole, in parallel on the rayon pool",
                ),
                Request::Range(_) => return Err(ranges_unsupported(self.name())),
                Request::Take(rows, columns) => (
                    columns.unwrap_or(&all),
                    Some(rows),
                    "per array, one subset per chunk holding requested rows (their span), decoded \
                     once, then gathered in request order",
                ),
            };
            let indices = names
                .iter()
                .map(|n| {
                    ctx.schema
                        .index_of(n)
                        .map_err(|_| KitError::Invalid(format!("no column named '{n}'")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let options = codec_options();
            let columns = indices
                .par_iter()
                .map(|&i| {
                    let field = ctx.schema.field(i);
                    let map = mapping(field)?;
                    let path = stored.get(field.name()).ok_or_else(|| {
                        KitError::Invalid(format!("the store has no array for '{}'", field.name()))
                    })?;
                    let array = Array::open(store.clone(), path).map_err(library)?;
                    let n = array.shape().first().copied().unwrap_or(0);
                    let (values, len) = match rows {
                        None => (retrieve(&array, 0..n, &options)?, n as usize),
                        Some(rows) => (retrieve_rows(&array, rows, &options)?, rows.len()),
                    };
                    to_arrow(field, map.kind, values, len)
                })
                .collect::<Result<Vec<_>, _>>()?;
            let schema = Arc::new(ctx.schema.project(&indices)?);
            let len = match (rows, columns.first()) {
                (Some(rows), _) => rows.len(),
                (None, Some(first)) => first.len(),
                (None, None) => stored_rows as usize,
            };
            let options = RecordBatchOptions::new().with_row_count(Some(len));
            let batch = RecordBatch::try_new_with_options(schema, columns, &options)?;
            Ok((vec![batch], method))
        };
        read().map(|(batches, how)| (batches.into(), how))
    }

    fn settings(&self, _ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::from([
            ("library".to_string(), LIBRARY.to_string()),
            ("zarr_format".to_string(), "3".to_string()),
        ]);
        let root = root(dir);
        let Some(group) = read_json(&root.join("zarr.json")) else {
            return out;
        };
        let paths: Vec<String> = group
            .pointer(&format!("/attributes/{ATTRIBUTE}/columns"))
            .and_then(|c| c.as_array())
            .map(|columns| {
                columns
                    .iter()
                    .filter_map(|c| c.get("path")?.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        out.insert("arrays".into(), paths.len().to_string());
        let metadata =
            |path: &str| read_json(&root.join(path.trim_start_matches('/')).join("zarr.json"));
        let feature = paths.iter().find(|p| p.starts_with("/features"));
        if let Some(meta) = feature.and_then(|p| metadata(p)) {
            out.insert("codecs".into(), describe_codecs(&meta));
            out.insert("chunk_shape".into(), chunk_shape(&meta));
        }
        // The first column of each other array-to-bytes codec (e.g. vlen-utf8 for strings).
        let mut seen = HashSet::new();
        for path in paths.iter().filter(|p| !p.starts_with("/features")) {
            let Some(meta) = metadata(path) else { continue };
            let codecs = describe_codecs(&meta);
            let first = codecs
                .split(['(', ' '])
                .next()
                .unwrap_or_default()
                .to_string();
            if seen.insert(first.clone()) {
                let name = path.rsplit('/').next().unwrap_or(path);
                out.insert(format!("codecs[{name}]"), codecs);
                if feature.is_none() && !out.contains_key("chunk_shape") {
                    out.insert("chunk_shape".into(), chunk_shape(&meta));
                }
            }
        }
        out
    }
}
