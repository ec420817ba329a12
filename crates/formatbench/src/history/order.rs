//! The order of runs in a history: their commits' order in this checkout's history (oldest
//! first), then their run ids (UTC start times). Where some run's commit is not in that
//! history (a run from another branch or clone), every run goes by its start time instead, and
//! the history says so.

use crate::results::EnvironmentRecord;
use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

/// Each commit of the source tree's history, oldest first, by its position.
fn commit_positions() -> Option<HashMap<String, usize>> {
    let tree = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("git")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .arg("-C")
        .arg(tree)
        .args(["rev-list", "--topo-order", "--reverse", "HEAD"])
        .output()
        .ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .enumerate()
            .map(|(i, c)| (c.trim().to_string(), i))
            .collect()
    })
}

/// A sort key per run, and how they were ordered.
pub fn ranks(envs: &[Option<&EnvironmentRecord>]) -> (Vec<(usize, String)>, String) {
    let id = |e: &Option<&EnvironmentRecord>| e.map(|e| e.run_id.clone()).unwrap_or_default();
    let positions = commit_positions().unwrap_or_default();
    let placed: Vec<Option<usize>> = envs
        .iter()
        .map(|e| positions.get(e.as_ref()?.git_commit.as_ref()?).copied())
        .collect();
    let unplaced = placed.iter().filter(|p| p.is_none()).count();
    if unplaced == 0 {
        let keys = envs
            .iter()
            .zip(&placed)
            .map(|(e, p)| (p.unwrap_or(0), id(e)))
            .collect();
        return (keys, "in commit order, then by start time".to_string());
    }
    let keys = envs.iter().map(|e| (0, id(e))).collect();
    (
        keys,
        format!(
            "by start time: {unplaced} of {} runs' commits are not in this checkout's history",
            envs.len()
        ),
    )
}
