//! The operations, one row each, with the properties the rest of formatbench follows: the
//! plan gives an operation the parameters its row lists (and refuses one whose data lack what
//! it needs), the oracle computes its expected result from its `selection` alone, and
//! docs/results.md's table of operations lists them in this order with these parameters (a
//! test holds it to that). Adding an operation starts with a row here:
//! docs/adding-an-operation.md walks through the rest.

use crate::Op;

/// The family an operation belongs to: the datasets and backends it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Any table (`--ops all`).
    Table,
    /// Feature matrices, the layout study's (`--ops features`).
    Matrix,
    /// Tables of files with deletion vectors, seed 003's (`--ops delta`).
    Delta,
    /// Label-indexed table stores, FeatherStore's (`--ops store`).
    Store,
}

/// A parameter of a job ([`crate::OpParams`]) the plan chooses for an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param {
    /// `columns`: names to return, in stored order.
    Columns,
    /// `range`: rows by index value or by position.
    Range,
    /// `rows`: row positions.
    Rows,
    /// The option `queries` (a session's query count).
    Queries,
}

impl Param {
    /// The name docs/results.md gives it.
    pub fn name(self) -> &'static str {
        match self {
            Param::Columns => "columns",
            Param::Range => "range",
            Param::Rows => "rows",
            Param::Queries => "queries",
        }
    }
}

/// What an operation returns, in terms of the source and its parameters: all the oracle
/// needs to compute the expected result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// Every row and column. A write and a change are checked by the table they leave.
    Everything,
    /// The `columns` of every row.
    Columns,
    /// The rows of the `range`, every column.
    RangeRows,
    /// The rows at the `rows` positions, in request order, every column.
    TakenRows,
    /// The float32 feature columns of every row.
    Features,
    /// Each row's L2 norm over the feature columns.
    FeatureNorms,
    /// The feature columns of the `rows`.
    FeaturesOfRows,
    /// The `columns` of the `rows`.
    ColumnsOfRows,
    /// One row the reader chooses: checked against the row it returned.
    AnyOneRow,
}

/// Whether the order of the returned rows is part of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// The source's order.
    Stored,
    /// The order of the `rows` or labels asked for.
    Requested,
    /// Not applicable: a single row of the reader's choosing.
    Any,
}

/// One operation's row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpSpec {
    pub op: Op,
    /// Its name in suites, `--ops`, results and reports.
    pub name: &'static str,
    pub family: Family,
    /// The parameters the plan gives it, in docs/results.md's order.
    pub params: &'static [Param],
    pub selection: Selection,
    pub order: Order,
    /// Needs a table store's index labels (the plan refuses it on data without them).
    pub needs_labels: bool,
    /// Changes a stored table: each call starts from a table prepared without the change.
    pub mutation: bool,
}

const fn spec(op: Op, name: &'static str, family: Family, selection: Selection) -> OpSpec {
    OpSpec {
        op,
        name,
        family,
        params: &[],
        selection,
        order: Order::Stored,
        needs_labels: false,
        mutation: false,
    }
}

const fn with(mut spec: OpSpec, params: &'static [Param]) -> OpSpec {
    spec.params = params;
    spec
}

const fn requested(mut spec: OpSpec) -> OpSpec {
    spec.order = Order::Requested;
    spec
}

const fn labelled(mut spec: OpSpec) -> OpSpec {
    spec.needs_labels = true;
    spec
}

const fn mutation(mut spec: OpSpec) -> OpSpec {
    spec.mutation = true;
    spec.needs_labels = true;
    spec
}

use Family::{Delta, Matrix, Store, Table};
use Param::{Columns, Queries, Range, Rows};

/// Every operation, in the enum's order, which docs/results.md's table follows.
pub const OPERATIONS: [OpSpec; 20] = [
    spec(Op::Write, "write", Table, Selection::Everything),
    spec(Op::Read, "read", Table, Selection::Everything),
    spec(Op::Scan, "scan", Table, Selection::Everything),
    with(
        spec(Op::Project, "project", Table, Selection::Columns),
        &[Columns],
    ),
    with(
        spec(Op::Range, "range", Table, Selection::RangeRows),
        &[Range],
    ),
    requested(with(
        spec(Op::Take, "take", Table, Selection::TakenRows),
        &[Rows],
    )),
    spec(Op::Matrix, "matrix", Matrix, Selection::Features),
    with(
        spec(
            Op::RandomRows,
            "random_rows",
            Matrix,
            Selection::FeaturesOfRows,
        ),
        &[Rows],
    ),
    with(
        spec(
            Op::FeatureProject,
            "feature_project",
            Matrix,
            Selection::Columns,
        ),
        &[Columns],
    ),
    requested(with(
        spec(Op::Mixed, "mixed", Matrix, Selection::ColumnsOfRows),
        &[Rows, Columns],
    )),
    spec(
        Op::VectorNorm,
        "vector_norm",
        Matrix,
        Selection::FeatureNorms,
    ),
    OpSpec {
        order: Order::Any,
        ..spec(Op::FirstRow, "first_row", Delta, Selection::AnyOneRow)
    },
    labelled(with(
        spec(Op::RangeBefore, "range_before", Store, Selection::RangeRows),
        &[Range],
    )),
    labelled(with(
        spec(Op::RangeAfter, "range_after", Store, Selection::RangeRows),
        &[Range],
    )),
    labelled(with(
        spec(
            Op::RangeBetween,
            "range_between",
            Store,
            Selection::RangeRows,
        ),
        &[Range],
    )),
    requested(labelled(with(
        spec(Op::Labels, "labels", Store, Selection::RangeRows),
        &[Range],
    ))),
    mutation(with(
        spec(Op::Append, "append", Store, Selection::Everything),
        &[Range],
    )),
    mutation(with(
        spec(Op::Insert, "insert", Store, Selection::Everything),
        &[Rows],
    )),
    mutation(with(
        spec(Op::Update, "update", Store, Selection::Everything),
        &[Rows],
    )),
    with(
        spec(Op::Session, "session", Delta, Selection::Columns),
        &[Columns, Queries],
    ),
];

impl Op {
    /// This operation's row of [`OPERATIONS`], which lists them in the enum's order (a test
    /// checks it).
    pub fn spec(self) -> &'static OpSpec {
        &OPERATIONS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// True for the changes to a stored table (`append`, `insert`, `update`).
    pub fn is_mutation(self) -> bool {
        self.spec().mutation
    }

    /// True for the operations on feature matrices.
    pub fn is_matrix(self) -> bool {
        self.spec().family == Family::Matrix
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Op {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let every = OPERATIONS.iter();
        every
            .clone()
            .find(|spec| spec.name == s)
            .map(|spec| spec.op)
            .ok_or_else(|| {
                let known: Vec<&str> = every.map(|spec| spec.name).collect();
                format!("unknown operation '{s}' (known: {})", known.join(", "))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ALL_OPS, DELTA_OPS, MATRIX_OPS, MUTATION_OPS, STORE_OPS};

    #[test]
    fn every_operation_has_one_row_and_its_name_parses_back() {
        for spec in &OPERATIONS {
            assert_eq!(spec.op.spec(), spec, "{}", spec.name);
            assert_eq!(spec.op.name(), spec.name);
            assert_eq!(spec.name.parse::<Op>(), Ok(spec.op));
            let rows = OPERATIONS.iter().filter(|s| s.op == spec.op).count();
            assert_eq!(rows, 1, "{}", spec.name);
        }
    }

    #[test]
    fn the_groups_users_name_follow_the_families() {
        let of = |family| -> Vec<Op> {
            OPERATIONS
                .iter()
                .filter(|s| s.family == family)
                .map(|s| s.op)
                .collect()
        };
        assert_eq!(of(Table), ALL_OPS.to_vec());
        assert_eq!(of(Matrix), MATRIX_OPS.to_vec());
        // The Delta study reads whole tables too; its own operations are its family.
        assert!(of(Delta)
            .iter()
            .all(|op| *op == Op::Session || DELTA_OPS.contains(op)));
        // FeatherStore's benchmark writes and reads whole tables beside its own operations.
        let store: Vec<Op> = STORE_OPS.iter().skip(4).copied().collect();
        assert_eq!(of(Store), store);
        let mutations: Vec<Op> = OPERATIONS
            .iter()
            .filter(|s| s.mutation)
            .map(|s| s.op)
            .collect();
        assert_eq!(mutations, MUTATION_OPS.to_vec());
    }
}
