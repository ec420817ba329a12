//! DuckDB through duckdb-rs 1.10506 (DuckDB 1.5.6), linked against the prebuilt library: one
//! database file per artifact, written by the Arrow appender and checkpointed; reads are SQL
//! streamed back as Arrow. The wide layout is one column per feature; the array layout stores
//! the features as `FLOAT[D]`, as the layout study's `duckdb_array`.

use arrow::array::{Array, AsArray, RecordBatch, UInt32Array};
use arrow::compute::{concat_batches, take_record_batch};
use arrow::datatypes::{DataType, Int64Type, TimeUnit};
use duckdb::{AccessMode, Config, Connection};
use formatbench_protocol::Op;
use formatbench_worker_kit::layout::ArrayForm;
use formatbench_worker_kit::{
    ranges_unsupported, Backend, Context, KitError, Loaded, Request, TABLE_FORMAT_OPS,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct DuckDb;

const TABLE: &str = "t";

fn library(e: duckdb::Error) -> KitError {
    KitError::Library(format!("duckdb: {e}"))
}

fn database(dir: &Path) -> PathBuf {
    dir.join("data.duckdb")
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// DuckDB's column type for an Arrow type, or why it has none here.
fn sql_type(name: &str, data_type: &DataType) -> Result<String, KitError> {
    Ok(match data_type {
        DataType::Boolean => "BOOLEAN".into(),
        DataType::Int8 => "TINYINT".into(),
        DataType::Int16 => "SMALLINT".into(),
        DataType::Int32 => "INTEGER".into(),
        DataType::Int64 => "BIGINT".into(),
        DataType::UInt8 => "UTINYINT".into(),
        DataType::UInt16 => "USMALLINT".into(),
        DataType::UInt32 => "UINTEGER".into(),
        DataType::UInt64 => "UBIGINT".into(),
        DataType::Float32 => "FLOAT".into(),
        DataType::Float64 => "DOUBLE".into(),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => "VARCHAR".into(),
        DataType::Date32 => "DATE".into(),
        DataType::Timestamp(TimeUnit::Second, None) => "TIMESTAMP_S".into(),
        DataType::Timestamp(TimeUnit::Millisecond, None) => "TIMESTAMP_MS".into(),
        DataType::Timestamp(TimeUnit::Microsecond, None) => "TIMESTAMP".into(),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => "TIMESTAMP_NS".into(),
        DataType::Dictionary(_, value) if value.as_ref() == &DataType::Utf8 => "VARCHAR".into(),
        DataType::FixedSizeList(item, size) if item.data_type() == &DataType::Float32 => {
            format!("FLOAT[{size}]")
        }
        other => {
            return Err(KitError::Unsupported(format!(
                "duckdb: column '{name}' is {other}, which this worker does not map"
            )))
        }
    })
}

fn open(dir: &Path, threads: usize, read_only: bool) -> Result<Connection, KitError> {
    let mut config = Config::default().threads(threads as i64).map_err(library)?;
    if read_only {
        config = config.access_mode(AccessMode::ReadOnly).map_err(library)?;
    }
    Connection::open_with_flags(database(dir), config).map_err(library)
}

fn query(conn: &Connection, sql: &str) -> Result<Vec<RecordBatch>, KitError> {
    let mut statement = conn.prepare(sql).map_err(library)?;
    let stream = statement.stream_arrow([]).map_err(library)?;
    Ok(stream.collect())
}

fn select_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| quote(n))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Backend for DuckDb {
    type Error = KitError;

    fn name(&self) -> &'static str {
        "duckdb"
    }

    fn format(&self) -> Option<String> {
        Some("duckdb".into())
    }

    fn object_storage(&self) -> Result<(), String> {
        Err(
            "DuckDB reads S3 through its httpfs extension, which it downloads at run time \
             (no package registry here serves it)"
                .into(),
        )
    }
    fn about(&self) -> &'static str {
        "DuckDB 1.5.6 database file via duckdb-rs (Arrow appender, CHECKPOINT; reads stream Arrow from SQL; array layout FLOAT[D])"
    }
    fn profiles(&self) -> &'static [&'static str] {
        // The layout study's DuckDB has no compact profile: DuckDB picks its own compression.
        &["default"]
    }
    fn ops(&self) -> &'static [Op] {
        &TABLE_FORMAT_OPS
    }
    fn array_form(&self) -> Option<ArrayForm> {
        Some(ArrayForm::FixedList)
    }
    fn version(&self) -> String {
        Connection::open_in_memory()
            .and_then(|c| c.query_row("SELECT version()", [], |row| row.get::<_, String>(0)))
            .unwrap_or_else(|e| format!("unknown ({e})"))
    }

    fn write(&self, ctx: &Context, batches: &[RecordBatch], dir: &Path) -> Result<(), KitError> {
        let columns = ctx
            .schema
            .fields()
            .iter()
            .map(|f| {
                Ok(format!(
                    "{} {}",
                    quote(f.name()),
                    sql_type(f.name(), f.data_type())?
                ))
            })
            .collect::<Result<Vec<_>, KitError>>()?;
        let conn = open(dir, ctx.threads, false)?;
        conn.execute_batch(&format!("CREATE TABLE {TABLE} ({})", columns.join(", ")))
            .map_err(library)?;
        {
            let mut appender = conn.appender(TABLE).map_err(library)?;
            for batch in batches {
                appender
                    .append_record_batch(batch.clone())
                    .map_err(library)?;
            }
            appender.flush().map_err(library)?;
        }
        conn.execute_batch("CHECKPOINT").map_err(library)?;
        conn.close().map_err(|(_, e)| library(e))
    }

    fn read(
        &self,
        ctx: &Context,
        dir: &Path,
        request: Request,
    ) -> Result<(Loaded, &'static str), KitError> {
        let read = || -> Result<(Vec<RecordBatch>, &'static str), KitError> {
            let conn = open(dir, ctx.threads, true)?;
            match request {
                Request::All => Ok((query(&conn, &format!("SELECT * FROM {TABLE}"))?, "SELECT *")),
                Request::Columns(names) => Ok((
                    query(
                        &conn,
                        &format!("SELECT {} FROM {TABLE}", select_list(names)),
                    )?,
                    "SELECT of the columns",
                )),
                Request::Range(_) => Err(ranges_unsupported(self.name())),
                Request::Take(rows, columns) => {
                    let names: Vec<String> = match columns {
                        Some(names) => names.to_vec(),
                        None => ctx
                            .schema
                            .fields()
                            .iter()
                            .map(|f| f.name().clone())
                            .collect(),
                    };
                    let ids: Vec<String> = rows.iter().map(|r| r.to_string()).collect();
                    let sql = format!(
                        "SELECT rowid, {} FROM {TABLE} WHERE rowid IN ({})",
                        select_list(&names),
                        ids.join(", ")
                    );
                    let found = query(&conn, &sql)?;
                    Ok((
                        vec![in_request_order(&found, rows)?],
                        "rowid IN (…) + reorder",
                    ))
                }
            }
        };
        read().map(|(batches, how)| (batches.into(), how))
    }

    fn settings(&self, ctx: &Context, dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::from([
            (
                "library".to_string(),
                format!("duckdb-rs 1.10506.0 ({})", self.version()),
            ),
            ("threads_setting".to_string(), ctx.threads.to_string()),
        ]);
        // The compression DuckDB chose, read back from the file's segments.
        let chosen = open(dir, 1, true).and_then(|conn| {
            let sql = format!(
                "SELECT compression, count(*)::BIGINT FROM pragma_storage_info('{TABLE}') \
                 GROUP BY 1 ORDER BY 2 DESC"
            );
            let mut statement = conn.prepare(&sql).map_err(library)?;
            let rows = statement
                .query_map([], |row| {
                    Ok(format!(
                        "{} ×{}",
                        row.get::<_, String>(0)?,
                        row.get::<_, i64>(1)?
                    ))
                })
                .map_err(library)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(library)
        });
        if let Ok(chosen) = chosen {
            out.insert("segment_compression".into(), chosen.join(", "));
        }
        out
    }
}

/// The rows found by `rowid IN (…)` (first column), in the order `rows` asked for, without the
/// rowid column.
fn in_request_order(found: &[RecordBatch], rows: &[u64]) -> Result<RecordBatch, KitError> {
    let Some(first) = found.first() else {
        return Err(KitError::Invalid("no row matched the take".into()));
    };
    let all = concat_batches(&first.schema(), found)?;
    let ids = all
        .column(0)
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| {
            KitError::Invalid(format!("rowid came back as {}", all.column(0).data_type()))
        })?;
    let mut at = BTreeMap::new();
    for i in 0..ids.len() {
        at.insert(ids.value(i) as u64, i as u32);
    }
    let order = rows
        .iter()
        .map(|r| {
            at.get(r)
                .copied()
                .ok_or_else(|| KitError::Invalid(format!("row {r} is past the end")))
        })
        .collect::<Result<Vec<u32>, _>>()?;
    let taken = take_record_batch(&all, &UInt32Array::from(order))?;
    let keep: Vec<usize> = (1..taken.num_columns()).collect();
    Ok(taken.project(&keep)?)
}
