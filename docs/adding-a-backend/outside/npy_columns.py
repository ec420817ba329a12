"""A toy format written outside formatbench's repository: one .npy file per column.

Run by formatbench through manifest.toml beside it; `formatbench workers sdk DIR`, then
`pip install DIR`, provides `formatbench_worker`."""

import os

import numpy as np
import pyarrow as pa

from formatbench_worker import Backend, Unsupported, serve


class NpyColumns(Backend):
    name = "ext-npy-columns"  # the manifest's name for it
    about = "one .npy file per column"
    ops = ("write", "read", "project")
    profiles = ("default", "mmap")  # the manifest gives each its settings

    def can_store(self, schema):
        for field in schema:
            t = field.type
            if not (pa.types.is_string(t) or pa.types.is_integer(t) or pa.types.is_floating(t)
                    or pa.types.is_boolean(t) or pa.types.is_timestamp(t)):
                return f".npy has no type for {field.name} ({t})"
        return None

    def write(self, data, directory, ctx):
        for i, column in enumerate(data.columns):
            column = column.combine_chunks()
            if column.null_count:
                raise Unsupported(f"{data.column_names[i]} has nulls, which .npy cannot mark")
            values = column.to_numpy(zero_copy_only=False)
            if pa.types.is_string(column.type):
                values = values.astype(str)  # fixed-width text: .npy stores no objects
            np.save(os.path.join(directory, f"{i:05d}.npy"), values, allow_pickle=False)

    def read(self, directory, request, ctx):
        names = ctx.schema.names
        wanted = request.columns if request.kind == "columns" else names
        mmap_mode = ctx.profile_settings.get("mmap_mode")  # from the manifest
        columns = [pa.array(np.load(os.path.join(directory, f"{names.index(n):05d}.npy"),
                                    mmap_mode=mmap_mode),
                            type=ctx.schema.field(n).type) for n in wanted]
        return pa.table(columns, names=wanted), f"numpy.load per column, mmap_mode {mmap_mode}"


if __name__ == "__main__":
    serve([NpyColumns()])
