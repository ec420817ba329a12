"""DuckDB, on its own table file and on Parquet, with the thread cap set on the connection.
Results are fetched into the target as a DuckDB user does: .arrow() (read in full), .df(), .pl()."""

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
except ImportError:
    pa = None

import os

from ..layouts import ARRAY, FEATURES
from .base import SHARED_GLOB, Backend, data_file, narrowed, range_bounds


def _connect(path, ctx, read_only):
    import duckdb

    con = duckdb.connect(path, read_only=read_only)
    con.execute(f"SET threads = {int(ctx.threads)}")
    return con


def _fetch(relation, ctx):
    if ctx.target == "pandas":
        return relation.df()
    if ctx.target == "polars":
        return relation.pl()
    return relation.to_arrow_table()


def _quote(name):
    return '"' + name.replace('"', '""') + '"'


def _select(request):
    if request.kind == "columns":
        return ", ".join(_quote(c) for c in request.columns)
    return "*"


class DuckdbBase(Backend):
    modules = ("duckdb",)
    dists = ("duckdb",)
    targets = ("arrow", "pandas", "polars")

    def relation_source(self, directory):
        raise NotImplementedError

    def connection(self, directory, ctx):
        raise NotImplementedError

    def take_query(self, source, rows):
        raise NotImplementedError

    def read(self, directory, request, ctx):
        con = self.connection(directory, ctx)
        source = self.relation_source(directory)
        try:
            if request.kind in ("all", "columns"):
                query, method = f"SELECT {_select(request)} FROM {source}", "SELECT"
            elif request.kind == "range":
                column, lo, hi = range_bounds(request)
                if column is None:
                    query = f"SELECT * FROM {source} LIMIT {hi - lo} OFFSET {lo}"
                    method = "LIMIT … OFFSET (insertion order)"
                else:
                    c = _quote(column)
                    query = f"SELECT * FROM {source} WHERE {c} >= {lo} AND {c} < {hi}"
                    method = "WHERE on the index column"
            else:
                query, method = self.take_query(source, request.rows)
            return _fetch(con.sql(query), ctx), method
        finally:
            con.close()


class Duckdb(DuckdbBase):
    name = "py-duckdb"
    format = "duckdb"
    about = "DuckDB's own table file (CREATE TABLE AS, SELECT; rowid for takes; FLOAT[D] arrays)"

    def object_storage(self):
        return ("DuckDB reads S3 through its httpfs extension, which it downloads at run time; "
                "it cannot be installed on a machine without network access")
    matrix_layouts = ("wide", "array")

    def matrix(self, directory, plan, ctx):
        """The study's queries: named feature columns (wide) or the FLOAT[D] column (array)
        fetched as a DataFrame; rows by `rowid IN (…)`, put back in request order."""
        import numpy as np

        array = ctx.layout == ARRAY
        con = self.connection(directory, ctx)
        try:
            def frame(columns, rows=None):
                where = "" if rows is None else \
                    f" WHERE rowid IN ({', '.join(str(r) for r in rows)})"
                select = ", ".join(columns)
                if rows is not None:
                    select = f"rowid AS profile_row, {select}"
                return con.sql(f"SELECT {select} FROM t{where}").df()

            def as_matrix(frame):
                if array:
                    return np.vstack(frame[FEATURES].to_numpy()).astype(np.float32, copy=False)
                return frame.to_numpy(np.float32)

            def in_request_order(frame):
                found = frame["profile_row"].to_numpy()
                at = np.argsort(found)
                return frame.iloc[at[np.searchsorted(found[at], plan.rows)]] \
                    .drop(columns="profile_row").reset_index(drop=True)

            features = [FEATURES] if array else [_quote(n) for n in plan.features]
            # The picked features: list_extract of the array, or the named columns.
            picks = [f"{FEATURES}[{j + 1}] AS {_quote(n)}"
                     for j, n in zip(plan.wanted_at, plan.wanted)] if array \
                else [_quote(n) for n in plan.wanted]
            if plan.op in ("matrix", "vector_norm"):
                return as_matrix(frame(features)), "SELECT … fetchdf(), to_numpy/vstack"
            if plan.op == "feature_project":
                how = "SELECT features[j] … (list_extract) fetchdf()" if array \
                    else "SELECT the picked columns fetchdf()"
                return frame(picks).to_numpy(np.float32), how
            if plan.op == "random_rows":
                picked = in_request_order(frame(features, sorted(set(plan.rows))))
                return as_matrix(picked), "rowid IN (…) fetchdf(), request order"
            metadata = [_quote(n) for n in plan.metadata]
            result = in_request_order(frame(metadata + picks, sorted(set(plan.rows))))
            return result, "rowid IN (…) with metadata and picked features, request order"
        finally:
            con.close()

    def relation_source(self, directory):
        return "t"

    def connection(self, directory, ctx):
        return _connect(data_file(directory, "duckdb"), ctx, read_only=True)

    def write(self, data, directory, ctx):
        con = _connect(data_file(directory, "duckdb"), ctx, read_only=False)
        try:
            con.register("source_frame", data)
            con.execute("CREATE TABLE t AS SELECT * FROM source_frame")
            con.unregister("source_frame")
        finally:
            con.close()  # checkpoints: the file is complete when the timer stops

    def take_query(self, source, rows):
        values = ", ".join(f"({r}, {i})" for i, r in enumerate(rows))
        query = (f"SELECT t.* FROM {source} t JOIN (VALUES {values}) q(r, o) ON t.rowid = q.r "
                 "ORDER BY q.o")
        return query, "rowid join, request order"


class DuckdbParquet(DuckdbBase):
    name = "py-duckdb-parquet"
    format = "parquet"
    about = "DuckDB reading and writing Parquet (COPY … TO, read_parquet)"
    profiles = ("default", "compact")

    def relation_source(self, directory):
        path = data_file(directory, "parquet").replace("'", "''")
        return f"read_parquet('{path}')"

    def connection(self, directory, ctx):
        return _connect(":memory:", ctx, read_only=False)

    def write(self, data, directory, ctx):
        con = _connect(":memory:", ctx, read_only=False)
        codec = "zstd, COMPRESSION_LEVEL 3" if ctx.profile == "compact" else "snappy"
        path = data_file(directory, "parquet").replace("'", "''")
        try:
            con.register("source_frame", data)
            con.execute(f"COPY source_frame TO '{path}' (FORMAT parquet, COMPRESSION {codec})")
        finally:
            con.close()

    def take_query(self, source, rows):
        values = ", ".join(f"({r}, {i})" for i, r in enumerate(rows))
        inner = source[:-1] + ", file_row_number = true)"
        query = (f"SELECT * EXCLUDE (file_row_number, r, o) FROM {inner} p "
                 f"JOIN (VALUES {values}) q(r, o) ON p.file_row_number = q.r ORDER BY q.o")
        return query, "file_row_number join, request order"


BACKENDS = [Duckdb(), DuckdbParquet()]


class Daft(Backend):
    name = "py-daft"
    format = "parquet"
    about = "Daft: write_parquet / read_parquet into Arrow (native runner)"
    dists = ("daft",)
    modules = ("daft",)
    ops = ("write", "read", "scan", "project", "range")
    file_sets = True

    def write(self, data, directory, ctx):
        import daft

        daft.from_arrow(data).write_parquet(os.path.join(directory, "daft"))

    def object_storage(self):
        return None  # read_parquet takes an IOConfig (Daft's own S3 client)

    def read(self, directory, request, ctx):
        frame = self.frame(directory, request, ctx)
        ctx.lazy = frame
        return frame.to_arrow(), "DataFrame.to_arrow()"

    def frame(self, directory, request, ctx):
        """The lazy frame of the request's read, which `read` then runs."""
        return daft_narrowed(self.source(directory, ctx), request)

    def source(self, directory, ctx):
        """The lazy frame of the whole stored table."""
        import daft

        from .. import storage

        files = SHARED_GLOB if ctx.file_set else "daft/*.parquet"
        return daft.read_parquet(storage.located(directory, files, ctx.storage),
                                 io_config=storage.daft_io_config(ctx.storage))


def daft_narrowed(frame, request):
    """A lazy Daft frame narrowed to the request (narrowed, with Daft's select and where)."""
    import daft

    return narrowed(frame, request, "Daft", lambda f, names: f.select(*names),
                    lambda f, c, lo, hi: f.where((daft.col(c) >= lo) & (daft.col(c) < hi)))


BACKENDS.append(Daft())


class Datafusion(Backend):
    """Apache DataFusion's Python bindings on one machine: its own Parquet writer and reader,
    partitioned across the thread cap (`target_partitions`)."""

    name = "py-datafusion"
    format = "parquet"
    about = ("DataFusion (Python bindings): DataFrame.write_parquet / SessionContext.read_parquet "
             "into Arrow")
    dists = ("datafusion",)
    modules = ("datafusion", "datafusion.object_store")
    file_sets = True
    ops = ("write", "read", "scan", "project", "range")
    #: Partitions of a scan are collected as they come, in no promised order.
    unordered = True

    @staticmethod
    def _context(ctx):
        from datafusion import SessionConfig, SessionContext

        return SessionContext(SessionConfig().with_target_partitions(max(int(ctx.threads), 1)))

    def settings_for(self, ctx):
        return {"target_partitions": str(ctx.threads),
                "compression": "DataFusion's default (zstd)"}

    def object_storage(self):
        return None  # its object_store S3 client, registered for the bucket

    def write(self, data, directory, ctx):
        self._context(ctx).from_arrow(data).write_parquet(data_file(directory, "parquet"))

    def read(self, directory, request, ctx):
        from datafusion import col, lit

        from .. import storage

        session = self._context(ctx)
        if ctx.storage:
            from datafusion.object_store import AmazonS3

            options = storage.object_store_options(ctx.storage)
            session.register_object_store("s3://", AmazonS3(
                bucket_name=ctx.storage["bucket"], region=options["aws_region"],
                access_key_id=options["aws_access_key_id"],
                secret_access_key=options["aws_secret_access_key"],
                session_token=options.get("aws_session_token"),
                endpoint=options["aws_endpoint"], allow_http=True), host=ctx.storage["bucket"])
        # The sweep's shared files: the artifact directory, every Parquet file in it.
        frame = session.read_parquet(
            os.path.join(storage.located(directory, "", ctx.storage), "") if ctx.file_set
            else storage.located(directory, "data.parquet", ctx.storage))
        frame = narrowed(frame, request, "DataFusion", lambda f, names: f.select(*names),
                         lambda f, c, lo, hi: f.filter((col(c) >= lit(lo)) & (col(c) < lit(hi))))
        method = ("read_parquet().filter(lo <= index < hi).to_arrow_table()"
                  if request.kind == "range" else "read_parquet().to_arrow_table()")
        return frame.to_arrow_table(), method


BACKENDS.append(Datafusion())
