#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `formatbench workers check`, and a Rust worker built outside the tree: the guide's workers
//! pass the check; one whose timer takes its start-up in, and one that loses a row, are named.

mod common;

use common::outside::{copy_tree, outside_worker, root, with_sdk, RUST_EXAMPLE};
use common::{formatbench, records, run_dir, stderr, verified};
use std::path::Path;
use std::process::Command;

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

/// An outside worker of the bare feature matrix (the SDK's own `.npy` matrix backend under an
/// outside name), whose `random_rows` answers the first row for every row asked when `WRONG`
/// is true.
const NPY_MATRIX: &str = r#"
from formatbench_worker import serve
from formatbench_worker.backends.arrays import Npy

WRONG = False


class NpyMatrix(Npy):
    name = "ext-npy-matrix"

    def matrix(self, directory, plan, ctx):
        result, method = super().matrix(directory, plan, ctx)
        if WRONG and plan.op == "random_rows":
            result = result[[0] * len(result)]
        return result, method


serve([NpyMatrix()])
"#;

const NPY_MATRIX_MANIFEST: &str = r#"
command = ["python3", "{dir}/npy_matrix.py"]

[[backends]]
name = "ext-npy-matrix"
about = "the bare feature matrix as .npy"
ops = []
layouts = { array = ["write", "matrix", "random_rows", "feature_project", "vector_norm"] }
"#;

#[test]
fn workers_check_runs_the_matrix_operations_of_an_array_layout_on_a_feature_matrix() {
    let Some(dir) = outside_worker() else {
        return;
    };
    let manifest = dir.path().join("npy_matrix.toml");
    std::fs::write(&manifest, NPY_MATRIX_MANIFEST).unwrap();
    let check = |script: &str| {
        std::fs::write(dir.path().join("npy_matrix.py"), script).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_formatbench"));
        command.args(["workers", "check"]).arg(&manifest);
        with_sdk(&mut command, dir.path());
        command.output().unwrap()
    };
    let good = check(NPY_MATRIX);
    let said = String::from_utf8_lossy(&good.stdout).into_owned();
    assert_eq!(good.status.code(), Some(0), "{said}{}", stderr(&good));
    assert!(said.contains("every checked operation verified"), "{said}");
    assert!(!said.contains("not checked"), "{said}");

    let wrong = check(&NPY_MATRIX.replace("WRONG = False", "WRONG = True"));
    let said = String::from_utf8_lossy(&wrong.stdout).into_owned();
    assert_eq!(wrong.status.code(), Some(1), "{said}{}", stderr(&wrong));
    let line = said
        .lines()
        .find(|l| l.starts_with("ext-npy-matrix random_rows (array): wrong answer"))
        .unwrap_or_else(|| panic!("{said}"));
    assert!(line.contains("verification failed"), "{line}");
    assert_eq!(
        said.lines().filter(|l| l.contains("wrong answer")).count(),
        1,
        "{said}"
    );
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
        let verified = verified(&all, |c| c.backend == "ext-ipc-columns" && c.op == op);
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
