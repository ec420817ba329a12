//! Raw samples and the per-cell summary as CSV, JSON and Parquet, for other tools. Both tables
//! share one column model (`table.rs`); each format has its own file.

mod csv;
mod json;
mod parquet;
mod table;

pub use table::{picks_table, run_ids, samples_table, summary_table, Column, Table};

use crate::results::Record;
use crate::stats::Pick;
use crate::stats::RunSummary;
use crate::Error;
use std::path::Path;

/// Writes `samples.{csv,json,parquet}`, `summary.{csv,json,parquet}` and the recommendation's
/// `picks.{csv,json,parquet}` into `dir`.
pub fn write_exports(
    records: &[Record],
    summary: &RunSummary,
    picks: &[Pick],
    dir: &Path,
) -> Result<(), Error> {
    for (name, table) in [
        ("samples", samples_table(records)),
        ("summary", summary_table(summary, picks, &run_ids(records))),
        ("picks", picks_table(picks)),
    ] {
        write_table(&table, name, dir)?;
    }
    Ok(())
}

/// Writes `table` as `NAME.csv`, `NAME.json` and `NAME.parquet` into `dir`.
pub fn write_table(table: &Table, name: &str, dir: &Path) -> Result<(), Error> {
    csv::write(table, &dir.join(format!("{name}.csv")))?;
    json::write(table, &dir.join(format!("{name}.json")))?;
    parquet::write(table, &dir.join(format!("{name}.parquet")))
}
