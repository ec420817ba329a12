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
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

mod command;
pub mod config;

pub use command::output_within;
use command::version_of;

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
    /// Each profile's settings (`[backends.profile_settings.NAME]`, strings), given to the
    /// worker with every job of that profile and recorded with its artifact.
    #[serde(default)]
    profile_settings: BTreeMap<String, BTreeMap<String, String>>,
    /// Operations on the wide layout.
    ops: Vec<Op>,
    /// Other layouts (`array`) with their operations.
    #[serde(default)]
    layouts: BTreeMap<String, Vec<Op>>,
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
    /// Its artifact naming, for a reader of files any writer writes: the format and the name
    /// it reads in its artifact directory (a user's file of that format gets an `as-given`
    /// competitor read by it).
    #[serde(default)]
    given: Option<formatbench_protocol::GivenFile>,
    /// The format of the files it writes and reads (`parquet`, `lance`, …): a report compares
    /// it with the fastest of the same format. By default the format it reads as given.
    #[serde(default)]
    format: Option<String>,
    /// It reads the row-group sweep's shared Parquet files (`--parquet-files`).
    #[serde(default)]
    file_sets: bool,
    /// It writes nothing and reads the artifacts of this backend (a Delta reader reads the
    /// tables `delta-kernel` writes).
    #[serde(default)]
    artifact_from: Option<String>,
    /// Profiles whose tables have rows deleted after writing (with `artifact_from`).
    #[serde(default)]
    deletion_profiles: Vec<String>,
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
    /// The manifest's profile settings, by backend, then profile.
    pub profile_settings: BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>,
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

/// The outside backends whose samples recorded with `versions` (a run's environment) are not
/// this run's to take, each with why: its version there (its manifest's hash among it) is not
/// the one registered now, or it is not registered now.
pub fn changed_since(
    versions: &std::collections::BTreeMap<String, String>,
) -> Vec<(String, String)> {
    recorded(versions)
        .filter_map(|(name, then)| {
            let now = registered()
                .iter()
                .flat_map(|w| &w.backends)
                .find(|b| b.name == name)
                .and_then(|b| b.version.as_deref());
            let why = match now {
                Some(now) if now == then => return None,
                Some(now) => format!("{name} was {then}, and is {now} now"),
                None => format!("{name} ({then}) is not registered now (`--worker`)"),
            };
            Some((name.to_string(), why))
        })
        .collect()
}

/// The outside backends among a run's recorded versions (`backend NAME`, the runner's key),
/// each with its version.
pub fn recorded(
    versions: &std::collections::BTreeMap<String, String>,
) -> impl Iterator<Item = (&str, &str)> {
    versions.iter().filter_map(|(key, version)| {
        let name = key.strip_prefix("backend ")?;
        name.starts_with(PREFIX).then_some((name, version.as_str()))
    })
}

/// The settings `backend`'s manifest gives `profile` (none for a built-in backend).
pub fn profile_settings(backend: &str, profile: &str) -> BTreeMap<String, String> {
    registered()
        .iter()
        .find_map(|w| w.profile_settings.get(backend)?.get(profile).cloned())
        .unwrap_or_default()
}

/// An outside backend's version split into the worker's own and its manifest's hash:
/// `("numpy 2.3.1", Some("xxh3:…"))`; `(version, None)` for any other version.
pub fn split_version(version: &str) -> (&str, Option<&str>) {
    match version
        .strip_suffix(')')
        .and_then(|v| v.rsplit_once(" (manifest "))
    {
        Some((own, hash)) => (own, Some(hash)),
        None => (version, None),
    }
}

/// Profile settings as the artifact records them: `key=value; …`.
pub fn settings_text(settings: &BTreeMap<String, String>) -> String {
    let pairs: Vec<String> = settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
    pairs.join("; ")
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
    let hash = worker_hash(&bytes, &program, &args);
    for (i, b) in manifest.backends.iter().enumerate() {
        if !b.name.starts_with(PREFIX) || !plain_name(&b.name[PREFIX.len()..]) {
            return Err(bad(format!(
                "backend '{}' must be named '{PREFIX}…' in lowercase letters, digits, '.', '_' \
                 and '-' (outside backends carry that prefix; names go into lists and paths)",
                b.name
            )));
        }
        if let Some(profile) = b.profiles.iter().find(|p| !plain_name(p)) {
            return Err(bad(format!(
                "backend '{}': profile '{profile}' is not a name of lowercase letters, digits, \
                 '.', '_' and '-'",
                b.name
            )));
        }
        if let Some(unknown) = b.profile_settings.keys().find(|p| !b.profiles.contains(p)) {
            return Err(bad(format!(
                "backend '{}' gives settings to profile '{unknown}', which is not among its \
                 profiles ({})",
                b.name,
                b.profiles.join(", ")
            )));
        }
        if manifest.backends[..i]
            .iter()
            .any(|known| known.name == b.name)
        {
            return Err(bad(format!("backend '{}' is named twice", b.name)));
        }
        if b.ops.is_empty() && b.layouts.values().all(Vec::is_empty) {
            return Err(bad(format!(
                "backend '{}' names no ops (on the wide layout, `ops`, or another, `layouts`)",
                b.name
            )));
        }
        if let Some(format) = b
            .format
            .as_deref()
            .filter(|f| !formatbench_protocol::is_format_name(f))
        {
            return Err(bad(format!(
                "backend '{}' names format '{format}': a format is a lower-case name of letters, \
                 digits and '-' (`parquet`, `arrow-ipc`)",
                b.name
            )));
        }
        if let Some(given) = &b.given {
            let known = formatbench_protocol::GIVEN_FORMATS;
            if !known.contains(&given.format.as_str()) {
                return Err(bad(format!(
                    "backend '{}' reads files as given of format '{}', which is none of {}",
                    b.name,
                    given.format,
                    known.join(", ")
                )));
            }
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
    let mut profile_settings = BTreeMap::new();
    for b in manifest.backends {
        if !b.profile_settings.is_empty() {
            profile_settings.insert(b.name.clone(), b.profile_settings);
        }
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
                artifact_from: b.artifact_from,
                deletion_profiles: b.deletion_profiles,
            },
            format: super::declared_format(b.format, b.given.as_ref()),
            given: b.given,
            file_sets: b.file_sets,
            executors: false,
        });
    }
    Ok(ExternalWorker {
        manifest: path.to_path_buf(),
        program,
        args,
        hash,
        backends,
        profile_settings,
    })
}

/// A name that goes into comma-separated lists and directory names as it is.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
}

/// `xxh3:` of what makes the worker: the manifest's bytes, its program's and those of every
/// argument of its command that is a file (a script). What those files load in turn (a
/// module beside the script, a shared library) is not in it: its `version` command says that.
fn worker_hash(manifest: &[u8], program: &Path, args: &[String]) -> String {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(manifest);
    let files = located(program)
        .into_iter()
        .chain(args.iter().map(PathBuf::from).filter(|p| p.is_file()));
    for file in files {
        hasher.update(file.to_string_lossy().as_bytes());
        // A file that cannot be read now hashes as its name: the run that starts it says why.
        if let Ok(bytes) = std::fs::read(&file) {
            hasher.update(&bytes);
        }
    }
    format!("xxh3:{:016x}", hasher.digest())
}

/// Where `program` is: itself when it names a path, else the first match on `PATH`.
fn located(program: &Path) -> Option<PathBuf> {
    if program.components().count() > 1 {
        return program.is_file().then(|| program.to_path_buf());
    }
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// `Err(reason)` when the worker's program cannot be found.
fn available(program: &Path) -> Result<(), String> {
    match located(program) {
        Some(_) => Ok(()),
        None => Err(format!("its program {} is not found", program.display())),
    }
}

#[cfg(test)]
mod tests;
