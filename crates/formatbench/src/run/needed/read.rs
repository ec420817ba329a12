//! What an operation reads of a table, whatever its format: which columns and which rows. This
//! follows the operations' definitions (docs/results.md, the worker kit's requests), not any
//! reader's code, so the yardstick stays independent of what it measures.

use super::spans::row_ranges;
use arrow::datatypes::{DataType, Schema};
use formatbench_protocol::{Op, OpParams, RangeSpec};
use formatbench_worker_kit::layout::{ARRAY, FEATURES, WIDE};
use std::ops::Range;

/// The columns an operation reads, by name, in any order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Columns {
    All,
    Named(Vec<String>),
}

impl Columns {
    pub fn named(&self) -> Option<&[String]> {
        match self {
            Columns::All => None,
            Columns::Named(names) => Some(names),
        }
    }
}

/// The rows an operation reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rows {
    All,
    /// Sorted, disjoint ranges of row positions in the file (or the table of partitions).
    Positions(Vec<Range<u64>>),
    /// The rows whose integer `column` lies in `[lo, hi)`: positions the reader cannot know
    /// before it reads that column's candidate pages or buffers.
    Index {
        column: String,
        lo: i64,
        hi: i64,
    },
}

/// Which part of a table an operation reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    pub columns: Columns,
    pub rows: Rows,
}

impl Read {
    /// What `op` with `params` reads of a table in `layout` written from a source of `schema`;
    /// `None` for the operations the yardstick does not cover (writes, changes, sessions, the
    /// table stores' label reads) and for other layouts.
    pub fn of(op: Op, layout: &str, params: &OpParams, schema: &Schema) -> Option<Read> {
        if layout != WIDE && layout != ARRAY {
            return None;
        }
        let array = layout == ARRAY;
        // The source's float32 columns are the matrix's features; the array layout keeps
        // them all in one fixed-size list field, which any of them needs whole.
        let features: Vec<String> = schema
            .fields()
            .iter()
            .filter(|f| f.data_type() == &DataType::Float32)
            .map(|f| f.name().clone())
            .collect();
        let the_list = || Columns::Named(vec![FEATURES.to_string()]);
        let named = || params.columns.clone().map(Columns::Named);
        let positions = || {
            params
                .rows
                .as_ref()
                .map(|r| Rows::Positions(row_ranges(r.iter().copied())))
        };
        let (columns, rows) = match op {
            Op::Read | Op::Scan => (Columns::All, Rows::All),
            Op::Project => (named()?, Rows::All),
            Op::Range => (
                Columns::All,
                match params.range.as_ref()? {
                    RangeSpec::Position { start, end } => Rows::Positions(
                        std::iter::once(*start..*end)
                            .filter(|r| !r.is_empty())
                            .collect(),
                    ),
                    RangeSpec::Index { column, start, end } => Rows::Index {
                        column: column.clone(),
                        lo: *start,
                        hi: *end,
                    },
                },
            ),
            Op::Take => (Columns::All, positions()?),
            Op::Matrix | Op::VectorNorm if array => (the_list(), Rows::All),
            Op::Matrix | Op::VectorNorm => (Columns::Named(features), Rows::All),
            Op::FeatureProject if array => (the_list(), Rows::All),
            Op::FeatureProject => (named()?, Rows::All),
            Op::RandomRows if array => (the_list(), positions()?),
            Op::RandomRows => (Columns::Named(features), positions()?),
            Op::Mixed if array => {
                // The metadata columns as named, the picked features through the list.
                let mut columns: Vec<String> = params
                    .columns
                    .as_ref()?
                    .iter()
                    .filter(|c| !features.contains(c))
                    .cloned()
                    .collect();
                columns.push(FEATURES.to_string());
                (Columns::Named(columns), positions()?)
            }
            Op::Mixed => (named()?, positions()?),
            Op::Write
            | Op::FirstRow
            | Op::RangeBefore
            | Op::RangeAfter
            | Op::RangeBetween
            | Op::Labels
            | Op::Append
            | Op::Insert
            | Op::Update
            | Op::Session => return None,
        };
        Some(Read { columns, rows })
    }
}
