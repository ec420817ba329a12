//! Peers: workers outside this binary (Python, R) that speak the same protocol. Their programs
//! are embedded in the binary and written out on use, so a run always uses the worker that
//! matches the runner; their libraries live in an environment outside the repository, made by
//! `formatbench peers install`.

pub mod exchange;
mod install;
mod python;
mod r;

pub use install::install;
pub use python::{python_backends, python_command};
pub use r::{r_backends, r_command, DEBIAN_PACKAGES};

use crate::run::{BackendInfo, WorkerKind};
use formatbench_protocol::Op;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Why a peer's backends cannot even be listed, for a name with that peer's prefix (`py-`, `r-`)
/// when its worker does not start: no interpreter, no jsonlite.
pub fn missing_worker(name: &str) -> Option<String> {
    let (language, described) = if name.starts_with("py-") {
        ("Python", python_backends())
    } else if name.starts_with("r-") {
        ("R", r_backends())
    } else {
        return None;
    };
    described
        .as_ref()
        .err()
        .map(|reason| format!("the {language} peers cannot start: {reason}"))
}

/// Where peer environments and worker programs live: `$FORMATBENCH_PEERS`, else
/// `$XDG_CACHE_HOME/formatbench/peers`, else `~/.cache/formatbench/peers`.
pub fn peers_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FORMATBENCH_PEERS") {
        return PathBuf::from(dir);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    cache.join("formatbench").join("peers")
}

/// Writes embedded files under `dir` (a directory named by their content hash, so concurrent
/// runs and older binaries never see a half-written or different program).
fn materialize(kind: &str, files: &[(&str, &str)]) -> Result<PathBuf, crate::Error> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for (path, text) in files {
        hasher.update(path.as_bytes());
        hasher.update(text.as_bytes());
    }
    let dir = peers_dir().join(format!("{kind}-worker-{:016x}", hasher.digest()));
    if dir.join(".complete").exists() {
        return Ok(dir);
    }
    let staging = dir.with_extension(format!("tmp{}", std::process::id()));
    let io = |e: std::io::Error, p: &Path| {
        crate::Error::Io(format!(
            "cannot write the {kind} worker to {}: {e}",
            p.display()
        ))
    };
    for (path, text) in files {
        let target = staging.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(e, parent))?;
        }
        std::fs::write(&target, text).map_err(|e| io(e, &target))?;
    }
    std::fs::write(staging.join(".complete"), "").map_err(|e| io(e, &staging))?;
    match std::fs::rename(&staging, &dir) {
        Ok(()) => Ok(dir),
        // Another process finished first: its copy is identical.
        Err(_) if dir.join(".complete").exists() => {
            let _ = std::fs::remove_dir_all(&staging);
            Ok(dir)
        }
        Err(e) => Err(io(e, &dir)),
    }
}

#[derive(Deserialize)]
struct Described {
    #[serde(default)]
    backends: Vec<DescribedBackend>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
struct DescribedBackend {
    name: String,
    profiles: Vec<String>,
    ops: Vec<Op>,
    /// Layouts with their operations; a worker that names none stores only `wide`.
    #[serde(default)]
    layouts: std::collections::BTreeMap<String, Vec<Op>>,
    targets: Vec<String>,
    lossy: bool,
    about: String,
    version: Option<String>,
    unavailable: Option<String>,
    #[serde(flatten)]
    table: crate::run::TableTraits,
}

/// Describes a native worker program of its own (the heavy workers).
pub fn describe_worker_program(
    program: &Path,
    worker: WorkerKind,
) -> Result<Vec<BackendInfo>, String> {
    describe_worker(program, &[], worker, "(rebuild it with workers/rust/build)")
}

/// Runs a peer worker's `--describe` and lists its backends, or says why it cannot (`hint`
/// says how to get the worker's prerequisites).
fn describe_worker(
    program: &Path,
    args: &[String],
    worker: WorkerKind,
    hint: &str,
) -> Result<Vec<BackendInfo>, String> {
    let output = std::process::Command::new(program)
        .args(args)
        .arg("--describe")
        .output()
        .map_err(|e| format!("cannot start {}: {e} {hint}", program.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("no message");
        return Err(format!(
            "the {} worker failed to describe itself: {last}",
            worker.name()
        ));
    }
    let described: Described = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "the {} worker's description is not valid: {e}",
            worker.name()
        )
    })?;
    if let Some(error) = described.error {
        return Err(error);
    }
    Ok(described
        .backends
        .into_iter()
        .map(|b| BackendInfo {
            name: b.name,
            worker,
            profiles: b.profiles,
            layouts: if b.layouts.is_empty() {
                vec![("wide".into(), b.ops.clone())]
            } else {
                let mut layouts: Vec<(String, Vec<Op>)> = b.layouts.into_iter().collect();
                // `wide` first: it is the default layout.
                layouts.sort_by_key(|(name, _)| name != "wide");
                layouts
            },
            ops: b.ops,
            targets: b.targets,
            lossy: b.lossy,
            about: b.about,
            version: b.version,
            hidden: false,
            available: b.unavailable.map_or(Ok(()), Err),
            table: b.table,
        })
        .collect())
}
