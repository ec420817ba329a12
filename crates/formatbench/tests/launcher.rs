#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The launcher ends every process a worker leaves behind, also those that left the worker's
//! process group (as a Ray cluster's processes set groups of their own) and those orphaned
//! before the worker exited.

mod common;

use common::process::processes_tagged;
use std::process::Command;

#[test]
fn processes_that_leave_the_workers_group_end_with_the_sample() {
    let tag = format!("FORMATBENCH_TEST_TAG=launcher-{}", std::process::id());
    let (key, value) = tag.split_once('=').unwrap();
    // A "worker" that starts a sleeper in a process group of its own (setsid), one orphaned
    // at once (a double fork), and exits.
    let out = Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args(["__launch", "--timeout-ms", "20000", "--", "/bin/sh", "-c"])
        .arg("setsid sleep 600 >/dev/null 2>&1 & (sleep 600 >/dev/null 2>&1 &) ; sleep 0.2; exit 0")
        .env(key, value)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("\"event\":\"exited\""), "{said}");
    let left = processes_tagged(&tag);
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The launcher's `unwaited_cpu_s` for a worker (Python) whose child burns 0.3 s of CPU time,
/// idles and exits while the worker `ignores` SIGCHLD or waits for it.
fn unwaited_cpu_of_a_child(ignores: bool) -> f64 {
    let worker = format!(
        r#"
import os, signal, time
if {ignores}:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
child = os.fork()
if child == 0:
    start = time.process_time()
    while time.process_time() - start < 0.3:
        pass
    time.sleep(0.4)
    os._exit(0)
time.sleep(0.2)
if not {ignores}:
    os.waitpid(child, 0)
time.sleep(0.9)
"#,
        ignores = if ignores { "True" } else { "False" }
    );
    let out = Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args([
            "__launch",
            "--timeout-ms",
            "20000",
            "--watch-unwaited-ms",
            "50",
            "--",
        ])
        .args(["python3", "-c", &worker])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let exited: serde_json::Value = said
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .find(|v: &serde_json::Value| v["event"] == "exited")
        .unwrap_or_else(|| panic!("no exit line: {said}"));
    assert_eq!(exited["code"], 0, "{said}");
    exited["unwaited_cpu_s"].as_f64().unwrap()
}

#[test]
fn cpu_of_a_child_reaped_unwaited_is_read_from_proc_and_reported() {
    // The kernel drops the usage of a child whose parent ignores SIGCHLD (Ray's raylet does):
    // only the launcher's readings of /proc see its 0.3 s; a waited-for child's is in wait4's.
    let python = Command::new("python3").arg("--version").output();
    if !common::available("python3", python.is_ok_and(|o| o.status.success())) {
        return;
    }
    let unwaited = unwaited_cpu_of_a_child(true);
    assert!((0.25..0.6).contains(&unwaited), "{unwaited}");
    assert_eq!(unwaited_cpu_of_a_child(false), 0.0);
}
