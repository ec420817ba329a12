//! Resuming an interrupted run and reusing samples of earlier ones: a sample's key is its cell,
//! round and position (the data fingerprint is part of the cell) plus the worker build.

use crate::results::{Record, SampleRecord, SampleStatus, ScheduleSlot, StopRecord, RESULTS_FILE};
use crate::Error;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What an interrupted run already holds.
pub struct Resumed {
    pub run_id: String,
    pub done: HashSet<ScheduleSlot>,
    pub schedule: Option<String>,
    /// An adaptive run's groups that had stopped, and its samples' ranked times.
    pub stops: Vec<StopRecord>,
    pub walls: Vec<(ScheduleSlot, Option<f64>)>,
}

fn slot_of(s: &SampleRecord) -> Option<ScheduleSlot> {
    Some(ScheduleSlot {
        cell: s.cell.clone(),
        round: s.round?,
        position: s.position?,
    })
}

pub fn read_resumed(run_dir: &Path, worker_build: &str) -> Result<Resumed, Error> {
    let records = crate::results::read_records(&run_dir.join(RESULTS_FILE))?;
    let mut resumed = Resumed {
        run_id: String::new(),
        done: HashSet::new(),
        schedule: None,
        stops: Vec::new(),
        walls: Vec::new(),
    };
    for record in &records {
        match record {
            Record::Environment(env) => {
                if env.worker_build.as_deref() != Some(worker_build) {
                    return Err(Error::Input(format!(
                        "cannot resume {}: it was measured by another build of formatbench",
                        run_dir.display()
                    )));
                }
                resumed.run_id = env.run_id.clone();
            }
            Record::Schedule(s) => resumed.schedule = Some(s.hash.clone()),
            Record::Sample(s) => {
                if let Some(slot) = slot_of(s) {
                    let ranked = super::stopping::ranked_time(s);
                    resumed.walls.push((slot.clone(), ranked));
                    resumed.done.insert(slot);
                }
            }
            Record::Stop(stop) => resumed.stops.push(stop.clone()),
            _ => {}
        }
    }
    if resumed.run_id.is_empty() {
        return Err(Error::Input(format!(
            "cannot resume {}: no environment record",
            run_dir.display()
        )));
    }
    Ok(resumed)
}

/// Ok samples of other runs under `out_dir` taken by this same build, by slot.
pub fn reusable_samples(
    out_dir: &Path,
    this_run: &Path,
    worker_build: &str,
) -> HashMap<ScheduleSlot, SampleRecord> {
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(out_dir) else {
        return out;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != this_run)
        .collect();
    dirs.sort();
    for dir in dirs {
        let Ok(records) = crate::results::read_records(&dir.join(RESULTS_FILE)) else {
            continue;
        };
        for record in records {
            if let Record::Sample(s) = record {
                if s.status == SampleStatus::Ok && s.worker_build.as_deref() == Some(worker_build) {
                    if let Some(slot) = slot_of(&s) {
                        out.entry(slot).or_insert(*s);
                    }
                }
            }
        }
    }
    out
}
