//! The heavy native workers: backends whose libraries sit on another Arrow major (DuckDB on
//! Arrow 58, …) are separate programs built by `workers/rust/build`, found beside this binary,
//! and described like peers. When one is missing, its backends are listed as unavailable with
//! the command that builds them.

use super::{BackendInfo, WorkerKind};
use formatbench_protocol::Op;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::SystemTime;

/// Each heavy backend: its name, its worker, and the build feature that adds it.
pub const HEAVY_BACKENDS: [(&str, WorkerKind, &str); 7] = [
    ("duckdb", WorkerKind::Arrow58, "duckdb"),
    ("lance", WorkerKind::Arrow58, "lance"),
    (
        "delta-arrow-reader",
        WorkerKind::Arrow58,
        "delta-arrow-reader",
    ),
    ("vortex", WorkerKind::Arrow59, "vortex"),
    ("delta-rs", WorkerKind::Arrow59, "delta-rs"),
    ("zarr", WorkerKind::Arrow60, "zarr"),
    ("delta-kernel", WorkerKind::Arrow60, "delta-kernel"),
];

/// The program of a heavy worker.
pub fn program_name(kind: WorkerKind) -> &'static str {
    match kind {
        WorkerKind::Arrow58 => "formatbench-worker-arrow58",
        WorkerKind::Arrow59 => "formatbench-worker-arrow59",
        WorkerKind::Arrow60 => "formatbench-worker-arrow60",
        _ => "formatbench-worker-unknown",
    }
}

/// Where a heavy worker's program is: `$FORMATBENCH_WORKER_DIR`, beside this binary, or in the
/// release directory beside it (a debug formatbench, as tests run, uses release workers when no
/// debug ones are built: CI builds debug ones, `workers/rust/build --debug`).
pub fn program(kind: WorkerKind) -> Option<PathBuf> {
    let name = program_name(kind);
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("FORMATBENCH_WORKER_DIR") {
        dirs.push(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(PathBuf::from))
    {
        dirs.push(dir.clone());
        // Test programs run from target/<profile>/deps.
        if dir.file_name().is_some_and(|n| n == "deps") {
            dirs.push(dir.join(".."));
            dirs.push(dir.join("..").join("..").join("release"));
        } else {
            dirs.push(dir.join("..").join("release"));
        }
    }
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

fn build_hint(feature: &str) -> String {
    format!("not built; build it with `workers/rust/build {feature}` (see docs/guide/heavy-backends.md)")
}

/// The backends of one heavy worker, described by the program itself, plus those it was built
/// without (unavailable, with the build command).
fn described(kind: WorkerKind) -> Vec<BackendInfo> {
    let expected: Vec<(&str, &str)> = HEAVY_BACKENDS
        .iter()
        .filter(|(_, k, _)| *k == kind)
        .map(|(name, _, feature)| (*name, *feature))
        .collect();
    let mut found = match program(kind) {
        Some(path) => {
            let described =
                super::describe_worker(&path, &[], kind, "(rebuild it with workers/rust/build)")
                    .unwrap_or_else(|reason| unavailable_all(&expected, kind, &reason));
            match changed_since_built(&path, &sources(kind)) {
                // Its numbers would be another code's than this formatbench's.
                Some(changed) => stale(described, &path, &changed),
                None => described,
            }
        }
        None => Vec::new(),
    };
    for (name, feature) in expected {
        if !found.iter().any(|b| b.name == name) {
            found.extend(unavailable_all(
                &[(name, feature)],
                kind,
                &build_hint(feature),
            ));
        }
    }
    found
}

/// The backends of a program built before `changed` last changed, each unavailable with the
/// command that rebuilds the program with the backends it has.
fn stale(described: Vec<BackendInfo>, program: &Path, changed: &Path) -> Vec<BackendInfo> {
    let built: Vec<String> = described.iter().map(|b| b.name.clone()).collect();
    let changed = changed.strip_prefix(checkout()).unwrap_or(changed);
    let debug = program.parent().is_some_and(|d| d.ends_with("debug"));
    let reason = format!(
        "{} was built before {} last changed: rebuild it with `workers/rust/build {}{}`",
        program.display(),
        changed.display(),
        if debug { "--debug " } else { "" },
        built.join(" ")
    );
    described
        .into_iter()
        .map(|b| BackendInfo {
            available: Err(reason.clone()),
            ..b
        })
        .collect()
}

/// The source trees a heavy worker of `kind` is built from, in the checkout this binary was
/// built from: its own crate, the kit, and the crates they take by path (their sources and
/// manifests; a missing one, such as a worker without a build script, is skipped). None
/// where that checkout is not on this machine (an installed binary).
fn sources(kind: WorkerKind) -> Vec<PathBuf> {
    let root = checkout();
    let own = program_name(kind).trim_start_matches("formatbench-worker-");
    if !root.join("workers/rust").join(own).is_dir() {
        return Vec::new();
    }
    [
        format!("workers/rust/{own}/src"),
        format!("workers/rust/{own}/build.rs"),
        format!("workers/rust/{own}/Cargo.toml"),
        format!("workers/rust/{own}/Cargo.lock"),
        "workers/rust/kit/src".into(),
        "workers/rust/kit/Cargo.toml".into(),
        "crates/formatbench-protocol/src".into(),
        "crates/formatbench-protocol/Cargo.toml".into(),
        "crates/formatbench-s3-client/src".into(),
        "crates/formatbench-s3-client/Cargo.toml".into(),
    ]
    .into_iter()
    .map(|relative| root.join(relative))
    .collect()
}

/// The checkout this binary was built from.
fn checkout() -> &'static Path {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(crate_dir)
}

/// A file under `sources` modified after `program` was built, if any: the program was built
/// from other code than the checkout's. `workers/rust/build` touches each program it builds
/// (also when cargo found nothing to recompile), so a rebuild always clears this. A heavy
/// worker left beside a newer formatbench is refused instead of used silently.
fn changed_since_built(program: &Path, sources: &[PathBuf]) -> Option<PathBuf> {
    let built = std::fs::metadata(program).and_then(|m| m.modified()).ok()?;
    sources.iter().find_map(|source| newer_than(source, built))
}

fn newer_than(path: &Path, built: SystemTime) -> Option<PathBuf> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_file() {
        let modified = meta.modified().ok()?;
        return (modified > built).then(|| path.to_path_buf());
    }
    let entries = std::fs::read_dir(path).ok()?;
    entries
        .filter_map(Result::ok)
        .find_map(|entry| newer_than(&entry.path(), built))
}

fn unavailable_all(expected: &[(&str, &str)], kind: WorkerKind, reason: &str) -> Vec<BackendInfo> {
    expected
        .iter()
        .map(|(name, _)| BackendInfo {
            name: name.to_string(),
            worker: kind,
            profiles: vec!["default".into()],
            ops: vec![Op::Write],
            layouts: vec![("wide".into(), vec![Op::Write])],
            targets: vec!["arrow".into()],
            lossy: false,
            other_widths: false,
            about: format!("{} worker backend", kind.name()),
            version: None,
            hidden: false,
            available: Err(reason.to_string()),
            object_storage: Ok(()),
            table: Default::default(),
            given: None,
            format: None,
            file_sets: false,
            executors: false,
        })
        .collect()
}

/// Every heavy backend, asked once per process.
pub fn heavy_backends() -> &'static [BackendInfo] {
    static DESCRIBED: OnceLock<Vec<BackendInfo>> = OnceLock::new();
    DESCRIBED.get_or_init(|| {
        [
            WorkerKind::Arrow58,
            WorkerKind::Arrow59,
            WorkerKind::Arrow60,
        ]
        .into_iter()
        .flat_map(described)
        .collect()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_built_before_a_source_changed_is_named_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join("deep")).unwrap();
        let file = src.join("deep").join("backend.rs");
        std::fs::write(&file, "fn main() {}").unwrap();
        let program = dir.path().join("worker");
        std::fs::write(&program, "").unwrap();
        let at = |path: &Path, time: SystemTime| {
            let f = std::fs::File::options().write(true).open(path).unwrap();
            f.set_modified(time).unwrap();
        };
        let now = SystemTime::now();
        at(&file, now - std::time::Duration::from_secs(60));
        at(&program, now);
        assert_eq!(
            changed_since_built(&program, std::slice::from_ref(&src)),
            None
        );
        at(&file, now + std::time::Duration::from_secs(1));
        assert_eq!(
            changed_since_built(&program, std::slice::from_ref(&src)),
            Some(file)
        );
        // A checkout that is not here: nothing to compare with.
        let gone = [dir.path().join("no-such-dir")];
        assert_eq!(changed_since_built(&program, &gone), None);
    }

    #[test]
    fn each_heavy_worker_is_compared_with_its_own_crate_and_the_shared_ones() {
        let sources = sources(WorkerKind::Arrow60);
        assert!(sources
            .iter()
            .any(|s| s.ends_with("workers/rust/arrow60/src")));
        assert!(sources.iter().any(|s| s.ends_with("workers/rust/kit/src")));
        assert!(!sources
            .iter()
            .any(|s| s.ends_with("workers/rust/arrow58/src")));
        // Every source tree is there (a build script or a manifest may not be).
        let trees = sources.iter().filter(|s| s.ends_with("src"));
        assert!(
            trees.clone().count() >= 4 && trees.clone().all(|s| s.is_dir()),
            "{sources:?}"
        );
    }

    /// The scripts that build and test the heavy workers (workers/rust/build, check-heavy and
    /// .ci/run) read their names from one list; it must name the catalog's.
    #[test]
    fn the_build_scripts_know_every_heavy_backend_the_catalog_does() {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workers/rust/build");
        let out = std::process::Command::new("bash")
            .arg(&script)
            .arg("--list-known")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        let listed: Vec<&str> = out.split_whitespace().collect();
        let catalog: Vec<&str> = super::HEAVY_BACKENDS
            .iter()
            .map(|(name, _, _)| *name)
            .collect();
        assert_eq!(listed, catalog);
    }
}
