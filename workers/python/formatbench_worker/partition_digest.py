"""Partition digests (docs/protocol.md, "Partition digests"): on a cluster peer's verification
run, each partition of the result is digested where it lies (an executor), by the oracle's own
program that the job names (`partition_digest`), and the answer carries what it printed for
each partition; the runner adds them up and compares the sum with the source's digest.

The engine's part is only to hand each partition over as an Arrow IPC file. The functions that
run on executors import nothing of this package, so Ray and Spark can ship them by value
(`shipped`) to processes that cannot import it."""

import json
import os
import subprocess
import tempfile


def digest_table(table, command):
    """The oracle program's partial digest (a dict) of one partition, a pyarrow Table, with
    the partition's Arrow schema (base64 of its IPC form) under `arrow_schema` where it has
    rows: the driver writes a result it never collects as that schema (job.py)."""
    import base64

    import pyarrow as pa

    fd, path = tempfile.mkstemp(prefix="formatbench-partition-", suffix=".arrow")
    try:
        with os.fdopen(fd, "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
        done = subprocess.run(list(command) + [path], capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"the partition digest failed: {last}")
        partial = json.loads(done.stdout)
        if table.num_rows:
            partial["arrow_schema"] = base64.b64encode(
                table.schema.serialize().to_pybytes()).decode("ascii")
        return partial
    finally:
        os.unlink(path)


def digest_batches(batches, schema, command):
    """[digest_table] of one partition given as record batches of `schema`."""
    import pyarrow as pa

    return digest_table(pa.Table.from_batches(list(batches), schema=schema), command)


def shipped(module_pickler):
    """Registers this module with an engine's cloudpickle (Ray's, Spark's), so its functions
    travel by value to executors whose Python path lacks this package."""
    import sys

    module_pickler.register_pickle_by_value(sys.modules[__name__])


def of_daft_partition(partition, command):
    """A Daft partition (a MicroPartition, on the Ray worker that holds it)."""
    return digest_table(partition.to_arrow(), command)


def spark_digester(command):
    """A function for Spark's `mapInArrow`: each partition's batches in, one row out holding
    its partial digest as JSON."""

    def digest(batches):
        import pyarrow as pa

        batches = list(batches)
        if batches:
            partial = digest_batches(batches, batches[0].schema, command)
        else:
            partial = {"rows": 0, "row_sum": "0" * 32}
        yield pa.RecordBatch.from_pylist([{"partial": json.dumps(partial)}])

    return digest
