"""Moving tables between the canonical Arrow source, the three in-memory targets (Arrow,
pandas, Polars), and what the runner checks: an Arrow IPC file and a scan fold."""


import pyarrow as pa
import pyarrow.ipc as ipc

TARGETS = ("arrow", "pandas", "polars")


def load_source(path):
    with pa.memory_map(str(path)) as source:
        return ipc.open_file(source).read_all()


def from_arrow(table, target):
    """The source as the target's object, as its user would build it (untimed)."""
    if target == "arrow":
        return table
    if target == "pandas":
        return table.to_pandas()
    if target == "polars":
        import polars as pl

        return pl.from_arrow(table)
    raise ValueError(f"unknown target '{target}'")


def to_arrow(result, columns=None):
    """Any result as an Arrow table for verification: a pandas index that holds a column of the
    source (FeatherStore puts the index there) becomes a column again."""
    if isinstance(result, pa.Table):
        table = result
    elif isinstance(result, pa.RecordBatch):
        table = pa.Table.from_batches([result])
    elif type(result).__module__.startswith("polars"):
        table = result.to_arrow()
    elif type(result).__module__.startswith("pandas"):
        frame = result
        if frame.index.name is not None and (columns is None or frame.index.name in columns):
            frame = frame.reset_index()
        table = pa.Table.from_pandas(frame, preserve_index=False)
    else:
        raise TypeError(f"cannot convert a {type(result).__name__} to Arrow")
    if columns is not None and table.column_names != list(columns):
        table = table.select(list(columns))
    return table.replace_schema_metadata(None)


def canonical_order(table, lead):
    """The rows of an unordered reader's result in a canonical order (after the timer): by the
    lead column (a unique index) when the result has it, else by every column."""
    keys = [lead] if lead in table.column_names else table.column_names
    if table.num_rows == 0 or not keys:
        return table
    # pyarrow has no take kernel for string views: they are sorted as plain strings.
    views = [i for i, f in enumerate(table.schema) if pa.types.is_string_view(f.type)]
    for i in views:
        table = table.set_column(i, table.field(i).with_type(pa.string()),
                                 table.column(i).cast(pa.string()))
    return table.sort_by([(k, "ascending") for k in keys])


def write_ipc(path, table):
    with ipc.new_file(str(path), table.schema) as writer:
        writer.write_table(table)


def _fold_buffers(array, acc):
    import numpy as np

    for buf in array.buffers():
        if buf is None or buf.size == 0:
            continue
        data = np.frombuffer(buf, dtype=np.uint8)
        words = data[: len(data) // 8 * 8].view(np.uint64)
        acc = (acc + int(words.sum(dtype=np.uint64)) + int(data[len(data) // 8 * 8:].sum())) % (1 << 64)
    return acc


def fold(result):
    """Touches every byte of every buffer of the result, inside the timer, so that lazy or
    memory-mapped reads cannot look free (the scan operation)."""
    acc = 0
    if isinstance(result, pa.Table):
        for column in result.columns:
            for chunk in column.chunks:
                acc = _fold_buffers(chunk, acc)
        return acc
    if type(result).__module__.startswith("polars"):
        return fold(result.to_arrow())
    if type(result).__module__.startswith("pandas"):
        import numpy as np

        for name in result.columns:
            values = result[name].array
            try:
                arrow = pa.array(values)  # zero-copy for Arrow-backed and numeric columns
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
                arrow = None
            if isinstance(arrow, pa.ChunkedArray):
                for chunk in arrow.chunks:
                    acc = _fold_buffers(chunk, acc)
            elif arrow is not None:
                acc = _fold_buffers(arrow, acc)
            else:
                acc = (acc + sum(hash(v) & 0xFFFF for v in np.asarray(values))) % (1 << 64)
        return acc
    raise TypeError(f"cannot fold a {type(result).__name__}")


def shape(result):
    if isinstance(result, pa.Table):
        return result.num_rows, result.num_columns
    return result.shape[0], result.shape[1]
