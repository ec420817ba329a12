"""The layout study's layouts (docs/results.md, Layouts): `wide` (one float32 column per
feature) and `array` (every feature of a row in one field, the names in a sidecar), and the
plan of a matrix operation, made before the timer as the Rust kit's MatrixPlan is."""

import json
import os

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
except ImportError:
    pa = None

WIDE = "wide"
ARRAY = "array"
FEATURES = "features"
SIDECAR = "feature_names.json"
MATRIX_OPS = ("matrix", "random_rows", "feature_project", "mixed", "vector_norm")
NORM_COLUMN = "l2_norm"


def feature_names(schema):
    """The features of a table: its float32 columns, in stored order."""
    return [f.name for f in schema if f.type == pa.float32()]


def to_array(table):
    """The source table in the array layout: the features become one non-null
    FixedSizeList<float32, D> column where the first stood (untimed)."""
    import numpy as np

    names = feature_names(table.schema)
    if not names:
        raise ValueError("the array layout needs float32 feature columns; this table has none")
    matrix = np.column_stack([table[n].to_numpy() for n in names]).astype(np.float32, copy=False)
    item = pa.field("item", pa.float32(), nullable=False)
    values = pa.array(matrix.reshape(-1), pa.float32())
    features = pa.FixedSizeListArray.from_arrays(values, type=pa.list_(item, len(names)))
    fields, columns = [], []
    for field, column in zip(table.schema, table.columns):
        if field.name == names[0]:
            fields.append(pa.field(FEATURES, features.type, nullable=False))
            columns.append(features)
        elif field.name not in names:
            fields.append(field)
            columns.append(column)
    return pa.table(columns, schema=pa.schema(fields))


def matrix_of(table, names):
    """An N × len(names) float32 matrix of the named columns of an Arrow table."""
    import numpy as np

    if not names:
        return np.empty((table.num_rows, 0), np.float32)
    return np.column_stack([table[n].to_numpy() for n in names]).astype(np.float32, copy=False)


def list_matrix(column, width):
    """The values of a (fixed-size or plain) list column as an N × width matrix."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return column.flatten().to_numpy().reshape(-1, width)


def to_wide(table, source_schema):
    """A table read from the array layout back in the source's wide shape (after the timer)."""
    if FEATURES not in table.column_names:
        return table
    names = feature_names(source_schema)
    matrix = list_matrix(table[FEATURES], len(names))
    fields, columns = [], []
    for field, column in zip(table.schema, table.columns):
        if field.name == FEATURES:
            for j, name in enumerate(names):
                fields.append(pa.field(name, pa.float32(), nullable=False))
                columns.append(pa.array(matrix[:, j]))
        else:
            fields.append(field)
            columns.append(column)
    return pa.table(columns, schema=pa.schema(fields))


def write_sidecar(directory, names):
    with open(os.path.join(directory, SIDECAR), "w") as f:
        json.dump(names, f)


class MatrixPlan:
    """What a matrix operation asks for, decided before the timer from the job's params:
    `features` (every feature, stored order), `wanted` (those it returns) at `wanted_at`,
    `metadata` (the other columns `mixed` returns) and `rows` (`random_rows`, `mixed`; the
    study's selection is sorted)."""

    def __init__(self, op, layout, schema, params):
        from .backends.base import Unsupported

        self.op, self.layout = op, layout
        self.features = feature_names(schema)
        if not self.features:
            raise Unsupported("matrix operations need float32 feature columns; this table has none")
        requested = list(params.get("columns") or []) if op in ("feature_project", "mixed") \
            else list(self.features)
        if op in ("feature_project", "mixed") and not requested:
            raise ValueError(f"'{op}' needs columns")
        known = set(self.features)
        self.requested = requested
        self.wanted = [n for n in requested if n in known]
        position = {n: i for i, n in enumerate(self.features)}
        self.wanted_at = [position[n] for n in self.wanted]
        self.metadata = [n for n in requested if n not in known]
        missing = [m for m in self.metadata if m not in schema.names]
        if missing:
            raise ValueError(f"'{op}' names a column the table lacks: {', '.join(missing)}")
        self.rows = [int(r) for r in params.get("rows") or []]
        if op in ("random_rows", "mixed") and not self.rows:
            raise ValueError(f"'{op}' needs rows")

    def result_table(self, result):
        """The operation's result as the Arrow table the runner verifies (after the timer): a
        matrix as float32 columns named by `wanted`, the norms as `l2_norm`, `mixed` as the
        requested columns in request order."""
        import numpy as np

        from . import tables

        if self.op == "vector_norm":
            return pa.table({NORM_COLUMN: pa.array(np.asarray(result, np.float32))})
        if self.op == "mixed":
            table = tables.to_arrow(result)
            if FEATURES in table.column_names:
                picked = list_matrix(table[FEATURES], len(self.features))[:, self.wanted_at]
                table = table.drop([FEATURES])
                for j, name in enumerate(self.wanted):
                    table = table.append_column(pa.field(name, pa.float32(), nullable=False),
                                                pa.array(picked[:, j]))
            return table.select(self.requested)
        matrix = np.asarray(result)
        if matrix.dtype != np.float32:
            raise TypeError(f"the matrix is {matrix.dtype}, not float32")
        if matrix.ndim != 2 or matrix.shape[1] != len(self.wanted):
            raise ValueError(f"the matrix is {matrix.shape}, not N × {len(self.wanted)}")
        fields = [pa.field(n, pa.float32(), nullable=False) for n in self.wanted]
        return pa.table([pa.array(matrix[:, j]) for j in range(matrix.shape[1])],
                        schema=pa.schema(fields))
