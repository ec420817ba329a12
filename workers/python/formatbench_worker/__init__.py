"""formatbench's Python worker: peers (pandas, pyarrow, Polars, DuckDB, …) behind the same
protocol as the native workers (docs/protocol.md). Each backend imports only its own libraries,
after the thread cap is in the environment, and outside the timer."""

PROTOCOL_VERSION = 1

#: What an outside worker builds on (docs/adding-a-backend.md): subclass `Backend`, raise
#: `Unsupported`, and hand the backends to `serve`.
__all__ = ["Backend", "Request", "Context", "Unsupported", "serve"]


def serve(backends, argv=None):
    """Runs this process as a formatbench worker of `backends` alone (`--describe`, or `--job
    PATH`: docs/protocol.md), then exits. An outside worker's whole main is this one call."""
    import sys

    from . import job
    from .__main__ import exit_now, main

    job.serve_only(backends)
    exit_now(main(sys.argv[1:] if argv is None else list(argv)))


def __getattr__(name):
    # The base classes are imported when asked for, not with the package (importing them
    # loads formatbench's own backend modules too, which import no library at module level).
    if name in ("Backend", "Request", "Context", "Unsupported"):
        from .backends import base

        return getattr(base, name)
    raise AttributeError(f"module 'formatbench_worker' has no attribute '{name}'")
