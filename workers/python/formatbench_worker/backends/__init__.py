"""Every Python backend, by name."""

from . import (arrays, clusters, dask_cluster, engines, frames, pyarrow_formats, selftest, spark,
               stores)

BACKENDS = [*pyarrow_formats.BACKENDS, *frames.BACKENDS, *engines.BACKENDS, *stores.BACKENDS,
            *arrays.BACKENDS, *dask_cluster.BACKENDS, *clusters.BACKENDS, *spark.BACKENDS,
            *selftest.BACKENDS]


def find(name):
    return next((b for b in BACKENDS if b.name == name), None)
