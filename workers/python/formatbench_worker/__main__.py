"""Entry point: `python -m formatbench_worker --describe | --job PATH` (docs/protocol.md)."""

import os
import sys

from .job import describe, run


def main(argv):
    if argv == ["--describe"]:
        print(describe(), flush=True)
        return 0
    if len(argv) == 2 and argv[0] == "--job":
        return run(argv[1])
    print("usage: python -m formatbench_worker --describe | --job PATH", file=sys.stderr)
    return 3


def exit_now(code):
    """Ends the process once the answer is written, without the interpreter's teardown: the
    sample is over, and native libraries' exit hooks (pyarrow's S3 finalizer, the Rust thread
    pools inside Polars, Daft and Lance) can crash there, which would fail a sample whose
    answer is already on disk and verified by the runner."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_now(main(sys.argv[1:]))
