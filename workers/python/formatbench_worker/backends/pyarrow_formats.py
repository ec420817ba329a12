"""pyarrow's own readers and writers: Parquet, Feather (Arrow IPC files, plain and memory-mapped)
and CSV. pandas targets go through pandas' pyarrow engine, as a pandas user calls it."""

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:
    pa = pc = None

from .base import Backend, Unsupported, data_file, range_bounds


def _arrow(data):
    if isinstance(data, pa.Table):
        return data
    return pa.Table.from_pandas(data, preserve_index=False)


def _filter(table, column, lo, hi):
    values = table[column]
    return table.filter(pc.and_(pc.greater_equal(values, lo), pc.less(values, hi)))


def _finish(table, ctx):
    return table if ctx.target == "arrow" else table.to_pandas()


class PyarrowParquet(Backend):
    name = "py-pyarrow-parquet"
    about = "pyarrow.parquet (default: snappy; compact: zstd-3, no dictionary, BSS floats)"
    modules = ("pyarrow.parquet", "pyarrow.dataset")
    dists = ("pyarrow",)
    profiles = ("default", "compact")
    targets = ("arrow", "pandas")

    def _options(self, ctx):
        if ctx.profile == "compact":
            floats = [f.name for f in ctx.schema if pa.types.is_floating(f.type)]
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

    def read(self, directory, request, ctx):
        import pyarrow.parquet as pq

        path = data_file(directory, "parquet")
        threads = ctx.threads > 1
        if request.kind in ("all", "columns"):
            if ctx.target == "pandas":
                import pandas as pd

                return pd.read_parquet(path, engine="pyarrow", columns=request.columns), \
                    "pandas.read_parquet(engine='pyarrow')"
            return pq.read_table(path, columns=request.columns, use_threads=threads), \
                "pq.read_table"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            if column is not None:
                table = pq.read_table(path, filters=[(column, ">=", lo), (column, "<", hi)],
                                      use_threads=threads)
                return _finish(table, ctx), "pq.read_table(filters=…): row-group statistics, then filter"
            file = pq.ParquetFile(path)
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

        table = ds.dataset(path, format="parquet").take(pa.array(request.rows, pa.int64()))
        return _finish(table, ctx), "pyarrow.dataset take"


class PyarrowFeather(Backend):
    name = "py-pyarrow-feather"
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

    def read(self, directory, request, ctx):
        import pyarrow.feather as feather

        path = data_file(directory, "arrow")
        threads = ctx.threads > 1
        how = "memory-mapped" if self.memory_map else "plain reads"
        if request.kind in ("all", "columns") and ctx.target == "pandas":
            return feather.read_feather(path, columns=request.columns, use_threads=threads,
                                        memory_map=self.memory_map), f"feather.read_feather ({how})"
        table = feather.read_table(path, columns=request.columns, use_threads=threads,
                                   memory_map=self.memory_map)
        if request.kind in ("all", "columns"):
            return table, f"feather.read_table ({how})"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            if column is None:
                return _finish(table.slice(lo, hi - lo), ctx), f"read_table ({how}) + slice"
            return _finish(_filter(table, column, lo, hi), ctx), f"read_table ({how}) + filter"
        return _finish(table.take(pa.array(request.rows, pa.int64())), ctx), \
            f"read_table ({how}) + take"


class PyarrowFeatherMmap(PyarrowFeather):
    name = "py-pyarrow-feather-mmap"
    about = "pyarrow.feather read with memory_map=True (reads the py-pyarrow-feather file)"
    profiles = ("default",)
    ops = ("read", "scan", "project", "range", "take")
    memory_map = True


class PyarrowCsv(Backend):
    name = "py-pyarrow-csv"
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

    def read(self, directory, request, ctx):
        import pyarrow.csv as csv

        path = data_file(directory, "csv")
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
