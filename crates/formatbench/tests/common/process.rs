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
