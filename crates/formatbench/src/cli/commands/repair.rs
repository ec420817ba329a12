//! `formatbench repair RUN`: sets the lines of a run's results.jsonl that are no records aside,
//! under the run folder's lock, so `report` and `--resume` read every record again.

use crate::results::{repair, RESULTS_FILE};
use crate::run::lock::{Activity, RunLock};
use crate::Error;
use std::path::Path;

pub fn repair_run(run_dir: &Path) -> Result<i32, Error> {
    let path = run_dir.join(RESULTS_FILE);
    if !path.is_file() {
        return Err(Error::Input(format!(
            "{}: no {RESULTS_FILE} here (repair takes a run folder)",
            run_dir.display()
        )));
    }
    let _lock = RunLock::exclusive(run_dir, Activity::Repairing)?;
    let done = repair(&path)?;
    println!("{}", done.summary(&path));
    Ok(0)
}
