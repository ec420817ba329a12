"""Cluster engines as peers: each sample drives a real multi-process cluster started for it
before the timer (cluster.py says why per sample, and how its processes are accounted). The
job's `executors` says how many executor processes; the thread cap is each executor's. What
every cluster peer shares is here, with Daft on Ray's; Dask's are in dask_cluster.py and
Spark's in spark.py.

Daft on Ray: a Ray cluster of a head node that runs no tasks and N worker nodes (each its own
raylet, object store and workers: Ray's multi-node cluster on one machine,
`ray.cluster_utils.Cluster`), on 127.0.0.1, with Daft's Ray runner."""

import os

from .base import CLUSTER, Backend, DeltaReader, Unsupported
from .engines import Daft, daft_narrowed

# Read when ray and daft are imported (before the timer): Ray binds to loopback (the address
# it uses where it runs no multi-machine clusters) instead of the machine's outward address,
# and neither reports usage nor draws progress bars into the worker's log.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("DAFT_PROGRESS_BAR", "0")

#: Set to `kill-executor` (tests only) to have the read's first task kill the executor that runs
#: it (Spark: the executor JVM above the task's Python worker; Daft on Ray: every task kills
#: its executor, as Daft reruns a task whose executor died): the sample must fail, and the
#: run go on with no process left behind. Set to
#: `drop-row-in-digest` to have each partition's digest leave its first row out: the cell must
#: fail although the collected result is right.
FAULT_ENV = "FORMATBENCH_FAULT"
#: A partition per this many rows at least, and at most this many partitions: the files a
#: cluster reads in parallel, independent of the executors, so every executor count reads the
#: same artifact.
ROWS_PER_PARTITION = 1_000
MAX_PARTITIONS = 16


def partitions(rows):
    return max(1, min(MAX_PARTITIONS, rows // ROWS_PER_PARTITION))


class ClusterBackend(Backend):
    """What a cluster peer adds: it runs on `executors` processes of a cluster it starts."""

    cluster = True
    #: Cluster reads return partitions in the order the engine finishes them.
    unordered = True

    #: The scheme of the user's clusters it attaches to (`--cluster dask://…`).
    engine = ""

    def start_cluster(self, ctx, executors):
        raise NotImplementedError

    def attach_cluster(self, ctx, address, executors):
        """The user's running cluster at `address` (scheme://HOST:PORT), which must have
        `executors` executors; stop_cluster then detaches from it and stops nothing."""
        scheme, _, _ = address.partition("://")
        if scheme != self.engine:
            raise Unsupported(f"{address} is not a {self.engine} cluster")
        return self.attach(ctx, address, executors)

    def attach(self, ctx, address, executors):
        raise Unsupported(f"{self.name} does not attach to a running cluster")

    def stop_cluster(self, running):
        raise NotImplementedError

    def cluster_settings(self, running):
        """What the results record of the cluster (executors, threads, memory caps)."""
        return {}

    def release(self, kept, ctx):
        """Frees a result the cluster target kept in the cluster (untimed, between calls)."""

    def partition_digests(self, lazy, ctx, command):
        """The partial digest of each partition of the read `lazy` (what the read left in
        `ctx.lazy`), computed on the executors by `command` (partition_digest.py); None where the
        engine has no way to it."""
        return None


def executors_found(address, found, wanted):
    """Fails a sample on an attached cluster whose executors are not the run's count."""
    if found != wanted:
        raise RuntimeError(f"the cluster at {address} has {found} executors; the run asked "
                           f"for {wanted} (--executors)")


class _Ray:
    """A Ray cluster on loopback: a head that runs no tasks, `executors` worker nodes of
    `threads` CPUs each, and this process connected as its driver; or this process joined as
    a driver to the user's cluster whose head is at `address` (`ray://HOST:PORT`, the address
    `ray start --head` prints; Ray's client mode needs grpcio, which the peers do not pin)."""

    #: Each node's object store: Ray's floor is 75 MiB; tables here are far smaller.
    OBJECT_STORE_BYTES = 256 << 20

    def __init__(self, ctx, executors, address=None):
        import ray
        from ray.cluster_utils import Cluster

        self.executors, self.threads = executors, ctx.threads
        self.memory = ctx.executor_memory
        self.cluster = None
        if address:
            ray.init(address=address.partition("://")[2], log_to_driver=False,
                     logging_level="ERROR")
            # The nodes that run tasks: a head without CPUs runs none.
            nodes = [n for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU", 0) > 0]
            executors_found(address, len(nodes), executors)
            return
        node = {"object_store_memory": self.OBJECT_STORE_BYTES}
        if ctx.executor_memory:
            node["memory"] = ctx.executor_memory
        self.cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": 0, "include_dashboard": False,
            "object_store_memory": self.OBJECT_STORE_BYTES})
        for _ in range(executors):
            self.cluster.add_node(num_cpus=ctx.threads, **node)
        self.cluster.wait_for_nodes()
        ray.init(address=self.cluster.address, log_to_driver=False, logging_level="ERROR")

    def settings(self):
        return {"executors": str(self.executors), "executor_threads": str(self.threads),
                "executor_memory_limit": (f"{self.memory} (a Ray scheduling resource, not "
                                          "enforced)" if self.memory else "none"),
                "cluster": ("Ray: a head node without CPUs and one worker node (raylet, object "
                            f"store of {self.OBJECT_STORE_BYTES >> 20} MiB) per executor on "
                            "127.0.0.1")}

    def close(self):
        import ray

        ray.shutdown()
        if self.cluster is not None:
            self.cluster.shutdown()


class _OnRay(ClusterBackend):
    """A Daft reader on its Ray runner, on the Ray cluster of `_Ray`: how it starts, attaches,
    stops and digests the partitions of a read (Ray tasks where they lie)."""

    engine = "ray"
    targets = ("arrow", CLUSTER)

    def start_cluster(self, ctx, executors):
        return self.attach(ctx, None, executors)

    def attach(self, ctx, address, executors):
        import daft

        running = _Ray(ctx, executors, address)
        # Daft's runner uses the Ray connection this process holds.
        daft.set_runner_ray(noop_if_initialized=True)
        return running

    def stop_cluster(self, running):
        running.close()

    def cluster_settings(self, running):
        return running.settings()

    def partition_digests(self, lazy, ctx, command):
        import ray
        import ray.cloudpickle

        from .. import partition_digest

        # Ray's workers start from their own Python path: the digest travels by value.
        partition_digest.shipped(ray.cloudpickle)
        digest = ray.remote(partition_digest.of_daft_partition)
        return ray.get([digest.remote(part, command) for part in lazy.iter_partitions()])


class DaftRay(_OnRay, Daft):
    """Daft's reads and writes (py-daft's) on its Ray runner."""

    name = "py-daft-ray"
    format = "parquet"
    about = ("Daft on a local Ray cluster of N worker nodes (its Ray runner): write_parquet / "
             "read_parquet into Arrow")
    dists = ("daft", "ray")
    modules = ("daft", "ray", "ray.cluster_utils")

    def frame(self, directory, request, ctx):
        frame = super().frame(directory, request, ctx)
        if os.environ.get(FAULT_ENV) == "kill-executor":
            frame = _killing_daft_executors(frame)
        return frame

    def read(self, directory, request, ctx):
        return _daft_result(self.frame(directory, request, ctx), ctx, "DataFrame.to_arrow()")


class DaftRayCsv(DaftRay):
    """Daft's CSV writer and reader on its Ray runner: a file per partition, read back with the
    source's schema given (as py-dask-csv and py-spark-csv are), not inferred."""

    name = "py-daft-ray-csv"
    format = "csv"
    about = ("Daft on a local Ray cluster of N worker nodes: write_csv / read_csv (the source's "
             "schema given) into Arrow")
    file_sets = False

    def can_store(self, schema):
        from .frames import _no_nested

        return _no_nested(schema)

    def prepare_input(self, data, ctx):
        # The table in as many slices as py-dask-csv's partitions (before the timer): Daft
        # makes a partition, and on Ray a file, of each.
        step = max(1, -(-data.num_rows // partitions(data.num_rows)))
        return [data.slice(start, step) for start in range(0, data.num_rows, step)] or [data]

    def write(self, data, directory, ctx):
        import daft

        daft.from_arrow(data).write_csv(os.path.join(directory, "daft"))

    def source(self, directory, ctx):
        import daft

        from .. import storage

        schema = {f.name: daft.DataType.from_arrow_type(f.type) for f in ctx.schema}
        return daft.read_csv(storage.located(directory, "daft/*.csv", ctx.storage),
                             infer_schema=False, schema=schema,
                             io_config=storage.daft_io_config(ctx.storage))

    def read(self, directory, request, ctx):
        return _daft_result(self.frame(directory, request, ctx), ctx,
                            "read_csv().to_arrow()")


def _daft_result(frame, ctx, method):
    """(result, method) of a Daft read on Ray: collected into Arrow on the driver, or with the
    cluster target, materialized and left in Ray's object store on the nodes (`collect`)."""
    if ctx.target != CLUSTER:
        ctx.lazy = frame
        return frame.to_arrow(), method
    kept = frame.collect()
    ctx.lazy = kept
    return kept, method.replace(".to_arrow()", ".collect()")


def _killing_daft_executors(frame):
    """`frame` with a step whose every task kills the process that runs it: Daft's executor
    on the Ray node (its swordfish actor, a Ray worker process). The first column passes
    through it unchanged, so no optimisation drops the step."""
    import daft

    first = frame.schema().column_names()[0]

    # Nested, so that Ray's cloudpickle ships it by value: its workers cannot import the
    # formatbench worker's modules.
    def kill(column):
        import os
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
        return column

    killing = daft.func.batch(return_dtype=frame.schema()[first].dtype)(kill)
    return frame.with_column(first, killing(frame[first]))


class DaftRayDelta(_OnRay, DeltaReader):
    """Daft's Delta Lake reader on its Ray runner, reading the tables delta-kernel writes."""

    name = "py-daft-ray-delta"
    format = "delta"
    about = ("Daft on a local Ray cluster of N worker nodes reading the tables delta-kernel "
             "writes: read_deltalake into Arrow")
    dists = ("daft", "ray", "deltalake")
    modules = ("daft", "ray", "ray.cluster_utils", "deltalake")
    ops = ("read", "scan", "project", "first_row")

    def object_storage(self):
        return None  # read_deltalake takes an IOConfig (Daft's own S3 client)

    def read(self, directory, request, ctx):
        import daft

        from .. import storage

        io_config = storage.daft_io_config(ctx.storage)
        # Deleted rows stay deleted: a table with deletion vectors, which Daft does not apply,
        # is refused (Daft says so when the query runs), never read with its deleted rows.
        frame = daft.read_deltalake(storage.located(directory, "", ctx.storage),
                                    io_config=io_config, ignore_deletion_vectors=False)
        method = "read_deltalake().to_arrow()"
        if request.kind == "first_row":
            frame, method = frame.limit(1), "read_deltalake().limit(1).to_arrow()"
        elif request.kind == "columns":
            frame, method = frame.select(*request.columns), "read_deltalake().select(…).to_arrow()"
        try:
            return _daft_result(frame, ctx, method)
        except NotImplementedError as e:
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise Unsupported(f"Daft cannot read this Delta table: {first}") from e


class DaftRayLance(_OnRay):
    """Daft's Lance reader on its Ray runner, reading the datasets pylance writes (py-lance's:
    Lance 14, as the native `lance` backend writes them), a fragment group per task."""

    name = "py-daft-ray-lance"
    format = "lance"
    about = ("Daft on a local Ray cluster of N worker nodes reading the Lance datasets pylance "
             "writes: read_lance into Arrow")
    dists = ("daft", "ray", "pylance")
    modules = ("daft", "ray", "ray.cluster_utils", "lance")
    ops = ("read", "scan", "project", "range")
    artifact_from = "py-lance"

    def object_storage(self):
        return None  # read_lance takes an IOConfig (Daft's own S3 client)

    def read(self, directory, request, ctx):
        import daft

        from .. import storage

        frame = daft.read_lance(storage.located(directory, "data.lance", ctx.storage),
                                io_config=storage.daft_io_config(ctx.storage))
        return _daft_result(daft_narrowed(frame, request), ctx, "read_lance().to_arrow()")


BACKENDS = [DaftRay(), DaftRayCsv(), DaftRayDelta(), DaftRayLance()]
