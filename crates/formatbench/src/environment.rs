//! The environment block of a run: machine, kernel, build and versions.

use crate::results::EnvironmentRecord;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn cpu_model() -> String {
    read("/proc/cpuinfo")
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

fn memory_bytes() -> u64 {
    read("/proc/meminfo")
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kib| kib.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

fn kernel() -> String {
    let release = read("/proc/sys/kernel/osrelease");
    format!("{} {}", std::env::consts::OS, release.trim())
}

fn os() -> String {
    read("/etc/os-release")
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| std::env::consts::OS.to_string())
}

/// The commit and dirty flag of the source tree this binary was built from, when it is a git
/// checkout (the tree is found from the build-time manifest path).
fn git_state() -> (Option<String>, Option<bool>) {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR"));
    let git = |args: &[&str]| -> Option<String> {
        // Read-only: `git status` would otherwise refresh the index and take .git/index.lock
        // in the user's tree, a write outside --out (and a lock another git may trip on).
        let out = Command::new("git")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .arg("-C")
            .arg(tree)
            .args(args)
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "HEAD"]);
    let dirty = commit
        .as_ref()
        .and_then(|_| git(&["status", "--porcelain", "--untracked-files=no"]))
        .map(|s| !s.is_empty());
    (commit, dirty)
}

pub fn environment(run_id: &str, settings: crate::results::RunSettings) -> EnvironmentRecord {
    let (git_commit, git_dirty) = git_state();
    let versions = BTreeMap::from([
        ("formatbench".into(), env!("CARGO_PKG_VERSION").into()),
        ("arrow".into(), crate::catalog::ARROW_VERSION.into()),
        ("parquet".into(), crate::catalog::ARROW_VERSION.into()),
        ("rustc".into(), env!("FORMATBENCH_RUSTC").into()),
        (
            "build_profile".into(),
            env!("FORMATBENCH_BUILD_PROFILE").into(),
        ),
        (
            "protocol".into(),
            formatbench_protocol::PROTOCOL_VERSION.to_string(),
        ),
    ]);
    EnvironmentRecord {
        run_id: run_id.to_string(),
        formatbench_version: env!("CARGO_PKG_VERSION").into(),
        git_commit,
        git_dirty,
        cpu_model: cpu_model(),
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        memory_bytes: memory_bytes(),
        kernel: kernel(),
        os: os(),
        versions,
        clock_resolution_s: None,
        worker_build: None,
        settings,
        memory: memory_settings(),
        // The runner adds the run's backends' formats.
        formats: BTreeMap::new(),
    }
}

/// The bracketed choice of a /sys setting such as `always [madvise] never`.
fn chosen(text: &str) -> Option<String> {
    let start = text.find('[')? + 1;
    let end = start + text[start..].find(']')?;
    Some(text[start..end].to_string())
}

/// Memory settings that change what writes and fresh allocations cost. Free page reporting
/// matters on virtual machines: memory the guest frees goes back to the host in blocks of
/// `2^order` pages, and the first touch of such a block afterwards costs host faults (writes
/// that fill 2 MiB page-cache folios were measured 2.5× slower for it).
fn memory_settings() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let thp = "/sys/kernel/mm/transparent_hugepage";
    for (key, path) in [
        ("transparent_hugepage", format!("{thp}/enabled")),
        ("transparent_hugepage_defrag", format!("{thp}/defrag")),
    ] {
        if let Some(value) = chosen(&read(&path)) {
            out.insert(key.to_string(), value);
        }
    }
    for key in [
        "dirty_ratio",
        "dirty_background_ratio",
        "dirty_bytes",
        "swappiness",
    ] {
        let value = read(&format!("/proc/sys/vm/{key}"));
        if !value.trim().is_empty() {
            out.insert(format!("vm.{key}"), value.trim().to_string());
        }
    }
    let reporting = "/sys/module/page_reporting/parameters/page_reporting_order";
    let order = read(reporting);
    let balloon = Path::new("/sys/bus/virtio/drivers/virtio_balloon").exists();
    let value = match (order.trim(), balloon) {
        ("", _) => "no".to_string(),
        (order, true) => format!("yes, to the host through virtio-balloon, order {order}"),
        (order, false) => format!("available (order {order}), no virtio-balloon device"),
    };
    out.insert("free_page_reporting".into(), value);
    out
}

/// A run id from the UTC time and the process id: sortable, unique on one machine. A process
/// that starts several runs (one per network profile) numbers the later ones (`-2`, `-3`), so
/// two runs in one second never share a directory.
pub fn new_run_id() -> String {
    static RUNS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let now = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ");
    let id = format!("{now}-{:05}", std::process::id() % 100_000);
    match RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) {
        0 => id,
        n => format!("{id}-{}", n + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::{chosen, new_run_id};

    #[test]
    fn a_run_id_is_the_utc_time_then_the_process() {
        let id = new_run_id();
        let (time, pid) = id.split_once('-').unwrap_or_default();
        // Later runs of one process are numbered after the pid.
        let pid = pid.split('-').next().unwrap_or_default();
        let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
        assert_eq!(time.len(), 16, "{id}");
        assert!(
            digits(&time[..8]) && &time[8..9] == "T" && digits(&time[9..15]),
            "{id}"
        );
        assert!(time.ends_with('Z') && time.starts_with("20"), "{id}");
        assert_eq!(pid, format!("{:05}", std::process::id() % 100_000));
    }

    #[test]
    fn the_bracketed_choice_is_the_setting() {
        assert_eq!(
            chosen("always [madvise] never\n").as_deref(),
            Some("madvise")
        );
        assert_eq!(chosen("[always] defer").as_deref(), Some("always"));
        assert_eq!(chosen("no brackets"), None);
    }
}
