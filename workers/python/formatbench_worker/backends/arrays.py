"""Array and columnar-file formats from the layout study: Vortex, Zarr (one 1-D array per
column in a group) and TileDB (a dense dataframe array)."""

import os

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
except ImportError:
    pa = None

from .base import Backend, Unsupported, range_bounds, reorder


def _sorted_unique(rows):
    return sorted(set(rows))


class Vortex(Backend):
    name = "py-vortex"
    about = "vortex-data: Vortex file (projection, filter expressions, row indices)"
    dists = ("vortex-data",)
    modules = ("vortex", "vortex.io", "vortex.expr")

    def write(self, data, directory, ctx):
        import vortex.io

        vortex.io.write(data, os.path.join(directory, "data.vortex"))

    def read(self, directory, request, ctx):
        import vortex
        import vortex.expr as ve

        file = vortex.open(os.path.join(directory, "data.vortex"))
        if request.kind in ("all", "columns"):
            return file.to_arrow(request.columns).read_all(), "to_arrow(projection)"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            if column is None:
                indices = vortex.array(pa.array(range(lo, hi), pa.uint64()))
                return file.to_arrow(indices=indices).read_all(), "to_arrow(indices=range)"
            expr = (ve.column(column) >= lo) & (ve.column(column) < hi)
            return file.to_arrow(expr=expr).read_all(), "to_arrow(expr=…): filter pushdown"
        wanted = _sorted_unique(request.rows)
        table = file.to_arrow(indices=vortex.array(pa.array(wanted, pa.uint64()))).read_all()
        # pyarrow has no take kernel for string_view: those columns become utf8 for the reorder.
        plain = pa.schema([f.with_type(pa.large_string()) if pa.types.is_string_view(f.type)
                           else f for f in table.schema])
        table = table.cast(plain).take(reorder(wanted, request.rows))
        return table, "to_arrow(indices=sorted) + reorder"


class Zarr(Backend):
    name = "py-zarr"
    about = "zarr 3: a group of 1-D arrays, one per column (zstd chunks of 64 Ki rows)"
    dists = ("zarr",)
    modules = ("zarr", "numpy")
    chunk_rows = 65_536

    def can_store(self, schema):
        for f in schema:
            t = f.type
            plain = (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)
                     or pa.types.is_string(t) or pa.types.is_large_string(t)
                     or pa.types.is_timestamp(t) or pa.types.is_date(t))
            if not plain:
                return f"this Zarr layout stores flat columns only ('{f.name}' is {t})"
        return None

    def write(self, data, directory, ctx):
        import zarr

        group = zarr.open_group(os.path.join(directory, "data.zarr"), mode="w")
        for name in data.column_names:
            values = data[name].to_numpy()
            if values.dtype == object:
                values = values.astype(str)
            group.create_array(name, data=values, chunks=(min(self.chunk_rows, max(len(values), 1)),))

    def _table(self, group, names, selection):
        columns = {}
        for name in names:
            array = group[name]
            values = array[selection] if not isinstance(selection, list) \
                else array.get_orthogonal_selection((selection,))
            columns[name] = values
        return pa.table(columns)

    def read(self, directory, request, ctx):
        import zarr

        group = zarr.open_group(os.path.join(directory, "data.zarr"), mode="r")
        names = request.columns or [f.name for f in ctx.schema]
        if request.kind in ("all", "columns"):
            return self._cast(self._table(group, names, slice(None)), ctx), "every chunk of each array"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            if column is None:
                return self._cast(self._table(group, names, slice(lo, hi)), ctx), "slice"
            import numpy as np

            keys = group[column][:]
            hits = np.flatnonzero((keys >= lo) & (keys < hi))
            if len(hits) == 0:
                return self._cast(self._table(group, names, slice(0, 0)), ctx), "index array, then slice"
            table = self._table(group, names, slice(int(hits[0]), int(hits[-1]) + 1))
            return self._cast(table.take(pa.array(hits - hits[0])), ctx), \
                "index array read, then the matching span"
        wanted = _sorted_unique(request.rows)
        table = self._table(group, names, wanted)
        return self._cast(table.take(reorder(wanted, request.rows)), ctx), \
            "orthogonal selection (sorted) + reorder"

    def _cast(self, table, ctx):
        # NumPy arrays come back as NumPy types: the source types are restored (a cast, not a
        # conversion of values; dates are stored as datetime64[D]).
        target = pa.schema([ctx.schema.field(n) for n in table.column_names])
        return table.cast(target)


class TileDB(Backend):
    deterministic_files = False
    name = "py-tiledb"
    about = "TileDB: a dense dataframe array from tiledb.from_pandas"
    dists = ("tiledb",)
    modules = ("tiledb", "pandas")
    targets = ("pandas",)

    def probe(self):
        from importlib import metadata

        pandas = metadata.version("pandas")
        if int(pandas.split(".")[0]) >= 3:
            return f"TileDB's dataframe functions need pandas < 3.0; pandas {pandas} is installed"
        return None

    def write(self, data, directory, ctx):
        import tiledb

        tiledb.from_pandas(os.path.join(directory, "data.tiledb"), data)

    def read(self, directory, request, ctx):
        import tiledb

        with tiledb.open(os.path.join(directory, "data.tiledb")) as array:
            if request.kind == "all":
                return self._frame(array.df[:]), "df[:]"
            if request.kind == "columns":
                return self._frame(array.query(attrs=list(request.columns)).df[:]), \
                    "query(attrs=…).df[:]"
            if request.kind == "range":
                column, lo, hi = range_bounds(request)
                if column is None:
                    return self._frame(array.df[lo:hi - 1]), "df[start:end] (inclusive)"
                frame = array.query(cond=f"{column} >= {lo} and {column} < {hi}").df[:]
                return self._frame(frame), "query(cond=…): attribute filter"
            wanted = _sorted_unique(request.rows)
            frame = self._frame(array.multi_index[[wanted]])
            return frame.iloc[reorder(wanted, request.rows)].reset_index(drop=True), \
                "multi_index[sorted] + reorder"

    @staticmethod
    def _frame(frame):
        # The row dimension comes back as the index; the table's columns are the attributes.
        return frame.reset_index(drop=True)


BACKENDS = [Vortex(), Zarr(), TileDB()]
