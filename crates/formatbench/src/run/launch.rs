//! One sample: write the job, start launcher → worker, collect the launcher's wait4 report and
//! the worker's answer, and turn every way a worker can fail into a reason.

use super::{interrupted, LAUNCH_ARG};
use crate::Error;
use formatbench_protocol::{Answer, Job};
use serde::Deserialize;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// What the launcher measured of the whole worker process (wait4).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ProcessStats {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    #[serde(default)]
    pub timed_out: bool,
    pub wall_s: f64,
    pub cpu_user_s: f64,
    pub cpu_sys_s: f64,
    pub maxrss_bytes: u64,
    pub minflt: u64,
    pub majflt: u64,
    pub nvcsw: u64,
    pub nivcsw: u64,
    /// CPU seconds of processes below the worker that exited unwaited (a Ray cluster's), read
    /// from /proc while it ran; 0 where the launcher did not watch (one-process workers).
    #[serde(default)]
    pub unwaited_cpu_s: f64,
}

/// How often the launcher reads the CPU time of a cluster worker's processes.
const UNWAITED_READING_MS: u64 = 100;

/// What a sample may use before it is stopped.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall time; the launcher kills the worker's group past it.
    pub timeout: Duration,
    /// Bytes of address space (`--memory-limit`), when capped.
    pub memory: Option<u64>,
    /// The thread cap in the environment libraries read at import, set before the worker
    /// starts: for workers outside the tree, whose own imports run before any job is read.
    pub thread_environment: Option<u32>,
}

/// The variables libraries read their pool sizes from at import (the Python worker's
/// `threads.ENVIRONMENT`, which sets them itself before it imports a backend's libraries).
pub const THREAD_ENVIRONMENT: [&str; 9] = [
    "POLARS_MAX_THREADS",
    "RAYON_NUM_THREADS",
    "TOKIO_WORKER_THREADS",
    "LANCE_CPU_THREADS",
    "LANCE_IO_THREADS",
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_MAX_THREADS",
];

#[derive(Debug)]
pub struct SampleOutcome {
    /// The worker's answer, or why there is none.
    pub answer: Result<Answer, String>,
    pub process: Option<ProcessStats>,
}

#[derive(Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
enum LauncherLine {
    Started { pid: i32 },
    Exited(ProcessStats),
    SpawnFailed { error: String },
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGTERM => "SIGTERM",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        _ => "signal",
    }
}

/// The last line a worker printed that is not part of a backtrace: usually the reason it died
/// (a panic's message, an allocator's "memory allocation of N bytes failed", …).
fn last_log_line(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty() && !is_backtrace_line(l))
        .map(|l| l.chars().take(300).collect())
}

/// Lines of a Rust (`RUST_BACKTRACE`) or Python traceback's frame list, and the notes about
/// them: the frames say where, the line before them says why.
fn is_backtrace_line(line: &str) -> bool {
    let trimmed = line.trim_start();
    let frame_number = trimmed
        .split_once(": ")
        .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    frame_number
        || trimmed.starts_with("at ")
        || trimmed == "stack backtrace:"
        || (trimmed.starts_with("note: ") && trimmed.contains("backtrace"))
}

fn kill_group(pid: i32) {
    // SAFETY: kill has no memory-safety preconditions; a negative pid addresses the group.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// Whether any process of group `pgid` is still running: a zombie (dead, not yet reaped by
/// whoever inherited it) does not count, as it runs nothing.
fn group_runs(pgid: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        // SAFETY: signal 0 only checks that the group exists.
        return unsafe { libc::kill(-pgid, 0) } == 0;
    };
    entries.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // After the command's closing parenthesis: state, ppid, pgrp, …
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|g| g.parse::<i32>().ok());
        pgrp == Some(pgid) && !matches!(state, Some("Z") | Some("X"))
    })
}

/// Waits until no process of group `pid` is left (each is killed first); an error if one
/// survives 10 s of SIGKILL.
fn wait_until_gone(pid: i32) -> Result<(), Error> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if !group_runs(pid) {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(Error::Io(format!(
                "worker process group {pid} survived SIGKILL for 10 s; stopping so it cannot \
                 run beside the next sample"
            )));
        }
        kill_group(pid);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs one job in a fresh worker process. Returns `Err(Interrupted)` after Ctrl-C, having
/// killed the worker; every other failure is an outcome with a reason.
pub fn run_job(
    worker: &(std::path::PathBuf, Vec<String>),
    job: &Job,
    job_path: &Path,
    log_path: &Path,
    limits: Limits,
) -> Result<SampleOutcome, Error> {
    let timeout = limits.timeout;
    let text = serde_json::to_vec_pretty(job).map_err(Error::encode("a job"))?;
    let cannot = |what: &str, path: &Path, e: std::io::Error| {
        Error::failed(format!("cannot write the {what} {}", path.display()))(e)
    };
    std::fs::write(job_path, text).map_err(|e| cannot("job file", job_path, e))?;
    let _ = std::fs::remove_file(&job.answer);
    let log = std::fs::File::create(log_path).map_err(|e| cannot("worker log", log_path, e))?;
    let exe = std::env::current_exe()?;
    let (program, prefix) = worker;
    let mut launcher = Command::new(exe);
    launcher
        .arg(LAUNCH_ARG)
        .arg("--timeout-ms")
        .arg(timeout.as_millis().to_string());
    if let Some(bytes) = limits.memory {
        launcher.arg("--memory-limit-bytes").arg(bytes.to_string());
    }
    if job.executors.is_some() {
        // A cluster's processes may be reaped unwaited (Ray's workers): their CPU time is read
        // from /proc instead, at a cost to the sample of about a millisecond per reading.
        launcher
            .arg("--watch-unwaited-ms")
            .arg(UNWAITED_READING_MS.to_string());
    }
    if let Some(threads) = limits.thread_environment {
        for name in THREAD_ENVIRONMENT {
            launcher.env(name, threads.to_string());
        }
    }
    let mut child = launcher
        .arg("--")
        .arg(program)
        .args(prefix)
        .arg("--job")
        .arg(job_path)
        .env(
            formatbench_launcher::RUNNER_PID_ENV,
            std::process::id().to_string(),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .map_err(Error::failed("cannot start the launcher"))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| Error::Io("launcher has no stdout".into()))?;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });

    // The launcher enforces the timeout; this deadline only guards against a launcher gone wrong.
    let deadline = Instant::now() + timeout + Duration::from_secs(30);
    let mut pid = None;
    let mut stats = None;
    let mut spawn_error = None;
    loop {
        if interrupted() {
            if let Some(pid) = pid {
                kill_group(pid);
            }
            // Once the worker is gone the launcher ends what it left outside its group (a
            // cluster's processes), then exits; it is killed only if it does not.
            let deadline = Instant::now() + Duration::from_secs(12);
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = child.kill();
            let _ = child.wait();
            return Err(Error::Interrupted);
        }
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(line) => match serde_json::from_str::<LauncherLine>(&line) {
                Ok(LauncherLine::Started { pid: p }) => pid = Some(p),
                Ok(LauncherLine::Exited(s)) => stats = Some(s),
                Ok(LauncherLine::SpawnFailed { error }) => spawn_error = Some(error),
                Err(_) => {}
            },
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if Instant::now() > deadline {
                    if let Some(pid) = pid {
                        kill_group(pid);
                    }
                    let _ = child.kill();
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let _ = child.wait();
    // A launcher that vanished without reporting (killed) took its worker with it; the sample
    // is failed only once the worker's group is confirmed gone, so it cannot run beside the
    // next sample.
    if let (None, Some(pid)) = (&stats, pid) {
        kill_group(pid);
        wait_until_gone(pid)?;
    }

    let answer = match (&stats, spawn_error) {
        (_, Some(error)) => Err(format!("cannot start the worker: {error}")),
        (None, None) => Err("the launcher ended without reporting the worker's exit".into()),
        (Some(s), None) if s.timed_out => {
            Err(format!("timed out after {:.0} s", timeout.as_secs_f64()))
        }
        (Some(s), None) => read_answer(s, &job.answer, log_path).map_err(|reason| {
            // A worker that dies under a memory cap usually died of it: say so beside its
            // own last words (an allocator's message, a MemoryError, …).
            match limits.memory {
                Some(bytes) if s.code != Some(0) || s.signal.is_some() => format!(
                    "{reason} (it ran under --memory-limit {} of address space)",
                    crate::units::bytes(bytes)
                ),
                _ => reason,
            }
        }),
    };
    Ok(SampleOutcome {
        answer,
        process: stats,
    })
}

fn read_answer(stats: &ProcessStats, answer_path: &Path, log: &Path) -> Result<Answer, String> {
    let said = || {
        last_log_line(log)
            .map(|l| format!(": {l}"))
            .unwrap_or_default()
    };
    if let Some(signal) = stats.signal {
        return Err(format!(
            "worker killed by {} ({signal}){}",
            signal_name(signal),
            said()
        ));
    }
    if stats.code != Some(0) {
        let code = stats.code.map_or("?".into(), |c| c.to_string());
        return Err(format!("worker exited with code {code}{}", said()));
    }
    let text = std::fs::read_to_string(answer_path)
        .map_err(|_| format!("worker wrote no answer{}", said()))?;
    serde_json::from_str::<Answer>(&text).map_err(|e| {
        let start: String = text.chars().take(60).collect();
        format!("garbled answer ({e}): {start:?}")
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::{last_log_line, THREAD_ENVIRONMENT};

    #[test]
    fn outside_workers_get_the_thread_cap_the_python_worker_sets_itself() {
        let python = include_str!("../../../../workers/python/formatbench_worker/threads.py");
        let listed: Vec<&str> = python
            .lines()
            .skip_while(|line| !line.starts_with("ENVIRONMENT = ("))
            .take_while(|line| *line != ")")
            .filter_map(|line| line.trim().strip_prefix('"'))
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert_eq!(listed, THREAD_ENVIRONMENT);
    }

    #[test]
    fn a_reason_is_the_last_line_before_a_backtrace() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("worker.log");
        let printed = "starting\nmemory allocation of 536870912 bytes failed\nstack backtrace:\n   0: __rustc::rust_begin_unwind\n             at /rustc/library/std/src/panicking.rs:689:5\n  12: main\nnote: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.\n\n";
        std::fs::write(&log, printed).unwrap();
        assert_eq!(
            last_log_line(&log).as_deref(),
            Some("memory allocation of 536870912 bytes failed")
        );
    }
}
