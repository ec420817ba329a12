"""Dask as a cluster peer: `dask.distributed.LocalCluster` (a scheduler in the driver, N worker
processes each under a nanny, on 127.0.0.1), read through `dask.dataframe` into pandas on the
driver; Parquet, CSV and Delta (dask-deltatable). clusters.py has what every cluster peer
shares."""

import os
import uuid

from .base import CLUSTER, DeltaReader, Unsupported, range_bounds
from .clusters import (FAULT_ENV, MAX_PARTITIONS, ROWS_PER_PARTITION, ClusterBackend,
                       executors_found, partitions)


class _Dask:
    """A LocalCluster and its client, or a client of the user's scheduler at `address`."""

    def __init__(self, ctx, executors, address=None):
        import dask
        from distributed import Client, LocalCluster

        # A task whose executor dies fails at once, as the sample must: no silent retry on
        # another executor inside the timer. Object columns stay as they are: Dask would
        # otherwise turn every one into strings, and pandas holds Arrow dates as objects, so
        # dates were written to Parquet as text. (A user's scheduler keeps its own retries.)
        dask.config.set({"distributed.scheduler.allowed-failures": 0,
                         "dataframe.convert-string": False,
                         "distributed.worker.daemon": False,
                         "distributed.admin.system-monitor.gil.enabled": False})
        self.cluster = None
        if address:
            self.client = Client("tcp://" + address.partition("://")[2])
            workers = self.client.scheduler_info()["workers"]
            executors_found(address, len(workers), executors)
        else:
            self.cluster = LocalCluster(n_workers=executors, threads_per_worker=ctx.threads,
                                        processes=True, host="127.0.0.1",
                                        dashboard_address=None,
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
        if self.cluster is not None:
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
    columns = request.columns if request.kind == "columns" else None
    if ctx.target != CLUSTER:
        ctx.lazy = (frame, columns)
        return frame.compute(scheduler=ctx.cluster.client), method
    from distributed import wait

    # Each call's result under keys of its own. A graph's keys are its tokens, so the previous
    # call's result (cancelled, untimed, before this call) had these very keys, and the client
    # cancels whichever future holds a key when the scheduler's word of that cancel arrives:
    # at times after this call had persisted the key again (FuturesCancelledError, "reason:
    # unknown", in a loaded CI run).
    # The partitions are returned as they are: nothing to check against `meta`.
    frame = frame.map_partitions(_same_partition, uuid.uuid4().hex, meta=frame._meta,
                                 enforce_metadata=False)
    kept = ctx.cluster.client.persist(frame)
    wait(kept)
    ctx.lazy = (kept, columns)
    return kept, method.replace(".compute()", ".persist()")


def _same_partition(partition, _call):
    """The partition as it is: a last layer whose keys name the call (`_call`)."""
    return partition


def _dask_partition_digest(partition, columns, command):
    """One pandas partition, on the executor that holds it, converted to Arrow as the driver
    converts the whole result (tables.to_arrow) and digested."""
    from .. import partition_digest, tables

    table = tables.to_arrow(partition, columns)
    if os.environ.get(FAULT_ENV) == "drop-row-in-digest" and table.num_rows:
        table = table.slice(1)
    return partition_digest.digest_table(table, command)


def _kill_own_process(partition):
    import signal

    os.kill(os.getpid(), signal.SIGKILL)
    return partition


class DaskParquet(ClusterBackend):
    name = "py-dask-parquet"
    format = "parquet"
    about = ("Dask on a dask.distributed LocalCluster of N executor processes: "
             "dask.dataframe to_parquet / read_parquet (pyarrow), computed into pandas")
    dists = ("dask", "distributed")
    modules = ("dask", "dask.dataframe", "distributed", "pandas")
    targets = ("pandas", CLUSTER)
    ops = ("write", "read", "scan", "project", "range")
    #: Its read takes every `*.parquet` in the directory: the sweep's shared files too.
    file_sets = True

    engine = "dask"

    def start_cluster(self, ctx, executors):
        return _Dask(ctx, executors)

    def attach(self, ctx, address, executors):
        return _Dask(ctx, executors, address)

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

    def release(self, kept, ctx):
        ctx.cluster.client.cancel(kept)

    def partition_digests(self, lazy, ctx, command):
        import dask

        from distributed import futures_of

        frame, columns = lazy
        client = ctx.cluster.client
        kept = futures_of(frame)
        if kept:
            # A result the cluster target persisted: a task on each partition where it lies,
            # holding its future (a graph of the frame's keys alone may find them released).
            return client.gather(client.map(_dask_partition_digest, kept, columns=columns,
                                            command=command, pure=False))
        parts = [dask.delayed(_dask_partition_digest)(p, columns, command)
                 for p in frame.to_delayed()]
        return list(client.compute(parts, sync=True))

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
    format = "csv"
    about = ("Dask on a dask.distributed LocalCluster of N executor processes: "
             "dask.dataframe to_csv / read_csv (dtypes given), computed into pandas")
    lossy = True
    file_sets = False
    #: Its floats are compared within a tolerance, which partition digests of exact values
    #: cannot do: its results come back to the driver.
    targets = ("pandas",)

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


class DaskDelta(DaskParquet, DeltaReader):
    """The same cluster reading the Delta tables delta-kernel writes through dask-deltatable
    (Dask's Delta Lake reader: delta-rs lists the table's files, each read into a partition).
    It reads data files whole and does not apply deletion vectors, so a table with deleted
    rows is refused, never read with them."""

    name = "py-dask-delta"
    format = "delta"
    about = ("Dask on a dask.distributed LocalCluster of N executor processes reading the "
             "tables delta-kernel writes: dask_deltatable.read_deltalake, computed into pandas")
    dists = ("dask", "distributed", "dask-deltatable", "deltalake")
    modules = ("dask", "dask.dataframe", "distributed", "pandas", "dask_deltatable",
               "deltalake")
    ops = ("read", "scan", "project")
    file_sets = False

    def settings_for(self, ctx):
        return {"partitions": "one per data file of the table (dask-deltatable)"}

    def before_reads(self, directory, request, ctx):
        from deltalake import DeltaTable

        location, _, delta_options = _dask_delta_location(directory, ctx)
        deleted = deletion_vectors(DeltaTable(location, storage_options=delta_options))
        if deleted:
            raise Unsupported(f"dask-deltatable reads a Delta table's data files without its "
                              f"deletion vectors, and {deleted} of this table's files have one")

    def read(self, directory, request, ctx):
        import dask_deltatable

        location, options, delta_options = _dask_delta_location(directory, ctx)
        columns = request.columns if request.kind == "columns" else None
        frame = dask_deltatable.read_deltalake(location, columns=columns,
                                               storage_options=options,
                                               delta_storage_options=delta_options)
        return _computed(frame, request, ctx, "dask_deltatable.read_deltalake()")


def _dask_delta_location(directory, ctx):
    """(the table's location, s3fs's options, delta-rs's) for dask-deltatable: the local
    directory, or the same objects by the s3a:// scheme, which s3fs and delta-rs read as s3://
    but dask-deltatable does not: at an s3:// path without a key in its options it asks boto3
    for credentials and AWS itself for the bucket's region."""
    from .. import storage

    location = storage.located(directory, "", ctx.storage)
    if not ctx.storage:
        return location, None, None
    return ("s3a://" + location.removeprefix("s3://"), storage.fsspec_options(ctx.storage),
            storage.object_store_options(ctx.storage))


def deletion_vectors(table):
    """How many of a deltalake DeltaTable's data files have a deletion vector (deltalake lists
    only those; a vector that deletes nothing is not written)."""
    import pyarrow as pa

    return pa.RecordBatchReader.from_stream(table.deletion_vectors()).read_all().num_rows


BACKENDS = [DaskParquet(), DaskCsv(), DaskDelta()]
