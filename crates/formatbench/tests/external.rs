#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Workers outside the repository (`--worker MANIFEST`): the guide's toy worker, copied with
//! its manifest into a directory outside the tree, on the Python SDK pip-installed from
//! workers/python, runs beside `ipc` and `parquet` with every cell verified. Needs the peers'
//! Python (`formatbench peers install`: pyarrow, numpy, and wheel to build the SDK offline).

mod common;

use common::{formatbench, records, run_dir, stderr};
use formatbench::results::{Record, SampleStatus};
use std::path::{Path, PathBuf};
use std::process::Command;

const EXAMPLE: &str = "docs/adding-a-backend/outside";
const RUST_EXAMPLE: &str = "docs/adding-a-backend/outside-rust";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The peers' interpreter, which has pyarrow and numpy.
fn peers_python() -> PathBuf {
    if let Some(python) = std::env::var_os("FORMATBENCH_PYTHON") {
        return PathBuf::from(python);
    }
    let path = formatbench(&["peers", "path"]);
    let dir = String::from_utf8(path.stdout).unwrap();
    PathBuf::from(dir.trim()).join("python/bin/python")
}

/// Copies `from` into `to`, leaving out Python's caches.
fn copy_tree(from: &Path, to: &Path) {
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
fn outside_worker() -> Option<tempfile::TempDir> {
    if !common::ready("Python peer", "py-numpy-npy") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&root().join(EXAMPLE), dir.path());
    // The SDK's sources copied first: pip builds in place, and the checkout stays clean.
    let sdk = dir.path().join("sdk-source");
    copy_tree(&root().join("workers/python"), &sdk);
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

fn with_sdk(command: &mut Command, dir: &Path) {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![dir.join("bin")];
    paths.extend(std::env::split_paths(&path));
    command
        .env("PATH", std::env::join_paths(paths).unwrap())
        .env("PYTHONPATH", dir.join("site"));
}

#[test]
fn a_worker_outside_the_tree_runs_beside_ipc_and_parquet_every_cell_verified() {
    let Some(dir) = outside_worker() else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let mut run = Command::new(env!("CARGO_BIN_EXE_formatbench"));
    run.args(["run", "--worker"])
        .arg(dir.path().join("manifest.toml"))
        .args(["--dataset", "mixed", "--rows", "1000", "--per-type", "1"])
        .args([
            "--backends",
            "ext-npy-columns,ipc,parquet",
            "--profiles",
            "default",
        ])
        .args(["--ops", "write,read,project", "--samples", "1", "--out"])
        .arg(out.path());
    with_sdk(&mut run, dir.path());
    let result = run.output().unwrap();
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("a command of your choosing"),
        "{}",
        stderr(&result)
    );
    let all = records(&run_dir(out.path()));
    for backend in ["ext-npy-columns", "ipc", "parquet"] {
        for op in ["write", "read", "project"] {
            let verified = all.iter().any(|r| {
                matches!(r, Record::Verification(v) if v.status == SampleStatus::Ok
                    && v.cell.backend == backend && v.cell.op == op)
            });
            assert!(verified, "{backend} {op} not verified");
        }
    }
    // The manifest's hash is in the version recorded with the run.
    let version = all
        .iter()
        .find_map(|r| match r {
            Record::Environment(e) => e.versions.get("backend ext-npy-columns").cloned(),
            _ => None,
        })
        .unwrap();
    assert!(
        version.starts_with("numpy ") && version.contains("(manifest xxh3:"),
        "{version}"
    );
}

#[test]
fn a_manifest_that_shadows_a_name_or_breaks_the_format_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // Without its version command, which needs the peers' numpy.
    let manifest: String = std::fs::read_to_string(root().join(EXAMPLE).join("manifest.toml"))
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with("version"))
        .map(|line| format!("{line}\n"))
        .collect();
    let cases = [
        (
            manifest.replace("ext-npy-columns", "parquet"),
            "must be named 'ext-…'",
        ),
        (
            manifest.replace("ops =", "operations ="),
            "unknown field `operations`",
        ),
    ];
    for (i, (text, said)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("bad-{i}.toml"));
        std::fs::write(&path, text).unwrap();
        let result = formatbench(&["backends", "--worker", path.to_str().unwrap()]);
        assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
        let text = stderr(&result);
        let said_lines: Vec<&str> = text.lines().collect();
        assert_eq!(said_lines.len(), 1, "{said_lines:?}");
        assert!(said_lines[0].contains(said), "{said_lines:?}");
    }
    // Two manifests may not define one backend twice.
    let (one, other) = (dir.path().join("one.toml"), dir.path().join("other.toml"));
    std::fs::write(&one, &manifest).unwrap();
    std::fs::write(&other, &manifest).unwrap();
    let twice = formatbench(&[
        "backends",
        "--worker",
        one.to_str().unwrap(),
        "--worker",
        other.to_str().unwrap(),
    ]);
    assert_eq!(twice.status.code(), Some(2), "{}", stderr(&twice));
    assert!(stderr(&twice).contains("'ext-npy-columns' is already defined by another manifest"));
}

/// The guide's worker with its timer's clock started at the script's start, before its
/// imports: every first call takes the worker's start-up in.
const MISTIMED: &str = r#"
import time

STARTED = time.perf_counter()

import npy_columns  # noqa: E402
from formatbench_worker import measure, serve  # noqa: E402


class StartUpInside:
    def __init__(self):
        self.first = True

    def __getattr__(self, name):
        return getattr(time, name)

    def perf_counter(self):
        if self.first:
            self.first = False
            return STARTED
        return time.perf_counter()


measure.time = StartUpInside()
serve([npy_columns.NpyColumns()])
"#;

/// The guide's worker, losing the last row of every read.
const WRONG: &str = r#"
import npy_columns
from formatbench_worker import serve


class LosesARow(npy_columns.NpyColumns):
    def read(self, directory, request, ctx):
        table, method = super().read(directory, request, ctx)
        return table.slice(0, table.num_rows - 1), method


serve([LosesARow()])
"#;

/// `workers check` of the manifest `name` in `dir` whose worker script is `script`.
fn check(dir: &Path, name: &str, script: Option<&str>) -> std::process::Output {
    let manifest = std::fs::read_to_string(dir.join("manifest.toml")).unwrap();
    let path = dir.join(format!("{name}.toml"));
    match script {
        Some(text) => {
            std::fs::write(dir.join(format!("{name}.py")), text).unwrap();
            let manifest = manifest.replace("npy_columns.py", &format!("{name}.py"));
            std::fs::write(&path, manifest).unwrap();
        }
        None => std::fs::write(&path, manifest).unwrap(),
    }
    let mut command = Command::new(env!("CARGO_BIN_EXE_formatbench"));
    command.args(["workers", "check"]).arg(&path);
    with_sdk(&mut command, dir);
    // The variants import the guide's module from beside them.
    let site = dir.join("site");
    command.env(
        "PYTHONPATH",
        std::env::join_paths([site.as_path(), dir]).unwrap(),
    );
    command.output().unwrap()
}

#[test]
fn workers_check_passes_the_guides_worker_and_names_a_mistimed_and_a_wrong_one() {
    let Some(dir) = outside_worker() else {
        return;
    };
    let good = check(dir.path(), "good", None);
    let said = String::from_utf8_lossy(&good.stdout).into_owned();
    assert_eq!(good.status.code(), Some(0), "{said}{}", stderr(&good));
    assert!(said.contains("every checked operation verified"), "{said}");

    let mistimed = check(dir.path(), "mistimed", Some(MISTIMED));
    let said = String::from_utf8_lossy(&mistimed.stdout).into_owned();
    assert_eq!(
        mistimed.status.code(),
        Some(1),
        "{said}{}",
        stderr(&mistimed)
    );
    for op in ["write", "read", "project"] {
        let line = said
            .lines()
            .find(|l| l.starts_with(&format!("ext-npy-columns {op}: ")))
            .unwrap_or_else(|| panic!("{op}: {said}"));
        assert!(line.ends_with("the timer includes start-up"), "{line}");
    }

    let wrong = check(dir.path(), "wrong", Some(WRONG));
    let said = String::from_utf8_lossy(&wrong.stdout).into_owned();
    assert_eq!(wrong.status.code(), Some(1), "{said}{}", stderr(&wrong));
    for op in ["read", "project"] {
        let line = said
            .lines()
            .find(|l| l.starts_with(&format!("ext-npy-columns {op}: wrong answer")))
            .unwrap_or_else(|| panic!("{op}: {said}"));
        assert!(line.contains("verification failed"), "{line}");
    }
}

#[test]
fn a_registered_manifest_serves_every_later_command_until_removed() {
    let config = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Without its version command, which needs the peers' numpy.
    let manifest: String = std::fs::read_to_string(root().join(EXAMPLE).join("manifest.toml"))
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with("version"))
        .map(|line| format!("{line}\n"))
        .collect();
    let path = dir.path().join("manifest.toml");
    std::fs::write(&path, manifest).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_formatbench"))
            .args(args)
            .env("FORMATBENCH_CONFIG_DIR", config.path())
            .output()
            .unwrap()
    };
    let path_text = path.to_str().unwrap();
    let added = run(&["workers", "add", path_text]);
    assert_eq!(added.status.code(), Some(0), "{}", stderr(&added));
    let said = String::from_utf8_lossy(&added.stdout).into_owned();
    assert!(said.contains("a command of your choosing"), "{said}");
    let listed = String::from_utf8_lossy(&run(&["backends"]).stdout).into_owned();
    assert!(listed.contains("ext-npy-columns"), "{listed}");
    let listed = String::from_utf8_lossy(&run(&["workers", "list"]).stdout).into_owned();
    assert!(listed.contains("ext-npy-columns"), "{listed}");
    // A registered manifest that went away is said and left out: other commands go on.
    std::fs::rename(&path, dir.path().join("moved.toml")).unwrap();
    let datasets = run(&["datasets"]);
    assert_eq!(datasets.status.code(), Some(0), "{}", stderr(&datasets));
    assert!(stderr(&datasets).contains("a registered worker is left out"));
    std::fs::rename(dir.path().join("moved.toml"), &path).unwrap();
    let removed = run(&["workers", "remove", path_text]);
    assert_eq!(removed.status.code(), Some(0), "{}", stderr(&removed));
    let listed = String::from_utf8_lossy(&run(&["backends"]).stdout).into_owned();
    assert!(!listed.contains("ext-npy-columns"), "{listed}");
    let again = run(&["workers", "remove", path_text]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
}

#[test]
fn the_guide_holds_the_outside_worker_and_its_manifest_word_for_word() {
    let guide = std::fs::read_to_string(root().join("docs/adding-a-backend.md")).unwrap();
    let files = [
        (EXAMPLE, "npy_columns.py", "python"),
        (EXAMPLE, "manifest.toml", "toml"),
        (RUST_EXAMPLE, "Cargo.toml", "toml"),
        (RUST_EXAMPLE, "src/main.rs", "rust"),
        (RUST_EXAMPLE, "manifest.toml", "toml"),
    ];
    for (dir, file, fence) in files {
        let text = std::fs::read_to_string(root().join(dir).join(file)).unwrap();
        assert!(
            guide.contains(&format!("```{fence}\n{text}```")),
            "docs/adding-a-backend.md must hold {dir}/{file} verbatim"
        );
    }
}

/// The guide's Rust worker, built as an outside crate against the kit of this checkout, from a
/// directory outside the repository; its manifest names what `cargo build --release` leaves
/// under `target/`.
#[test]
#[ignore = "long end-to-end run through every peer or heavy worker: `cargo test -- --ignored` (CI runs it)"]
fn a_rust_worker_built_outside_the_tree_against_the_kit_runs_every_cell_verified() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = dir.path().join("ipc-columns-worker");
    copy_tree(&root().join(RUST_EXAMPLE), &crate_dir);
    // The guide's path assumes a checkout beside the crate; this one is elsewhere.
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let kit = root().join("workers/rust/kit").canonicalize().unwrap();
    let manifest = manifest.replace("../formatbench/workers/rust/kit", kit.to_str().unwrap());
    std::fs::write(crate_dir.join("Cargo.toml"), manifest).unwrap();
    // This workspace's lock file: the same versions as the kit is tested with, offline.
    std::fs::copy(root().join("Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let build = Command::new(cargo)
        .args(["build", "--release", "--offline", "--quiet"])
        .current_dir(&crate_dir)
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "cargo build of the outside crate: {}",
        String::from_utf8_lossy(&build.stderr)
    );
    let out = tempfile::tempdir().unwrap();
    let result = formatbench(&[
        "run",
        "--worker",
        crate_dir.join("manifest.toml").to_str().unwrap(),
        "--dataset",
        "mixed",
        "--rows",
        "1000",
        "--per-type",
        "1",
        "--backends",
        "ext-ipc-columns,ipc,parquet",
        "--profiles",
        "default",
        "--ops",
        "write,read,project",
        "--samples",
        "1",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let all = records(&run_dir(out.path()));
    for op in ["write", "read", "project"] {
        let verified = all.iter().any(|r| {
            matches!(r, Record::Verification(v) if v.status == SampleStatus::Ok
                && v.cell.backend == "ext-ipc-columns" && v.cell.op == op)
        });
        assert!(verified, "ext-ipc-columns {op} not verified");
    }
    // It answers --describe as the kit makes every worker do: `workers check` passes it.
    let checked = formatbench(&[
        "workers",
        "check",
        crate_dir.join("manifest.toml").to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&checked.stdout).into_owned();
    assert_eq!(checked.status.code(), Some(0), "{said}{}", stderr(&checked));
}

#[test]
fn runs_of_a_changed_manifest_are_never_pooled() {
    let Some(dir) = outside_worker() else {
        return;
    };
    let manifest = dir.path().join("manifest.toml");
    let out = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for change in ["", "# the worker changed\n"] {
        let text = std::fs::read_to_string(&manifest).unwrap();
        std::fs::write(&manifest, format!("{text}{change}")).unwrap();
        let run_out = out.path().join(format!("run-{}", runs.len()));
        let mut run = Command::new(env!("CARGO_BIN_EXE_formatbench"));
        run.args(["run", "--worker"])
            .arg(&manifest)
            .args(["--dataset", "mixed", "--rows", "500", "--per-type", "1"])
            .args([
                "--backends",
                "ext-npy-columns",
                "--ops",
                "read",
                "--samples",
                "1",
            ])
            .arg("--out")
            .arg(&run_out);
        with_sdk(&mut run, dir.path());
        let result = run.output().unwrap();
        assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
        runs.push(run_dir(&run_out));
    }
    let pooled = formatbench(&[
        "report",
        runs[0].to_str().unwrap(),
        runs[1].to_str().unwrap(),
        "--allow-dirty",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(pooled.status.code(), Some(2), "{}", stderr(&pooled));
    assert!(
        stderr(&pooled).contains("cannot pool: backend ext-npy-columns was"),
        "{}",
        stderr(&pooled)
    );
}
