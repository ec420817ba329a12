//! formatbench as a child process the test controls: started, signalled, waited for.

use std::ffi::OsStr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// formatbench started with `args`, its stderr piped (stdout is not kept).
pub fn spawn<S: AsRef<OsStr>>(args: &[S]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the formatbench binary starts")
}

/// Sends `signal` to `pid`, a process the test started.
pub fn kill(pid: i32, signal: i32) {
    // SAFETY: signalling a process this test started.
    unsafe {
        libc::kill(pid, signal);
    }
}

/// Waits until `done`, looking every 25 ms; fails naming `what` after `timeout`.
pub fn wait_for(what: &str, timeout: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// The pids of living processes whose environment holds `tag` (a `NAME=value` a test set on a
/// command, which every process it starts inherits), other than this test's own.
pub fn processes_tagged(tag: &str) -> Vec<u32> {
    let own = std::process::id();
    std::fs::read_dir("/proc")
        .expect("/proc lists processes")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| pid != own)
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let running = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X']));
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            running && environ.split(|&b| b == 0).any(|e| e == tag.as_bytes())
        })
        .collect()
}
