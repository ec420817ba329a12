//! Worker-side measurement: only the operation is timed; memory and OS counters are the worker's
//! own (an exec'd process starts with a fresh address space, so nothing of the runner leaks in).

use crate::counters::OpCounters;
use std::time::Instant;

/// Resident memory figures from `/proc/self/status`, in bytes; `None` where the kernel has none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemorySnapshot {
    /// VmHWM: the high-water mark of resident memory.
    pub peak_bytes: Option<u64>,
    pub rss_bytes: Option<u64>,
    pub anon_bytes: Option<u64>,
    pub file_bytes: Option<u64>,
}

pub fn memory_snapshot() -> MemorySnapshot {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return MemorySnapshot::default();
    };
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    };
    MemorySnapshot {
        peak_bytes: field("VmHWM:"),
        rss_bytes: field("VmRSS:"),
        anon_bytes: field("RssAnon:"),
        file_bytes: field("RssFile:"),
    }
}

/// How the program hands memory its allocator keeps after a free back to the OS (mimalloc's
/// `mi_collect` in the formatbench binary); unset, nothing is released.
static RELEASE_FREED: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets how [`release_freed_memory`] releases memory; the first setting stays.
pub fn set_memory_release(release: fn()) {
    let _ = RELEASE_FREED.set(release);
}

/// Returns memory freed but kept by the allocator to the OS, so a job that prepared something
/// big untimed (a change's base table) starts its timed calls from what it still holds.
pub fn release_freed_memory() {
    if let Some(release) = RELEASE_FREED.get() {
        release();
    }
}

/// Resets VmHWM to the current RSS (Linux ≥ 4.0), so the next reading is the operation's peak.
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

fn rusage_self() -> libc::rusage {
    // SAFETY: getrusage only writes into the zeroed struct we pass it.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    }
}

fn seconds(tv: libc::timeval) -> f64 {
    tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6
}

fn delta(after: libc::c_long, before: libc::c_long) -> u64 {
    u64::try_from(after.saturating_sub(before)).unwrap_or(0)
}

/// The I/O counters of /proc/self/io (all threads); zeros where the kernel does not offer them.
#[derive(Debug, Clone, Copy, Default)]
struct IoCounters {
    read_bytes: u64,
    write_bytes: u64,
    rchar: u64,
    wchar: u64,
}

fn io_self() -> IoCounters {
    let text = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let field = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    IoCounters {
        read_bytes: field("read_bytes:"),
        write_bytes: field("write_bytes:"),
        rchar: field("rchar:"),
        wchar: field("wchar:"),
    }
}

fn cpu_between(before: &libc::rusage, after: &libc::rusage) -> f64 {
    let user = seconds(after.ru_utime) - seconds(before.ru_utime);
    let sys = seconds(after.ru_stime) - seconds(before.ru_stime);
    (user + sys).max(0.0)
}

fn counters_between(
    before: &libc::rusage,
    after: &libc::rusage,
    io_before: IoCounters,
    io_after: IoCounters,
) -> OpCounters {
    OpCounters {
        read_bytes: io_after.read_bytes.saturating_sub(io_before.read_bytes),
        write_bytes: io_after.write_bytes.saturating_sub(io_before.write_bytes),
        rchar: io_after.rchar.saturating_sub(io_before.rchar),
        wchar: io_after.wchar.saturating_sub(io_before.wchar),
        cpu_user_s: (seconds(after.ru_utime) - seconds(before.ru_utime)).max(0.0),
        cpu_sys_s: (seconds(after.ru_stime) - seconds(before.ru_stime)).max(0.0),
        minflt: delta(after.ru_minflt, before.ru_minflt),
        majflt: delta(after.ru_majflt, before.ru_majflt),
        nvcsw: delta(after.ru_nvcsw, before.ru_nvcsw),
        nivcsw: delta(after.ru_nivcsw, before.ru_nivcsw),
    }
}

/// How many times one sample calls the operation: again until the calls together last
/// `min_seconds`, at least `min_calls` times (a second call gives the warm figure), at most
/// `max_calls` times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calls {
    pub min_seconds: f64,
    pub min_calls: u64,
    pub max_calls: u64,
}

impl Calls {
    /// One call, untimed repetition off: a one-shot operation.
    pub const ONCE: Calls = Calls {
        min_seconds: 0.0,
        min_calls: 1,
        max_calls: 1,
    };

    fn more(&self, calls: u64, seconds: f64) -> bool {
        let max = self.max_calls.max(1);
        calls < max && (calls < self.min_calls || seconds < self.min_seconds)
    }
}

/// One measured operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Wall seconds of all calls together.
    pub seconds: f64,
    pub calls: u64,
    /// Wall seconds of the first call alone.
    pub first_call_s: f64,
    /// CPU seconds (user + system) of the first call alone.
    pub first_cpu_s: f64,
    pub counters: OpCounters,
    pub before: MemorySnapshot,
    pub after: MemorySnapshot,
    /// Whether VmHWM was reset at the start (otherwise the peak covers the whole process).
    pub peak_reset: bool,
    /// Named parts timed from inside the operation ([`crate::phases`]), summed over the calls.
    pub phases: Vec<(String, f64)>,
    /// The same parts in the first call alone.
    pub first_call_phases: Vec<(String, f64)>,
    /// When the first call ended (Unix seconds), where more calls followed: an object store's
    /// server splits its count of the sample's traffic there.
    pub first_call_ended_unix_s: Option<f64>,
}

/// Seconds since the Unix epoch.
pub fn unix_seconds() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Times `op` alone. The result is returned, not dropped, inside the timer: a read's object stays
/// alive until the clock has stopped, as it would for the caller of the library.
pub fn measure<T, E>(op: impl FnOnce() -> Result<T, E>) -> Result<(T, Measured), E> {
    let mut op = Some(op);
    measure_repeated(Calls::ONCE, || match op.take() {
        Some(f) => f(),
        None => unreachable_call(),
    })
}

/// A second call of a one-shot operation cannot happen: `measure_repeated` with
/// [`Calls::ONCE`] stops after the first. Kept out of line so the timed loop stays small.
#[cold]
fn unreachable_call<T, E>() -> Result<T, E> {
    std::process::abort()
}

/// Times `op`, calling it as often as `calls` asks; the last result is returned, earlier ones
/// are dropped inside the timer as a caller repeating the operation would. Counters and memory
/// cover every call; the first call's wall and CPU time are kept apart.
pub fn measure_repeated<T, E>(
    calls_wanted: Calls,
    mut op: impl FnMut() -> Result<T, E>,
) -> Result<(T, Measured), E> {
    let peak_reset = reset_peak();
    crate::phases::reset();
    let before = memory_snapshot();
    let io_before = io_self();
    let usage_before = rusage_self();
    let start = Instant::now();
    crate::phases::begin_call();
    let mut value = op()?;
    let first_call_s = start.elapsed().as_secs_f64();
    let first_call_phases = crate::phases::snapshot();
    let mut calls = 1;
    // Where the first call's CPU ends: read once, and only when a second call follows, so the
    // loop of calls stays as it was and a one-call sample reads no extra counter.
    let first_usage = calls_wanted.more(calls, first_call_s).then(rusage_self);
    let first_call_ended_unix_s = first_usage.is_some().then(unix_seconds);
    while calls_wanted.more(calls, start.elapsed().as_secs_f64()) {
        drop(value);
        crate::phases::begin_call();
        value = op()?;
        calls += 1;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let usage_after = rusage_self();
    let io_after = io_self();
    let after = memory_snapshot();
    let first_cpu_s = cpu_between(&usage_before, first_usage.as_ref().unwrap_or(&usage_after));
    Ok((
        value,
        Measured {
            seconds: elapsed,
            calls,
            first_call_s,
            first_cpu_s,
            counters: counters_between(&usage_before, &usage_after, io_before, io_after),
            before,
            after,
            peak_reset,
            phases: crate::phases::take(),
            first_call_phases,
            first_call_ended_unix_s,
        },
    ))
}

/// Times `op` on state `setup` prepares before each call, untimed: for operations that change
/// what they work on (a mutation needs the table as it was). Calls repeat until the timed
/// parts together last `min_seconds` (at most `max_calls`). Counters are summed over the
/// timed parts only, and the peak is the highest of the calls' own peaks.
pub fn measure_each<S, T, E>(
    calls_wanted: Calls,
    mut setup: impl FnMut(u64) -> Result<S, E>,
    mut op: impl FnMut(S) -> Result<T, E>,
) -> Result<(T, Measured), E> {
    let mut total = OpCounters::default();
    let mut seconds = 0.0;
    let mut first_call_s = 0.0;
    let mut first_cpu_s = 0.0;
    let mut first_call_phases = Vec::new();
    let mut first_call_ended_unix_s = None;
    let mut calls = 0u64;
    let mut before = None;
    let mut peak: Option<u64> = None;
    let mut peak_reset = true;
    crate::phases::reset();
    loop {
        let state = setup(calls)?;
        peak_reset &= reset_peak();
        let snapshot = memory_snapshot();
        let io_before = io_self();
        let usage_before = rusage_self();
        let start = Instant::now();
        crate::phases::begin_call();
        let value = op(state)?;
        let elapsed = start.elapsed().as_secs_f64();
        let usage_after = rusage_self();
        let io_after = io_self();
        let after = memory_snapshot();
        let c = counters_between(&usage_before, &usage_after, io_before, io_after);
        total = total.plus(&c);
        before.get_or_insert(snapshot);
        peak = peak.max(after.peak_bytes);
        if calls == 0 {
            first_call_s = elapsed;
            first_cpu_s = c.cpu_user_s + c.cpu_sys_s;
            first_call_phases = crate::phases::snapshot();
            first_call_ended_unix_s = Some(unix_seconds());
        }
        seconds += elapsed;
        calls += 1;
        if !calls_wanted.more(calls, seconds) {
            return Ok((
                value,
                Measured {
                    seconds,
                    calls,
                    first_call_s,
                    first_cpu_s,
                    counters: total,
                    before: before.unwrap_or_default(),
                    after: MemorySnapshot {
                        peak_bytes: peak,
                        ..after
                    },
                    peak_reset,
                    phases: crate::phases::take(),
                    first_call_phases,
                    first_call_ended_unix_s: first_call_ended_unix_s.filter(|_| calls > 1),
                },
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every measurement resets the process's peak memory (VmHWM) at its start: tests that
    /// measure in parallel threads of one process would reset each other's peaks mid-way
    /// (`measure_sees_touched_memory` once saw 8 KiB of its 64 MiB). They take turns.
    static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
        MEASURING
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    #[test]
    fn snapshot_reads_proc_status() {
        let snap = memory_snapshot();
        assert!(snap.peak_bytes.unwrap_or(0) > 0);
        assert!(snap.rss_bytes.unwrap_or(0) > 0);
    }

    #[test]
    fn short_operations_repeat_until_the_minimum() {
        let _turn = one_at_a_time();
        let mut n = 0u64;
        let calls = |min_seconds, min_calls, max_calls| Calls {
            min_seconds,
            min_calls,
            max_calls,
        };
        // Each call sleeps at least 1 ms, so the minimum is reached within 50 calls; it
        // stops being reached in one only if a call is delayed by 49 ms. The bounds hold on a
        // loaded machine, where a call takes longer than its sleep.
        let (last, m) = measure_repeated(calls(0.05, 1, 1_000_000), || -> Result<u64, ()> {
            n += 1;
            std::thread::sleep(std::time::Duration::from_millis(1));
            Ok(n)
        })
        .unwrap();
        assert_eq!(last, m.calls);
        assert!(m.seconds >= 0.05, "{m:?}");
        assert!((2..=50).contains(&m.calls), "{m:?}");
        let (_, capped) = measure_repeated(calls(10.0, 1, 3), || Ok::<(), ()>(())).unwrap();
        assert_eq!(capped.calls, 3);
        // A slow operation still gets its second, warm call when two are asked for.
        let slow = || {
            std::thread::sleep(std::time::Duration::from_millis(30));
            Ok::<(), ()>(())
        };
        let (_, once) = measure_repeated(calls(0.02, 1, 100), slow).unwrap();
        assert_eq!(once.calls, 1);
        let (_, twice) = measure_repeated(calls(0.02, 2, 100), slow).unwrap();
        assert_eq!(twice.calls, 2);
        assert!(twice.first_call_s < twice.seconds, "{twice:?}");
    }

    #[test]
    fn the_first_calls_cpu_is_kept_apart() {
        let _turn = one_at_a_time();
        let spin = |n: u64| (0..n).fold(0u64, |a, i| std::hint::black_box(a ^ i.wrapping_mul(31)));
        let mut first = true;
        let (_, m) = measure_repeated(
            Calls {
                min_seconds: 0.0,
                min_calls: 2,
                max_calls: 2,
            },
            || {
                // The first call spins ten times longer than the second.
                let n = if std::mem::take(&mut first) {
                    200_000_000
                } else {
                    20_000_000
                };
                Ok::<u64, ()>(spin(n))
            },
        )
        .unwrap();
        let total = m.counters.cpu_user_s + m.counters.cpu_sys_s;
        assert!(
            m.first_cpu_s > 0.7 * total && m.first_cpu_s < total,
            "{m:?}"
        );
    }

    #[test]
    fn setup_is_not_timed_and_runs_before_every_call() {
        let _turn = one_at_a_time();
        let mut prepared = Vec::new();
        // Each setup sleeps 60 ms, past the 50 ms minimum, and each call does next to nothing:
        // were setups timed, the first call would end the sample and the time would be at
        // least 60 ms a call (a sleep never ends early). Untimed, the calls stay under the
        // minimum and run to the cap.
        let (last, m) = measure_each(
            Calls {
                min_seconds: 0.05,
                min_calls: 1,
                max_calls: 4,
            },
            |call| -> Result<u64, ()> {
                std::thread::sleep(std::time::Duration::from_millis(60));
                prepared.push(call);
                Ok(call)
            },
            |state| -> Result<u64, ()> { Ok(std::hint::black_box(state)) },
        )
        .unwrap();
        assert_eq!(m.calls, 4, "{m:?}");
        assert_eq!(prepared, (0..m.calls).collect::<Vec<_>>());
        assert_eq!(last + 1, m.calls);
        assert!(m.seconds < 0.06, "{m:?}");
    }

    #[test]
    fn measure_sees_touched_memory() {
        let _turn = one_at_a_time();
        let size = 64 << 20;
        let (len, m) = measure(|| -> Result<usize, ()> {
            let buf = vec![1u8; size];
            Ok(std::hint::black_box(buf).iter().map(|&b| b as usize).sum())
        })
        .unwrap();
        assert_eq!(len, size);
        let grown = m.after.peak_bytes.unwrap_or(0) - m.before.rss_bytes.unwrap_or(0);
        assert!(grown >= (size as u64) * 9 / 10, "peak grew by {grown}");
    }
}
