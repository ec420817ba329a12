//! A worker outside the repository for the tests of `--worker` and `workers check`: the
//! guide's example copied into a temporary directory, the Python SDK (`workers sdk`)
//! pip-installed beside it.

use super::{formatbench, ready};
use std::path::{Path, PathBuf};
use std::process::Command;

pub const EXAMPLE: &str = "docs/adding-a-backend/outside";
pub const RUST_EXAMPLE: &str = "docs/adding-a-backend/outside-rust";

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The peers' interpreter, which has pyarrow and numpy.
pub fn peers_python() -> PathBuf {
    if let Some(python) = std::env::var_os("FORMATBENCH_PYTHON") {
        return PathBuf::from(python);
    }
    let path = formatbench(&["peers", "path"]);
    let dir = String::from_utf8(path.stdout).unwrap();
    PathBuf::from(dir.trim()).join("python/bin/python")
}

/// Copies `from` into `to`, leaving out Python's caches.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "__pycache__" || name == "target" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(&name));
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// A directory outside the repository holding the guide's worker and manifest, the SDK
/// pip-installed into `site`, and `bin/python3` (a script starting the peers' interpreter, which the manifest's
/// `python3` finds first on PATH).
pub fn outside_worker() -> Option<tempfile::TempDir> {
    if !ready("Python peer", "py-numpy-npy") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join(EXAMPLE), dir.path());
    // The SDK as the binary writes it out (`workers sdk`), as a user of an installed
    // formatbench, with no checkout, gets it.
    let sdk = dir.path().join("sdk-source");
    let written = formatbench(&["workers", "sdk", &sdk.to_string_lossy()]);
    assert!(written.status.success(), "{}", super::stderr(&written));
    let python = peers_python();
    let install = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
        ])
        .arg("--target")
        .arg(dir.path().join("site"))
        .arg(&sdk)
        .output()
        .unwrap();
    assert!(
        install.status.success(),
        "pip install ./workers/python: {}",
        String::from_utf8_lossy(&install.stderr)
    );
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // A script, not a link: a virtual environment's interpreter knows its environment by the
    // path it was started from.
    let shim = bin.join("python3");
    std::fs::write(
        &shim,
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", python.display()),
    )
    .unwrap();
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    Some(dir)
}

pub fn with_sdk(command: &mut Command, dir: &Path) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![dir.join("bin")];
    paths.extend(std::env::split_paths(&path));
    command
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env("PYTHONPATH", dir.join("site"));
}
