//! From two run directories to a [`Comparison`]: each run read and summarised by the same code
//! as its report, both by one call (`--call`, else BASE's choice), then matched cell by cell.

use super::environment::differences;
use super::matching::{compare_cells, compare_sizes, peaks};
use super::model::{Comparison, RunSide};
use crate::results::{read_records, Record, RESULTS_FILE};
use crate::stats::{summarize_run_as, CallMode};
use crate::Error;
use std::path::{Path, PathBuf};

/// A run directory's records, checked: it exists, holds results.jsonl, and that holds samples.
pub struct LoadedRun {
    pub dir: PathBuf,
    pub records: Vec<Record>,
}

pub fn load(dir: &Path) -> Result<LoadedRun, Error> {
    if !dir.is_dir() {
        return Err(Error::Input(format!(
            "{}: no such run directory",
            dir.display()
        )));
    }
    let path = dir.join(RESULTS_FILE);
    if !path.is_file() {
        return Err(Error::Input(format!(
            "{}: not a run directory (it holds no {RESULTS_FILE})",
            dir.display()
        )));
    }
    let records = read_records(&path)?;
    if !records.iter().any(|r| matches!(r, Record::Sample(_))) {
        return Err(Error::Input(format!(
            "{}: no samples to compare (the run stopped before measuring anything)",
            path.display()
        )));
    }
    Ok(LoadedRun {
        dir: dir.to_path_buf(),
        records,
    })
}

/// The call a run chose to rank by (its `call` setting).
fn chosen_call(records: &[Record]) -> Option<CallMode> {
    records.iter().find_map(|r| match r {
        Record::Environment(e) => Some(e.settings.call),
        _ => None,
    })
}

fn run_id(records: &[Record], dir: &Path) -> String {
    records
        .iter()
        .find_map(|r| match r {
            Record::Environment(e) => Some(e.run_id.clone()),
            Record::Sample(s) => Some(s.run_id.clone()),
            _ => None,
        })
        .unwrap_or_else(|| dir.display().to_string())
}

/// Compares NEW with BASE at `threshold` (0.05 for ±5 %), by `call` or BASE's choice.
pub fn compare(
    base: &LoadedRun,
    new: &LoadedRun,
    threshold: f64,
    call: Option<CallMode>,
) -> Comparison {
    let call = call
        .or_else(|| chosen_call(&base.records))
        .unwrap_or_default();
    let side = |run: &LoadedRun| RunSide {
        dir: run.dir.clone(),
        run_id: run_id(&run.records, &run.dir),
        summary: summarize_run_as(&run.records, Some(call)),
    };
    let (b, n) = (side(base), side(new));
    let cells = compare_cells(
        &b.summary,
        &n.summary,
        &peaks(&base.records),
        &peaks(&new.records),
        threshold,
    );
    let sizes = compare_sizes(&b.summary, &n.summary);
    let differences = differences(&b.summary, &n.summary);
    Comparison {
        base: b,
        new: n,
        threshold,
        call,
        differences,
        cells,
        sizes,
    }
}
