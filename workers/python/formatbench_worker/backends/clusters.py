"""Cluster engines as peers: each sample drives a real multi-process cluster started for it
before the timer (cluster.py says why per sample, and how its processes are accounted). The
job's `executors` says how many executor processes; the thread cap is each executor's.

Dask: `dask.distributed.LocalCluster` (a scheduler in the driver, N worker processes each under
a nanny, on 127.0.0.1), read through `dask.dataframe` into pandas on the driver.

Daft on Ray: a Ray cluster of a head node that runs no tasks and N worker nodes (each its own
raylet, object store and workers: Ray's multi-node cluster on one machine,
`ray.cluster_utils.Cluster`), on 127.0.0.1, with Daft's Ray runner."""

import os

from .base import Backend, Unsupported, range_bounds
from .engines import Daft

# Read when ray and daft are imported (before the timer): Ray binds to loopback (the address
# it uses where it runs no multi-machine clusters) instead of the machine's outward address,
# and neither reports usage nor draws progress bars into the worker's log.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("DAFT_PROGRESS_BAR", "0")

#: Set to `kill-executor` (tests only) to have the read's first task kill the executor that runs
#: it: the sample must fail, and the run go on with no process left behind.
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

    def start_cluster(self, ctx, executors):
        raise NotImplementedError

    def stop_cluster(self, running):
        raise NotImplementedError

    def cluster_settings(self, running):
        """What the results record of the cluster (executors, threads, memory caps)."""
        return {}


class _Dask:
    """A LocalCluster and its client."""

    def __init__(self, ctx, executors):
        import dask
        from distributed import Client, LocalCluster

        # A task whose executor dies fails at once, as the sample must: no silent retry on
        # another executor inside the timer. Object columns stay as they are: Dask would
        # otherwise turn every one into strings, and pandas holds Arrow dates as objects, so
        # dates were written to Parquet as text.
        dask.config.set({"distributed.scheduler.allowed-failures": 0,
                         "dataframe.convert-string": False,
                         "distributed.worker.daemon": False,
                         "distributed.admin.system-monitor.gil.enabled": False})
        self.cluster = LocalCluster(n_workers=executors, threads_per_worker=ctx.threads,
                                    processes=True, host="127.0.0.1", dashboard_address=None,
                                    memory_limit=ctx.executor_memory or "auto")
        self.client = Client(self.cluster)
        self.client.wait_for_workers(executors)
        self.executors = executors

    def settings(self):
        info = self.client.scheduler_info()["workers"].values()
        limits = sorted({w.get("memory_limit") for w in info})
        return {"executors": str(self.executors),
                "executor_threads": ",".join(sorted({str(w.get("nthreads")) for w in info})),
                "executor_memory_limit": ",".join(str(m) for m in limits),
                "cluster": "dask.distributed LocalCluster (processes, nanny) on 127.0.0.1",
                "dask_config": "dataframe.convert-string off, scheduler allowed-failures 0"}

    def close(self):
        self.client.close()
        self.cluster.close()


def _files(directory, pattern, ctx):
    """(the artifact's files as a glob, s3fs's storage options or None): local, or in the
    bucket."""
    if not ctx.storage:
        return os.path.join(directory, pattern), None
    from .. import storage

    return storage.url(ctx.storage, pattern), storage.fsspec_options(ctx.storage)


def _computed(frame, request, ctx, read):
    """A Dask frame read by `read`, filtered to the request's index range, computed on the
    cluster into pandas on the driver; (result, method)."""
    method = f"{read}.compute()"
    if request.kind == "range":
        column, lo, hi = range_bounds(request)
        if column is None:
            raise Unsupported("Dask has no positional row access across partitions")
        frame = frame[(frame[column] >= lo) & (frame[column] < hi)]
        method = f"{read}[lo <= index < hi].compute()"
    if os.environ.get(FAULT_ENV) == "kill-executor":
        frame = frame.map_partitions(_kill_own_process, meta=frame._meta)
    return frame.compute(scheduler=ctx.cluster.client), method


def _kill_own_process(partition):
    import signal

    os.kill(os.getpid(), signal.SIGKILL)
    return partition


class DaskParquet(ClusterBackend):
    name = "py-dask-parquet"
    about = ("Dask on a dask.distributed LocalCluster of N executor processes: "
             "dask.dataframe to_parquet / read_parquet (pyarrow), computed into pandas")
    dists = ("dask", "distributed")
    modules = ("dask", "dask.dataframe", "distributed", "pandas")
    targets = ("pandas",)
    ops = ("write", "read", "scan", "project", "range")

    def start_cluster(self, ctx, executors):
        return _Dask(ctx, executors)

    def stop_cluster(self, running):
        running.close()

    def cluster_settings(self, running):
        return running.settings()

    def object_storage(self):
        return None  # s3fs, with the target's storage options

    def prepare_input(self, data, ctx):
        import dask.dataframe as dd

        return dd.from_pandas(data, npartitions=partitions(len(data)), sort=False)

    def write(self, data, directory, ctx):
        # The source's schema, as a user who knows the table's types passes it: Dask infers
        # one from sample data otherwise, which fails on object columns (pandas' dates).
        data.to_parquet(directory, write_index=False, engine="pyarrow", schema=ctx.schema,
                        compute_kwargs={"scheduler": ctx.cluster.client})

    def settings_for(self, ctx):
        return {"partitions": f"one file per partition, {MAX_PARTITIONS} at most, "
                              f"≥ {ROWS_PER_PARTITION} rows each"}

    def read(self, directory, request, ctx):
        import dask.dataframe as dd

        path, options = _files(directory, "*.parquet", ctx)
        columns = request.columns if request.kind == "columns" else None
        frame = dd.read_parquet(path, columns=columns, storage_options=options,
                                engine="pyarrow")
        return _computed(frame, request, ctx, "read_parquet()")


class DaskCsv(DaskParquet):
    """The same cluster reading and writing CSV: one file per partition, the source's types
    given to the parser, as py-pandas-csv gives them."""

    name = "py-dask-csv"
    about = ("Dask on a dask.distributed LocalCluster of N executor processes: "
             "dask.dataframe to_csv / read_csv (dtypes given), computed into pandas")
    lossy = True

    def can_store(self, schema):
        from .frames import _no_nested

        return _no_nested(schema)

    def write(self, data, directory, ctx):
        data.to_csv(os.path.join(directory, "part-*.csv"), index=False,
                    compute_kwargs={"scheduler": ctx.cluster.client})

    def read(self, directory, request, ctx):
        import dask.dataframe as dd

        from .frames import _pandas_csv_types

        path, options = _files(directory, "*.csv", ctx)
        dtypes, dates = _pandas_csv_types(ctx.schema)
        columns = request.columns if request.kind == "columns" else None
        if columns is not None:
            dtypes = {k: v for k, v in dtypes.items() if k in columns}
            dates = [d for d in dates if d in columns]
        frame = dd.read_csv(path, usecols=columns, dtype=dtypes, parse_dates=dates,
                            storage_options=options)
        return _computed(frame, request, ctx, "read_csv()")


class _Ray:
    """A Ray cluster on loopback: a head that runs no tasks, `executors` worker nodes of
    `threads` CPUs each, and this process connected as its driver."""

    #: Each node's object store: Ray's floor is 75 MiB; tables here are far smaller.
    OBJECT_STORE_BYTES = 256 << 20

    def __init__(self, ctx, executors):
        import ray
        from ray.cluster_utils import Cluster

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
        self.executors, self.threads = executors, ctx.threads
        self.memory = ctx.executor_memory

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
        self.cluster.shutdown()


class DaftRay(ClusterBackend, Daft):
    """Daft's reads and writes (py-daft's) on its Ray runner."""

    name = "py-daft-ray"
    about = ("Daft on a local Ray cluster of N worker nodes (its Ray runner): write_parquet / "
             "read_parquet into Arrow")
    dists = ("daft", "ray")
    modules = ("daft", "ray", "ray.cluster_utils")

    def start_cluster(self, ctx, executors):
        import daft

        running = _Ray(ctx, executors)
        daft.set_runner_ray(address=running.cluster.address, noop_if_initialized=True)
        return running

    def stop_cluster(self, running):
        running.close()

    def cluster_settings(self, running):
        return running.settings()


BACKENDS = [DaskParquet(), DaskCsv(), DaftRay()]
