//! The tables exports are made of: named, typed, nullable columns. Column names and meanings
//! are documented in docs/results.md.

use crate::results::{Record, SampleRecord};
use crate::stats::Pick;
use crate::stats::RunSummary;
use arrow::array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Text(Vec<Option<String>>),
    Float(Vec<Option<f64>>),
    Count(Vec<Option<u64>>),
    Flag(Vec<Option<bool>>),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(&'static str, Column)>,
    pub rows: usize,
}

impl Table {
    pub fn new(rows: usize) -> Self {
        Table {
            columns: Vec::new(),
            rows,
        }
    }

    pub fn text<T>(&mut self, name: &'static str, items: &[T], f: impl Fn(&T) -> Option<String>) {
        self.columns
            .push((name, Column::Text(items.iter().map(f).collect())));
    }
    pub fn float<T>(&mut self, name: &'static str, items: &[T], f: impl Fn(&T) -> Option<f64>) {
        self.columns
            .push((name, Column::Float(items.iter().map(f).collect())));
    }
    pub fn count<T>(&mut self, name: &'static str, items: &[T], f: impl Fn(&T) -> Option<u64>) {
        self.columns
            .push((name, Column::Count(items.iter().map(f).collect())));
    }
    pub fn flag<T>(&mut self, name: &'static str, items: &[T], f: impl Fn(&T) -> Option<bool>) {
        self.columns
            .push((name, Column::Flag(items.iter().map(f).collect())));
    }

    /// The table as one Arrow batch (for CSV and Parquet).
    pub fn to_batch(&self) -> Result<RecordBatch, arrow::error::ArrowError> {
        let mut fields = Vec::new();
        let mut arrays: Vec<ArrayRef> = Vec::new();
        for (name, column) in &self.columns {
            let (data_type, array): (DataType, ArrayRef) = match column {
                Column::Text(v) => (DataType::Utf8, Arc::new(StringArray::from(v.clone()))),
                Column::Float(v) => (DataType::Float64, Arc::new(Float64Array::from(v.clone()))),
                // Signed, as CSV readers (DuckDB, Polars, pandas) infer a column of integers,
                // so that the CSV and the Parquet export load as the same type. No count comes
                // near 2^63.
                Column::Count(v) => {
                    let signed: Vec<Option<i64>> = v
                        .iter()
                        .map(|c| c.map(|c| i64::try_from(c).unwrap_or(i64::MAX)))
                        .collect();
                    (DataType::Int64, Arc::new(Int64Array::from(signed)))
                }
                Column::Flag(v) => (DataType::Boolean, Arc::new(BooleanArray::from(v.clone()))),
            };
            fields.push(Field::new(*name, data_type, true));
            arrays.push(array);
        }
        let options = arrow::array::RecordBatchOptions::new().with_row_count(Some(self.rows));
        RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
    }
}

fn cell_columns<T>(table: &mut Table, items: &[T], key: impl Fn(&T) -> &crate::results::CellKey) {
    table.text("dataset", items, |s| Some(key(s).dataset.clone()));
    table.text("dataset_fingerprint", items, |s| {
        Some(key(s).dataset_fingerprint.clone())
    });
    table.text("backend", items, |s| Some(key(s).backend.clone()));
    table.text("profile", items, |s| Some(key(s).profile.clone()));
    table.text("layout", items, |s| Some(key(s).layout.clone()));
    table.text("target", items, |s| Some(key(s).target.clone()));
    table.text("op", items, |s| Some(key(s).op.clone()));
    table.count("threads", items, |s| Some(u64::from(key(s).threads)));
    table.text("cache", items, |s| Some(key(s).cache.clone()));
    table.text("storage", items, |s| Some(key(s).storage.clone()));
    table.text("network", items, |s| Some(key(s).network.clone()));
    // The row-group sweep's point; null for every other cell.
    table.count("row_group_rows", items, |s| key(s).row_group_rows);
    table.count("parquet_files", items, |s| key(s).parquet_files);
    table.text("sort_by", items, |s| key(s).sort_by.clone());
    table.count("executors", items, |s| key(s).executors.map(u64::from));
}

/// Every sample record, in file order.
pub fn samples_table(records: &[Record]) -> Table {
    let samples: Vec<&SampleRecord> = records
        .iter()
        .filter_map(|r| match r {
            Record::Sample(s) => Some(s.as_ref()),
            _ => None,
        })
        .collect();
    let mut t = Table::new(samples.len());
    t.text("run_id", &samples, |s| Some(s.run_id.clone()));
    cell_columns(&mut t, &samples, |s| &s.cell);
    t.count("round", &samples, |s| s.round.map(u64::from));
    t.count("position", &samples, |s| s.position.map(u64::from));
    t.text("status", &samples, |s| Some(s.status.name().to_string()));
    t.text("reason", &samples, |s| s.reason.clone());
    t.float("wall_s", &samples, |s| s.wall_s);
    t.float("cpu_user_s", &samples, |s| s.cpu_user_s);
    t.float("cpu_sys_s", &samples, |s| s.cpu_sys_s);
    t.count("peak_rss_bytes", &samples, |s| s.peak_rss_bytes);
    t.count("size_bytes", &samples, |s| s.size_bytes);
    t.count("calls", &samples, |s| s.calls);
    t.float("first_call_s", &samples, |s| s.first_call_s);
    t.float("warm_call_s", &samples, |s| s.warm_call_s);
    t.float("first_call_cpu_s", &samples, |s| s.first_call_cpu_s);
    t.float("warm_call_cpu_s", &samples, |s| s.warm_call_cpu_s);
    t.float("commit_s", &samples, |s| s.commit_s);
    t.float("parallelism", &samples, |s| s.parallelism);
    t.float("resident_fraction", &samples, |s| s.resident_fraction);
    t.count("read_bytes", &samples, |s| s.read_bytes);
    t.count("write_bytes", &samples, |s| s.write_bytes);
    t.count("requested_bytes", &samples, |s| s.requested_bytes);
    t.count("result_bytes", &samples, |s| s.result_bytes);
    t.count("needed_bytes", &samples, |s| s.needed_bytes);
    t.count("needed_ranges", &samples, |s| s.needed_ranges);
    t.count("rows_returned", &samples, |s| s.rows_returned);
    t.count("columns_returned", &samples, |s| s.columns_returned);
    t.count("minflt", &samples, |s| s.minflt);
    t.count("majflt", &samples, |s| s.majflt);
    t.count("nvcsw", &samples, |s| s.nvcsw);
    t.count("nivcsw", &samples, |s| s.nivcsw);
    t.count("rss_before_bytes", &samples, |s| s.rss_before_bytes);
    t.count("rss_anon_bytes", &samples, |s| s.rss_anon_bytes);
    t.count("rss_file_bytes", &samples, |s| s.rss_file_bytes);
    t.count("accounted_processes", &samples, |s| s.accounted_processes);
    t.float("cluster_start_s", &samples, |s| s.cluster_start_s);
    t.float("process_wall_s", &samples, |s| s.process_wall_s);
    t.float("process_cpu_user_s", &samples, |s| s.process_cpu_user_s);
    t.float("process_cpu_sys_s", &samples, |s| s.process_cpu_sys_s);
    t.float("process_unwaited_cpu_s", &samples, |s| {
        s.process_unwaited_cpu_s
    });
    t.count("process_maxrss_bytes", &samples, |s| s.process_maxrss_bytes);
    t.text("method", &samples, |s| s.method.clone());
    t.text("flags", &samples, |s| {
        (!s.flags.is_empty()).then(|| s.flags.join("; "))
    });
    t.text("worker_build", &samples, |s| s.worker_build.clone());
    t.text("reused_from", &samples, |s| s.reused_from.clone());
    t.float("load1_before", &samples, |s| {
        s.machine_load.map(|l| l.load1_before)
    });
    t.float("other_cpu_share", &samples, |s| {
        s.machine_load.and_then(|l| l.other_cpu_share)
    });
    t.float("steal_share", &samples, |s| {
        s.machine_load.and_then(|l| l.steal_share)
    });
    t
}

/// The runs whose samples a summary holds, `+`-joined (a pooled report holds several), so a
/// summary row names where its numbers came from.
pub fn run_ids(records: &[Record]) -> String {
    let ids: std::collections::BTreeSet<&str> = records
        .iter()
        .filter_map(|r| match r {
            Record::Sample(s) => Some(s.run_id.as_str()),
            _ => None,
        })
        .collect();
    ids.into_iter().collect::<Vec<_>>().join("+")
}

/// One row per cell, in report order (groups, fastest first), each naming the `runs` its
/// samples came from ([`run_ids`]).
pub fn summary_table(summary: &RunSummary, picks: &[Pick], runs: &str) -> Table {
    let cells: Vec<&crate::stats::CellSummary> =
        summary.groups.iter().flat_map(|g| &g.cells).collect();
    let mut t = Table::new(cells.len());
    t.text("run_id", &cells, |_| Some(runs.to_string()));
    cell_columns(&mut t, &cells, |c| &c.cell);
    t.text("status", &cells, |c| Some(c.status.name().to_string()));
    t.text("reason", &cells, |c| c.reason.clone());
    t.text("call", &cells, |_| Some(summary.call.name().to_string()));
    t.count("samples", &cells, |c| c.wall.map(|w| w.n as u64));
    t.float("min_s", &cells, |c| c.wall.map(|w| w.min));
    t.float("q25_s", &cells, |c| c.wall.map(|w| w.q25));
    t.float("median_s", &cells, |c| c.wall.map(|w| w.median));
    t.float("q75_s", &cells, |c| c.wall.map(|w| w.q75));
    t.float("max_s", &cells, |c| c.wall.map(|w| w.max));
    t.flag("noisy", &cells, |c| c.wall.map(|w| w.noisy()));
    t.float("ratio", &cells, |c| c.ratio_to_best);
    t.float("ratio_lo", &cells, |c| c.ratio.map(|r| r.lo));
    t.float("ratio_hi", &cells, |c| c.ratio.map(|r| r.hi));
    t.float("cpu_ratio", &cells, |c| c.cpu_ratio.map(|r| r.estimate));
    t.float("cpu_ratio_lo", &cells, |c| c.cpu_ratio.map(|r| r.lo));
    t.float("cpu_ratio_hi", &cells, |c| c.cpu_ratio.map(|r| r.hi));
    t.float("median_cpu_s", &cells, |c| c.cpu.map(|w| w.median));
    t.float("first_call_median_s", &cells, |c| {
        c.first_call.map(|w| w.median)
    });
    t.float("warm_call_median_s", &cells, |c| {
        c.warm_call.map(|w| w.median)
    });
    t.float("bytes_per_s", &cells, |c| {
        c.throughput.and_then(|t| t.bytes_per_s)
    });
    t.float("rows_per_s", &cells, |c| {
        c.throughput.and_then(|t| t.rows_per_s)
    });
    t.float("parallelism", &cells, |c| c.parallelism);
    t.count("peak_rss_bytes", &cells, |c| c.peak_rss_bytes);
    t.count("size_bytes", &cells, |c| c.size_bytes);
    t.float("bytes_per_value", &cells, |c| c.bytes_per_value);
    t.float("resident_fraction", &cells, |c| c.resident_fraction);
    t.count("read_bytes", &cells, |c| c.read_bytes);
    t.count("requested_bytes", &cells, |c| c.requested_bytes);
    t.count("full_read_bytes", &cells, |c| {
        c.full_read.and_then(|f| f.read_bytes)
    });
    t.count("full_read_requested_bytes", &cells, |c| {
        c.full_read.and_then(|f| f.requested_bytes)
    });
    t.float("read_amplification", &cells, |c| c.read_amplification);
    t.count("needed_bytes", &cells, |c| c.needed_bytes);
    t.count("needed_ranges", &cells, |c| c.needed_ranges);
    t.count("calls", &cells, |c| c.calls);
    t.text("method", &cells, |c| c.method.clone());
    t.text("flags", &cells, |c| {
        (!c.flags.is_empty()).then(|| c.flags.join("; "))
    });
    // The priorities for which the recommendation picks this competitor on this dataset.
    t.text("recommended_for", &cells, |c| {
        let of: Vec<&str> = picks
            .iter()
            .filter(|p| {
                p.dataset == c.cell.dataset
                    && p.backend == c.cell.backend
                    && p.profile == c.cell.profile
            })
            .map(|p| p.prefer)
            .collect();
        (!of.is_empty()).then(|| of.join("; "))
    });
    t
}

/// The recommendation's picks, one row per dataset and priority, with the margin over the
/// runner-up (as `recommendation.json`'s `picks`, flat).
pub fn picks_table(picks: &[Pick]) -> Table {
    let picks: Vec<&Pick> = picks.iter().collect();
    let mut t = Table::new(picks.len());
    t.text("dataset", &picks, |p| Some(p.dataset.clone()));
    t.text("prefer", &picks, |p| Some(p.prefer.to_string()));
    t.text("backend", &picks, |p| Some(p.backend.clone()));
    t.text("profile", &picks, |p| Some(p.profile.clone()));
    t.text("runner_up", &picks, |p| {
        p.margin.as_ref().map(|m| m.runner_up.clone())
    });
    t.float("margin", &picks, |p| p.margin.as_ref().map(|m| m.ratio));
    t.float("margin_lo", &picks, |p| {
        p.margin.as_ref().and_then(|m| m.lo)
    });
    t.float("margin_hi", &picks, |p| {
        p.margin.as_ref().and_then(|m| m.hi)
    });
    t.flag("clear", &picks, |p| p.margin.as_ref().and_then(|m| m.clear));
    t.text("text", &picks, |p| Some(p.text.clone()));
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::Array;

    #[test]
    fn counts_are_the_signed_integers_a_csv_reader_infers() {
        let mut table = Table::new(2);
        table.count("calls", &[3u64, 0], |c| (*c > 0).then_some(*c));
        let batch = table.to_batch().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(batch.schema().field(0).data_type(), &DataType::Int64);
        let calls = batch.column(0).as_any().downcast_ref::<Int64Array>();
        assert_eq!(calls.map(|a| (a.value(0), a.is_null(1))), Some((3, true)));
    }
}
