"""The timed region and the process accounting around it, as in the Rust protocol crate:
VmHWM reset through clear_refs, getrusage and /proc/self/io deltas, a monotonic clock."""

import ctypes
import mmap
import os
import resource
import time

from . import cluster


#: Named parts of the operation timed from inside it (a session's init, plan and execute),
#: summed over a sample's calls, as the Rust protocol's `phases` module keeps them.
_PHASES = {}


def add_phase(name, seconds):
    """Adds `seconds` to the phase `name` of the measurement under way."""
    _PHASES[name] = _PHASES.get(name, 0.0) + seconds


#: The phase a first-batch mark adds to, as the Rust protocol names it.
FIRST_BATCH = "first_batch"

#: When the call under way started, and whether its first batch is marked already (a mark
#: outside a measurement finds it marked and is dropped).
_CALL = {"start": 0.0, "marked": True}


def _begin_call(start):
    _CALL["start"] = start
    _CALL["marked"] = False


def first_batch():
    """Marks the first batch the reader hands back in the call under way: the time since the
    call started goes to the phase `first_batch` (time to first batch); later marks in the
    same call are ignored."""
    if not _CALL["marked"]:
        _CALL["marked"] = True
        add_phase(FIRST_BATCH, time.perf_counter() - _CALL["start"])


def timed_phase(name, f):
    """Calls `f()`, its time added to the phase `name`; returns what it returns."""
    start = time.perf_counter()
    try:
        return f()
    finally:
        add_phase(name, time.perf_counter() - start)


class Measured:
    def __init__(self, seconds, calls, first_call_s, counters, before, after, peak_reset,
                 first_cpu_s=None, phases=None, first_call_phases=None,
                 first_call_ended_unix_s=None, processes=1):
        self.seconds = seconds
        self.calls = calls
        self.first_call_s = first_call_s
        self.first_cpu_s = first_cpu_s
        self.counters = counters
        self.before = before
        self.after = after
        self.peak_reset = peak_reset
        self.phases = phases or {}
        self.first_call_phases = first_call_phases or {}
        # When the first call ended (Unix seconds): the object store's count splits there.
        self.first_call_ended_unix_s = first_call_ended_unix_s
        # The processes whose accounting was summed: the worker, and a cluster's below it.
        self.processes = processes

    def answer_fields(self):
        fields = {
            "op_s": self.seconds / max(self.calls, 1),
            "phases": [{"name": "op", "seconds": self.seconds}]
            + [{"name": name, "seconds": s} for name, s in sorted(self.phases.items())],
            "calls": self.calls,
            "first_call_s": self.first_call_s,
            "counters": self.counters,
            "peak_scope": "operation" if self.peak_reset else "process",
        }
        if self.first_call_phases:
            fields["first_call_phases"] = [{"name": name, "seconds": s} for name, s
                                           in sorted(self.first_call_phases.items())]
        cpu = self.counters.get("cpu_user_s", 0.0) + self.counters.get("cpu_sys_s", 0.0)
        if self.first_cpu_s is not None:
            fields["first_call_cpu_s"] = self.first_cpu_s
        if self.calls > 1:
            later = self.calls - 1
            fields["warm_call_s"] = max((self.seconds - self.first_call_s) / later, 0.0)
            if self.first_call_ended_unix_s is not None:
                fields["first_call_ended_unix_s"] = self.first_call_ended_unix_s
            if self.first_cpu_s is not None:
                fields["warm_call_cpu_s"] = max((cpu - self.first_cpu_s) / later, 0.0)
        for key, field in (
            ("VmHWM", "peak_rss_bytes"),
            ("RssAnon", "rss_anon_bytes"),
            ("RssFile", "rss_file_bytes"),
        ):
            if key in self.after:
                fields[field] = self.after[key]
        if "VmRSS" in self.before:
            fields["rss_before_bytes"] = self.before["VmRSS"]
        if self.processes > 1:
            fields["accounted_processes"] = self.processes
        return fields


def _cpu(usage):
    return usage.ru_utime + usage.ru_stime


def measure(op, min_seconds, max_calls, min_calls=1):
    """Runs `op` once, then again until the calls together last `min_seconds` and number at
    least `min_calls` (at most `max_calls`); the first call's wall and CPU time are kept apart.
    The last result stays alive until the clock stops, as a caller holds it."""
    peak_reset = cluster.reset_peak()
    tree = cluster.TreeUsage()
    _PHASES.clear()
    before = cluster.status()
    io_before = cluster.io()
    usage_before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    _begin_call(start)
    value = op(1)
    first_call_s = time.perf_counter() - start
    first_call_phases = dict(_PHASES)
    calls = 1
    first_usage = None
    first_call_ended_unix_s = None
    while calls < max(max_calls, 1) and (
            calls < min_calls or time.perf_counter() - start < min_seconds):
        if first_usage is None:
            first_usage = resource.getrusage(resource.RUSAGE_SELF)
            first_call_ended_unix_s = time.time()
        value = None
        calls += 1
        _begin_call(time.perf_counter())
        value = op(calls)
    elapsed = time.perf_counter() - start
    _CALL["marked"] = True
    usage_after = resource.getrusage(resource.RUSAGE_SELF)
    io_after = cluster.io()
    after = cluster.status()
    counters = {
        "cpu_user_s": usage_after.ru_utime - usage_before.ru_utime,
        "cpu_sys_s": usage_after.ru_stime - usage_before.ru_stime,
        "minflt": usage_after.ru_minflt - usage_before.ru_minflt,
        "majflt": usage_after.ru_majflt - usage_before.ru_majflt,
        "nvcsw": usage_after.ru_nvcsw - usage_before.ru_nvcsw,
        "nivcsw": usage_after.ru_nivcsw - usage_before.ru_nivcsw,
    }
    for key in ("read_bytes", "write_bytes", "rchar", "wchar"):
        if key in io_before and key in io_after:
            counters[key] = io_after[key] - io_before[key]
    first_cpu_s = _cpu(first_usage or usage_after) - _cpu(usage_before)
    # A cluster's processes are summed with the worker's; theirs is read once, at the end, so
    # the first call's CPU time is not known apart then.
    tree_counters, tree_after, tree_before, alive = tree.deltas()
    for key, summed in tree_counters.items():
        counters[key] = counters.get(key, 0) + summed
    for key, summed in tree_after.items():
        after[key] = after.get(key, 0) + summed
    for key, summed in tree_before.items():
        before[key] = before.get(key, 0) + summed
    peak_reset = peak_reset and tree.peak_reset
    phases = dict(_PHASES)
    _PHASES.clear()
    return value, Measured(elapsed, calls, first_call_s, counters, before, after, peak_reset,
                           None if alive else max(first_cpu_s, 0.0), phases,
                           first_call_phases, first_call_ended_unix_s, 1 + alive)


def measure_each(setup, op, min_seconds, max_calls, min_calls=1):
    """Times `op(state)` on state `setup(call)` prepares before each call, untimed (a change
    needs the table as it was). Counters sum the timed parts; the peak is the calls' highest."""
    total, seconds, first_call_s, first_cpu_s, calls = {}, 0.0, 0.0, 0.0, 0
    before, after, peak_reset, peak, phases, first_phases = None, None, True, None, {}, {}
    first_ended = None
    while True:
        state = setup(calls)
        value = None
        value, m = measure(lambda _call: op(state), 0.0, 1)
        for key, v in m.counters.items():
            total[key] = total.get(key, 0) + v
        for name, v in m.phases.items():
            phases[name] = phases.get(name, 0.0) + v
        before = before or m.before
        after = m.after
        peak_reset = peak_reset and m.peak_reset
        if "VmHWM" in m.after:
            peak = max(peak or 0, m.after["VmHWM"])
        if calls == 0:
            first_call_s, first_cpu_s, first_phases = m.seconds, m.first_cpu_s, m.phases
            first_ended = time.time()
        seconds += m.seconds
        calls += 1
        if calls >= max(max_calls, 1) or (calls >= min_calls and seconds >= min_seconds):
            if peak is not None:
                after = {**after, "VmHWM": peak}
            return value, Measured(seconds, calls, first_call_s, total, before, after, peak_reset,
                                   first_cpu_s, phases, first_phases, first_ended,
                                   m.processes)


def files_under(path):
    if os.path.isfile(path):
        return [path]
    out = []
    for root, dirs, files in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(".repeat-")]
        out.extend(os.path.join(root, f) for f in files)
    return sorted(out)


def resident_fraction(paths):
    """Byte-weighted share of `paths` in the page cache, from mincore on a fresh mapping that
    is never touched (touching would fault pages in)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    page = mmap.PAGESIZE
    resident = total = 0
    for path in paths:
        size = os.path.getsize(path)
        if size == 0:
            continue
        fd = os.open(path, os.O_RDONLY)
        try:
            addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            if addr in (None, ctypes.c_void_p(-1).value):
                return None
            pages = (size + page - 1) // page
            vec = ctypes.create_string_buffer(pages)
            ok = libc.mincore(addr, size, vec) == 0
            libc.munmap(addr, size)
            if not ok:
                return None
            resident += sum(b & 1 for b in vec.raw) * page
            total += pages * page
        finally:
            os.close(fd)
    return resident / total if total else None
