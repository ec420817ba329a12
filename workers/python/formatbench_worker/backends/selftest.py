"""py-selftest-variant: the source read back right, in another representation of the same
values per profile (issue 42's companion to the mutation suite; docs/protocol.md, "Equal-value
variants"). It is the Python twin of the native `selftest-variant`: the runner must accept
every profile as the source's values, whatever language returned them, and note each type
it changed. Names with `-selftest-` are hidden from the user's list of backends.

Its write stores the source as an uncompressed Arrow IPC file; its read reads that file with
pyarrow and re-encodes the table, inside the timer as any reader's own conversion is. A
write's read-back goes through the same read, so the profile applies to it too."""

import random

try:  # importable without pyarrow, so that --describe can say it is missing
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
except ImportError:
    np = pa = pc = None

from .base import Backend, Unsupported, data_file

PROFILES = ("large-offsets", "views", "dictionary", "list-item-name", "zone-name", "finer-unit",
            "garbage-under-nulls", "one-row-batches")

#: The junk under a null fixed-width slot: 0x5A5A… in every integer.
JUNK = 0x5A
#: The bytes a null string or binary slot covers (UTF-8, so that full validation passes).
JUNK_BYTES = b"ZZZZ"
#: Entries no key points at, added to each dictionary.
UNUSED = 3
#: The spellings of UTC the verifier's digest takes as one zone, and those this writes in turn.
UTC = {"UTC", "utc", "Etc/UTC", "Etc/UCT", "UCT", "Z", "GMT", "Etc/GMT", "+00:00"}
UTC_SPELLINGS = ("Etc/UTC", "+00:00")
FINER = {"s": "ms", "ms": "us", "us": "ns"}


def _list_like(t):
    return (pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_list_view(t)
            or pa.types.is_large_list_view(t) or pa.types.is_fixed_size_list(t))


def _with_item(t, item):
    """A list type of `t`'s kind whose item field is `item`."""
    if pa.types.is_list(t):
        return pa.list_(item)
    if pa.types.is_large_list(t):
        return pa.large_list(item)
    if pa.types.is_list_view(t):
        return pa.list_view(item)
    if pa.types.is_large_list_view(t):
        return pa.large_list_view(item)
    return pa.list_(item, t.list_size)


def _children(arr):
    if _list_like(arr.type):
        return [arr.values]
    if pa.types.is_struct(arr.type):
        return [arr.field(i) for i in range(arr.type.num_fields)]
    return []


def _with_child_types(t, children):
    if _list_like(t):
        return _with_item(t, t.value_field.with_type(children[0].type))
    return pa.struct([t.field(i).with_type(c.type) for i, c in enumerate(children)])


def _rebuild(arr, t, buffers=None, children=None):
    """`arr` as type `t`, its own buffers (or `buffers`) and children (or `children`) in place."""
    own = arr.buffers()[:arr.type.num_buffers] if buffers is None else buffers
    out = pa.Array.from_buffers(t, len(arr), own, offset=arr.offset,
                                children=_children(arr) if children is None else children)
    out.validate(full=True)
    return out


def _normalized(arr):
    """One array from offset 0: every rebuild below assumes it."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    return pa.concat_arrays([arr]) if arr.offset else arr


def _walk(arr, depth, node, dictionaries):
    """`arr` with `node(array, depth)` applied at every depth, children first; a dictionary's
    values are walked into only when `dictionaries`."""
    t = arr.type
    if pa.types.is_dictionary(t):
        if dictionaries:
            values = _walk(arr.dictionary, depth + 1, node, dictionaries)
            arr = pa.DictionaryArray.from_arrays(arr.indices, values)
    elif (children := _children(arr)) and not pa.types.is_map(t):
        children = [_walk(c, depth + 1, node, dictionaries) for c in children]
        arr = _rebuild(arr, _with_child_types(t, children), children=children)
    return node(arr, depth)


def _large_offsets(arr, depth):
    t = arr.type
    if pa.types.is_string(t):
        return arr.cast(pa.large_string())
    if pa.types.is_binary(t):
        return arr.cast(pa.large_binary())
    if pa.types.is_list(t):
        return arr.cast(pa.large_list(t.value_field))
    return arr


def _views(arr, depth):
    """Strings and binaries as views; lists as list views (pyarrow casts no list to a view:
    the offsets and sizes are built here)."""
    t = arr.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return arr.cast(pa.string_view())
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return arr.cast(pa.binary_view())
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        large = pa.types.is_large_list(t)
        dtype = np.int64 if large else np.int32
        offsets = np.asarray(arr.offsets, dtype=dtype)
        view = (pa.large_list_view if large else pa.list_view)(t.value_field)
        return _rebuild(arr, view, [arr.buffers()[0], pa.py_buffer(offsets[:-1].copy()),
                                    pa.py_buffer(np.diff(offsets).astype(dtype))])
    return arr


def _stringlike(t):
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def _dictionary(arr, depth):
    """Strings dictionary-encoded (int32 keys) and dictionaries of strings encoded again (int16
    keys, int32 where they were int16), with a shuffled dictionary holding unused entries."""
    t = arr.type
    if _stringlike(t):
        value_type, key = t, pa.int32()
        plain = arr.cast(pa.string())
    elif pa.types.is_dictionary(t) and _stringlike(t.value_type):
        value_type = t.value_type
        key = pa.int32() if t.index_type == pa.int16() else pa.int16()
        plain = arr.dictionary_decode().cast(pa.string())
    else:
        return arr
    entries = pc.unique(plain.drop_null()).to_pylist()
    taken, n = set(entries), 0
    while len(entries) < len(taken) + UNUSED:
        candidate = f"unused entry {n}"
        n += 1
        if candidate not in taken:
            entries.append(candidate)
    random.Random(42).shuffle(entries)
    values = pa.array(entries, pa.string())
    indices = pc.index_in(plain, value_set=values).cast(key)
    return pa.DictionaryArray.from_arrays(indices, values.cast(value_type))


def _renamed_item(arr, depth):
    """A list's item field named `element` (columns) or `l` (below), or the other one where
    it has that name already."""
    t = arr.type
    if not _list_like(t):
        return arr
    preferred, other = ("element", "l") if depth == 0 else ("l", "element")
    name = other if t.value_field.name == preferred else preferred
    return _rebuild(arr, _with_item(t, t.value_field.with_name(name)))


def _zone_respeller():
    turn = [0]

    def respelled(arr, depth):
        t = arr.type
        if not pa.types.is_timestamp(t) or t.tz not in UTC:
            return arr
        spelling = UTC_SPELLINGS[turn[0] % len(UTC_SPELLINGS)]
        turn[0] += 1
        if spelling == t.tz:
            spelling = UTC_SPELLINGS[turn[0] % len(UTC_SPELLINGS)]
        return arr.cast(pa.timestamp(t.unit, tz=spelling))

    return respelled


def _finer_unit(arr, depth):
    """Timestamps in the next finer unit (a checked cast: a column that would overflow stays
    as it was), Date32 as the Date64 of its midnight."""
    t = arr.type
    if pa.types.is_timestamp(t) and t.unit in FINER:
        try:
            return arr.cast(pa.timestamp(FINER[t.unit], tz=t.tz))
        except pa.ArrowInvalid:
            return arr
    if pa.types.is_date32(t):
        return arr.cast(pa.date64())
    return arr


def _nulls(arr):
    return np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)


def _bitmap(valid):
    """A validity bitmap of the booleans `valid`."""
    return pa.array(valid, pa.bool_()).buffers()[1]


def _with_validity(arr, valid):
    if pa.types.is_dictionary(arr.type):
        indices = arr.indices
        indices = pa.Array.from_buffers(indices.type, len(indices),
                                        [_bitmap(valid), indices.buffers()[1]])
        return pa.DictionaryArray.from_arrays(indices, arr.dictionary)
    own = arr.buffers()[:arr.type.num_buffers]
    rest = arr.buffers()[1:] if _view_type(arr.type) else own[1:]
    return _rebuild(arr, arr.type, [_bitmap(valid), *rest])


def _view_type(t):
    return pa.types.is_string_view(t) or pa.types.is_binary_view(t)


def _width(t):
    try:
        return t.bit_width // 8 if t.bit_width >= 8 else None
    except ValueError:
        return None


def _garbage(arr):
    """`arr` with non-zero junk under every null slot, at every depth (pa.Array.from_buffers,
    validated in full)."""
    arr = _normalized(arr)
    t, n = arr.type, len(arr)
    nulls = _nulls(arr)
    validity = arr.buffers()[0] if arr.type.num_buffers else None
    if pa.types.is_dictionary(t):
        values = _garbage(arr.dictionary)
        keys = np.asarray(arr.indices.fill_null(0).to_numpy(), dtype=t.index_type.to_pandas_dtype())
        keys = keys.copy()
        # The last entry's key: in bounds, should it be read as a key under a null parent.
        keys[nulls] = max(len(values) - 1, 0)
        indices = pa.Array.from_buffers(t.index_type, n, [arr.indices.buffers()[0],
                                                          pa.py_buffer(keys)])
        return pa.DictionaryArray.from_arrays(indices, values)
    if pa.types.is_struct(t):
        children = [_under_parent(c, nulls, 1) for c in _children(arr)]
        return _rebuild(arr, t, children=children)
    if pa.types.is_fixed_size_list(t):
        items = arr.values.slice(0, n * t.list_size)
        return _rebuild(arr, t, children=[_under_parent(items, nulls, t.list_size)])
    if not nulls.any() and not _children(arr):
        return arr
    if pa.types.is_boolean(t):
        return _rebuild(arr, t, [validity, pc.fill_null(arr, True).buffers()[1]])
    if (width := _width(t)) is not None:
        data = np.frombuffer(arr.buffers()[1], dtype=np.uint8)[:n * width].copy()
        data.reshape(n, width)[nulls] = JUNK
        return _rebuild(arr, t, [validity, pa.py_buffer(data)])
    if pa.types.is_string(t) or pa.types.is_binary(t):
        return _junk_bytes(arr, nulls, np.int32)
    if pa.types.is_large_string(t) or pa.types.is_large_binary(t):
        return _junk_bytes(arr, nulls, np.int64)
    if _view_type(t):
        views = np.frombuffer(arr.buffers()[1], dtype=np.uint8)[:n * 16].copy().reshape(n, 16)
        junk = np.zeros(16, dtype=np.uint8)
        junk[:4] = np.frombuffer(np.uint32(len(JUNK_BYTES)).tobytes(), dtype=np.uint8)
        junk[4:4 + len(JUNK_BYTES)] = np.frombuffer(JUNK_BYTES, dtype=np.uint8)
        views[nulls] = junk
        return _rebuild(arr, t, [validity, pa.py_buffer(views), *arr.buffers()[2:]])
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return _junk_items(arr, nulls, np.int64 if pa.types.is_large_list(t) else np.int32)
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        dtype = np.int64 if pa.types.is_large_list_view(t) else np.int32
        child = _garbage(arr.values)
        offsets = np.frombuffer(arr.buffers()[1], dtype=dtype)[:n].copy()
        sizes = np.frombuffer(arr.buffers()[2], dtype=dtype)[:n].copy()
        offsets[nulls], sizes[nulls] = 0, min(len(child), 1)
        return _rebuild(arr, t, [validity, pa.py_buffer(offsets), pa.py_buffer(sizes)],
                        children=[child])
    return arr  # maps, unions, run-end encoded and null arrays stay as they are


def _junk_bytes(arr, nulls, dtype):
    """Strings or binaries whose null slots each cover JUNK_BYTES."""
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=dtype)[:n + 1]
    raw = memoryview(arr.buffers()[2] or b"")
    out, ends = bytearray(), [0]
    for i in range(n):
        out += JUNK_BYTES if nulls[i] else raw[offsets[i]:offsets[i + 1]]
        ends.append(len(out))
    return _rebuild(arr, arr.type, [arr.buffers()[0], pa.py_buffer(np.array(ends, dtype=dtype)),
                                    pa.py_buffer(bytes(out))])


def _junk_items(arr, nulls, dtype):
    """Lists whose null slots each cover one junk item (a copy of the first), the items then
    given junk under their own nulls."""
    n = len(arr)
    offsets = np.frombuffer(arr.buffers()[1], dtype=dtype)[:n + 1]
    child = arr.values
    taken, ends = [], [0]
    for i in range(n):
        if not nulls[i]:
            taken.extend(range(offsets[i], offsets[i + 1]))
        elif len(child):
            taken.append(0)
        ends.append(len(taken))
    items = _garbage(child.take(pa.array(taken, pa.int64())))
    return _rebuild(arr, arr.type, [arr.buffers()[0], pa.py_buffer(np.array(ends, dtype=dtype))],
                    children=[items])


def _under_parent(child, parent_nulls, per_row):
    """A struct's field or a fixed-size list's items with junk also under every slot whose
    parent row is null; its own nulls are kept, so that junk reads as values no reader may
    look at."""
    child = _normalized(child)
    under = np.repeat(parent_nulls, per_row)[:len(child)]
    if not under.any():
        return _garbage(child)
    own = _nulls(child)
    junked = _garbage(_with_validity(child, ~(own | under)))
    return _with_validity(junked, ~own)


def represented(table, profile):
    """The table in the representation `profile` names."""
    if profile == "one-row-batches":
        return pa.Table.from_batches(table.to_batches(max_chunksize=1), schema=table.schema)
    columns = [_normalized(c) for c in table.columns]
    if profile == "garbage-under-nulls":
        columns = [_garbage(c) for c in columns]
    else:
        node = {"large-offsets": _large_offsets, "views": _views, "dictionary": _dictionary,
                "list-item-name": _renamed_item, "zone-name": _zone_respeller(),
                "finer-unit": _finer_unit}[profile]
        # The dictionary profile re-encodes a dictionary whole, never its values.
        columns = [_walk(c, 0, node, profile != "dictionary") for c in columns]
    fields = [f.with_type(c.type) for f, c in zip(table.schema, columns)]
    return pa.table(columns, schema=pa.schema(fields, metadata=table.schema.metadata))


class SelftestVariant(Backend):
    name = "py-selftest-variant"
    about = "self-test: the source read back right, in another representation per profile"
    dists = ("pyarrow",)
    modules = ("pyarrow.ipc", "numpy")
    profiles = PROFILES
    ops = ("write", "read")

    def write(self, data, directory, ctx):
        import pyarrow.ipc as ipc

        with ipc.new_file(data_file(directory, "arrow"), data.schema) as writer:
            writer.write_table(data)

    def read(self, directory, request, ctx):
        import pyarrow.ipc as ipc

        if request.kind != "all":
            raise Unsupported(f"{self.name} reads whole tables only")
        with pa.OSFile(data_file(directory, "arrow")) as source:
            table = ipc.open_file(source).read_all()
        return represented(table, ctx.profile), f"pyarrow IPC read; variant: {ctx.profile}"


BACKENDS = [SelftestVariant()]
