//! Resuming an interrupted run and reusing samples of earlier ones: a sample's key is its cell,
//! round and position (the data fingerprint is part of the cell) plus the worker build and the
//! settings that change what a sample measures. A resume takes again the samples the store
//! failed (and with `--retry-failed` every failed one): the later record of a slot replaces
//! the earlier.

use crate::results::{
    Record, RunSettings, SampleRecord, SampleStatus, ScheduleSlot, StopRecord, RESULTS_FILE,
};
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
    /// Failed samples taken again, and failed samples kept as they are.
    pub retaken: usize,
    pub failed_kept: usize,
}

/// What a resume says of failed samples: how many it takes again, and how many it keeps (and
/// how to take those too).
pub fn retaking(resumed: &Resumed) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let mut said = String::new();
    if resumed.retaken > 0 {
        let n = resumed.retaken;
        said.push_str(&format!("; retaking {n} failed sample{}", plural(n)));
    }
    if resumed.failed_kept > 0 {
        let n = resumed.failed_kept;
        said.push_str(&format!(
            "; {n} failed sample{} kept (`--retry-failed` takes them again)",
            plural(n)
        ));
    }
    said
}

/// Whether a resume takes a recorded sample again: a failed one whose store stopped answering
/// always (the store failed, not the backend), any failed one when asked (`--retry-failed`).
fn retakes(sample: &SampleRecord, retry_failed: bool) -> bool {
    sample.status == SampleStatus::Failed && (sample.store_unreachable || retry_failed)
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
    retry_failed: bool,
) -> Result<Resumed, Error> {
    let records = crate::results::read_records(&run_dir.join(RESULTS_FILE))?;
    let mut resumed = Resumed {
        run_id: String::new(),
        done: HashSet::new(),
        schedule: None,
        stops: Vec::new(),
        walls: Vec::new(),
        retaken: 0,
        failed_kept: 0,
    };
    // Each slot's last record, slots in the order they were first recorded.
    let mut slots: Vec<ScheduleSlot> = Vec::new();
    let mut last: HashMap<ScheduleSlot, &SampleRecord> = HashMap::new();
    for record in &records {
        match record {
            Record::Environment(env) => {
                if env.worker_build.as_deref() != Some(worker_build) {
                    return Err(Error::Input(format!(
                        "cannot resume {}: it was measured by another build of formatbench",
                        run_dir.display()
                    )));
                }
                if let Some((_, why)) = crate::catalog::external::changed_since(&env.versions)
                    .into_iter()
                    .next()
                {
                    return Err(Error::Input(format!(
                        "cannot resume {}: {why}",
                        run_dir.display()
                    )));
                }
                resumed.run_id = env.run_id.clone();
            }
            Record::Schedule(s) => resumed.schedule = Some(s.hash.clone()),
            Record::Sample(s) => {
                if let Some(slot) = slot_of(s) {
                    if last.insert(slot.clone(), s).is_none() {
                        slots.push(slot);
                    }
                }
            }
            Record::Stop(stop) => resumed.stops.push(stop.clone()),
            _ => {}
        }
    }
    for slot in slots {
        let Some(sample) = last.get(&slot) else {
            continue;
        };
        if retakes(sample, retry_failed) {
            resumed.retaken += 1;
            continue;
        }
        if sample.status == SampleStatus::Failed {
            resumed.failed_kept += 1;
        }
        resumed
            .walls
            .push((slot.clone(), super::stopping::ranked_time(sample, call)));
        resumed.done.insert(slot);
    }
    if resumed.run_id.is_empty() {
        return Err(Error::Input(format!(
            "cannot resume {}: no environment record",
            run_dir.display()
        )));
    }
    Ok(resumed)
}

/// Ok samples of other runs under `out_dir` taken by this same build under the same
/// measurement settings, by slot.
pub fn reusable_samples(
    out_dir: &Path,
    this_run: &Path,
    worker_build: &str,
    settings: &RunSettings,
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
            matches!(record, Record::Environment(env) if settings.same_measurement(&env.settings))
        });
        if !comparable {
            continue;
        }
        // Outside workers that changed since (each one's manifest hash is in its version):
        // none of their samples are this run's.
        let changed: Vec<String> = records
            .iter()
            .filter_map(|record| match record {
                Record::Environment(env) => {
                    Some(crate::catalog::external::changed_since(&env.versions))
                }
                _ => None,
            })
            .flatten()
            .map(|(name, _)| name)
            .collect();
        for record in records {
            if let Record::Sample(s) = record {
                if s.status == SampleStatus::Ok
                    && s.worker_build.as_deref() == Some(worker_build)
                    && !changed.contains(&s.cell.backend)
                {
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
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::results::{CellKey, ResultsWriter};

    /// A run folder holding `samples` (status, store unreachable) in rounds 1, 2, …, and a
    /// retake of round 1 after them when `retaken_ok`.
    fn run_with(samples: &[(SampleStatus, bool)], retaken_ok: bool) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = ResultsWriter::open(&dir.path().join(RESULTS_FILE)).unwrap();
        let mut env = crate::environment::environment("run", Default::default());
        env.worker_build = Some("build".into());
        writer.append(&Record::Environment(env)).unwrap();
        let sample = |round: u32, status, unreachable| {
            let mut s = SampleRecord::bare("run", CellKey::example("b"), Some(round), status, None);
            s.position = Some(0);
            s.store_unreachable = unreachable;
            // An ok sample is a record only with its time.
            s.wall_s = (status == SampleStatus::Ok).then_some(0.5);
            Record::Sample(Box::new(s))
        };
        for (round, (status, unreachable)) in (1..).zip(samples) {
            writer
                .append(&sample(round, *status, *unreachable))
                .unwrap();
        }
        if retaken_ok {
            writer.append(&sample(1, SampleStatus::Ok, false)).unwrap();
        }
        dir
    }

    fn resumed(dir: &tempfile::TempDir, retry_failed: bool) -> Resumed {
        let call = crate::stats::CallMode::default();
        read_resumed(dir.path(), "build", call, retry_failed).unwrap()
    }

    #[test]
    fn a_resume_retakes_what_the_store_failed_and_any_failure_when_asked() {
        use SampleStatus::{Failed, Ok};
        let run = run_with(&[(Ok, false), (Failed, true), (Failed, false)], false);
        let plain = resumed(&run, false);
        // Round 2's store failed: taken again; round 3's worker failed: kept.
        assert_eq!(
            (plain.done.len(), plain.retaken, plain.failed_kept),
            (2, 1, 1)
        );
        assert!(!plain.done.iter().any(|s| s.round == 2));
        let retry = resumed(&run, true);
        assert_eq!(
            (retry.done.len(), retry.retaken, retry.failed_kept),
            (1, 2, 0)
        );
        // A retaken sample's later record is the slot's: done, and counted once.
        let retaken = run_with(&[(Failed, true)], true);
        let after = resumed(&retaken, true);
        assert_eq!(
            (after.done.len(), after.retaken, after.walls.len()),
            (1, 0, 1)
        );
    }
}
