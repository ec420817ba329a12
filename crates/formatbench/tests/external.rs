#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Workers outside the repository (`--worker MANIFEST`): the guide's toy worker, copied with
//! its manifest into a directory outside the tree, on the Python SDK pip-installed from
//! workers/python, runs beside `ipc` and `parquet` with every cell verified; bad manifests are
//! refused in one line; a registered one serves later commands; a changed worker's samples are
//! never taken for the old one's. Needs the peers' Python (`formatbench peers install`:
//! pyarrow, numpy, and wheel to build the SDK offline).

mod common;

use common::outside::{outside_worker, root, with_sdk, EXAMPLE, RUST_EXAMPLE};
use common::{formatbench, records, run_dir, stderr, verified};
use formatbench::results::Record;
use std::path::{Path, PathBuf};
use std::process::Command;

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
            "default,mmap",
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
            let verified = verified(&all, |c| c.backend == backend && c.op == op);
            assert!(verified, "{backend} {op} not verified");
        }
    }
    // The manifest's `mmap` profile: its settings reached the worker (its reads say how they
    // loaded), and the artifact records them.
    let mmap_read = all.iter().any(|r| {
        matches!(r, Record::Sample(s) if s.cell.backend == "ext-npy-columns"
            && s.cell.profile == "mmap" && s.cell.op == "read"
            && s.method.as_deref() == Some("numpy.load per column, mmap_mode r"))
    });
    assert!(mmap_read, "no read with the mmap profile's setting");
    assert!(verified(&all, |c| c.backend == "ext-npy-columns"
        && c.profile == "mmap"
        && c.op == "read"));
    let recorded = all.iter().find_map(|r| match r {
        Record::Artifact(a) if a.backend == "ext-npy-columns" && a.profile == "mmap" => {
            a.settings.get("profile_settings").cloned()
        }
        _ => None,
    });
    assert_eq!(recorded.as_deref(), Some("mmap_mode=r"));
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
    // So is each backend's format: the manifest's, and the built-in backends' own.
    let formats = all
        .iter()
        .find_map(|r| match r {
            Record::Environment(e) => Some(e.formats.clone()),
            _ => None,
        })
        .unwrap();
    for (backend, format) in [
        ("ext-npy-columns", "npy-columns"),
        ("ipc", "arrow-ipc"),
        ("parquet", "parquet"),
    ] {
        assert_eq!(formats.get(backend).map(String::as_str), Some(format));
    }
}

/// The guide's manifest without its version command, which needs the peers' numpy.
fn manifest_without_version() -> String {
    std::fs::read_to_string(root().join(EXAMPLE).join("manifest.toml"))
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with("version"))
        .map(|line| format!("{line}\n"))
        .collect()
}

#[test]
fn a_manifest_that_shadows_a_name_or_breaks_the_format_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = manifest_without_version();
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

#[test]
fn a_registered_manifest_serves_every_later_command_until_removed() {
    let config = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let manifest = manifest_without_version();
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
    // Its manifest's hash and profile settings on a line of their own.
    assert!(
        listed.contains("manifest xxh3:") && listed.contains("; profile mmap: mmap_mode=r"),
        "{listed}"
    );
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

#[test]
fn the_sdk_is_written_out_as_the_repository_holds_it_into_an_empty_directory_only() {
    let dir = tempfile::tempdir().unwrap();
    let sdk = dir.path().join("sdk");
    let written = formatbench(&["workers", "sdk", &sdk.to_string_lossy()]);
    assert_eq!(written.status.code(), Some(0), "{}", stderr(&written));
    for file in [
        "pyproject.toml",
        "formatbench_worker/__init__.py",
        "formatbench_worker/backends/base.py",
    ] {
        let ours = std::fs::read_to_string(root().join("workers/python").join(file)).unwrap();
        assert_eq!(
            std::fs::read_to_string(sdk.join(file)).unwrap(),
            ours,
            "{file}"
        );
    }
    // The peers' entry script is not part of the package.
    assert!(!sdk.join("worker.py").exists());
    let again = formatbench(&["workers", "sdk", &sdk.to_string_lossy()]);
    assert_eq!(again.status.code(), Some(2));
    let said = stderr(&again);
    assert!(said.contains("is not empty"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
}

#[test]
fn samples_of_a_changed_worker_are_never_pooled_or_reused() {
    let Some(dir) = outside_worker() else {
        return;
    };
    let manifest = dir.path().join("manifest.toml");
    let out = tempfile::tempdir().unwrap();
    // One run, then the same worker changed (its script), run twice with --reuse.
    let mut runs: Vec<PathBuf> = Vec::new();
    for change in ["", "# the worker changed\n", ""] {
        let script = dir.path().join("npy_columns.py");
        let text = std::fs::read_to_string(&script).unwrap();
        std::fs::write(&script, format!("{text}{change}")).unwrap();
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
            .arg("--reuse")
            .arg("--out")
            .arg(out.path());
        with_sdk(&mut run, dir.path());
        let result = run.output().unwrap();
        assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(out.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir() && !runs.contains(p))
            .collect();
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        runs.push(dirs.remove(0));
    }
    let reused = |run: &Path| {
        records(run)
            .iter()
            .filter(|r| matches!(r, Record::Sample(s) if s.reused_from.is_some()))
            .count()
    };
    assert_eq!(
        reused(&runs[1]),
        0,
        "the changed worker took the old one's samples"
    );
    assert!(
        reused(&runs[2]) > 0,
        "the unchanged worker took none of its own"
    );
    let pooled = formatbench(&[
        "report",
        runs[0].to_str().unwrap(),
        runs[1].to_str().unwrap(),
        "--allow-dirty",
        "--out",
        dir.path().join("pooled").to_str().unwrap(),
    ]);
    assert_eq!(pooled.status.code(), Some(2), "{}", stderr(&pooled));
    assert!(
        stderr(&pooled).contains("cannot pool: backend ext-npy-columns was"),
        "{}",
        stderr(&pooled)
    );
}

#[test]
fn a_suite_file_names_an_outside_backend_beside_built_in_ones() {
    let Some(dir) = outside_worker() else {
        return;
    };
    let suite = dir.path().join("suite.toml");
    std::fs::write(
        &suite,
        "name = \"outside\"\ndescription = \"an outside worker beside ipc\"\n\
         backends = [\"ext-npy-columns\", \"ipc\"]\nprofiles = [\"default\"]\n\
         ops = [\"write\", \"read\"]\nrounds = 1\nsamples = 1\n\n\
         [[datasets]]\nkind = \"mixed\"\nrows = 500\nper_type = 1\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut run = Command::new(env!("CARGO_BIN_EXE_formatbench"));
    run.arg("suite")
        .arg(&suite)
        .arg("--worker")
        .arg(dir.path().join("manifest.toml"))
        .arg("--out")
        .arg(out.path());
    with_sdk(&mut run, dir.path());
    let result = run.output().unwrap();
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let all = records(&run_dir(out.path()));
    for op in ["write", "read"] {
        let verified = verified(&all, |c| c.backend == "ext-npy-columns" && c.op == op);
        assert!(verified, "ext-npy-columns {op} not verified");
    }
}
