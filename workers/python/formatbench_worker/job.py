"""One job: check it, load what the operation needs before the timer, time only the operation,
then the result output the runner checks, and the answer (docs/protocol.md §3–6)."""

import dataclasses
import gc
import json
import os
import platform
import shutil
import sys
import time
from importlib import metadata

from . import PROTOCOL_VERSION, layouts, threads

REPEAT_PREFIX = ".repeat-"
LAYOUT_WIDE = "wide"


class ProtocolError(Exception):
    pass


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


#: The profile of a competitor that reads the user's file as given (formatbench_protocol).
AS_GIVEN = "as-given"


#: The backends this process serves: formatbench's own peers, or an outside worker's (`serve`).
_SERVED = None


def serve_only(backends):
    """Makes this process a worker of `backends` alone (an outside worker, formatbench_worker's
    `serve`), instead of formatbench's own peers."""
    global _SERVED
    _SERVED = list(backends)


def _served():
    if _SERVED is not None:
        return _SERVED
    from .backends import BACKENDS

    return BACKENDS


def describe():
    versions = {"python": platform.python_version()}
    entries = []
    try:
        served = _served()
    except ImportError as e:  # pyarrow itself is missing
        return json.dumps({"worker": "python", "versions": versions, "backends": [],
                           "error": f"the worker cannot start: {e}"})
    for backend in served:
        missing = [d for d in backend.dists if _version(d) is None]
        problem = None if missing else backend.probe()
        for d in backend.dists:
            if _version(d):
                versions[d] = _version(d)
        entry = {"name": backend.name, "profiles": list(backend.profiles),
                 "ops": list(backend.ops), "targets": list(backend.targets),
                 "lossy": backend.lossy, "other_widths": backend.other_widths,
                 "about": backend.about,
                 "version": _version(backend.dists[0]) if backend.dists else None,
                 "artifact_from": backend.artifact_from, "unordered": backend.unordered,
                 "deletion_profiles": list(backend.deletion_profiles),
                 # It runs on a cluster of the job's `executors` processes.
                 "executors": backend.cluster,
                 # Why its cells on object storage are unsupported (None: it has a route): the
                 # runner then writes no artifact for them.
                 "object_storage": backend.object_storage(),
                 "given": ({"format": backend.given[0], "file": backend.given[1]}
                           if backend.given else None),
                 "format": backend.format or (backend.given[0] if backend.given else None),
                 # It reads the sweep's shared Parquet files.
                 "file_sets": backend.file_sets}
        if backend.matrix_layouts:
            entry["layouts"] = backend.layout_ops()
        if missing:
            # formatbench's peers environment holds its own backends' packages; an outside
            # worker's are its author's to install.
            how = "run `formatbench peers install`" if _SERVED is None else "install it"
            entry["unavailable"] = (f"Python package {', '.join(missing)} is not installed "
                                    f"({how})")
        elif problem:
            entry["unavailable"] = problem
        entries.append(entry)
    return json.dumps({"worker": "python", "versions": versions, "backends": entries})


def _answer_path(job):
    return job["answer"]


def _write_answer(path, answer):
    answer = {"protocol": PROTOCOL_VERSION, **answer}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(answer, f)
    os.replace(tmp, path)


def run(job_path):
    try:
        with open(job_path) as f:
            job = json.load(f)
    except (OSError, ValueError) as e:
        print(f"worker error: cannot read the job {job_path}: {e}", file=sys.stderr)
        return 3
    if job.get("protocol") != PROTOCOL_VERSION:
        print(f"worker error: the job speaks protocol {job.get('protocol')}, this worker speaks "
              f"{PROTOCOL_VERSION}", file=sys.stderr)
        return 3
    # The cap goes into the environment before any library is imported.
    cap = max(int(job.get("threads", 1)), 1)
    threads.cap_environment(cap)
    try:
        answer = execute(job, cap)
    except Exception as e:  # a library error inside a valid job is an answer, not a crash
        from .backends.base import Unsupported

        if isinstance(e, Unsupported):
            answer = {"status": "unsupported", "reason": str(e)[:2000]}
        else:
            answer = {"status": "failed", "reason": f"{type(e).__name__}: {e}".strip()[:2000]}
    try:
        _write_answer(_answer_path(job), answer)
    except OSError as e:
        print(f"worker error: cannot write the answer: {e}", file=sys.stderr)
        return 3
    return 0


def _request(job, backend, ctx, source_table):
    from .backends.base import Request

    op, params = job["op"], job.get("params") or {}
    if op in ("read", "scan"):
        return Request("all")
    if op in ("range_before", "range_after", "range_between"):
        spec = params["range"]
        low, high = int(spec["start"]), int(spec["end"]) - 1
        kind = op.removeprefix("range_")
        return Request(kind, bound={"before": high, "after": low, "between": [low, high]}[kind])
    if op == "labels":
        spec = params["range"]
        index = source_table[ctx.index_column]
        labels = index.slice(int(spec["start"]), int(spec["end"]) - int(spec["start"]))
        return Request("labels", labels=labels.to_pylist())
    if op == "first_row":
        return Request("first_row")
    if op == "project":
        return Request("columns", columns=list(params["columns"]))
    if op == "session":
        queries = int((params.get("options") or {}).get("queries", 6))
        return Request("session", columns=list(params["columns"]), queries=queries)
    request = Request("range", range=params.get("range")) if op == "range" \
        else Request("take", rows=[int(r) for r in params["rows"]])
    if backend.needs_labels and ctx.index_column and source_table is not None:
        index = source_table[ctx.index_column].to_pylist()
        if op == "take":
            request.labels = [index[r] for r in request.rows]
        elif request.range["by"] == "position":
            request.labels = index[int(request.range["start"]):int(request.range["end"])]
        else:
            lo, hi = int(request.range["start"]), int(request.range["end"])
            request.labels = sorted(v for v in index if v is not None and lo <= v < hi)
    return request


def execute(job, cap):
    from .backends.base import Context, Unsupported

    backend = next((b for b in _served() if b.name == job["backend"]), None)
    if backend is None:
        return {"status": "failed", "reason": f"unknown backend '{job['backend']}'"}
    op, target = job["op"], job.get("target", "arrow")
    layout = job.get("layout", LAYOUT_WIDE)
    layout_ops = backend.layout_ops().get(layout)
    if layout_ops is None:
        raise Unsupported(f"layout '{layout}' is not stored by {backend.name}")
    if op not in layout_ops and not (op == "write" and job.get("prepare")):
        raise Unsupported(f"{backend.name} does not do '{op}' natively on the {layout} layout")
    if target not in backend.targets:
        raise Unsupported(f"{backend.name} does not read into or write from '{target}'")
    from .backends.base import CLUSTER, CLUSTER_OPS

    if target == CLUSTER and op not in CLUSTER_OPS:
        if not (op == "write" and job.get("prepare")):
            raise Unsupported(f"the cluster target keeps a read's result in the cluster "
                              f"({', '.join(CLUSTER_OPS)}); '{op}' is measured on "
                              f"{backend.targets[0]}")
        # The table its reads read is written from the driver, as its own target writes it.
        target = backend.targets[0]
    as_given = job["profile"] == AS_GIVEN and backend.given is not None
    if as_given and op == "write":
        raise Unsupported(f"{backend.name} does not write the as-given file: it is the user's, "
                          "read as it is")
    if job["profile"] not in backend.profiles and not as_given:
        return {"status": "failed", "reason": f"{backend.name} has no profile '{job['profile']}'"}

    threads.cap_pyarrow(cap)
    import importlib

    # Imports are start-up: the backend's modules, the target's library and the compute kernels
    # are loaded before the timer.
    import pyarrow.compute  # noqa: F401

    for module in (*backend.modules, {"pandas": "pandas", "polars": "polars"}.get(target)):
        if module:
            importlib.import_module(module)
    from . import tables

    source_path = job["source"]
    options = (job.get("params") or {}).get("options") or {}
    load_start = time.perf_counter()
    needs_source = op in ("write", "labels", "append", "insert", "update") or (
        backend.needs_labels and op in ("range", "take"))
    source_table = tables.load_source(source_path) if needs_source else None
    schema = source_table.schema if source_table is not None else _schema(source_path)
    storage = job.get("storage")
    ctx = Context(profile=job["profile"], profile_settings=job.get("profile_settings", {}),
                  target=target, threads=cap, schema=schema,
                  index_column=options.get("index"), layout=layout, storage=storage,
                  file_set=options.get("file_set") == "parquet")
    if ctx.file_set and not backend.file_sets:
        raise Unsupported(f"{backend.name} does not read the sweep's shared Parquet files")
    if storage:
        reason = backend.object_storage()
        if reason:
            raise Unsupported(reason)
        if op in ("append", "insert", "update"):
            raise Unsupported(f"{backend.name} changes stored tables on local files only")
    reason = backend.can_store(schema)
    if reason:
        raise Unsupported(reason)
    if not backend.cluster:
        return _perform(job, backend, ctx, source_table, layout_ops, load_start)
    # The cluster's start is its own phase, not the write's `load`.
    return _on_cluster(job, backend, ctx, lambda start_s: _perform(
        job, backend, ctx, source_table, layout_ops, load_start + start_s))


def _on_cluster(job, backend, ctx, perform):
    """Starts the backend's cluster (untimed: its `cluster_start` phase), performs the job with
    the cluster's processes accounted in every measurement, and stops it; or, given the user's
    cluster (`cluster`), attaches to it, accounts only this process, and detaches."""
    from . import cluster
    from .backends.base import CLUSTER

    executors = max(int(job.get("executors") or 1), 1)
    ctx.executor_memory = job.get("executor_memory_bytes")
    address = job.get("cluster")
    started = time.perf_counter()
    if address:
        running = backend.attach_cluster(ctx, address, executors)
    else:
        running = backend.start_cluster(ctx, executors)
    try:
        start_s = time.perf_counter() - started
        ctx.cluster = running
        # An attached cluster's processes are not this machine's to read, nor this run's.
        cluster.account(() if address else cluster.descendants())
        answer = perform(start_s)
        if answer.get("status") == "ok":
            command = job.get("partition_digest")
            parts = None
            if command and ctx.lazy is not None:
                # After the timer: the verification run's check inside the engine.
                parts = backend.partition_digests(ctx.lazy, ctx, command)
            schemas = [p.pop("arrow_schema", None) for p in parts or ()]
            if parts is not None:
                answer["partition_digests"] = parts
            if ctx.target == CLUSTER:
                _kept_in_cluster(job, answer, parts, schemas)
            answer["phases"].insert(0, {"name": "cluster_start", "seconds": start_s})
            answer["settings"].update(backend.cluster_settings(running))
            if address:
                answer["settings"]["cluster"] = (
                    f"attached to {address}: not started here; only the driver's process "
                    "is accounted")
        return answer
    finally:
        cluster.account(())
        backend.stop_cluster(running)


def _kept_in_cluster(job, answer, parts, schemas):
    """A result the cluster target left in the cluster: its rows are the partitions' as their
    digests count them, and the file the runner reads is the result's schema without rows (the
    types the partitions were digested in), never the rows themselves."""
    import base64

    import pyarrow as pa

    from . import tables

    if parts is None:
        raise RuntimeError("the cluster target is verified by partition digests, and the job "
                           "asked for none (partition_digest)")
    answer["rows"] = sum(int(p["rows"]) for p in parts)
    schema = next((pa.ipc.read_schema(pa.py_buffer(base64.b64decode(s)))
                   for s in schemas if s), None)
    if schema is not None:
        answer["columns"] = len(schema)
        if job.get("verify_out"):
            tables.write_ipc(job["verify_out"], schema.empty_table())


def _perform(job, backend, ctx, source_table, layout_ops, load_start):
    """The job's operation, timed, and its answer."""
    from . import tables
    from .backends.base import CLUSTER
    from .measure import files_under, measure, resident_fraction

    op, layout, storage, schema = job["op"], ctx.layout, ctx.storage, ctx.schema
    artifact = job["artifact"]
    min_s, max_calls = float(job.get("min_sample_s", 0)), int(job.get("max_calls", 1000))
    # At least this many calls: 2 asks for the warm figure (a second call in this process).
    min_calls = int(job.get("min_calls", 1))

    if op == "write":
        stored = backend.prepare_array(layouts.to_array(source_table), ctx) \
            if layout == layouts.ARRAY else source_table
        data = backend.prepare_input(tables.from_arrow(stored, ctx.target), ctx)
        del stored
        sidecar = layout == layouts.ARRAY and backend.array_sidecar
        names = layouts.feature_names(schema)
        load_s = time.perf_counter() - load_start
        if os.path.exists(artifact):
            shutil.rmtree(artifact)
        os.makedirs(artifact)

        def write(call):
            directory = artifact
            if call > 1:
                directory = os.path.join(artifact, f"{REPEAT_PREFIX}{call}")
                os.makedirs(directory)
            backend.write(data, directory, ctx)
            if sidecar:
                layouts.write_sidecar(directory, names)
            # A measured write to object storage ends when its upload has (a prepared
            # artifact is uploaded by the runner, untimed).
            if storage:
                from . import storage as object_storage

                object_storage.upload(directory, storage)

        gc.collect()
        _, measured = measure(write, min_s, max_calls, min_calls)
        for entry in os.listdir(artifact):
            if entry.startswith(REPEAT_PREFIX):
                shutil.rmtree(os.path.join(artifact, entry))
        rows, columns = source_table.num_rows, source_table.num_columns
        del data, source_table
        answer = {"status": "ok", **measured.answer_fields(), "rows": rows, "columns": columns,
                  "size_bytes": sum(os.path.getsize(p) for p in files_under(artifact))}
        answer["phases"].insert(0, {"name": "load", "seconds": load_s})
        result = None
        if job.get("verify_out"):
            # Read back from the local copy of what was written (the bytes uploaded), for the
            # runner to check.
            local = dataclasses.replace(ctx, storage=None)
            table = _read_back(backend, artifact, local, layout_ops)
            tables.write_ipc(job["verify_out"], table)
        answer["settings"] = _settings(backend, ctx, "write")
        return answer

    if op in ("append", "insert", "update"):
        return _change(job, backend, ctx, source_table, min_s, max_calls, min_calls)
    if op in layouts.MATRIX_OPS:
        return _matrix(job, backend, ctx, min_s, max_calls, min_calls)
    request = _request(job, backend, ctx, source_table)
    del source_table
    backend.before_reads(artifact, request, ctx)
    resident = None if storage else resident_fraction(files_under(artifact))
    if ctx.target == CLUSTER:
        return _read_kept(backend, artifact, request, ctx, min_s, max_calls, min_calls,
                          resident)
    scan = op == "scan"

    def read(call):
        result, method = backend.read(artifact, request, ctx)
        return result, method, (tables.fold(result) if scan else None)

    gc.collect()
    (result, method, folded), measured = measure(read, min_s, max_calls, min_calls)
    rows, columns = tables.shape(result)
    wanted = request.columns if request.kind in ("columns", "session") else None
    table = tables.to_arrow(result, wanted)
    if backend.unordered:
        table = tables.canonical_order(table, (job.get("params") or {}).get("order_by"))
    answer = {"status": "ok", **measured.answer_fields(), "rows": rows,
              "columns": table.num_columns, "resident_fraction": resident,
              "result_bytes": table.nbytes}
    answer["settings"] = _settings(backend, ctx, method)
    if folded is not None:
        answer["settings"]["scan_fold"] = f"{folded:016x}"
    if job.get("verify_out"):
        # An array layout's read is verified in the source's wide shape.
        tables.write_ipc(job["verify_out"], layouts.to_wide(table, ctx.schema))
    return answer


def _read_kept(backend, artifact, request, ctx, min_s, max_calls, min_calls, resident):
    """A read whose result the cluster keeps (the cluster target), timed up to the moment every
    partition is in the executors' memory. The previous call's result is freed before the next
    call, untimed: an engine would otherwise find the same query's result already there."""
    from .measure import measure_each

    held = []

    def setup(_call):
        while held:
            backend.release(held.pop(), ctx)

    def read(_state):
        result, method = backend.read(artifact, request, ctx)
        held.append(result)
        return method

    gc.collect()
    method, measured = measure_each(setup, read, min_s, max_calls, min_calls)
    # Rows, columns and the result's schema come from the partition digests (_on_cluster).
    answer = {"status": "ok", **measured.answer_fields(), "resident_fraction": resident}
    answer["settings"] = _settings(backend, ctx, method)
    return answer


def _read_back(backend, artifact, ctx, layout_ops):
    """What a write left, read back in full for its verification (after the timer): the table
    in the source's wide shape, or, for a bare matrix that keeps no metadata, its features."""
    from . import tables
    from .backends.base import Request

    if "read" in layout_ops:
        result, _ = backend.read(artifact, Request("all"), ctx)
        return layouts.to_wide(tables.to_arrow(result), ctx.schema)
    plan = layouts.MatrixPlan("matrix", ctx.layout, ctx.schema, {})
    result, _ = backend.matrix(artifact, plan, ctx)
    return plan.result_table(result)


def _matrix(job, backend, ctx, min_s, max_calls, min_calls):
    """A matrix operation: planned before the timer, done inside it through the backend's own
    access path (`vector_norm`: its matrix, then NumPy's row norms, as the study does),
    converted to the table the runner verifies after it."""
    import numpy as np

    from . import tables
    from .measure import files_under, measure, resident_fraction

    op, artifact = job["op"], job["artifact"]
    plan = layouts.MatrixPlan(op, ctx.layout, ctx.schema, job.get("params") or {})
    resident = None if ctx.storage else resident_fraction(files_under(artifact))

    def call(_):
        result, method = backend.matrix(artifact, plan, ctx)
        if op == "vector_norm":
            result = np.linalg.norm(result, axis=1)
        return result, method

    gc.collect()
    (result, method), measured = measure(call, min_s, max_calls, min_calls)
    table = plan.result_table(result)
    answer = {"status": "ok", **measured.answer_fields(), "rows": table.num_rows,
              "columns": table.num_columns, "resident_fraction": resident,
              "result_bytes": table.nbytes}
    answer["settings"] = _settings(backend, ctx, method)
    if job.get("verify_out"):
        tables.write_ipc(job["verify_out"], table)
    return answer


CHANGE_PREFIX = ".change-"
#: Changes repeat on fresh tables until the 50 ms rule is met, but at most this often: each
#: call's untimed preparation writes the whole table again.
MAX_CHANGE_CALLS = 20


def _change_inputs(job, ctx, source):
    """(base table, rows the change brings), both from the source, so the changed table is the
    source again (docs/results.md, Table stores)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    op, params = job["op"], job.get("params") or {}
    n = source.num_rows
    if op == "append":
        start, end = int(params["range"]["start"]), int(params["range"]["end"])
        return source.slice(0, start), source.slice(start, end - start)
    positions = pa.array([int(r) for r in params["rows"]], pa.uint64())
    rows = source.take(positions)
    if op == "insert":
        keep = pc.invert(pc.is_in(pa.array(range(n), pa.uint64()), value_set=positions))
        return source.filter(keep), rows
    # update: the base holds each updated row's data from the next row.
    from_rows = list(range(n))
    for p in params["rows"]:
        from_rows[int(p)] = (int(p) + 1) % n
    from_rows = pa.array(from_rows, pa.uint64())
    columns = [column if name == ctx.index_column else column.take(from_rows)
               for name, column in zip(source.column_names, source.columns)]
    return pa.table(columns, schema=source.schema), rows


def _change(job, backend, ctx, source_table, min_s, max_calls, min_calls):
    """Times one change per call on a table written (untimed) without it, then reads the
    last changed table back for the runner to check."""
    from . import tables
    from .backends.base import Request
    from .measure import measure_each

    if not ctx.index_column and job["op"] != "append":
        from .backends.base import Unsupported

        raise Unsupported(f"'{job['op']}' addresses rows by index label; the dataset has none")
    base, rows = _change_inputs(job, ctx, source_table)
    del source_table
    base = backend.prepare_input(tables.from_arrow(base, ctx.target), ctx)
    rows = backend.prepare_change(
        job["op"], backend.prepare_input(tables.from_arrow(rows, ctx.target), ctx), ctx)
    artifact = job["artifact"]

    def directory(call):
        return os.path.join(artifact, f"{CHANGE_PREFIX}{call}")

    def setup(call):
        if call > 0:
            # The previous call's table is done with: its pages leave the cache.
            shutil.rmtree(directory(call - 1), ignore_errors=True)
        path = directory(call)
        if os.path.exists(path):
            shutil.rmtree(path)
        os.makedirs(path)
        backend.write(base, path, ctx)
        gc.collect()
        # A change starts from a table at rest on disk, as a user's would be, not competing
        # with the writeback of the table written just before it (as the Rust workers do).
        os.sync()
        return path

    method, measured = measure_each(
        setup, lambda path: backend.change(job["op"], rows, path, ctx), min_s,
        min(max_calls, MAX_CHANGE_CALLS), min_calls)
    last = directory(measured.calls - 1)
    result, _ = backend.read(last, Request("all"), ctx)
    table = tables.to_arrow(result)
    answer = {"status": "ok", **measured.answer_fields(), "rows": table.num_rows,
              "columns": table.num_columns}
    answer["settings"] = _settings(backend, ctx, method)
    if job.get("verify_out"):
        tables.write_ipc(job["verify_out"], table)
    shutil.rmtree(last, ignore_errors=True)
    return answer


def _schema(path):
    import pyarrow as pa
    import pyarrow.ipc as ipc

    with pa.memory_map(str(path)) as source:
        return ipc.open_file(source).schema


def _settings(backend, ctx, method):
    settings = {"library": " ".join(f"{d} {_version(d)}" for d in backend.dists),
                "python": platform.python_version(), "threads": str(ctx.threads),
                "thread_caps": threads.described(ctx.threads), "target": ctx.target}
    if method != "write":
        settings["method"] = method
    own = getattr(backend, "settings_for", None)  # what a backend adds (its profile's settings)
    if own is not None:
        settings.update(own(ctx))
    return settings
