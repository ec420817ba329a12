//! A worker program outside this binary describes its backends itself (`--describe`, one JSON
//! object, docs/protocol.md): the heavy workers and the peers are listed this way.

use super::{BackendInfo, WorkerKind};
use formatbench_protocol::Op;
use serde::Deserialize;
use std::path::Path;

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
    /// Its format or reader keeps numbers at other widths than the source's.
    #[serde(default)]
    other_widths: bool,
    about: String,
    version: Option<String>,
    unavailable: Option<String>,
    /// Why its cells on object storage are unsupported; absent when it has a route (and from
    /// a worker built before this key, which answers each such job itself).
    #[serde(default)]
    object_storage: Option<String>,
    #[serde(flatten)]
    table: super::TableTraits,
    /// The format whose files from any writer it reads as given; absent or null for none.
    #[serde(default)]
    given: Option<formatbench_protocol::GivenFile>,
    /// It reads the sweep's shared Parquet files.
    #[serde(default)]
    file_sets: bool,
    /// The format of its files; absent for none, and from a worker built before this key.
    #[serde(default)]
    format: Option<String>,
    /// It runs on a cluster of the job's `executors` processes (a cluster peer).
    #[serde(default)]
    executors: bool,
}

/// Every layout a backend stores with its operations, `wide` first (the default layout); a
/// worker that names none stores only `wide`, with its `ops`.
pub(super) fn layouts_of(
    ops: &[Op],
    mut layouts: std::collections::BTreeMap<String, Vec<Op>>,
) -> Vec<(String, Vec<Op>)> {
    if layouts.is_empty() {
        return vec![("wide".into(), ops.to_vec())];
    }
    // `ops` are the wide layout's: a declaration of other layouts beside them keeps them.
    if !ops.is_empty() {
        layouts.entry("wide".into()).or_insert_with(|| ops.to_vec());
    }
    let mut layouts: Vec<(String, Vec<Op>)> = layouts.into_iter().collect();
    layouts.sort_by_key(|(name, _)| name != "wide");
    layouts
}

/// Runs a worker program's `--describe` (a heavy worker, a peer) and lists its backends, or
/// says why it cannot (`hint` says how to get the worker's prerequisites).
pub fn describe_worker(
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
    parse_described(&output.stdout, worker)
}

/// The backends a worker's `--describe` answer lists, or why it lists none.
pub fn parse_described(answer: &[u8], worker: WorkerKind) -> Result<Vec<BackendInfo>, String> {
    let described: Described = serde_json::from_slice(answer).map_err(|e| {
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
            // Self-test peers (`py-selftest-…`) check the verifier, not a format.
            hidden: b.name.contains("-selftest-"),
            name: b.name,
            worker,
            profiles: b.profiles,
            layouts: layouts_of(&b.ops, b.layouts),
            ops: b.ops,
            targets: b.targets,
            lossy: b.lossy,
            // R's exchange carries only 32- and 64-bit integers and doubles.
            other_widths: b.other_widths || worker.exchanges_text(),
            about: b.about,
            version: b.version,
            available: b.unavailable.map_or(Ok(()), Err),
            object_storage: b.object_storage.map_or(Ok(()), Err),
            table: b.table,
            // A worker older than the key still names the format of the files it reads as given.
            format: super::declared_format(b.format, b.given.as_ref()),
            given: b.given,
            file_sets: b.file_sets,
            executors: b.executors,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(extra: &str) -> BackendInfo {
        let answer = format!(
            r#"{{"backends": [{{"name": "py-x", "profiles": ["default"], "ops": ["read"],
                "targets": ["arrow"], "lossy": false, "about": "x", "version": null,
                "unavailable": null{extra}}}]}}"#
        );
        let mut backends = parse_described(answer.as_bytes(), WorkerKind::Python)
            .unwrap_or_else(|e| panic!("{e}"));
        backends.remove(0)
    }

    #[test]
    fn a_backend_names_its_format_or_has_the_one_it_reads_as_given() {
        assert_eq!(
            described(r#", "format": "delta""#).format.as_deref(),
            Some("delta")
        );
        // A worker from before the key: the format of the files it reads as given.
        let given = r#", "given": {"format": "csv", "file": "data.csv"}"#;
        assert_eq!(described(given).format.as_deref(), Some("csv"));
        assert_eq!(described("").format, None);
    }
}
