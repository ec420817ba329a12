//! Named baselines: `run --save-baseline NAME` writes `baselines/NAME.json` under the results
//! directory (`--out`), naming the run; `compare --baseline NAME NEW` reads it back. A small
//! file rather than a copy or a link: it survives the run directory being moved with its
//! results directory (the run is then found there by its id), and CI scripts need no run ids.

use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const BASELINES_DIR: &str = "baselines";

/// What `baselines/NAME.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baseline {
    pub name: String,
    pub run_id: String,
    /// The run directory, absolute when it could be resolved.
    pub run_dir: PathBuf,
}

/// Letters, digits, `.`, `_` and `-`, not starting with a dot: a file name on every system.
pub fn check_name(name: &str) -> Result<(), Error> {
    let fine = !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if fine {
        Ok(())
    } else {
        Err(Error::Input(format!(
            "baseline name {name:?}: use letters, digits, '.', '_' and '-' (not a leading '.')"
        )))
    }
}

/// Where baseline `name` of `results_dir` is saved.
pub fn path_of(results_dir: &Path, name: &str) -> PathBuf {
    results_dir.join(BASELINES_DIR).join(format!("{name}.json"))
}

/// Records `run_dir` (run `run_id`) as baseline `name`, replacing an earlier one of that name.
pub fn save(
    results_dir: &Path,
    name: &str,
    run_id: &str,
    run_dir: &Path,
) -> Result<PathBuf, Error> {
    check_name(name)?;
    let baseline = Baseline {
        name: name.to_string(),
        run_id: run_id.to_string(),
        run_dir: std::fs::canonicalize(run_dir).unwrap_or_else(|_| run_dir.to_path_buf()),
    };
    let path = path_of(results_dir, name);
    let dir = results_dir.join(BASELINES_DIR);
    std::fs::create_dir_all(&dir).map_err(Error::at("create", &dir))?;
    let text = serde_json::to_vec_pretty(&baseline).map_err(Error::encode("a baseline"))?;
    std::fs::write(&path, text).map_err(Error::at("write", &path))?;
    Ok(path)
}

/// The run directory baseline `name` names: where it was saved, else the run of that id in
/// `results_dir` (a results directory moved as a whole).
pub fn resolve(results_dir: &Path, name: &str) -> Result<PathBuf, Error> {
    check_name(name)?;
    let path = path_of(results_dir, name);
    let text = std::fs::read(&path).map_err(|_| {
        Error::Input(format!(
            "no baseline named {name:?} in {} (save one with `formatbench run --save-baseline {name}`)",
            results_dir.join(BASELINES_DIR).display()
        ))
    })?;
    let baseline: Baseline = serde_json::from_slice(&text)
        .map_err(|e| Error::Input(format!("{}: not a baseline file: {e}", path.display())))?;
    let moved = results_dir.join(&baseline.run_id);
    for candidate in [&baseline.run_dir, &moved] {
        if candidate.join(crate::results::RESULTS_FILE).is_file() {
            return Ok(candidate.clone());
        }
    }
    Err(Error::Input(format!(
        "baseline {name:?} names run {} at {}, which is gone",
        baseline.run_id,
        baseline.run_dir.display()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_baseline_resolves_and_follows_a_moved_results_directory() {
        let root = tempfile::tempdir().unwrap();
        let results = root.path().join("results");
        let run = results.join("RUN1");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("results.jsonl"), "").unwrap();
        save(&results, "main", "RUN1", &run).unwrap();
        assert_eq!(
            resolve(&results, "main").unwrap(),
            std::fs::canonicalize(&run).unwrap()
        );
        let moved = root.path().join("moved");
        std::fs::rename(&results, &moved).unwrap();
        assert_eq!(resolve(&moved, "main").unwrap(), moved.join("RUN1"));
        let missing = resolve(&moved, "nope").unwrap_err();
        assert_eq!(missing.exit_code(), 2);
        assert!(missing.to_string().contains("no baseline named \"nope\""));
        assert!(save(&moved, "../evil", "RUN1", &run).is_err());
        assert!(save(&moved, ".hidden", "RUN1", &run).is_err());
    }
}
