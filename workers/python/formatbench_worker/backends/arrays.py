"""Array and columnar-file formats from the layout study: Vortex, Zarr (one 1-D array per
column in a group) and TileDB (a dense dataframe array)."""

import os

try:  # importable without pyarrow, so that --describe can say it is missing
    import pyarrow as pa
except ImportError:
    pa = None

from ..layouts import ARRAY, FEATURES
from .base import Backend, Unsupported, range_bounds, read_batches, reorder
from .pyarrow_formats import ArrowMatrices


def _sorted_unique(rows):
    return sorted(set(rows))


def _open_vortex(directory, ctx):
    """The artifact's Vortex file: local, or its object through vortex's own S3 client."""
    import vortex

    if ctx.storage:
        from .. import storage

        return vortex.open("data.vortex", store=storage.vortex_store(ctx.storage))
    return vortex.open(os.path.join(directory, "data.vortex"))


def _open_zarr(directory, ctx):
    """The artifact's Zarr group: local, or its objects through obstore's S3 client."""
    import zarr

    if ctx.storage:
        from .. import storage

        return zarr.open_group(storage.zarr_store(ctx.storage, "data.zarr"), mode="r")
    return zarr.open_group(os.path.join(directory, "data.zarr"), mode="r")


class Vortex(ArrowMatrices, Backend):
    name = "py-vortex"
    format = "vortex"
    about = "vortex-data: Vortex file (projection, filter expressions, row indices)"
    dists = ("vortex-data",)
    modules = ("vortex", "vortex.io", "vortex.expr")

    def write(self, data, directory, ctx):
        import vortex.io

        vortex.io.write(data, os.path.join(directory, "data.vortex"))

    def read(self, directory, request, ctx):
        import vortex
        import vortex.expr as ve

        file = _open_vortex(directory, ctx)
        if request.kind in ("all", "columns"):
            return read_batches(file.to_arrow(request.columns)), "to_arrow(projection)"
        if request.kind == "range":
            column, lo, hi = range_bounds(request)
            if column is None:
                indices = vortex.array(pa.array(range(lo, hi), pa.uint64()))
                return read_batches(file.to_arrow(indices=indices)), "to_arrow(indices=range)"
            expr = (ve.column(column) >= lo) & (ve.column(column) < hi)
            return read_batches(file.to_arrow(expr=expr)), "to_arrow(expr=…): filter pushdown"
        wanted = _sorted_unique(request.rows)
        table = read_batches(
            file.to_arrow(indices=vortex.array(pa.array(wanted, pa.uint64()))))
        # pyarrow has no take kernel for string_view: those columns become utf8 for the reorder.
        plain = pa.schema([f.with_type(pa.large_string()) if pa.types.is_string_view(f.type)
                           else f for f in table.schema])
        table = table.cast(plain).take(reorder(wanted, request.rows))
        return table, "to_arrow(indices=sorted) + reorder"

    take_method = "to_arrow(indices=sorted) + reorder"
    string_views = True

    def object_storage(self):
        return None

    def _columns(self, directory, names, ctx):
        # The study's path: a full read, then the columns selected.
        table = read_batches(_open_vortex(directory, ctx).to_arrow())
        return table.select(names)

    def _take(self, directory, rows, names, ctx):
        import vortex

        file = _open_vortex(directory, ctx)
        indices = vortex.array(pa.array(rows, pa.uint64()))
        return read_batches(file.to_arrow(indices=indices)).select(names)


class Zarr(Backend):
    name = "py-zarr"
    format = "zarr"
    about = "zarr 3: a group of 1-D arrays, one per column (zstd chunks of 64 Ki rows)"
    dists = ("zarr",)
    modules = ("zarr", "numpy")
    chunk_rows = 65_536

    def object_storage(self):
        from .. import storage

        return storage.client_missing(
            "obstore", "zarr 3 reaches S3 through obstore (zarr.storage.ObjectStore)")

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
        group = _open_zarr(directory, ctx)
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
        group = _open_zarr(directory, ctx)
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
    format = "npy"
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

    def object_storage(self):
        return None

    def matrix(self, directory, plan, ctx):
        import numpy as np

        path = os.path.join(directory, "data.npy")
        if ctx.storage:
            # No mapping over HTTP: the object is read whole (the header, then the data, as
            # ranged GETs of a seekable file), then indexed.
            from .. import storage

            fs = storage.filesystem(ctx.storage)
            with fs.open_input_file(storage.path(ctx.storage, "data.npy")) as file:
                whole = np.load(file)
            if plan.op == "random_rows":
                return whole[np.asarray(plan.rows)], "np.load of the whole object (ranged GETs), then [rows]"
            if plan.op == "feature_project":
                return np.array(whole[:, plan.wanted_at]), \
                    "np.load of the whole object (ranged GETs), then [:, picked]"
            if plan.op in ("matrix", "vector_norm"):
                return whole, "np.load of the whole object (ranged GETs)"
        if plan.op in ("matrix", "vector_norm"):
            return np.load(path), "np.load"
        mapped = np.load(path, mmap_mode="r")
        if plan.op == "random_rows":
            return np.asarray(mapped[np.asarray(plan.rows)]), "np.load(mmap_mode='r')[rows]"
        if plan.op == "feature_project":
            return np.array(mapped[:, plan.wanted_at]), "np.load(mmap_mode='r')[:, picked]"
        raise Unsupported("the bare matrix keeps no metadata columns for 'mixed'")


def _pandas_before_3():
    """Whether tiledb's dataframe functions (from_pandas, .df) can run: they need pandas < 3."""
    from importlib import metadata

    try:
        return int(metadata.version("pandas").split(".")[0]) < 3
    except (metadata.PackageNotFoundError, ValueError):
        return False


class TileDB(Backend):
    """Tables through tiledb.from_pandas where pandas < 3; the layout study's two layouts
    through the array API either way, as the study stores them: `wide` as one float32
    attribute per feature on a dense 1-D domain `profile`, `array` as a dense 2-D domain
    `profile` × `feature` with one attribute `value`; the metadata columns and the feature
    names in `array.meta` (JSON)."""

    name = "py-tiledb"
    format = "tiledb"
    about = ("TileDB: the layout study's dense arrays through the array API (wide: an attribute "
             "per feature; array: a 2-D domain; metadata in array.meta), and tables through "
             "tiledb.from_pandas where pandas < 3")
    dists = ("tiledb",)
    modules = ("tiledb", "numpy")
    tables = _pandas_before_3()
    # Without pandas < 3 there is no dataframe path: only feature matrices are stored.
    ops = Backend.ops if tables else ()
    targets = ("pandas",) if tables else ("arrow",)
    matrix_layouts = ("array",) if tables else ("wide", "array")
    # The feature names go into the array's metadata, as the study keeps them.
    array_sidecar = False

    def layout_ops(self):
        out = super().layout_ops()
        if not self.tables:
            from ..layouts import MATRIX_OPS, WIDE

            out[WIDE] = ["write", "read", "scan", *MATRIX_OPS]
        return out

    def _dataframes(self, ctx):
        return self.tables and ctx.layout != ARRAY

    def object_storage(self):
        return None

    @staticmethod
    def _open(directory, ctx):
        """The artifact's array: local, or its objects through TileDB's own S3 client."""
        import tiledb

        if ctx.storage:
            from .. import storage

            return tiledb.open(storage.url(ctx.storage, "data.tiledb"),
                               ctx=storage.tiledb_context(ctx.storage))
        return tiledb.open(os.path.join(directory, "data.tiledb"))

    def write(self, data, directory, ctx):
        import tiledb

        path = os.path.join(directory, "data.tiledb")
        if self._dataframes(ctx):
            tiledb.from_pandas(path, data)
            return
        self._write_matrix(path, data, ctx)

    def read(self, directory, request, ctx):
        import tiledb

        with self._open(directory, ctx) as array:
            if not self._dataframes(ctx):
                if request.kind != "all":
                    raise Unsupported(f"{self.name} reads its feature arrays whole")
                return self._matrix_table(array, ctx), "array[:] with the metadata from array.meta"
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

    # --- the layout study's arrays ---

    @staticmethod
    def _columns(data):
        """name → NumPy array of a pyarrow table or a pandas frame (the array layout's
        `features` as an N × D matrix)."""
        import numpy as np

        out = {}
        names = data.column_names if hasattr(data, "column_names") else list(data.columns)
        for name in names:
            column = data[name]
            if name == FEATURES:
                if hasattr(column, "combine_chunks"):
                    column = column.combine_chunks()
                    out[name] = column.flatten().to_numpy().reshape(len(column), -1)
                else:
                    out[name] = np.stack(column.to_numpy())
            else:
                out[name] = column.to_numpy()
        return out

    def _write_matrix(self, path, data, ctx):
        import json

        import numpy as np
        import tiledb

        from ..layouts import feature_names

        names = feature_names(ctx.schema)
        if not names:
            raise Unsupported("TileDB's dataframe functions need pandas < 3.0: without them "
                              "this peer stores feature matrices only, and this table has no "
                              "float32 features")
        columns = self._columns(data)
        rows = len(next(iter(columns.values())))
        profile = tiledb.Dim(name="profile", domain=(0, max(rows, 1) - 1),
                             tile=max(min(rows, 1024), 1), dtype=np.int32)
        if ctx.layout == ARRAY:
            feature = tiledb.Dim(name="feature", domain=(0, len(names) - 1),
                                 tile=min(len(names), 1024), dtype=np.int32)
            domain = tiledb.Domain(profile, feature)
            attrs = [tiledb.Attr(name="value", dtype=np.float32)]
            values = np.ascontiguousarray(columns[FEATURES], dtype=np.float32)
        else:
            domain = tiledb.Domain(profile)
            attrs = [tiledb.Attr(name=n, dtype=np.float32) for n in names]
            values = {n: np.ascontiguousarray(columns[n], dtype=np.float32) for n in names}
        tiledb.Array.create(path, tiledb.ArraySchema(domain=domain, sparse=False, attrs=attrs))
        metadata = [f.name for f in ctx.schema if f.name not in set(names)]
        with tiledb.open(path, "w") as array:
            array[:] = values
            array.meta["layout"] = "tiledb_dense" if ctx.layout == ARRAY else "tiledb_wide"
            array.meta["feature_names"] = json.dumps(names)
            for name in metadata:
                array.meta[f"column:{name}"] = json.dumps(columns[name].tolist(), default=str)

    @staticmethod
    def _metadata(array, ctx, names, rows=None):
        """The metadata columns kept in array.meta, as the source's types (rows: positions)."""
        import json

        columns, fields = [], []
        for name in names:
            values = json.loads(array.meta[f"column:{name}"])
            if rows is not None:
                values = [values[r] for r in rows]
            field = ctx.schema.field(name)
            columns.append(pa.array(values, type=field.type))
            fields.append(field)
        return pa.table(columns, schema=pa.schema(fields))

    def _matrix_table(self, array, ctx):
        """The whole stored table in the layout it was written in, for verification."""
        import numpy as np

        from ..layouts import feature_names

        names = feature_names(ctx.schema)
        metadata = [f.name for f in ctx.schema if f.name not in set(names)]
        table = self._metadata(array, ctx, metadata)
        stored = array[:]
        if ctx.layout == ARRAY:
            item = pa.field("item", pa.float32(), nullable=False)
            values = pa.array(np.ascontiguousarray(stored["value"]).reshape(-1), pa.float32())
            column = pa.FixedSizeListArray.from_arrays(values, type=pa.list_(item, len(names)))
            position = ctx.schema.names.index(names[0])
            before = [n for n in ctx.schema.names[:position] if n in metadata]
            return table.add_column(len(before), pa.field(FEATURES, column.type, nullable=False),
                                    column)
        for name in names:
            table = table.append_column(ctx.schema.field(name), pa.array(stored[name]))
        return table.select(ctx.schema.names)

    def matrix(self, directory, plan, ctx):
        import numpy as np
        import tiledb

        wanted = _sorted_unique(plan.rows)
        order = reorder(wanted, plan.rows)
        with self._open(directory, ctx) as array:
            if ctx.layout == ARRAY:
                if plan.op in ("matrix", "vector_norm"):
                    return array[:]["value"], 'array[:]["value"]'
                if plan.op == "feature_project":
                    # The study materializes the dense matrix, then picks the features.
                    return np.ascontiguousarray(array[:]["value"][:, plan.wanted_at]), \
                        'array[:]["value"][:, picked]'
                rows = array.multi_index[wanted, :]["value"]
                if plan.op == "random_rows":
                    return rows[order], "multi_index[sorted rows, :] + reorder"
                picked = rows[:, plan.wanted_at][order]
                method = "multi_index[sorted rows, :], picked features, reordered; metadata from array.meta"
            else:
                def stack(stored, names):
                    return np.column_stack([stored[n] for n in names]) if names \
                        else np.empty((0, 0), np.float32)

                if plan.op in ("matrix", "vector_norm"):
                    return stack(array[:], plan.features), "array[:] → column_stack"
                if plan.op == "feature_project":
                    return stack(array.query(attrs=plan.wanted)[:], plan.wanted), \
                        "query(attrs=picked)[:] → column_stack"
                if plan.op == "random_rows":
                    return stack(array.multi_index[wanted], plan.features)[order], \
                        "multi_index[sorted rows] → column_stack + reorder"
                picked = stack(array.query(attrs=plan.wanted).multi_index[wanted],
                               plan.wanted)[order]
                method = "query(attrs=picked).multi_index[sorted rows], reordered; metadata from array.meta"
            table = self._metadata(array, ctx, plan.metadata, [wanted[i] for i in order])
        for j, name in enumerate(plan.wanted):
            table = table.append_column(pa.field(name, pa.float32(), nullable=False),
                                        pa.array(np.ascontiguousarray(picked[:, j])))
        return table, method


BACKENDS = [Vortex(), Zarr(), Npy(), TileDB()]
