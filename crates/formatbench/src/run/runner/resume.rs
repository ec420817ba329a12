//! Resuming an interrupted run and reusing samples of earlier ones: a sample's key is its cell,
//! round and position (the data fingerprint is part of the cell) plus the worker build and the
//! settings that change what a sample measures.

use crate::results::{Record, SampleRecord, SampleStatus, ScheduleSlot, StopRecord, RESULTS_FILE};
use crate::Error;
use std::collections::{BTreeMap, HashMap, HashSet};
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

pub fn read_resumed(
    run_dir: &Path,
    worker_build: &str,
    call: crate::stats::CallMode,
) -> Result<Resumed, Error> {
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
                    let ranked = super::stopping::ranked_time(s, call);
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

/// The settings (environment block keys) that change what a sample measures although its cell
/// and data are the same: how long a sample repeats its operation, the untimed runs before it,
/// the rows and columns operations choose, the queries a session runs, the worker's memory cap
/// and whether a write syncs. A sample of a run that differed in any of them is not reused.
const MEASUREMENT_SETTINGS: [&str; 6] = [
    "min_sample_s",
    "warmup",
    "seed",
    "session_queries",
    "memory_limit_bytes",
    "write_fsync",
];

/// Whether samples measured under `earlier` settings measure what this run would.
fn same_measurement(earlier: &BTreeMap<String, String>, now: &BTreeMap<String, String>) -> bool {
    MEASUREMENT_SETTINGS
        .iter()
        .all(|key| earlier.get(*key) == now.get(*key))
}

/// Ok samples of other runs under `out_dir` taken by this same build under the same
/// measurement settings, by slot.
pub fn reusable_samples(
    out_dir: &Path,
    this_run: &Path,
    worker_build: &str,
    settings: &BTreeMap<String, String>,
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
        let comparable = records.iter().any(|record| {
            matches!(record, Record::Environment(env) if same_measurement(&env.settings, settings))
        });
        if !comparable {
            continue;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_change_in_what_a_sample_measures_forbids_reuse_and_a_report_setting_does_not() {
        let now = settings(&[
            ("session_queries", "6"),
            ("min_sample_s", "0.05"),
            ("prefer", "read"),
        ]);
        let other_queries = settings(&[("session_queries", "12"), ("min_sample_s", "0.05")]);
        assert!(!same_measurement(&other_queries, &now));
        let other_prefer = settings(&[
            ("session_queries", "6"),
            ("min_sample_s", "0.05"),
            ("prefer", "size"),
        ]);
        assert!(same_measurement(&other_prefer, &now));
        // A run recorded before a setting existed did not measure under this one's value.
        let older = settings(&[("min_sample_s", "0.05")]);
        assert!(!same_measurement(&older, &now));
    }
}
