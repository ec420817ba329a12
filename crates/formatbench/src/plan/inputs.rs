//! The parameters of each operation for one dataset, chosen once per run from the seed so every
//! competitor is asked the same question.

use crate::datasets::{Rng, Source};
use crate::Error;
use arrow::array::AsArray;
use arrow::compute::cast;
use arrow::datatypes::{DataType, Int64Type};
use formatbench_protocol::{Op, OpParams, RangeSpec, MUTATION_STRIDE};

/// How many rows `take`, `random_rows` and `mixed` ask for.
pub const TAKE_ROWS: u64 = 128;
/// How many features `feature_project` and `mixed` ask for (the layout study's 8, whatever D).
pub const PICKED_FEATURES: u64 = 8;

#[derive(Debug, Clone, PartialEq)]
pub struct OpInputs {
    /// 25 % of the data columns (at least one), in stored order.
    pub project: Vec<String>,
    /// The middle quarter of rows, [3N/8, 5N/8): by position, or with an index by the values
    /// at those places of the index's sorted non-null values.
    pub range: RangeSpec,
    /// The rows `range` selects (never zero: an empty range is a plan error).
    pub range_rows: u64,
    /// Distinct row positions in random order.
    pub take: Vec<u64>,
    /// The dataset's index column, told to every job as option `index` (label-addressed stores
    /// such as FeatherStore are written with it).
    pub index: Option<String>,
    /// Feature matrices: the float32 columns, the matrix's features, in stored order.
    pub features: Vec<String>,
    /// Float64 columns: none of them a feature, but `--feature-type float32` would make them so.
    pub float64_columns: u64,
    /// Feature matrices: the columns besides the index and the features (`mixed` returns them).
    pub metadata: Vec<String>,
    /// Feature matrices: sorted distinct positions for `random_rows` and `mixed`.
    pub sorted_rows: Vec<u64>,
    /// Feature matrices: a few features, in stored order, for `feature_project` and `mixed`.
    pub picked_features: Vec<String>,
    /// Tables of files (Delta): how many files a writer cuts the table into.
    pub files: u64,
    /// Tables of files: the queries a `session` runs on its opened table.
    pub session_queries: u64,
    /// Table stores (FeatherStore's table benchmark, a quarter of the rows each):
    /// `range_before` the first quarter, `range_after` the last, `range_between` rows
    /// [N/4, N/2), all by index value; `labels` the same rows by position (asked for by label).
    pub store: Option<StoreInputs>,
}

/// The parameters of the table-store operations; only for datasets with an index.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreInputs {
    pub before: RangeSpec,
    pub after: RangeSpec,
    pub between: RangeSpec,
    pub labels: RangeSpec,
    /// The last 1 % of rows, appended to a table of the rest.
    pub appended: RangeSpec,
    /// 1 % of rows spread over the table (one in each stride of 100): inserted.
    pub inserted: Vec<u64>,
    /// Another 1 %, spread likewise: updated.
    pub updated: Vec<u64>,
}

/// The files of a table of files unless the plan says otherwise: the Delta reader study's 200.
pub const DEFAULT_FILES: u64 = 200;
pub use formatbench_protocol::DEFAULT_SESSION_QUERIES;

impl OpInputs {
    pub fn for_source(source: &Source, seed: u64) -> Result<Self, Error> {
        let data = source.data_columns();
        let mut rng = Rng::new(seed, 0x5E1EC7);
        let wanted = (data.len() as u64)
            .div_ceil(4)
            .max(1)
            .min(data.len() as u64);
        let mut picks = rng.distinct(wanted, data.len() as u64);
        picks.sort_unstable();
        let chosen: Vec<&String> = picks.iter().filter_map(|&i| data.get(i as usize)).collect();
        // Stored order, with the index column ahead of the data columns when it comes first.
        let project = source
            .schema
            .fields()
            .iter()
            .map(|f| f.name())
            .filter(|n| chosen.contains(n))
            .cloned()
            .collect();
        let n = source.rows;
        let index = match &source.index_column {
            Some(column) => Some(SortedIndex::load(source, column)?),
            None => None,
        };
        // The middle quarter, and at least one row of any table that has one (a 3-row file's
        // quarter rounds to none).
        let middle = |m: u64| (3 * m / 8, (5 * m / 8).max(3 * m / 8 + 1).min(m));
        let (range, range_rows) = match &index {
            Some(index) => {
                let (start, end) = middle(index.values.len() as u64);
                index.range(start, end)
            }
            None => {
                let (start, end) = middle(n);
                (RangeSpec::Position { start, end }, end - start)
            }
        };
        let mut take_rng = Rng::new(seed, 0x7A4E);
        let take = take_rng.distinct(TAKE_ROWS.min(n), n);
        // Feature matrices, as the layout study asks: sorted rows and features, the same count
        // whatever the width.
        let features: Vec<String> = source
            .schema
            .fields()
            .iter()
            .filter(|f| f.data_type() == &DataType::Float32)
            .map(|f| f.name().clone())
            .collect();
        let metadata = data
            .iter()
            .filter(|n| !features.contains(n))
            .cloned()
            .collect();
        let mut sorted_rows = Rng::new(seed, 0x50_4F_57).distinct(TAKE_ROWS.min(n), n);
        sorted_rows.sort_unstable();
        let width = features.len() as u64;
        let mut picks = Rng::new(seed, 0xFEA7).distinct(PICKED_FEATURES.min(width), width);
        picks.sort_unstable();
        let picked_features = picks
            .iter()
            .filter_map(|&i| features.get(i as usize).cloned())
            .collect();
        let store = index.as_ref().map(|index| StoreInputs::new(n, index));
        let float64_columns = source
            .schema
            .fields()
            .iter()
            .filter(|f| f.data_type() == &DataType::Float64)
            .count() as u64;
        Ok(OpInputs {
            float64_columns,
            store,
            project,
            range,
            range_rows,
            take,
            index: source.index_column.clone(),
            features,
            metadata,
            sorted_rows,
            picked_features,
            files: DEFAULT_FILES,
            session_queries: DEFAULT_SESSION_QUERIES,
        })
    }

    pub fn with_files(mut self, files: u64) -> Self {
        self.files = files;
        self
    }

    pub fn with_session_queries(mut self, queries: u64) -> Self {
        self.session_queries = queries;
        self
    }

    /// A plan error when `range` or `take` would select nothing (a dataset without rows): an
    /// empty result would verify trivially and time nothing.
    pub fn check_selections(&self, dataset: &str, ops: &[Op]) -> Result<(), Error> {
        let empty = |op: Op, rows: u64| ops.contains(&op) && rows == 0;
        if empty(Op::Range, self.range_rows) || empty(Op::Take, self.take.len() as u64) {
            return Err(Error::Input(format!(
                "dataset {dataset}: 'range' and 'take' would select no rows (the dataset is empty)"
            )));
        }
        Ok(())
    }

    /// Why the operations on feature matrices cannot run on this dataset, if they cannot.
    pub fn matrix_refusal(&self) -> Option<String> {
        if !self.features.is_empty() {
            return None;
        }
        Some(match self.float64_columns {
            0 => "the dataset has no float32 feature columns (matrix operations need a features dataset)"
                .to_string(),
            n => format!(
                "the dataset has no float32 feature columns; its {n} float64 column{} enter{} \
                 the matrix operations with --feature-type float32 (a recorded cast)",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" },
            ),
        })
    }

    /// Why the table-store operations cannot run on this dataset, if they cannot.
    pub fn store_refusal(&self, op: Op) -> Option<String> {
        (op.spec().needs_labels && self.store.is_none()).then(|| {
            format!("'{op}' addresses rows by index label, and this dataset has no index column")
        })
    }

    /// The parameters of `op`: those its row of the operations table lists, chosen here (a
    /// test holds the two together).
    pub fn params(&self, op: Op) -> OpParams {
        let mut params = OpParams::default();
        let store = self.store.as_ref();
        match op {
            Op::RangeBefore => params.range = store.map(|s| s.before.clone()),
            Op::RangeAfter => params.range = store.map(|s| s.after.clone()),
            Op::RangeBetween => params.range = store.map(|s| s.between.clone()),
            Op::Labels => params.range = store.map(|s| s.labels.clone()),
            Op::Append => params.range = store.map(|s| s.appended.clone()),
            Op::Insert => params.rows = store.map(|s| s.inserted.clone()),
            Op::Update => params.rows = store.map(|s| s.updated.clone()),
            Op::Project => params.columns = Some(self.project.clone()),
            Op::Session => {
                params.columns = Some(self.project.clone());
                params
                    .options
                    .insert("queries".into(), self.session_queries.to_string());
            }
            Op::Range => params.range = Some(self.range.clone()),
            Op::Take => params.rows = Some(self.take.clone()),
            Op::RandomRows => params.rows = Some(self.sorted_rows.clone()),
            Op::FeatureProject => params.columns = Some(self.picked_features.clone()),
            Op::Mixed => {
                params.rows = Some(self.sorted_rows.clone());
                params.columns = Some(
                    self.metadata
                        .iter()
                        .chain(self.picked_features.iter())
                        .cloned()
                        .collect(),
                );
            }
            Op::Write | Op::Read | Op::Scan | Op::Matrix | Op::VectorNorm | Op::FirstRow => {}
        }
        if let Some(index) = &self.index {
            params.options.insert("index".into(), index.clone());
            params.order_by = Some(index.clone());
        }
        params
    }

    /// The parameters of `op` for a backend of tables of files: the split its writer follows,
    /// deleting rows in a deletion profile.
    pub fn table_params(&self, op: Op, deletions: bool) -> OpParams {
        let mut params = self.params(op);
        params.files = Some(formatbench_protocol::FileSplit {
            files: self.files,
            deletions,
        });
        params
    }
}

impl StoreInputs {
    fn new(n: u64, index: &SortedIndex) -> Self {
        let m = index.values.len() as u64;
        let quarter = m / 4;
        let spread = |offset: u64| -> Vec<u64> {
            (0..n / MUTATION_STRIDE)
                .map(|i| i * MUTATION_STRIDE + offset)
                .collect()
        };
        StoreInputs {
            before: index.range(0, quarter).0,
            after: index.range(m - quarter, m).0,
            between: index.range(quarter, 2 * quarter).0,
            labels: RangeSpec::Position {
                start: n / 4,
                end: 2 * (n / 4),
            },
            appended: RangeSpec::Position {
                start: n - n / MUTATION_STRIDE,
                end: n,
            },
            inserted: spread(MUTATION_STRIDE / 2),
            updated: spread(MUTATION_STRIDE / 4),
        }
    }
}

/// The index column's non-null values, sorted. Ranges by index are cut from these, so a range
/// selects rows whatever order the column is stored in, and a null is never a bound.
struct SortedIndex {
    column: String,
    values: Vec<i64>,
}

impl SortedIndex {
    fn load(source: &Source, column: &str) -> Result<Self, Error> {
        let mut values = Vec::new();
        for batch in formatbench_worker_kit::source::open(&source.path)? {
            let batch = batch?;
            let column_values = batch
                .column_by_name(column)
                .ok_or_else(|| Error::Input(format!("no index column '{column}'")))?;
            let column_values = cast(column_values, &DataType::Int64)?;
            values.extend(column_values.as_primitive::<Int64Type>().iter().flatten());
        }
        if values.is_empty() && source.rows > 0 {
            return Err(Error::Input(format!(
                "dataset {}: index column '{column}' holds no values (every row is null), so a \
                 range by index would select nothing; pick another --index",
                source.name
            )));
        }
        values.sort_unstable();
        Ok(SortedIndex {
            column: column.to_string(),
            values,
        })
    }

    /// The index values from sorted place `from` up to place `to` (exclusive; `to` past the
    /// end means up to the largest value) as a range by value, and the rows it selects. A run
    /// of equal values at `from` is selected whole, so the range is never empty when there are
    /// values.
    fn range(&self, from: u64, to: u64) -> (RangeSpec, u64) {
        let value = |place: u64| self.values.get(place as usize).copied();
        let last = self.values.last().map_or(0, |v| v.saturating_add(1));
        let start = value(from).unwrap_or(last);
        let end = value(to).unwrap_or(last).max(start.saturating_add(1));
        let below = |v: i64| self.values.partition_point(|x| *x < v) as u64;
        let spec = RangeSpec::Index {
            column: self.column.clone(),
            start,
            end,
        };
        (spec, below(end) - below(start))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use formatbench_protocol::{Param, OPERATIONS};

    fn position(start: u64, end: u64) -> RangeSpec {
        RangeSpec::Position { start, end }
    }

    /// Inputs of a 400-row dataset with an index, features and a store.
    fn inputs() -> OpInputs {
        OpInputs {
            project: vec!["a".into()],
            range: position(150, 250),
            range_rows: 100,
            take: vec![7, 3],
            index: None,
            features: vec!["f0".into(), "f1".into()],
            float64_columns: 0,
            metadata: vec!["m".into()],
            sorted_rows: vec![3, 7],
            picked_features: vec!["f1".into()],
            files: 4,
            session_queries: 6,
            store: Some(StoreInputs {
                before: position(0, 100),
                after: position(300, 400),
                between: position(100, 200),
                labels: position(100, 200),
                appended: position(396, 400),
                inserted: vec![50, 150],
                updated: vec![25, 125],
            }),
        }
    }

    #[test]
    fn every_operation_gets_the_parameters_its_row_lists_and_no_other() {
        let inputs = inputs();
        for spec in &OPERATIONS {
            let params = inputs.params(spec.op);
            let given: Vec<Param> = [
                (Param::Columns, params.columns.is_some()),
                (Param::Range, params.range.is_some()),
                (Param::Rows, params.rows.is_some()),
                (Param::Queries, params.options.contains_key("queries")),
            ]
            .into_iter()
            .filter_map(|(param, set)| set.then_some(param))
            .collect();
            let mut listed = spec.params.to_vec();
            listed.sort_by_key(|p| *p as u8);
            assert_eq!(given, listed, "{}", spec.name);
        }
    }

    #[test]
    fn operations_on_labels_are_refused_on_data_without_an_index() {
        let unlabelled = OpInputs {
            store: None,
            ..inputs()
        };
        for spec in &OPERATIONS {
            let refused = unlabelled.store_refusal(spec.op).is_some();
            assert_eq!(refused, spec.needs_labels, "{}", spec.name);
        }
    }
}
