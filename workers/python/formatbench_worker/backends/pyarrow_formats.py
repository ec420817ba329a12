"""pyarrow's own readers and writers: Parquet, Feather (Arrow IPC files, plain and memory-mapped)
and CSV. pandas targets go through pandas' pyarrow engine, as a pandas user calls it."""

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:
    pa = pc = None

import os

from ..layouts import ARRAY, FEATURES, list_matrix, matrix_of
from .base import (Backend, Unsupported, data_file, range_bounds, read_batches, reorder,
                   shared_names)


def _arrow(data):
    if isinstance(data, pa.Table):
        return data
    return pa.Table.from_pandas(data, preserve_index=False)


def _filter(table, column, lo, hi):
    values = table[column]
    return table.filter(pc.and_(pc.greater_equal(values, lo), pc.less(values, hi)))


def _finish(table, ctx):
    return table if ctx.target == "arrow" else table.to_pandas()


def _located(directory, extension, ctx):
    """The artifact's data file and the filesystem it is on: the bucket's object through
    pyarrow's S3FileSystem when the job's artifact lives in object storage. The sweep's shared
    files (`ctx.file_set`): the list of them, in row order."""
    if ctx.file_set:
        from .. import storage

        names = shared_names(directory)
        if ctx.storage:
            return ([storage.path(ctx.storage, n) for n in names],
                    storage.filesystem(ctx.storage))
        return [os.path.join(directory, n) for n in names], None
    if ctx.storage:
        from .. import storage

        return storage.path(ctx.storage, f"data.{extension}"), storage.filesystem(ctx.storage)
    return data_file(directory, extension), None


def _open_feather(directory, ctx, memory_map):
    """What feather.read_table reads: the local path, or the object opened for random access
    (ranged GETs as the reader asks for the footer and the batches)."""
    path, fs = _located(directory, "arrow", ctx)
    if fs is None:
        return path, memory_map
    return fs.open_input_file(path), False


def _read_parquet(path, fs, columns, threads):
    """What `pq.read_table(path, columns=…)` does (ParquetDataset's scan of each fragment, one
    per file, with its read options), as batches collected one by one, so that the first is
    marked as it arrives."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    tables = [read_batches(ds.Scanner.from_fragment(fragment, columns=columns,
                                                    use_threads=threads).to_reader())
              for fragment in pq.ParquetDataset(path, filesystem=fs).fragments]
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables)


def _pandas_matrix(table):
    """Wide columns to a matrix as the study does it: through pandas."""
    import numpy as np

    return table.to_pandas().to_numpy(np.float32)


def _without_string_views(table):
    """String-view columns as large strings, for pyarrow's take kernel (a cast of types)."""
    plain = pa.schema([f.with_type(pa.large_string()) if pa.types.is_string_view(f.type)
                       else f for f in table.schema])
    return table.cast(plain)


class ArrowMatrices:
    """The layout study's access paths for a format read into Arrow tables (`_columns` reads
    named columns; `_take` sorted rows of named columns): wide layouts name the feature
    columns and go through pandas, array layouts read the list column and reshape its values,
    and picked features of an array are gathered from the whole matrix."""

    matrix_layouts = ("wide", "array")
    #: How `_take` is done, for `method`.
    take_method = ""
    #: Whether its tables may hold string views, which pyarrow's take kernel lacks.
    string_views = False

    def matrix(self, directory, plan, ctx):
        import numpy as np

        width = len(plan.features)
        array = ctx.layout == ARRAY
        if plan.op in ("matrix", "vector_norm"):
            if array:
                return list_matrix(self._columns(directory, [FEATURES], ctx)[FEATURES], width), \
                    "list column read, values reshaped"
            return _pandas_matrix(self._columns(directory, plan.features, ctx)), \
                "feature columns read, to_pandas().to_numpy()"
        if plan.op == "feature_project":
            if array:
                whole = list_matrix(self._columns(directory, [FEATURES], ctx)[FEATURES], width)
                return np.ascontiguousarray(whole[:, plan.wanted_at]), \
                    "list column read, picked features gathered"
            return _pandas_matrix(self._columns(directory, plan.wanted, ctx)), \
                "the picked columns read, to_pandas().to_numpy()"
        wanted = sorted(set(plan.rows))
        order = reorder(wanted, plan.rows)
        take = self._take
        if self.string_views:
            def take(*args):
                return _without_string_views(self._take(*args))
        if plan.op == "random_rows":
            names = [FEATURES] if array else plan.features
            table = take(directory, wanted, names, ctx).take(order)
            if array:
                return list_matrix(table[FEATURES], width), f"{self.take_method}, reshaped"
            return matrix_of(table, plan.features), f"{self.take_method} of the feature columns"
        names = plan.metadata + ([FEATURES] if array else plan.wanted)
        return take(directory, wanted, names, ctx).take(order), \
            f"{self.take_method} of the metadata and picked columns"


class PyarrowParquet(ArrowMatrices, Backend):
    name = "py-pyarrow-parquet"
    given = ("parquet", "data.parquet")
    about = "pyarrow.parquet (default: snappy; compact: zstd-3, no dictionary, BSS floats)"
    modules = ("pyarrow.parquet", "pyarrow.dataset")
    dists = ("pyarrow",)
    profiles = ("default", "compact")
    targets = ("arrow", "pandas")
    file_sets = True

    def _options(self, ctx):
        if ctx.profile == "compact":
            floats = [f.name for f in ctx.schema if pa.types.is_floating(f.type)]
            if ctx.layout == ARRAY:
                # The list's values, as pyarrow names the leaf (the study's setting).
                floats = [f"{FEATURES}.list.element"]
            return dict(compression="zstd", compression_level=3, use_dictionary=False,
                        use_byte_stream_split=floats or False)
        return dict(compression="snappy")

    def write(self, data, directory, ctx):
        import pyarrow.parquet as pq

        if ctx.target == "pandas":
            data.to_parquet(data_file(directory, "parquet"), engine="pyarrow", index=False,
                            **self._options(ctx))
        else:
            pq.write_table(data, data_file(directory, "parquet"), **self._options(ctx))

    def object_storage(self):
        return None

    def read(self, directory, request, ctx):
        import pyarrow.parquet as pq

        path, fs = _located(directory, "parquet", ctx)
        threads = ctx.threads > 1
        if request.kind in ("all", "columns"):
            if ctx.target == "pandas":
                import pandas as pd

                return pd.read_parquet(path, engine="pyarrow", columns=request.columns,
                                       filesystem=fs), \
                    "pandas.read_parquet(engine='pyarrow')"
            return _read_parquet(path, fs, request.columns, threads), \
                "pq.read_table's scan (ParquetDataset), batches collected as they arrive"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            if column is not None:
                table = pq.read_table(path, filters=[(column, ">=", lo), (column, "<", hi)],
                                      use_threads=threads, filesystem=fs)
                return _finish(table, ctx), "pq.read_table(filters=…): row-group statistics, then filter"
            # The shared files of a sweep point are one file here: the runner refuses ranges
            # by position across several.
            file = pq.ParquetFile(path[0] if isinstance(path, list) else path, filesystem=fs)
            groups, first, offset = [], None, 0
            for i in range(file.num_row_groups):
                n = file.metadata.row_group(i).num_rows
                if offset + n > lo and offset < hi:
                    groups.append(i)
                    first = offset if first is None else first
                offset += n
            table = file.read_row_groups(groups, use_threads=threads)
            table = table.slice(lo - (first or 0), hi - lo)
            return _finish(table, ctx), "row groups overlapping the range, then slice"
        import pyarrow.dataset as ds

        table = ds.dataset(path, format="parquet", filesystem=fs).take(
            pa.array(request.rows, pa.int64()))
        return _finish(table, ctx), "pyarrow.dataset take"

    take_method = "pyarrow.dataset take"

    def _columns(self, directory, names, ctx):
        path, fs = _located(directory, "parquet", ctx)
        return _read_parquet(path, fs, names, ctx.threads > 1)

    def _take(self, directory, rows, names, ctx):
        import pyarrow.dataset as ds

        path, fs = _located(directory, "parquet", ctx)
        dataset = ds.dataset(path, format="parquet", filesystem=fs)
        return dataset.take(pa.array(rows, pa.int64()), columns=names)


class PyarrowFeather(ArrowMatrices, Backend):
    name = "py-pyarrow-feather"
    given = ("arrow-ipc", "data.arrow")
    about = "pyarrow.feather, Arrow IPC files (default: uncompressed; lz4; zstd)"
    modules = ("pyarrow.feather",)
    dists = ("pyarrow",)
    profiles = ("default", "lz4", "zstd")
    targets = ("arrow", "pandas")
    memory_map = False

    def write(self, data, directory, ctx):
        import pyarrow.feather as feather

        compression = "uncompressed" if ctx.profile == "default" else ctx.profile
        feather.write_feather(data, data_file(directory, "arrow"), compression=compression)

    def object_storage(self):
        if self.memory_map:
            return (f"{self.name} maps local files; over object storage py-pyarrow-feather "
                    "reads the same files by range")
        return None

    def read(self, directory, request, ctx):
        import pyarrow.feather as feather

        source, memory_map = _open_feather(directory, ctx, self.memory_map)
        threads = ctx.threads > 1
        how = "memory-mapped" if memory_map else (
            "ranged GETs through S3FileSystem" if ctx.storage else "plain reads")
        if request.kind in ("all", "columns") and ctx.target == "pandas":
            return feather.read_feather(source, columns=request.columns, use_threads=threads,
                                        memory_map=memory_map), f"feather.read_feather ({how})"
        table = feather.read_table(source, columns=request.columns, use_threads=threads,
                                   memory_map=memory_map)
        if request.kind in ("all", "columns"):
            return table, f"feather.read_table ({how})"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            if column is None:
                return _finish(table.slice(lo, hi - lo), ctx), f"read_table ({how}) + slice"
            return _finish(_filter(table, column, lo, hi), ctx), f"read_table ({how}) + filter"
        return _finish(table.take(pa.array(request.rows, pa.int64())), ctx), \
            f"read_table ({how}) + take"

    @property
    def take_method(self):
        return f"read_table ({'memory-mapped' if self.memory_map else 'plain reads'}) + take"

    def _columns(self, directory, names, ctx):
        import pyarrow.feather as feather

        source, memory_map = _open_feather(directory, ctx, self.memory_map)
        return feather.read_table(source, columns=names, use_threads=ctx.threads > 1,
                                  memory_map=memory_map)

    def _take(self, directory, rows, names, ctx):
        return self._columns(directory, names, ctx).take(pa.array(rows, pa.int64()))


class PyarrowFeatherMmap(PyarrowFeather):
    name = "py-pyarrow-feather-mmap"
    about = "pyarrow.feather read with memory_map=True (reads the py-pyarrow-feather file)"
    profiles = ("default",)
    ops = ("read", "scan", "project", "range", "take")
    array_ops = ("read", "scan", "matrix", "random_rows", "feature_project", "mixed",
                 "vector_norm")
    memory_map = True


class PyarrowCsv(Backend):
    name = "py-pyarrow-csv"
    given = ("csv", "data.csv")
    about = "pyarrow.csv (schema given, multithreaded parse)"
    modules = ("pyarrow.csv",)
    dists = ("pyarrow",)
    lossy = True

    def can_store(self, schema):
        nested = [f.name for f in schema if pa.types.is_nested(f.type)]
        return f"CSV cannot store the nested column '{nested[0]}'" if nested else None

    def write(self, data, directory, ctx):
        import pyarrow.csv as csv

        csv.write_csv(data, data_file(directory, "csv"))

    def _options(self, ctx, columns=None, skip=0):
        import pyarrow.csv as csv

        convert = csv.ConvertOptions(column_types={f.name: f.type for f in ctx.schema},
                                     include_columns=columns, strings_can_be_null=True)
        read = csv.ReadOptions(use_threads=ctx.threads > 1, skip_rows_after_names=skip)
        return dict(convert_options=convert, read_options=read)

    def object_storage(self):
        return None

    def read(self, directory, request, ctx):
        import pyarrow.csv as csv

        path, fs = _located(directory, "csv", ctx)
        if fs is not None:
            # The object as one stream (a GET read as it is parsed); each branch reads once.
            path = fs.open_input_stream(path)
        if request.kind in ("all", "columns"):
            return csv.read_csv(path, **self._options(ctx, request.columns)), "csv.read_csv"
        column, lo, hi = (None, 0, 0) if request.kind == "take" else range_bounds(request)
        if request.kind == "range" and column is None:
            # The streaming reader skips the lines before the range and stops after it.
            reader = csv.open_csv(path, **self._options(ctx, skip=lo))
            batches, rows = [], 0
            for batch in reader:
                batches.append(batch)
                rows += batch.num_rows
                if rows >= hi - lo:
                    break
            table = pa.Table.from_batches(batches, reader.schema).slice(0, hi - lo)
            return table, "open_csv(skip_rows_after_names) streaming, stops after the range"
        table = csv.read_csv(path, **self._options(ctx))
        if request.kind == "range":
            return _filter(table, column, lo, hi), "full parse + filter"
        return table.take(pa.array(request.rows, pa.int64())), "full parse + take"


BACKENDS = [PyarrowParquet(), PyarrowFeather(), PyarrowFeatherMmap(), PyarrowCsv()]
