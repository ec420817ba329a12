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
