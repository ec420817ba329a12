"""Starts the Python worker from its own directory: `python worker.py --describe | --job PATH`."""

import sys

from formatbench_worker.__main__ import main

sys.exit(main(sys.argv[1:]))
