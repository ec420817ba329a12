//! The tiny launcher between the runner and a worker. See README.md for why it exists.

use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod unwaited;

pub use unwaited::{stat, ticks_per_second, Stat};

struct Request<'a> {
    timeout: Option<Duration>,
    /// How often to read the CPU time of the processes below (`--watch-unwaited-ms`): for
    /// workers that start clusters whose processes may be reaped unwaited ([`unwaited`]).
    watch_unwaited: Option<Duration>,
    /// Bytes of address space the worker may map (RLIMIT_AS), when capped.
    memory_limit: Option<u64>,
    program: &'a str,
    args: &'a [String],
}

fn parse(args: &[String]) -> Option<Request<'_>> {
    let mut timeout = None;
    let mut watch_unwaited = None;
    let mut memory_limit = None;
    let mut rest = args;
    loop {
        match rest {
            [flag, value, tail @ ..] if flag == "--timeout-ms" => {
                let ms: u64 = value.parse().ok()?;
                timeout = Some(Duration::from_millis(ms));
                rest = tail;
            }
            [flag, value, tail @ ..] if flag == "--watch-unwaited-ms" => {
                watch_unwaited = Some(Duration::from_millis(value.parse().ok()?));
                rest = tail;
            }
            [flag, value, tail @ ..] if flag == "--memory-limit-bytes" => {
                memory_limit = Some(value.parse().ok()?);
                rest = tail;
            }
            [dashes, program, tail @ ..] if dashes == "--" => {
                return Some(Request {
                    timeout,
                    watch_unwaited,
                    memory_limit,
                    program,
                    args: tail,
                })
            }
            _ => return None,
        }
    }
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    // The runner reads these lines; if it is gone there is nobody left to tell.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The runner that started this launcher: named in the environment (so a runner that died
/// before the launcher got this far is noticed), else the parent now.
fn parent_at_start() -> i32 {
    std::env::var(RUNNER_PID_ENV)
        .ok()
        .and_then(|p| p.parse().ok())
        // SAFETY: getppid has no preconditions.
        .unwrap_or_else(|| unsafe { libc::getppid() })
}

/// The environment variable the runner names itself in.
pub const RUNNER_PID_ENV: &str = "FORMATBENCH_RUNNER_PID";

/// Asks the kernel for SIGKILL when the parent exits, then makes sure the parent it meant is
/// still the parent: one that died before the request leaves this process to init, and then
/// it exits at once. Async-signal-safe (it runs between fork and exec too).
fn die_with_parent(parent: i32) {
    // SAFETY: prctl(PR_SET_PDEATHSIG) and getppid touch no memory of ours; _exit never returns.
    unsafe {
        libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        );
        if libc::getppid() != parent {
            libc::_exit(1);
        }
    }
}

fn kill_group(pid: i32) {
    // SAFETY: kill has no memory-safety preconditions; a negative pid addresses the group.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// Runs the launcher with its arguments (after the program name); returns its exit code.
pub fn launch(args: &[String]) -> i32 {
    let Some(request) = parse(args) else {
        eprintln!(
            "usage: formatbench-launcher [--timeout-ms N] [--memory-limit-bytes N] [--watch-unwaited-ms N] -- PROGRAM [ARGS...]"
        );
        return 2;
    };
    // SAFETY: setting a signal disposition to SIG_IGN is async-signal-safe and has no handler.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
    let stdout_for_worker = match std::io::stderr().as_fd_clone() {
        Ok(fd) => Stdio::from(fd),
        Err(_) => Stdio::null(),
    };
    // The launcher dies with the runner: a runner killed with SIGKILL must not leave a sample
    // running that would compete with the next run's.
    die_with_parent(parent_at_start());
    // Every process the worker leaves behind is re-parented here, not to init, so it ends with
    // the sample (`end_descendants`) even when it left the worker's process group, as a Ray
    // cluster's processes do.
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER) only sets a flag on this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
    let mut command = Command::new(request.program);
    command.args(request.args).stdout(stdout_for_worker);
    // SAFETY: getpid is async-signal-safe.
    let launcher = unsafe { libc::getpid() };
    let memory_limit = request.memory_limit;
    // SAFETY: only async-signal-safe calls (setsid, signal, prctl, getppid, setrlimit, _exit)
    // run between fork and exec.
    unsafe {
        command.pre_exec(move || {
            libc::setsid();
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            // The worker dies with its launcher (and so with the runner).
            die_with_parent(launcher);
            if let Some(bytes) = memory_limit {
                // Address space, not resident memory: the one cap an unprivileged process
                // can set on its child without cgroups. The worker's allocations fail past it
                // and it dies with its allocator's message instead of the machine swapping.
                let limit = libc::rlimit {
                    rlim_cur: bytes as libc::rlim_t,
                    rlim_max: bytes as libc::rlim_t,
                };
                if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let child = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            say(&format!(
                "{{\"event\":\"spawn_failed\",\"error\":\"{}\"}}",
                json_escape(&e.to_string())
            ));
            return 0;
        }
    };
    let pid = child.id() as i32;
    say(&format!("{{\"event\":\"started\",\"pid\":{pid}}}"));
    let watch = request
        .watch_unwaited
        .map(|every| unwaited::Watch::start(launcher, every));

    let timed_out = Arc::new(AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let watcher = request.timeout.map(|timeout| {
        let timed_out = Arc::clone(&timed_out);
        std::thread::spawn(move || {
            if let Err(mpsc::RecvTimeoutError::Timeout) = done_rx.recv_timeout(timeout) {
                timed_out.store(true, Ordering::SeqCst);
                kill_group(pid);
            }
        })
    });

    let (status, usage) = wait4(pid);
    let wall = started.elapsed().as_secs_f64();
    // Read before the kills below: what is left then is reaped here, and waited for.
    let unwaited_cpu_s = watch.map_or(0.0, unwaited::Watch::finish);
    // Whatever the worker left behind, in its group or out of it, ends with it.
    kill_group(pid);
    end_descendants();
    let _ = done_tx.send(());
    if let Some(handle) = watcher {
        let _ = handle.join();
    }
    let exit = std::process::ExitStatus::from_raw(status);
    let code = exit.code().map_or("null".into(), |c| c.to_string());
    let signal = exit.signal().map_or("null".into(), |s| s.to_string());
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    say(&format!(
        "{{\"event\":\"exited\",\"code\":{code},\"signal\":{signal},\"timed_out\":{},\
\"wall_s\":{wall:.9},\"cpu_user_s\":{:.6},\"cpu_sys_s\":{:.6},\"maxrss_bytes\":{},\
\"minflt\":{},\"majflt\":{},\"nvcsw\":{},\"nivcsw\":{},\"inblock\":{},\"oublock\":{},\
\"unwaited_cpu_s\":{unwaited_cpu_s:.6}}}",
        timed_out.load(Ordering::SeqCst),
        secs(usage.ru_utime),
        secs(usage.ru_stime),
        usage.ru_maxrss.max(0) * 1024,
        usage.ru_minflt,
        usage.ru_majflt,
        usage.ru_nvcsw,
        usage.ru_nivcsw,
        usage.ru_inblock,
        usage.ru_oublock,
    ));
    0
}

/// The pids of this process's living children, from /proc.
fn children() -> Vec<i32> {
    // SAFETY: getpid has no preconditions.
    let own = unsafe { libc::getpid() };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            (stat(pid)?.ppid == own).then_some(pid)
        })
        .collect()
}

/// Kills and reaps every process left below the launcher: once the worker has exited, each is
/// an orphan re-parented here (the launcher is a child subreaper) or a descendant of one. Gives
/// up after 10 s of SIGKILL, which only a process stuck in the kernel survives.
fn end_descendants() {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = children();
        for &pid in &left {
            // SAFETY: kill has no memory-safety preconditions; each pid is our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        // SAFETY: waitpid with WNOHANG writes only into the status we own.
        unsafe {
            let mut status = 0;
            while libc::waitpid(-1, &mut status, libc::WNOHANG) > 0 {}
        }
        if left.is_empty() || Instant::now() > deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn wait4(pid: i32) -> (i32, libc::rusage) {
    // SAFETY: wait4 writes only into the zeroed status and rusage we own.
    unsafe {
        let mut status = 0;
        let mut usage: libc::rusage = std::mem::zeroed();
        loop {
            let r = libc::wait4(pid, &mut status, 0, &mut usage);
            if r == pid || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return (status, usage);
            }
        }
    }
}

trait FdClone {
    fn as_fd_clone(&self) -> std::io::Result<std::os::fd::OwnedFd>;
}

impl FdClone for std::io::Stderr {
    fn as_fd_clone(&self) -> std::io::Result<std::os::fd::OwnedFd> {
        use std::os::fd::AsFd;
        self.as_fd().try_clone_to_owned()
    }
}
