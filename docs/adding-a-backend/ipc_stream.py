"""The Arrow IPC stream format through pyarrow.ipc: the peer of the native `ipc-stream`."""

from .base import Backend, data_file, read_batches


class PyarrowIpcStream(Backend):
    name = "py-pyarrow-ipc-stream"
    about = "pyarrow.ipc stream format (no footer: every read decodes from the start)"
    #: Imported before the timer: imports are start-up, not work.
    modules = ("pyarrow", "pyarrow.ipc")
    #: The first distribution's version names the backend in the results.
    dists = ("pyarrow",)
    #: What it does natively; the runner marks every other operation `unsupported`.
    ops = ("write", "read", "scan", "project")

    def write(self, data, directory, ctx):
        import pyarrow.ipc as ipc

        with ipc.new_stream(data_file(directory, "arrows"), data.schema) as writer:
            writer.write_table(data)

    def read(self, directory, request, ctx):
        import pyarrow as pa
        import pyarrow.ipc as ipc

        with pa.OSFile(data_file(directory, "arrows"), "rb") as file:
            # Batch by batch, the first marked as it arrives (time to first batch).
            table = read_batches(ipc.open_stream(file))
        if request.kind == "columns":
            return table.select(request.columns), "stream decoded, then columns selected"
        return table, "stream decoded whole"
