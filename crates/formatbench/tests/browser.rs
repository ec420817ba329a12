#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! report.html as a reader sees it: opened in Debian's headless Chromium (driven by
//! playwright-core from tests/browser) in both colour schemes. Needs optional parts: without
//! them the test is skipped with the reason, unless FORMATBENCH_REQUIRE_ALL=1 (as in CI).

mod common;

use common::{available, mixed_run, run_dir, stderr};
use std::path::Path;
use std::process::Command;

#[test]
fn report_renders_in_headless_chromium() {
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser");
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !available(
        "Debian's chromium (apt-get install chromium)",
        Path::new("/usr/bin/chromium").exists(),
    ) || !available("node", node)
        || !available(
            "playwright-core (npm ci in crates/formatbench/tests/browser)",
            harness.join("node_modules/playwright-core").exists(),
        )
    {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let args = [
        "--backends",
        "ipc,ipc-mmap,parquet,csv",
        "--ops",
        "write,read,take",
        "--cache",
        "both",
    ];
    let result = mixed_run(2000, &args, out.path());
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let dir = run_dir(out.path());
    let shots = std::env::var("FORMATBENCH_SCREENSHOTS")
        .map_or_else(|_| out.path().to_path_buf(), Into::into);
    std::fs::create_dir_all(&shots).unwrap();
    let check = Command::new("node")
        .arg(harness.join("check-report.mjs"))
        .arg(dir.join("report.html"))
        .arg(dir.join("results.jsonl"))
        .arg(&shots)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(check.status.success(), "{said}");
    assert!(said.contains("report ok"), "{said}");
    for scheme in ["light", "dark"] {
        assert!(shots.join(format!("report-{scheme}.png")).exists());
    }
}
