"""Entry point: `python -m formatbench_worker --describe | --job PATH` (docs/protocol.md)."""

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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
