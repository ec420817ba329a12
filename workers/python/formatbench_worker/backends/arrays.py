"""Array and columnar-file formats from the layout study: Vortex, Zarr (one 1-D array per
column in a group) and TileDB (a dense dataframe array)."""

import os

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
except ImportError:
    pa = None

from ..layouts import ARRAY, FEATURES
from .base import Backend, Unsupported, range_bounds, reorder
from .pyarrow_formats import ArrowMatrices


def _sorted_unique(rows):
    return sorted(set(rows))


class Vortex(ArrowMatrices, Backend):
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

    take_method = "to_arrow(indices=sorted) + reorder"
    string_views = True

    def _columns(self, directory, names, ctx):
        import vortex

        # The study's path: a full read, then the columns selected.
        table = vortex.open(os.path.join(directory, "data.vortex")).to_arrow().read_all()
        return table.select(names)

    def _take(self, directory, rows, names, ctx):
        import vortex

        file = vortex.open(os.path.join(directory, "data.vortex"))
        indices = vortex.array(pa.array(rows, pa.uint64()))
        return file.to_arrow(indices=indices).read_all().select(names)


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
            if ctx.layout == ARRAY and name == FEATURES:
                self._write_matrix(group, data[name], ctx)
                continue
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
        if ctx.layout == ARRAY:
            return self._array_read(group, request, ctx)
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

    matrix_layouts = ("wide", "array")
    # The feature names go into the group's attributes, as the study keeps them.
    array_sidecar = False

    def _write_matrix(self, group, column, ctx):
        from ..layouts import feature_names

        column = column.combine_chunks()
        width = column.type.list_size
        matrix = column.flatten().to_numpy().reshape(-1, width)
        rows = max(len(matrix), 1)
        group.create_array(FEATURES, data=matrix, chunks=(min(rows, MATRIX_CHUNK),
                                                            min(width, MATRIX_CHUNK)))
        group.attrs["layout"] = "zarr_matrix"
        group.attrs["feature_names"] = feature_names(ctx.schema)

    def _metadata_table(self, group, names, selection, ctx):
        return self._cast(self._table(group, names, selection), ctx)

    def _array_read(self, group, request, ctx):
        """The array layout read whole: the metadata arrays and the matrix as a list column."""
        from ..layouts import feature_names

        import pyarrow as pa

        features = feature_names(ctx.schema)
        metadata = [f.name for f in ctx.schema if f.name not in set(features)]
        table = self._metadata_table(group, metadata, slice(None), ctx)
        matrix = group[FEATURES][:]
        item = pa.field("item", pa.float32(), nullable=False)
        values = pa.array(matrix.reshape(-1), pa.float32())
        column = pa.FixedSizeListArray.from_arrays(values, type=pa.list_(item, len(features)))
        position = ctx.schema.names.index(features[0])
        before = [n for n in ctx.schema.names[:position] if n in metadata]
        table = table.add_column(len(before), pa.field(FEATURES, column.type, nullable=False),
                                 column)
        return table, "every chunk of the metadata arrays and the matrix"

    def matrix(self, directory, plan, ctx):
        import numpy as np
        import zarr

        group = zarr.open_group(os.path.join(directory, "data.zarr"), mode="r")
        wanted = sorted(set(plan.rows))
        order = reorder(wanted, plan.rows)
        if ctx.layout == ARRAY:
            features = group[FEATURES]
            if plan.op in ("matrix", "vector_norm"):
                return features[:], "features[:]"
            if plan.op == "feature_project":
                return features.get_orthogonal_selection((slice(None), plan.wanted_at)), \
                    "features.oindex[:, picked]"
            if plan.op == "random_rows":
                return features.get_orthogonal_selection((wanted, slice(None)))[order], \
                    "features.oindex[sorted rows, :] + reorder"
            picked = features.get_orthogonal_selection((wanted, plan.wanted_at))[order]
            method = "metadata oindex[rows] + features.oindex[rows, picked], reordered"
        else:
            def stack(names, selection):
                if isinstance(selection, list):
                    return np.column_stack([group[n].get_orthogonal_selection((selection,))
                                            for n in names])
                return np.column_stack([group[n][selection] for n in names])

            if plan.op in ("matrix", "vector_norm"):
                return stack(plan.features, slice(None)), "column_stack of every feature array"
            if plan.op == "feature_project":
                return stack(plan.wanted, slice(None)), "the picked feature arrays"
            if plan.op == "random_rows":
                return stack(plan.features, wanted)[order], \
                    "oindex[sorted rows] on every feature array + reorder"
            picked = stack(plan.wanted, wanted)[order]
            method = "oindex[sorted rows] on the metadata and picked arrays, reordered"
        import pyarrow as pa

        table = self._metadata_table(group, plan.metadata, wanted, ctx).take(pa.array(order))
        for j, name in enumerate(plan.wanted):
            table = table.append_column(pa.field(name, pa.float32(), nullable=False),
                                        pa.array(np.ascontiguousarray(picked[:, j])))
        return table, method

    def _cast(self, table, ctx):
        # NumPy arrays come back as NumPy types: the source types are restored (a cast, not a
        # conversion of values; dates are stored as datetime64[D]).
        target = pa.schema([ctx.schema.field(n) for n in table.column_names])
        return table.cast(target)


#: The study's Zarr chunk edge for the matrix (rows and features).
MATRIX_CHUNK = 1024


class Npy(Backend):
    name = "py-numpy-npy"
    about = ("NumPy .npy: the bare N × D float32 matrix, the layout study's floor (np.save, "
             "np.load; rows and features through mmap_mode='r')")
    dists = ("numpy",)
    modules = ("numpy",)
    ops = ()
    matrix_layouts = ("array",)
    # It keeps no metadata: no table read, no `mixed`.
    array_ops = ("write", "matrix", "random_rows", "feature_project", "vector_norm")

    def prepare_input(self, data, ctx):
        from ..layouts import feature_names, list_matrix

        import numpy as np

        if ctx.layout != ARRAY:
            raise Unsupported(".npy holds one float array: it stores the array layout only")
        return np.ascontiguousarray(list_matrix(data[FEATURES], len(feature_names(ctx.schema))))

    def write(self, data, directory, ctx):
        import numpy as np

        np.save(os.path.join(directory, "data.npy"), data)

    def matrix(self, directory, plan, ctx):
        import numpy as np

        path = os.path.join(directory, "data.npy")
        if plan.op in ("matrix", "vector_norm"):
            return np.load(path), "np.load"
        mapped = np.load(path, mmap_mode="r")
        if plan.op == "random_rows":
            return np.asarray(mapped[np.asarray(plan.rows)]), "np.load(mmap_mode='r')[rows]"
        if plan.op == "feature_project":
            return np.array(mapped[:, plan.wanted_at]), "np.load(mmap_mode='r')[:, picked]"
        raise Unsupported("the bare matrix keeps no metadata columns for 'mixed'")


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


BACKENDS = [Vortex(), Zarr(), Npy(), TileDB()]
