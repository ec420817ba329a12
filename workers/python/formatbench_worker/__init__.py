"""formatbench's Python worker: peers (pandas, pyarrow, Polars, DuckDB, …) behind the same
protocol as the native workers (docs/protocol.md). Each backend imports only its own libraries,
after the thread cap is in the environment, and outside the timer."""

PROTOCOL_VERSION = 1
