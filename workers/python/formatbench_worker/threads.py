"""The thread cap, passed to every library that takes one. Environment variables must be set
before the libraries are imported; pyarrow's pools are sized after."""

import os

#: The runner sets the same for workers outside the tree before they start (run/launch.rs,
#: THREAD_ENVIRONMENT, tested equal), whose imports run before any job is read.
ENVIRONMENT = (
    "POLARS_MAX_THREADS",  # Polars' pool
    "RAYON_NUM_THREADS",  # Rust pools (Lance, delta-rs, Daft)
    "TOKIO_WORKER_THREADS",
    "LANCE_CPU_THREADS",
    "LANCE_IO_THREADS",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_MAX_THREADS",
)


def cap_environment(threads):
    for name in ENVIRONMENT:
        os.environ[name] = str(threads)


def cap_pyarrow(threads):
    import pyarrow as pa

    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)


def described(threads):
    return (f"pyarrow set_cpu_count/set_io_thread_count={threads}; DuckDB SET threads; "
            f"{', '.join(ENVIRONMENT)}={threads}; pandas single-threaded")
