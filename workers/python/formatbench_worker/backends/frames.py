"""pandas and Polars with their own readers and writers: CSV, pickle, Parquet and IPC. The
source schema is passed to CSV readers, as the native CSV reader gets it."""

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
except ImportError:
    pa = None

from ..layouts import ARRAY, FEATURES, feature_names
from ..measure import timed_phase
from .base import (SHARED_GLOB, Backend, DeltaReader, Unsupported, data_file, range_bounds,
                   reorder)


def _no_nested(schema):
    nested = [f.name for f in schema if pa.types.is_nested(f.type)]
    return f"CSV cannot store the nested column '{nested[0]}'" if nested else None


def _pandas_csv_types(schema):
    """dtype and parse_dates arguments of read_csv for the source schema."""
    dtypes, dates = {}, []
    for f in schema:
        t = f.type
        if pa.types.is_timestamp(t) or pa.types.is_date(t):
            dates.append(f.name)
        elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
            dtypes[f.name] = "str"
        elif pa.types.is_boolean(t):
            dtypes[f.name] = "bool"
        else:
            dtypes[f.name] = t.to_pandas_dtype()
    return dtypes, dates


def _s3fs_missing():
    """None when pandas can open `s3://` URLs (fsspec's s3fs is installed), else why not."""
    from .. import storage

    return storage.client_missing("s3fs", "pandas opens s3:// URLs through fsspec's s3fs")


def _pandas_file(directory, extension, ctx):
    """Where pandas reads the artifact's file: the local path, or its `s3://` URL with the
    `storage_options` of s3fs (None for local files)."""
    if not ctx.storage:
        return data_file(directory, extension), None
    from .. import storage

    return storage.url(ctx.storage, f"data.{extension}"), storage.fsspec_options(ctx.storage)


class PandasCsv(Backend):
    name = "py-pandas-csv"
    given = ("csv", "data.csv")
    about = ("pandas.read_csv / DataFrame.to_csv (C engine, dtypes given; array layout: "
             "';'-joined shortest round-trip floats in one cell)")
    modules = ("pandas", "numpy")
    dists = ("pandas",)
    targets = ("pandas",)
    lossy = True
    matrix_layouts = ("wide", "array")
    array_ops = ("write", "matrix", "random_rows", "feature_project", "mixed", "vector_norm")

    def object_storage(self):
        return _s3fs_missing()

    def prepare_array(self, table, ctx):
        """The study's delimited array: each row's features as one text cell (untimed)."""
        import pyarrow.compute as pc

        column = table[FEATURES].combine_chunks()
        text = pc.cast(column.flatten(), pa.string())
        lists = pa.ListArray.from_arrays(
            pa.array(range(0, len(text) + 1, column.type.list_size), pa.int32()), text)
        cells = pc.binary_join(lists, ";")
        at = table.schema.get_field_index(FEATURES)
        return table.set_column(at, pa.field(FEATURES, pa.string(), nullable=False), cells)

    def _array_frame(self, path, options, ctx, columns=None):
        import pandas as pd

        dtypes, dates = _pandas_csv_types(ctx.schema)
        keep = None if columns is None else set(columns)
        dtypes = {k: v for k, v in dtypes.items() if keep is None or k in keep}
        dtypes[FEATURES] = "str"
        names = set(feature_names(ctx.schema))
        dtypes = {k: v for k, v in dtypes.items() if k not in names}
        dates = [d for d in dates if keep is None or d in keep]
        return pd.read_csv(path, usecols=columns, dtype=dtypes, parse_dates=dates,
                           storage_options=options)

    @staticmethod
    def _unpack(cells):
        import numpy as np

        return np.vstack([np.fromstring(c, sep=";", dtype=np.float32) for c in cells])

    def matrix(self, directory, plan, ctx):
        import numpy as np
        import pandas as pd

        path, options = _pandas_file(directory, "csv", ctx)
        array = ctx.layout == ARRAY

        def whole():
            if array:
                return self._unpack(self._array_frame(path, options, ctx, [FEATURES])[FEATURES])
            return pd.read_csv(path, usecols=plan.features, dtype=np.float32,
                               storage_options=options).to_numpy(np.float32)

        how = "read_csv(usecols=['features']), np.fromstring per row, vstack" if array \
            else "read_csv(usecols=features).to_numpy()"
        if plan.op in ("matrix", "vector_norm"):
            return whole(), how
        if plan.op == "random_rows":
            # CSV has no row access: the whole matrix, then the rows.
            return whole()[plan.rows], f"{how}, then [rows]"
        if plan.op == "feature_project":
            if array:
                return np.ascontiguousarray(whole()[:, plan.wanted_at]), f"{how}, then [:, picked]"
            frame = pd.read_csv(path, usecols=plan.wanted, dtype=np.float32,
                                storage_options=options)
            return frame[plan.wanted].to_numpy(np.float32), "read_csv(usecols=picked).to_numpy()"
        if not array:
            dtypes, dates = _pandas_csv_types(ctx.schema)
            frame = pd.read_csv(path, dtype=dtypes, parse_dates=dates, storage_options=options)
            return frame.iloc[plan.rows][plan.requested].reset_index(drop=True), \
                "full parse + iloc"
        frame = self._array_frame(path, options, ctx).iloc[plan.rows].reset_index(drop=True)
        picked = self._unpack(frame[FEATURES])[:, plan.wanted_at]
        frame = frame.drop(columns=FEATURES)
        for j, name in enumerate(plan.wanted):
            frame[name] = picked[:, j]
        return frame, "full parse + iloc, picked features unpacked"

    def can_store(self, schema):
        return _no_nested(schema)

    def write(self, data, directory, ctx):
        data.to_csv(data_file(directory, "csv"), index=False)

    def read(self, directory, request, ctx):
        import pandas as pd

        path, options = _pandas_file(directory, "csv", ctx)
        dtypes, dates = _pandas_csv_types(ctx.schema)
        if request.kind == "columns":
            wanted = set(request.columns)
            frame = pd.read_csv(path, usecols=request.columns,
                                dtype={k: v for k, v in dtypes.items() if k in wanted},
                                parse_dates=[d for d in dates if d in wanted],
                                storage_options=options)
            return frame, "read_csv(usecols=…)"
        if request.kind == "range" and request.range["by"] == "position":
            _, lo, hi = range_bounds(request)
            frame = pd.read_csv(path, dtype=dtypes, parse_dates=dates,
                                skiprows=range(1, lo + 1), nrows=hi - lo,
                                storage_options=options)
            return frame, "read_csv(skiprows, nrows)"
        frame = pd.read_csv(path, dtype=dtypes, parse_dates=dates, storage_options=options)
        if request.kind == "all":
            return frame, "read_csv"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            keep = (frame[column] >= lo) & (frame[column] < hi)
            return frame[keep].reset_index(drop=True), "full parse + boolean mask"
        return frame.iloc[request.rows].reset_index(drop=True), "full parse + iloc"


class PandasPickle(Backend):
    name = "py-pandas-pickle"
    format = "pickle"
    about = "pandas.to_pickle / read_pickle (whole frames only)"
    modules = ("pandas",)
    dists = ("pandas",)
    targets = ("pandas",)
    ops = ("write", "read", "scan")

    def object_storage(self):
        return _s3fs_missing()

    def write(self, data, directory, ctx):
        data.to_pickle(data_file(directory, "pkl"))

    def read(self, directory, request, ctx):
        import pandas as pd

        path, options = _pandas_file(directory, "pkl", ctx)
        return pd.read_pickle(path, storage_options=options), "read_pickle"


def _polars_schema(schema):
    import polars as pl

    empty = pl.from_arrow(pa.Table.from_batches([], schema=schema))
    return empty.schema


class PolarsFormat(Backend):
    """Shared by the Polars CSV, Parquet and IPC backends: eager reads, lazy scans with
    pushdown for ranges, and a row index for takes."""

    modules = ("polars", "numpy")
    dists = ("polars",)
    targets = ("polars",)
    extension = ""

    def object_storage(self):
        return None  # every Polars reader takes `storage_options` (its object_store client)

    def scan(self, path, ctx):
        raise NotImplementedError

    def read_all(self, path, columns, ctx):
        raise NotImplementedError

    def options(self, ctx):
        """`storage_options` for the job's bucket, or None for local files."""
        if not ctx.storage:
            return None
        from .. import storage

        # Short retries, as the Rust workers' (2, within 10 s): Polars' own default (8, within
        # 30 s) failed each sample on a store gone mid-run after about 24 s.
        return {**storage.object_store_options(ctx.storage),
                "max_retries": 2, "retry_timeout_ms": 10_000}

    def located(self, directory, ctx):
        from .. import storage

        if ctx.file_set:
            # The sweep's shared files: Polars reads a glob's files in name (row) order.
            return storage.located(directory, SHARED_GLOB, ctx.storage)
        if not ctx.storage:
            return data_file(directory, self.extension)
        return storage.url(ctx.storage, f"data.{self.extension}")

    def read(self, directory, request, ctx):
        import polars as pl

        path = self.located(directory, ctx)
        if request.kind in ("all", "columns"):
            return self.read_all(path, request.columns, ctx), f"pl.read_{self.extension}"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            lazy = self.scan(path, ctx)
            if column is None:
                return lazy.slice(lo, hi - lo).collect(), f"pl.scan_{self.extension}().slice()"
            frame = lazy.filter((pl.col(column) >= lo) & (pl.col(column) < hi)).collect()
            return frame, f"pl.scan_{self.extension}().filter(): predicate pushdown"
        wanted = sorted(request.rows)
        frame = (self.scan(path, ctx).with_row_index("__row")
                 .filter(pl.col("__row").is_in(wanted)).drop("__row").collect())
        return frame[reorder(wanted, request.rows)], \
            f"pl.scan_{self.extension}() row index filter + reorder"


class PolarsCsv(PolarsFormat):
    name = "py-polars-csv"
    given = ("csv", "data.csv")
    about = "polars.read_csv / write_csv (schema given)"
    extension = "csv"
    lossy = True

    def can_store(self, schema):
        return _no_nested(schema)

    def write(self, data, directory, ctx):
        data.write_csv(data_file(directory, "csv"))

    def scan(self, path, ctx):
        import polars as pl

        return pl.scan_csv(path, schema=_polars_schema(ctx.schema),
                           storage_options=self.options(ctx))

    def read_all(self, path, columns, ctx):
        import polars as pl

        return pl.read_csv(path, schema=_polars_schema(ctx.schema), columns=columns,
                           storage_options=self.options(ctx))


class PolarsParquet(PolarsFormat):
    name = "py-polars-parquet"
    given = ("parquet", "data.parquet")
    about = "polars.read_parquet / write_parquet (default: snappy; compact: zstd-3)"
    profiles = ("default", "compact")
    extension = "parquet"
    file_sets = True

    def write(self, data, directory, ctx):
        if ctx.profile == "compact":
            data.write_parquet(data_file(directory, "parquet"), compression="zstd",
                               compression_level=3)
        else:
            data.write_parquet(data_file(directory, "parquet"), compression="snappy")

    def scan(self, path, ctx):
        import polars as pl

        return pl.scan_parquet(path, storage_options=self.options(ctx))

    def read_all(self, path, columns, ctx):
        import polars as pl

        return pl.read_parquet(path, columns=columns, storage_options=self.options(ctx))


class PolarsIpc(PolarsFormat):
    name = "py-polars-ipc"
    given = ("arrow-ipc", "data.ipc")
    about = "polars.read_ipc / write_ipc (default: uncompressed; lz4; zstd; reads memory-mapped)"
    profiles = ("default", "lz4", "zstd")
    extension = "ipc"

    def write(self, data, directory, ctx):
        compression = "uncompressed" if ctx.profile == "default" else ctx.profile
        data.write_ipc(data_file(directory, "ipc"), compression=compression)

    def scan(self, path, ctx):
        import polars as pl

        return pl.scan_ipc(path, storage_options=self.options(ctx))

    def read_all(self, path, columns, ctx):
        import polars as pl

        return pl.read_ipc(path, columns=columns, storage_options=self.options(ctx))


class PolarsDelta(DeltaReader):
    name = "py-polars-delta"
    about = ("Polars reading the tables delta-kernel writes: scan_delta (deletion vectors "
             "applied), then select/head and collect")
    modules = ("polars", "deltalake")
    dists = ("polars", "deltalake")
    targets = ("polars",)

    def object_storage(self):
        return None  # scan_delta takes `storage_options` (delta-rs's object_store client)

    def read(self, directory, request, ctx):
        import polars as pl

        from .. import storage

        options = storage.object_store_options(ctx.storage) if ctx.storage else None
        location = storage.located(directory, "", ctx.storage)
        if request.kind == "session":
            # scan_delta opens the table (delta-rs loads its state); each query is a select
            # planned on that frame, then collected.
            lazy = timed_phase("init", lambda: pl.scan_delta(location, storage_options=options))
            result = None
            for _ in range(request.queries):
                result = None
                query = timed_phase("plan", lambda: lazy.select(request.columns))
                result = timed_phase("execute", query.collect)
            return result, "scan_delta() once, then per query select(…).collect()"
        lazy = pl.scan_delta(location, storage_options=options)
        if request.kind == "first_row":
            return lazy.head(1).collect(), "scan_delta().head(1).collect()"
        if request.kind == "columns":
            return lazy.select(request.columns).collect(), "scan_delta().select(…).collect()"
        return lazy.collect(), "scan_delta().collect()"


BACKENDS = [PandasCsv(), PandasPickle(), PolarsCsv(), PolarsParquet(), PolarsIpc(),
            PolarsDelta()]
