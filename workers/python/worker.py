"""Starts the Python worker from its own directory: `python worker.py --describe | --job PATH`."""

import sys

from formatbench_worker.__main__ import exit_now, main

# Guarded: a cluster peer's executors are started by multiprocessing's spawn, which imports
# this file again in each new process.
if __name__ == "__main__":
    exit_now(main(sys.argv[1:]))
