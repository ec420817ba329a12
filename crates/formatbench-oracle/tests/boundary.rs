#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The oracle's boundary, checked on the dependency graph rather than on the text of its files:
//! it cannot call the readers it checks because no path of dependencies leads to them.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `cargo metadata` of the workspace, resolved for this host: every package and the graph of
/// what depends on what.
fn metadata() -> serde_json::Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let version = Command::new(&cargo).arg("-vV").output().unwrap();
    let version = String::from_utf8(version.stdout).unwrap();
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .unwrap_or_else(|| panic!("no host in `cargo -vV`: {version}"))
        .trim()
        .to_string();
    let run = |offline: bool| {
        let mut command = Command::new(&cargo);
        command
            .args([
                "metadata",
                "--format-version",
                "1",
                "--filter-platform",
                &host,
            ])
            .current_dir(repo());
        if offline {
            command.arg("--offline");
        }
        command.output().unwrap()
    };
    // Offline first: once the tests are built, every package this host needs is here (the
    // filter leaves out other platforms' crates, which a full resolve would download).
    let mut out = run(true);
    if !out.status.success() {
        out = run(false);
    }
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The resolved graph: package id → (dependency id, its kinds: `normal`, `build`, `dev`).
fn dependency_graph(metadata: &serde_json::Value) -> BTreeMap<String, Vec<(String, Vec<String>)>> {
    let mut graph = BTreeMap::new();
    for node in metadata["resolve"]["nodes"].as_array().unwrap() {
        let deps = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|dep| {
                let kinds = dep["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|k| k["kind"].as_str().unwrap_or("normal").to_string())
                    .collect();
                (dep["pkg"].as_str().unwrap().to_string(), kinds)
            })
            .collect();
        graph.insert(node["id"].as_str().unwrap().to_string(), deps);
    }
    graph
}

/// The oracle (this crate) decides whether a reader's result is right, so it
/// must not be able to call any reader: a bug there would pass in both places. Structurally:
/// from the oracle, following its dependencies of every kind (its tests are the oracle's too)
/// and then their normal and build dependencies, no package of the project is reachable but
/// formatbench-protocol: none of the workers, their backends and row selection, the worker kit,
/// the table stores, or formatbench itself.
#[test]
fn the_oracle_cannot_reach_the_readers_it_checks() {
    let metadata = metadata();
    let root = PathBuf::from(metadata["workspace_root"].as_str().unwrap());
    let mut name_of: BTreeMap<String, String> = BTreeMap::new();
    // The project's own packages: those from a path here, not from a registry.
    let mut ours: BTreeSet<String> = BTreeSet::new();
    // The readers: every worker crate, everything under workers/ (the kit), and formatbench.
    let mut readers: BTreeSet<String> = BTreeSet::new();
    for package in metadata["packages"].as_array().unwrap() {
        let id = package["id"].as_str().unwrap().to_string();
        let name = package["name"].as_str().unwrap().to_string();
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap());
        if package["source"].is_null() && manifest.starts_with(&root) {
            ours.insert(id.clone());
            if name.starts_with("formatbench-worker")
                || manifest.starts_with(root.join("workers"))
                || name == "formatbench"
            {
                readers.insert(id.clone());
            }
        }
        name_of.insert(id, name);
    }
    let id = |name: &str| {
        name_of
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(id, _)| id.clone())
            .unwrap_or_else(|| panic!("no package {name} in the workspace's metadata"))
    };
    // Not vacuous: the readers are in the graph the walk sees.
    for reader in [
        "formatbench",
        "formatbench-worker-arrow",
        "formatbench-worker-selftest",
        "formatbench-worker-kit",
    ] {
        assert!(readers.contains(&id(reader)), "{reader} is not a reader");
    }
    let graph = dependency_graph(&metadata);
    let oracle = id("formatbench-oracle");
    // Breadth first, with the way each package was reached, to name a path if one leaks.
    let mut reached_from: BTreeMap<String, Option<String>> =
        BTreeMap::from([(oracle.clone(), None)]);
    let mut queue = VecDeque::from([oracle.clone()]);
    while let Some(package) = queue.pop_front() {
        for (dep, kinds) in &graph[&package] {
            let followed = package == oracle || kinds.iter().any(|k| k != "dev");
            if followed && !reached_from.contains_key(dep) {
                reached_from.insert(dep.clone(), Some(package.clone()));
                queue.push_back(dep.clone());
            }
        }
    }
    let path = |to: &String| {
        let mut names = vec![name_of[to].clone()];
        let mut at = to;
        while let Some(Some(from)) = reached_from.get(at) {
            names.push(name_of[from].clone());
            at = from;
        }
        names.reverse();
        names.join(" → ")
    };
    let leaks: Vec<String> = reached_from
        .keys()
        .filter(|p| readers.contains(*p))
        .map(path)
        .collect();
    assert!(
        leaks.is_empty(),
        "the oracle can reach readers it checks:\n{}",
        leaks.join("\n")
    );
    let of_ours: BTreeSet<&str> = reached_from
        .keys()
        .filter(|p| ours.contains(*p) && **p != oracle)
        .map(|p| name_of[p].as_str())
        .collect();
    assert_eq!(
        of_ours,
        BTreeSet::from(["formatbench-protocol"]),
        "the oracle may depend on no package of the project but formatbench-protocol; it reaches {}",
        of_ours
            .iter()
            .map(|p| path(&id(p)))
            .collect::<Vec<_>>()
            .join("; ")
    );
    // And the runner verifies through it: formatbench's own code depends on the oracle.
    let formatbench = &graph[&id("formatbench")];
    assert!(
        formatbench
            .iter()
            .any(|(dep, kinds)| *dep == oracle && kinds.iter().any(|k| k == "normal")),
        "formatbench does not depend on formatbench-oracle"
    );
}
