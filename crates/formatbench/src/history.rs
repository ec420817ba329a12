//! `formatbench history RUN_DIR…`: every run kept, as pytest-benchmark and ClickBench users
//! keep them. Runs are put in commit order (the order of their commits in this checkout's
//! history, then their start times), split by environment (a run on another machine is shown
//! apart, never pooled), and each cell's median and interquartile range are followed across
//! the runs of one environment; each run is compared with the one before it by `compare`'s own
//! rule, and the runs where a cell changed are flagged with that comparison's interval.

mod document;
mod export;
mod order;

pub use document::{document, summary};
pub use export::table as history_table;

use crate::compare::{self, LoadedRun, Verdict};
use crate::results::{CallMode, CellKey, EnvironmentRecord, SampleStatus};
use crate::stats::{summarize_run_as, RatioInterval};
use crate::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One run in the history.
#[derive(Debug, Clone)]
pub struct RunPoint {
    pub dir: PathBuf,
    pub run_id: String,
    pub commit: Option<String>,
    /// How busy the machine was (`LoadSummary::short`), when recorded.
    pub load: Option<String>,
}

/// A cell's figures in one run, and how it changed from the run before, by `compare`'s rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub median_s: f64,
    pub q25_s: f64,
    pub q75_s: f64,
    pub samples: usize,
    /// The verdict against the previous run of the environment, and its NEW ÷ BASE interval.
    pub change: Option<(Verdict, Option<RatioInterval>)>,
}

impl Point {
    /// A change worth a flag: slower or faster beyond the threshold.
    pub fn changed(&self) -> bool {
        matches!(self.change, Some((Verdict::Slower | Verdict::Faster, _)))
    }
}

/// One cell over the runs of an environment (`None` where a run did not measure it).
#[derive(Debug, Clone)]
pub struct CellHistory {
    pub cell: CellKey,
    pub points: Vec<Option<Point>>,
}

/// The runs of one environment, and their cells.
#[derive(Debug, Clone)]
pub struct Era {
    /// CPU, cores, memory, OS and kernel.
    pub environment: String,
    pub runs: Vec<RunPoint>,
    pub cells: Vec<CellHistory>,
}

#[derive(Debug, Clone)]
pub struct History {
    pub eras: Vec<Era>,
    /// How the runs were ordered ("commit order", or why start times had to do).
    pub order: String,
    pub threshold: f64,
}

/// Every run directory PATH names: PATH itself when it holds results, else the run
/// directories in it.
pub fn run_dirs(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for path in paths {
        if path.join(crate::results::RESULTS_FILE).is_file() {
            out.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path).map_err(Error::at("read", path))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.join(crate::results::RESULTS_FILE).is_file())
            .collect();
        if found.is_empty() {
            return Err(Error::Input(format!(
                "{}: neither a run directory nor a results directory holding any",
                path.display()
            )));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

/// The machine a run measured on, as the key runs are kept apart by.
fn machine(env: Option<&EnvironmentRecord>) -> String {
    match env {
        Some(e) => format!(
            "{} · {} cores · {} · {} · {}",
            e.cpu_model,
            e.cores,
            crate::units::bytes(e.memory_bytes),
            e.os,
            e.kernel
        ),
        None => "environment not recorded".to_string(),
    }
}

/// The history of `runs` (loaded with `compare::load`), each compared with the run before it
/// in its environment at `threshold` by `call`.
pub fn build(runs: Vec<LoadedRun>, threshold: f64, call: Option<CallMode>) -> History {
    let summaries: Vec<_> = runs
        .iter()
        .map(|r| summarize_run_as(&r.records, call))
        .collect();
    let envs: Vec<Option<&EnvironmentRecord>> =
        summaries.iter().map(|s| s.environment.as_ref()).collect();
    let (ranks, order) = order::ranks(&envs);
    let mut indices: Vec<usize> = (0..runs.len()).collect();
    indices.sort_by_key(|&i| ranks[i].clone());
    let mut eras: Vec<(String, Vec<usize>)> = Vec::new();
    for &i in &indices {
        let key = machine(envs[i]);
        match eras.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => eras.push((key, vec![i])),
        }
    }
    let eras = eras
        .into_iter()
        .map(|(environment, members)| {
            let changes: Vec<Option<compare::Comparison>> = members
                .iter()
                .enumerate()
                .map(|(k, &i)| {
                    let previous = k.checked_sub(1).map(|p| members[p])?;
                    Some(compare::compare(&runs[previous], &runs[i], threshold, call))
                })
                .collect();
            let mut cells: BTreeMap<CellKey, Vec<Option<Point>>> = BTreeMap::new();
            let mut order_of: Vec<CellKey> = Vec::new();
            for (k, &i) in members.iter().enumerate() {
                for cell in summaries[i].groups.iter().flat_map(|g| &g.cells) {
                    let Some(wall) = cell.wall.filter(|_| cell.status == SampleStatus::Ok) else {
                        continue;
                    };
                    let change = changes[k].as_ref().and_then(|cmp| {
                        let c = cmp.cells.iter().find(|c| c.cell == cell.cell)?;
                        Some((c.verdict, c.ratio))
                    });
                    let slots = cells.entry(cell.cell.clone()).or_insert_with(|| {
                        order_of.push(cell.cell.clone());
                        vec![None; members.len()]
                    });
                    slots[k] = Some(Point {
                        median_s: wall.median,
                        q25_s: wall.q25,
                        q75_s: wall.q75,
                        samples: wall.n,
                        change,
                    });
                }
            }
            let runs = members
                .iter()
                .map(|&i| RunPoint {
                    dir: runs[i].dir.clone(),
                    run_id: summaries[i]
                        .environment
                        .as_ref()
                        .map_or_else(|| dir_name(&runs[i].dir), |e| e.run_id.clone()),
                    commit: envs[i].and_then(|e| e.git_commit.clone()),
                    load: summaries[i].load.short(),
                })
                .collect();
            Era {
                environment,
                runs,
                cells: order_of
                    .into_iter()
                    .filter_map(|k| {
                        let points = cells.remove(&k)?;
                        Some(CellHistory { cell: k, points })
                    })
                    .collect(),
            }
        })
        .collect();
    History {
        eras,
        order,
        threshold,
    }
}

fn dir_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
