"""Table stores and lakehouse formats: FeatherStore (partitioned Feather, the FeatherStore
study's subject), Lance and Delta Lake (delta-rs)."""

import os

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:
    pa = pc = None

from ..measure import timed_phase
from .base import Backend, DeltaReader, Unsupported, range_bounds, read_batches
from .pyarrow_formats import ArrowMatrices


def _to_target(table, ctx):
    if ctx.target == "pandas":
        return table.to_pandas()
    if ctx.target == "polars":
        import polars as pl

        return pl.from_arrow(table)
    return table


_MIB = 1024 ** 2
# FeatherStore's partition sizes as profiles (seed 000's trade-off: smaller partitions let range
# and label reads skip more rows, larger ones make full reads and writes cheaper); the default
# is FeatherStore's own, 128 MiB.
_PARTITION_BYTES = {"default": 128 * _MIB, "8mib": 8 * _MIB, "32mib": 32 * _MIB,
                    "512mib": 512 * _MIB}


class FeatherStore(Backend):
    """FeatherStore 0.2.1: index-labelled rows; ranges as {'between': [a, b]} (inclusive), takes
    as label lists; no mmap argument (it memory-maps on Linux), so no plain-read profile."""

    needs_labels = True
    name = "py-featherstore"
    format = "featherstore"
    ops = ("write", "read", "scan", "project", "range", "take", "range_before", "range_after",
           "range_between", "labels", "append", "insert", "update")
    about = ("FeatherStore 0.2.1: partitioned Feather files with an index (128 MiB partitions; "
             "8mib, 32mib, 512mib: other partition sizes)")
    profiles = tuple(_PARTITION_BYTES)
    modules = ("featherstore",)
    dists = ("featherstore",)
    targets = ("arrow", "pandas", "polars")

    def settings_for(self, ctx):
        return {"partition_bytes": str(_PARTITION_BYTES[ctx.profile])}

    def object_storage(self):
        return ("FeatherStore 0.2 opens its store as a local directory (featherstore.connect) "
                "and memory-maps its files: it has no object-store route")

    def _table(self, directory):
        import featherstore as fs

        fs.connect(os.path.join(directory, "db"))
        return fs.Store("s").select_table("t")

    def prepare_input(self, data, ctx):
        if ctx.target == "pandas" and ctx.index_column:
            return data.set_index(ctx.index_column)  # pandas users hand FeatherStore an index
        return data

    def write(self, data, directory, ctx):
        import featherstore as fs

        db = os.path.join(directory, "db")
        fs.create_database(db, errors="ignore", connect=True)
        if not fs.store_exists("s"):
            fs.create_store("s")
        index = ctx.index_column if ctx.target != "pandas" else None
        fs.Store("s").write_table("t", data, index=index, errors="ignore", warnings="ignore",
                                  partition_size=_PARTITION_BYTES[ctx.profile])

    def read(self, directory, request, ctx):
        table = self._table(directory)
        readers = {"arrow": table.read_arrow, "pandas": table.read_pandas,
                   "polars": table.read_polars}
        read = readers[ctx.target]
        if request.kind == "all":
            return read(), f"read_{ctx.target}()"
        if request.kind == "columns":
            result = read(cols=list(request.columns))
            if ctx.target != "pandas":
                # FeatherStore always returns the index column (the table's own, or the default
                # one it adds to a table without): the projection keeps only what it asked for.
                result = result.select(list(request.columns))
            return result, f"read_{ctx.target}(cols=[…])"
        if request.kind in ("before", "after", "between"):
            bound = request.bound
            return read(rows={request.kind: bound}), f"read_{ctx.target}(rows={{'{request.kind}': …}})"
        if request.labels is None:
            raise Unsupported("FeatherStore addresses rows by index label; this table has no index")
        if request.kind == "range":
            if not request.labels:
                raise Unsupported("an empty range has no labels to bound")
            bounds = [request.labels[0], request.labels[-1]]
            return read(rows={"between": bounds}), f"read_{ctx.target}(rows={{'between': [a, b]}})"
        return read(rows=list(request.labels)), f"read_{ctx.target}(rows=[labels])"

    def prepare_change(self, kind, data, ctx):
        if kind != "append" and ctx.target != "pandas":
            # 0.2.1's insert and update take only pandas (with the index as the frame's index).
            return data.to_pandas().set_index(ctx.index_column)
        return data

    def change(self, kind, data, directory, ctx):
        table = self._table(directory)
        if kind == "append":
            table.append(data)
        elif kind == "insert":
            table.insert(data)
        else:
            table.update(data)
        taken = "pandas, as 0.2.1 requires" if kind != "append" and ctx.target != "pandas" \
            else ctx.target
        return f"Table.{kind}({taken})"


class Lance(ArrowMatrices, Backend):
    name = "py-lance"
    format = "lance"
    about = "pylance: Lance dataset (to_table with filter / offset+limit, take)"
    modules = ("lance",)
    dists = ("pylance",)
    targets = ("arrow",)

    def write(self, data, directory, ctx):
        import lance

        lance.write_dataset(data, os.path.join(directory, "data.lance"))

    def object_storage(self):
        return None  # lance.dataset takes `storage_options` (Lance's object_store client)

    def _dataset(self, directory, ctx):
        import lance

        from .. import storage

        options = storage.object_store_options(ctx.storage) if ctx.storage else None
        return lance.dataset(storage.located(directory, "data.lance", ctx.storage),
                             storage_options=options)

    def read(self, directory, request, ctx):
        dataset = self._dataset(directory, ctx)
        if request.kind in ("all", "columns"):
            # to_table is scanner(…).to_reader().read_all(): the same batches, collected here.
            return read_batches(dataset.scanner(columns=request.columns).to_reader()), \
                "scanner(columns).to_reader(), batches collected (what to_table does)"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            if column is None:
                return dataset.to_table(offset=lo, limit=hi - lo), "to_table(offset, limit)"
            table = dataset.to_table(filter=f"{column} >= {lo} AND {column} < {hi}")
            return table, "to_table(filter=…)"
        return dataset.take(list(request.rows)), "take(indices)"

    take_method = "take(indices, columns)"

    def _columns(self, directory, names, ctx):
        dataset = self._dataset(directory, ctx)
        if len(names) > WIDE_SCAN_COLUMNS:
            # Lance pays per column named (about 1.35 ms each in the study): many columns are
            # read with a full scan, then selected, as the study does.
            return dataset.to_table().select(names)
        return dataset.to_table(columns=names)

    def _take(self, directory, rows, names, ctx):
        dataset = self._dataset(directory, ctx)
        return dataset.take(rows, columns=names)


#: Above this many columns a Lance read scans every column, then selects.
WIDE_SCAN_COLUMNS = 64


class DeltaLake(DeltaReader):
    name = "py-deltalake"
    about = ("deltalake (delta-rs's Python package) reading the tables delta-kernel writes: "
             "QueryBuilder (DataFusion) SELECT, deletion vectors applied")
    modules = ("deltalake",)
    dists = ("deltalake",)
    targets = ("arrow",)

    def object_storage(self):
        return None  # DeltaTable takes `storage_options` (delta-rs's object_store client)

    def read(self, directory, request, ctx):
        from deltalake import DeltaTable, QueryBuilder

        from .. import storage

        options = storage.object_store_options(ctx.storage) if ctx.storage else None
        location = storage.located(directory, "", ctx.storage)
        if request.kind == "first_row":
            sql = "SELECT * FROM t LIMIT 1"
        else:
            columns = "*" if request.kind == "all" else ", ".join(
                '"' + c.replace('"', '""') + '"' for c in request.columns)
            sql = f"SELECT {columns} FROM t"
        if request.kind == "session":
            # delta-rs loads the table's state (every file and deletion vector) when it opens
            # it: initialization pays for what each query's plan then reuses.
            table = timed_phase("init", lambda: DeltaTable(location, storage_options=options))
            result = None
            for _ in range(request.queries):
                result = None
                stream = timed_phase(
                    "plan", lambda: QueryBuilder().register("t", table).execute(sql))
                result = timed_phase(
                    "execute", lambda: read_batches(pa.RecordBatchReader.from_stream(stream)))
            return result, f"DeltaTable once, then per query QueryBuilder.execute: {sql}"
        table = DeltaTable(location, storage_options=options)
        query = QueryBuilder().register("t", table)
        # The result streams through the Arrow C stream interface into a pyarrow table.
        result = read_batches(pa.RecordBatchReader.from_stream(query.execute(sql)))
        return result, sql


BACKENDS = [FeatherStore(), Lance(), DeltaLake()]
