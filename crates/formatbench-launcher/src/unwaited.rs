//! CPU time that no `wait` reports. A process whose parent ignores SIGCHLD (Ray's raylet does,
//! for the workers that run a cluster's tasks) is reaped by the kernel as it exits, and its
//! usage is dropped from every ancestor's RUSAGE_CHILDREN: the runner would count that work as
//! other processes' and call the machine busy. While the worker runs, a thread reads the CPU
//! time of every process below the launcher from /proc at a fixed interval; a process that
//! vanishes while its parent ignored SIGCHLD adds its last reading. What a process did after
//! the last reading before it exited is missed, so the sum is a lower bound.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// SIGCHLD's bit in /proc/PID/status's `SigIgn` mask (signal N is bit N − 1).
const SIGCHLD_BIT: u64 = 1 << (libc::SIGCHLD - 1);

/// A process seen below the launcher: pid and start time (a pid is reused, the pair is not).
type Seen = (i32, u64);

/// The last reading of a process: its CPU ticks, and whether its parent ignored SIGCHLD.
#[derive(Clone, Copy)]
struct Reading {
    ticks: u64,
    unwaited: bool,
}

/// The thread reading /proc until [`Watch::finish`].
pub struct Watch {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<f64>,
}

impl Watch {
    /// Starts reading the processes below `root` (the launcher) every `every`.
    pub fn start(root: i32, every: Duration) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            let mut lost_ticks = 0u64;
            let mut last = read_below(root);
            loop {
                let stopped = stopping.load(Ordering::SeqCst);
                let now = read_below(root);
                lost_ticks += vanished_unwaited(&last, &now);
                last = now;
                if stopped {
                    break;
                }
                std::thread::sleep(every);
            }
            lost_ticks as f64 / ticks_per_second()
        });
        Watch { stop, handle }
    }

    /// Takes a last reading and returns the CPU seconds of the processes that exited unwaited.
    pub fn finish(self) -> f64 {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.join().unwrap_or(0.0)
    }
}

/// The ticks of the processes in `before` that are gone from `now` and were reaped unwaited.
fn vanished_unwaited(before: &HashMap<Seen, Reading>, now: &HashMap<Seen, Reading>) -> u64 {
    before
        .iter()
        .filter(|(seen, reading)| reading.unwaited && !now.contains_key(seen))
        .map(|(_, reading)| reading.ticks)
        .sum()
}

/// What /proc/PID/stat says of a process: its parent, start time and CPU ticks (user + system).
pub struct Stat {
    pub ppid: i32,
    pub start: u64,
    pub ticks: u64,
}

/// A process's /proc/PID/stat, or `None` once it is gone.
pub fn stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may hold spaces: fields are counted after it.
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    // After the name: state is field 3, ppid 4, utime 14, stime 15, starttime 22.
    Some(Stat {
        ppid: fields.get(1)?.parse().ok()?,
        ticks: field(11)? + field(12)?,
        start: field(19)?,
    })
}

fn ignores_sigchld(pid: i32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & SIGCHLD_BIT != 0)
}

/// Every process below `root` now, with its reading.
fn read_below(root: i32) -> HashMap<Seen, Reading> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return HashMap::new();
    };
    let all: HashMap<i32, Stat> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| Some((pid, stat(pid)?)))
        .collect();
    let below = |mut pid: i32| {
        // Up the parents to `root` or to a process outside it (init, the runner).
        for _ in 0..64 {
            match all.get(&pid) {
                Some(s) if s.ppid == root => return true,
                Some(s) if s.ppid > 1 => pid = s.ppid,
                _ => return false,
            }
        }
        false
    };
    let mut ignoring: HashMap<i32, bool> = HashMap::new();
    all.iter()
        .filter(|(pid, _)| below(**pid))
        .map(|(pid, s)| {
            let unwaited = *ignoring
                .entry(s.ppid)
                .or_insert_with(|| ignores_sigchld(s.ppid));
            (
                (*pid, s.start),
                Reading {
                    ticks: s.ticks,
                    unwaited,
                },
            )
        })
        .collect()
}

/// The kernel's clock ticks per second for /proc's CPU counters.
pub fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        hz as f64
    } else {
        100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_processes_gone_while_their_parent_ignored_sigchld_count() {
        let reading = |ticks, unwaited| Reading { ticks, unwaited };
        let before = HashMap::from([
            ((10, 1), reading(50, true)),
            ((11, 1), reading(70, false)),
            ((12, 1), reading(30, true)),
        ]);
        // 10 is gone unwaited; 11 is gone but its parent waits for it; 12 lives on; a new
        // process under pid 10 is another process.
        let now = HashMap::from([((12, 1), reading(40, true)), ((10, 9), reading(1, true))]);
        assert_eq!(vanished_unwaited(&before, &now), 50);
    }

    #[test]
    fn this_process_is_read_and_sigchld_is_seen_where_ignored() {
        // SAFETY: getpid has no preconditions.
        let own = stat(unsafe { libc::getpid() }).unwrap_or_else(|| panic!("no /proc stat"));
        assert!(own.ppid > 0 && own.start > 0);
        assert_eq!(SIGCHLD_BIT, 1 << 16);
    }
}
