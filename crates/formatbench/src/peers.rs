//! Peers: workers outside this binary (Python, R) that speak the same protocol. Their programs
//! are embedded in the binary and written out on use, so a run always uses the worker that
//! matches the runner; their libraries live in an environment outside the repository, made by
//! `formatbench peers install`.

#[cfg(test)]
mod embedded;
pub mod exchange;
mod install;
mod python;
mod r;

pub use install::install;
pub use python::{python_backends, python_command, write_python_sdk};
pub use r::{r_backends, r_command, DEBIAN_PACKAGES};

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
        crate::Error::failed(format!("cannot write the {kind} worker to {}", p.display()))(e)
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
