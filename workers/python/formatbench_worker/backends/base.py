"""What every Python backend declares, and the request a read carries."""

import os
from dataclasses import dataclass, field

from ..measure import first_batch


#: A cluster peer's target that leaves a read's result in the cluster's memory, partition by
#: partition, instead of collecting it into the driver: the result of a table larger than one
#: process. It is verified by its partition digests alone (job.py, _kept_in_cluster).
CLUSTER = "cluster"
#: The operations whose result the cluster target keeps.
CLUSTER_OPS = ("read", "project", "range")

class Unsupported(Exception):
    """The backend cannot do this natively (or cannot store this data): recorded, not failed."""


@dataclass
class Request:
    """What a read-type operation asks for; `kind` is all, columns, range, take, or one of the
    table-store reads before, after, between (inclusive `bound`s) and labels (`labels`)."""

    kind: str
    columns: list = None
    range: dict = None
    rows: list = None
    #: Index labels of the rows a range or take selects, for label-addressed stores
    #: (FeatherStore); computed from the source before the timer.
    labels: list = None
    #: before/after: the bound; between: [low, high]; inclusive, as FeatherStore's rows=.
    bound: object = None
    #: session: how many times the projection `columns` runs on the table opened once.
    queries: int = None


@dataclass
class Context:
    profile: str
    target: str
    threads: int
    schema: object  # the source's pyarrow schema
    index_column: str = None
    settings: dict = field(default_factory=dict)
    #: The settings an outside worker's manifest gives this profile (docs/protocol.md §9).
    profile_settings: dict = field(default_factory=dict)
    #: `wide` or `array` (layouts.py); the schema stays the source's (wide) one.
    layout: str = "wide"
    #: The job's object-storage target (`storage.py`), when the artifact lives in a bucket.
    storage: dict = None
    #: A cluster peer's running cluster (`clusters.py`), started before the timer.
    cluster: object = None
    #: A cluster peer's memory cap per executor, in bytes (None: the engine's own).
    executor_memory: int = None
    #: A cluster peer's read as the engine holds it before collecting (a lazy frame), kept for
    #: the partition digests its verification run computes after the timer.
    lazy: object = None
    #: The job reads the sweep's shared Parquet files (`shared_files`), not its own writes.
    file_set: bool = False


class Backend:
    name = ""
    about = ""
    #: Distributions that must be installed; the first one's version names the backend.
    dists = ()
    profiles = ("default",)
    ops = ("write", "read", "scan", "project", "range", "take")
    #: The in-memory objects it reads into and writes from; the first is its own.
    targets = ("arrow",)
    lossy = False
    #: Its format or engine keeps integers, or float32, at other widths than the source's (the
    #: verifier then compares values, not widths: docs/protocol.md, Representation differences).
    other_widths = False

    #: Whether it runs on a cluster of `executors` processes it starts for each sample
    #: (`clusters.ClusterBackend`).
    cluster = False
    #: Whether ranges and takes are asked by index label (Request.labels), computed from the
    #: source before the timer.
    needs_labels = False
    #: Modules the backend uses, imported before the timer (imports are start-up, not work).
    modules = ()
    #: The backend whose artifact it reads, when it writes none of its own (Delta readers read
    #: the tables delta-kernel writes).
    artifact_from = None
    #: Its reads keep no row order: the result is sorted after the timer (by the job's
    #: order_by column, else by every column) before the result is written for the runner.
    unordered = False
    #: Profiles whose tables have rows deleted after writing.
    deletion_profiles = ()
    #: (format, file): it reads files of this format from any writer as they are, from this
    #: name in its artifact directory, so a user's file of the format gets an `as-given`
    #: competitor (read in place, never written). None: it reads only its own writes.
    given = None
    #: The format of the files it writes and reads (`parquet`, `delta`, `lance`, …;
    #: docs/protocol.md lists the names): a report compares each cluster with the fastest
    #: single process of its format. None: the format of `given`, else none.
    format = None
    #: It reads the sweep's shared Parquet files (`--parquet-files`, `--row-group-bytes`):
    #: every `*.parquet` file in its artifact directory, in name order, from the native writer,
    #: when the job says so (`ctx.file_set`).
    file_sets = False
    #: The layouts on which it does the matrix operations (`matrix`); `array` among them
    #: means it stores the array layout too, with `array_ops`.
    matrix_layouts = ()
    array_ops = ("write", "read", "scan", "matrix", "random_rows", "feature_project", "mixed",
                 "vector_norm")
    #: Whether the job writes the feature names beside an array layout (formats that keep
    #: them inside, as Zarr's attributes do, say no).
    array_sidecar = True

    def layout_ops(self):
        """Each layout it stores and the operations it does natively there (`wide` first)."""
        from ..layouts import ARRAY, MATRIX_OPS, WIDE

        wide = list(self.ops) + (list(MATRIX_OPS) if WIDE in self.matrix_layouts else [])
        # A backend of the array layout only (a bare matrix) stores no wide table.
        out = {WIDE: wide} if wide else {}
        if ARRAY in self.matrix_layouts:
            out[ARRAY] = list(self.array_ops)
        return out

    def matrix(self, directory, plan, ctx):
        """A matrix operation (layouts.MatrixPlan) on the layout in ctx.layout, through the
        library's own access path; returns (result, method): an N × k float32 NumPy matrix of
        plan.wanted (`vector_norm` asks for the whole matrix; the job takes the norms), or for
        `mixed` a table of the requested columns (an array read may keep its `features` list)."""
        raise Unsupported(f"{self.name} does not do '{plan.op}'")

    def object_storage(self):
        """None when its reads take ctx.storage (an S3 route), else why its cells on object
        storage are unsupported."""
        return f"{self.name} has no object-storage route in formatbench yet"

    def probe(self):
        """None, or why the installed libraries cannot run this backend (checked by
        --describe after the packages are found, without importing them)."""
        return None

    def can_store(self, schema):
        """None, or why the format cannot hold this schema."""
        return None

    def prepare_array(self, table, ctx):
        """Turns the source in the array layout (an Arrow table whose `features` column is a
        FixedSizeList<float32, D>) into the format's own array form, before the conversion to
        the target; untimed."""
        return table

    def prepare_input(self, data, ctx):
        """Turns the loaded source (already in the target type) into what a write takes;
        untimed."""
        return data

    def write(self, data, directory, ctx):
        raise NotImplementedError

    def read(self, directory, request, ctx):
        """Returns (result, method): the result in ctx.target's type."""
        raise NotImplementedError

    def before_reads(self, directory, request, ctx):
        """Once before a sample's reads, untimed: a check of the artifact that may refuse it
        (raise Unsupported) without the refusal's cost counting as the read's."""

    def prepare_change(self, kind, data, ctx):
        """Turns a change's rows (in ctx.target's type) into what `change` takes; untimed."""
        return data

    def change(self, kind, data, directory, ctx):
        """Applies a change (append, insert or update, with `data` in ctx.target's type) to
        the table in `directory`; returns a short description of how."""
        raise Unsupported(f"{self.name} does not change stored tables")


class DeltaReader(Backend):
    """A reader of the Delta tables delta-kernel writes (docs/results.md, Tables of files): it
    writes none itself, keeps no row order, and reads both profiles of the same table. Its
    `session` (seed 003's) opens the table once and runs the projection `queries` times,
    timing `init`, `plan` and `execute` apart (measure.add_phase)."""

    profiles = ("default", "dv")
    ops = ("read", "scan", "project", "first_row", "session")
    format = "delta"
    artifact_from = "delta-kernel"
    unordered = True
    deletion_profiles = ("dv",)


def data_file(directory, extension):
    return os.path.join(directory, f"data.{extension}")


#: The glob of the sweep's shared files inside an artifact directory.
SHARED_GLOB = "*.parquet"


def shared_names(directory):
    """The sweep's shared Parquet files in the artifact directory, in name (row) order: one
    `data.parquet`, or `part-00000.parquet`, … of a table cut into files. Listed from the local
    directory, where the runner's writer wrote them (also when they were uploaded to a bucket)."""
    return sorted(n for n in os.listdir(directory) if n.endswith(".parquet"))


def range_bounds(request):
    """(column, start, end) for an index range, or (None, start, end) by position."""
    spec = request.range
    if spec["by"] == "index":
        return spec["column"], int(spec["start"]), int(spec["end"])
    return None, int(spec["start"]), int(spec["end"])


def narrowed(frame, request, engine, select, between):
    """A lazy data frame (Daft's, DataFusion's, Spark's) narrowed to the request: its columns
    through `select(frame, columns)`, its index range through `between(frame, column, lo, hi)`
    (lo ≤ column < hi); a range by position is refused, as these engines have no row order."""
    if request.kind == "columns":
        return select(frame, request.columns)
    if request.kind == "range":
        column, lo, hi = range_bounds(request)
        if column is None:
            raise Unsupported(f"{engine} has no positional row access")
        return between(frame, column, lo, hi)
    return frame


def reorder(sorted_rows, rows):
    """Positions into the result of a selection made in file order that give request order."""
    import numpy as np

    return np.searchsorted(np.asarray(sorted_rows), np.asarray(rows))


def read_batches(reader):
    """What `reader.read_all()` returns for a pyarrow RecordBatchReader, collected batch by
    batch so that the first one is marked as it arrives (time to first batch): the library's
    own read, with the same batches in the same order."""
    import pyarrow as pa

    batches = []
    for batch in reader:
        if not batches:
            first_batch()
        batches.append(batch)
    return pa.Table.from_batches(batches, schema=reader.schema)
