//! Workers outside this repository, registered by a manifest (`--worker PATH/manifest.toml`,
//! docs/protocol.md §9): a TOML file naming the command that starts the worker and the backends
//! it runs. Their backends are listed, planned, verified and reported like every other; their
//! manifest's hash goes into the backend's version, so a changed worker is never taken for the
//! old one (`report` refuses to pool runs whose workers differ, `compare` lists the change).
//!
//! A manifest runs a command the user chose: formatbench fetches nothing, and runs it through
//! the same launcher as every worker (its own process group, limits, death signal).

use super::{BackendInfo, TableTraits, WorkerKind};
use crate::Error;
use formatbench_protocol::Op;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub mod config;

/// The prefix every outside backend's name carries, so no name can shadow a built-in one.
pub const PREFIX: &str = "ext-";

/// A manifest's `{dir}`: the directory the manifest is in, for the worker's own files.
const DIR_PLACEHOLDER: &str = "{dir}";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// The program and its arguments; `--describe` or `--job PATH` is appended.
    command: Vec<String>,
    /// A command whose first line of output is the worker's version (optional).
    #[serde(default)]
    version: Option<Vec<String>>,
    backends: Vec<ManifestBackend>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestBackend {
    name: String,
    about: String,
    #[serde(default = "default_profiles")]
    profiles: Vec<String>,
    /// Operations on the wide layout.
    ops: Vec<Op>,
    /// Other layouts (`array`) with their operations.
    #[serde(default)]
    layouts: std::collections::BTreeMap<String, Vec<Op>>,
    #[serde(default = "default_targets")]
    targets: Vec<String>,
    #[serde(default)]
    lossy: bool,
    #[serde(default)]
    other_widths: bool,
    /// Its reads keep no row order: results are compared as sets of rows.
    #[serde(default)]
    unordered: bool,
    /// It reads its artifacts from formatbench's S3 server when the run asks (`--storage s3`).
    #[serde(default)]
    object_storage: bool,
}

fn default_profiles() -> Vec<String> {
    vec!["default".into()]
}

fn default_targets() -> Vec<String> {
    vec!["arrow".into()]
}

/// One registered manifest.
#[derive(Debug, Clone)]
pub struct ExternalWorker {
    pub manifest: PathBuf,
    pub program: PathBuf,
    pub args: Vec<String>,
    /// `xxh3:` of the manifest's bytes.
    pub hash: String,
    pub backends: Vec<BackendInfo>,
}

static REGISTERED: OnceLock<Vec<ExternalWorker>> = OnceLock::new();

/// Registers the manifests for this process (once, before anything is planned): `given` on
/// the command line (`--worker`; the first bad one is the command's one error line), then the
/// user's registered ones (`workers add`; a bad one is said and left out, so a manifest moved
/// away does not stop every command). No built-in or peer backend carries the `ext-` prefix,
/// so only the manifests' own names can collide.
pub fn register(given: &[PathBuf]) -> Result<(), Error> {
    let mut workers: Vec<ExternalWorker> = Vec::new();
    let configured = config::manifests().unwrap_or_else(|e| {
        crate::progress::say(&format!("registered workers left out: {e}"));
        Vec::new()
    });
    let mut seen: Vec<PathBuf> = Vec::new();
    let chosen = given.iter().map(|p| (p, true));
    for (path, strict) in chosen.chain(configured.iter().map(|p| (p, false))) {
        let absolute = path.canonicalize().unwrap_or_else(|_| path.clone());
        if seen.contains(&absolute) {
            continue;
        }
        seen.push(absolute);
        match admit(path, workers.len(), &workers) {
            Ok(worker) => workers.push(worker),
            Err(e) if strict => return Err(e),
            Err(e) => crate::progress::say(&format!(
                "a registered worker is left out (`formatbench workers remove {}` forgets it): {e}",
                path.display()
            )),
        }
    }
    REGISTERED
        .set(workers)
        .map_err(|_| Error::Input("worker manifests are registered once per run".into()))
}

/// Loads the manifest at `path` as worker `index`, refusing a backend name already taken.
fn admit(path: &Path, index: usize, workers: &[ExternalWorker]) -> Result<ExternalWorker, Error> {
    let index = u16::try_from(index)
        .map_err(|_| Error::Input("more than 65,535 worker manifests".into()))?;
    let worker = load(path, WorkerKind::External(index))?;
    for backend in &worker.backends {
        let taken = workers
            .iter()
            .flat_map(|w| &w.backends)
            .any(|b| b.name == backend.name);
        if taken {
            return Err(Error::Input(format!(
                "{}: backend '{}' is already defined by another manifest",
                path.display(),
                backend.name
            )));
        }
    }
    crate::progress::say(&format!(
        "worker manifest {} runs `{}` for {} (a command of your choosing, run as every worker \
         is)",
        path.display(),
        command_line(&worker),
        names(&worker)
    ));
    Ok(worker)
}

pub fn command_line(worker: &ExternalWorker) -> String {
    let mut words = vec![worker.program.to_string_lossy().into_owned()];
    words.extend(worker.args.iter().cloned());
    words.join(" ")
}

fn names(worker: &ExternalWorker) -> String {
    let names: Vec<&str> = worker.backends.iter().map(|b| b.name.as_str()).collect();
    names.join(", ")
}

/// The registered workers (none when no manifest was given).
pub fn registered() -> &'static [ExternalWorker] {
    REGISTERED.get().map_or(&[], Vec::as_slice)
}

/// Every registered worker's backends.
pub fn external_backends() -> Vec<BackendInfo> {
    registered()
        .iter()
        .flat_map(|w| w.backends.iter().cloned())
        .collect()
}

/// The program and arguments of registered worker `index`.
pub fn command(index: u16) -> Option<(PathBuf, Vec<String>)> {
    registered()
        .get(usize::from(index))
        .map(|w| (w.program.clone(), w.args.clone()))
}

/// Reads and checks one manifest; `worker` is the kind its backends run on.
pub fn load(path: &Path, worker: WorkerKind) -> Result<ExternalWorker, Error> {
    let bad = |why: String| Error::Input(format!("worker manifest {}: {why}", path.display()));
    let bytes = std::fs::read(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| bad("it is not UTF-8 text".into()))?;
    let manifest: Manifest =
        toml::from_str(text).map_err(|e| bad(e.message().replace('\n', " ")))?;
    let dir = path
        .canonicalize()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    let expand = |word: &str| word.replace(DIR_PLACEHOLDER, &dir.to_string_lossy());
    let (program, args) = match manifest.command.split_first() {
        Some((program, args)) => (
            PathBuf::from(expand(program)),
            args.iter().map(|a| expand(a)).collect::<Vec<_>>(),
        ),
        None => return Err(bad("`command` is empty".into())),
    };
    if manifest.backends.is_empty() {
        return Err(bad("it names no [[backends]]".into()));
    }
    let hash = format!("xxh3:{:016x}", xxhash_rust::xxh3::xxh3_64(&bytes));
    for (i, b) in manifest.backends.iter().enumerate() {
        if !b.name.starts_with(PREFIX) || b.name.len() == PREFIX.len() {
            return Err(bad(format!(
                "backend '{}' must be named '{PREFIX}…' (outside backends carry that prefix)",
                b.name
            )));
        }
        if manifest.backends[..i]
            .iter()
            .any(|known| known.name == b.name)
        {
            return Err(bad(format!("backend '{}' is named twice", b.name)));
        }
        if b.ops.is_empty() {
            return Err(bad(format!("backend '{}' names no ops", b.name)));
        }
    }
    // Run once the manifest is known to be well formed.
    let version = match &manifest.version {
        Some(command) => {
            let words: Vec<String> = command.iter().map(|w| expand(w)).collect();
            Some(version_of(&words).map_err(bad)?)
        }
        None => None,
    };
    let mut backends = Vec::new();
    for b in manifest.backends {
        let marked = format!(
            "{} (manifest {hash})",
            version.as_deref().unwrap_or("unversioned")
        );
        backends.push(BackendInfo {
            layouts: super::describe::layouts_of(&b.ops, b.layouts),
            name: b.name,
            worker,
            profiles: b.profiles,
            ops: b.ops,
            targets: b.targets,
            lossy: b.lossy,
            other_widths: b.other_widths,
            about: b.about,
            version: Some(marked),
            hidden: false,
            available: available(&program),
            object_storage: if b.object_storage {
                Ok(())
            } else {
                Err("its manifest does not declare object storage".into())
            },
            table: TableTraits {
                unordered: b.unordered,
                ..TableTraits::default()
            },
            given: None,
            file_sets: false,
            executors: false,
        });
    }
    Ok(ExternalWorker {
        manifest: path.to_path_buf(),
        program,
        args,
        hash,
        backends,
    })
}

/// `Err(reason)` when the worker's program cannot be found.
fn available(program: &Path) -> Result<(), String> {
    let found = if program.components().count() > 1 {
        program.is_file()
    } else {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
    };
    if found {
        Ok(())
    } else {
        Err(format!("its program {} is not found", program.display()))
    }
}

/// The first line a version command prints.
fn version_of(words: &[String]) -> Result<String, String> {
    let (program, args) = words
        .split_first()
        .ok_or_else(|| "`version` is empty".to_string())?;
    let output = std::process::Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run its version command `{program}`: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "its version command `{program}` failed: {}",
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .last()
                .unwrap_or("no message")
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.lines().next().map(str::trim) {
        Some(line) if !line.is_empty() => Ok(line.to_string()),
        _ => Err(format!("its version command `{program}` printed nothing")),
    }
}

#[cfg(test)]
mod tests;
