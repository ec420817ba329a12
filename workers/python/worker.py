"""Starts the Python worker from its own directory: `python worker.py --describe | --job PATH`."""

import sys

from formatbench_worker.__main__ import exit_now, main

exit_now(main(sys.argv[1:]))
