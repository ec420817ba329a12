"""The processes of a cluster engine's cluster, and their accounting.

A cluster peer's sample starts its own cluster before the timer, in this worker's process tree
and process group: the launcher ends the group when the worker exits (or is killed), so no
executor outlives its sample, and a fresh sample never meets an earlier sample's warm cluster.
While the timer runs, CPU time, faults, context switches, I/O and peak memory are read for the
worker and every process below it from /proc, and summed, so a cluster's cost compares with a
single process's (docs/protocol.md, Cluster peers)."""

import os

_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK")


def descendants(root=None):
    """The pids of every living process below `root` (this process by default), from /proc."""
    root = root or os.getpid()
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        if fields and fields[0] not in ("Z", "X"):
            children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            out.append(child)
            todo.append(child)
    return sorted(out)


def proc_fields(path, parse):
    """`key: value` lines of a /proc file, parsed by `parse(key, value)` (None drops a line);
    empty when the file cannot be read (the process has exited)."""
    out = {}
    try:
        with open(path) as f:
            for line in f:
                key, _, value = line.partition(":")
                parsed = parse(key.strip(), value)
                if parsed is not None:
                    out[key.strip()] = parsed
    except OSError:
        pass
    return out


#: The memory figures of /proc/PID/status, in bytes.
MEMORY = ("VmHWM", "VmRSS", "RssAnon", "RssFile")
_SWITCHES = ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")


def status(pid="self", keys=MEMORY):
    """The `keys` of /proc/PID/status as integers, memory in bytes."""
    return proc_fields(f"/proc/{pid}/status", lambda k, v: (
        int(v.split()[0]) * (1024 if k in MEMORY else 1) if k in keys else None))


def io(pid="self"):
    """/proc/PID/io's byte counts."""
    return proc_fields(f"/proc/{pid}/io", lambda k, v: int(v))


def reset_peak(pid="self"):
    """Resets the process's peak resident memory (VmHWM) to its current RSS; False where the
    kernel refuses."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def usage(pid):
    """What the kernel counts for one process: CPU seconds, faults, context switches, I/O
    bytes and memory (bytes); None when it has exited."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return None
    counted = status(pid, MEMORY + _SWITCHES)
    if not counted:
        return None
    out = {"cpu_user_s": int(fields[11]) * _TICK_S, "cpu_sys_s": int(fields[12]) * _TICK_S,
           "minflt": int(fields[7]), "majflt": int(fields[9]),
           "nvcsw": counted.pop("voluntary_ctxt_switches", 0),
           "nivcsw": counted.pop("nonvoluntary_ctxt_switches", 0)}
    out.update(counted)
    out.update(io(pid))
    return out


class Accounted:
    """The processes a measurement sums besides the worker's own: set while a cluster runs."""

    pids = ()


def account(pids):
    """Makes every measurement until `account(())` sum these processes with the worker."""
    Accounted.pids = tuple(pids)


class TreeUsage:
    """The accounted processes' usage at the start of a measurement (peaks reset there)."""

    def __init__(self):
        self.pids = Accounted.pids
        self.peak_reset = all(reset_peak(p) for p in self.pids)
        self.before = {p: usage(p) for p in self.pids}

    def deltas(self):
        """(counters, memory after, memory before, processes) summed over the processes that
        lived through the measurement; counters are differences, memory sums."""
        counters, after, before, alive = {}, {}, {}, 0
        for pid in self.pids:
            start, end = self.before.get(pid), usage(pid)
            if start is None or end is None:
                continue
            alive += 1
            for key in ("cpu_user_s", "cpu_sys_s", "minflt", "majflt", "nvcsw", "nivcsw",
                        "read_bytes", "write_bytes", "rchar", "wchar"):
                if key in start and key in end:
                    counters[key] = counters.get(key, 0) + end[key] - start[key]
            for key in ("VmHWM", "RssAnon", "RssFile"):
                after[key] = after.get(key, 0) + end.get(key, 0)
            before["VmRSS"] = before.get("VmRSS", 0) + start.get("VmRSS", 0)
        return counters, after, before, alive
