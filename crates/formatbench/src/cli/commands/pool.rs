//! Pooling runs for one report: only runs of the same commit with a clean tree, because a
//! difference in code is a difference in what was measured.

use crate::results::{read_results, Record, RESULTS_FILE};
use crate::run::lock::RunLock;
use crate::Error;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// Rounds of the n-th pooled run are shifted by n × this, so rounds of different runs never pair.
const ROUND_STRIDE: u32 = 1_000_000;

/// The records, and each run folder's shared lock: no run writes to them while they are held.
pub fn pooled_records(
    run_dirs: &[PathBuf],
    allow_dirty: bool,
) -> Result<(Vec<Record>, Vec<RunLock>), Error> {
    pool(run_dirs, Some(allow_dirty))
}

/// The runs this process made (one per network profile): one build by construction, so their
/// code needs no proof from git.
pub fn records_of_this_build(run_dirs: &[PathBuf]) -> Result<Vec<Record>, Error> {
    pool(run_dirs, None).map(|(records, _)| records)
}

/// `check_commits`: whether runs must share a commit (`Some(allow_dirty)`), or are known to
/// come from one build (`None`).
fn pool(
    run_dirs: &[PathBuf],
    check_commits: Option<bool>,
) -> Result<(Vec<Record>, Vec<RunLock>), Error> {
    let mut runs = Vec::new();
    let mut locks = Vec::new();
    for dir in run_dirs {
        locks.extend(RunLock::shared(dir)?);
        let path = dir.join(RESULTS_FILE);
        let read = read_results(&path)?;
        // Lines that are no records are left out, and said: never pooled in silence.
        if let Some(note) = read.skipped_note(&path) {
            crate::progress::say(&note);
        }
        runs.push((dir, read.records));
    }
    if runs.len() == 1 {
        return Ok((runs.into_iter().flat_map(|(_, r)| r).collect(), locks));
    }
    refuse_double_counting(&runs)?;
    if let Some(allow_dirty) = check_commits {
        same_commit(&runs, allow_dirty)?;
    }
    same_outside_workers(&runs)?;
    Ok((shifted(runs), locks))
}

/// Refuses runs of different commits, or (unless `allow_dirty`) of uncommitted trees.
fn same_commit(runs: &[(&PathBuf, Vec<Record>)], allow_dirty: bool) -> Result<(), Error> {
    let mut commit: Option<(String, &PathBuf)> = None;
    for (dir, records) in runs {
        let env = records
            .iter()
            .find_map(|r| match r {
                Record::Environment(e) => Some(e),
                _ => None,
            })
            .ok_or_else(|| {
                Error::Input(format!(
                    "cannot pool {}: it has no environment record",
                    dir.display()
                ))
            })?;
        let this = env.git_commit.clone().ok_or_else(|| {
            Error::Input(format!(
                "cannot pool {}: it was not built from a git checkout, so its code is unknown",
                dir.display()
            ))
        })?;
        if env.git_dirty != Some(false) && !allow_dirty {
            return Err(Error::Input(format!(
                "cannot pool {}: it was built from a tree with uncommitted changes (pass --allow-dirty to pool anyway)",
                dir.display()
            )));
        }
        match &commit {
            Some((first, first_dir)) if *first != this => {
                return Err(Error::Input(format!(
                    "cannot pool: {} was built from commit {} but {} from {}",
                    first_dir.display(),
                    &first[..first.len().min(12)],
                    dir.display(),
                    &this[..this.len().min(12)]
                )))
            }
            Some(_) => {}
            None => commit = Some((this, dir)),
        }
    }
    Ok(())
}

/// Refuses runs whose outside workers (`--worker`) differ: the commit says nothing of them, and
/// each one's recorded version carries its manifest's hash (`catalog::external`).
fn same_outside_workers(runs: &[(&PathBuf, Vec<Record>)]) -> Result<(), Error> {
    let mut first: BTreeMap<&str, (&str, &PathBuf)> = BTreeMap::new();
    for (dir, records) in runs {
        let versions = records.iter().filter_map(|r| match r {
            Record::Environment(e) => Some(&e.versions),
            _ => None,
        });
        for (name, version) in versions.flat_map(crate::catalog::external::recorded) {
            match first.get(name) {
                Some((seen, seen_dir)) if *seen != version => {
                    return Err(Error::Input(format!(
                        "cannot pool: backend {name} was {seen} in {} but {version} in {}",
                        seen_dir.display(),
                        dir.display()
                    )))
                }
                Some(_) => {}
                None => {
                    first.insert(name, (version, dir));
                }
            }
        }
    }
    Ok(())
}

/// Every run's records, the n-th run's rounds shifted by n × [`ROUND_STRIDE`].
fn shifted(runs: Vec<(&PathBuf, Vec<Record>)>) -> Vec<Record> {
    let mut pooled = Vec::new();
    for (n, (_, records)) in runs.into_iter().enumerate() {
        for mut record in records {
            match &mut record {
                // One environment (the first run's) describes the pool.
                Record::Environment(_) if n > 0 => continue,
                // Each run's schedule, on its shifted rounds: the pool's plan is all of them.
                Record::Schedule(schedule) => {
                    for slot in &mut schedule.slots {
                        slot.round += n as u32 * ROUND_STRIDE;
                    }
                }
                Record::Sample(s) => {
                    s.round = s.round.map(|r| r + n as u32 * ROUND_STRIDE);
                }
                // Its stops hold for its shifted rounds, so the rounds an adaptive run chose
                // not to take stay unplanned in the pool.
                Record::Stop(stop) => stop.round_offset = n as u32 * ROUND_STRIDE,
                _ => {}
            }
            pooled.push(record);
        }
    }
    pooled
}

/// The runs each directory's samples were measured in: its own, and the earlier ones `--reuse`
/// took identical samples from.
fn measured_in(records: &[Record]) -> BTreeSet<String> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Environment(e) => Some(e.run_id.clone()),
            Record::Sample(s) => Some(s.reused_from.clone().unwrap_or_else(|| s.run_id.clone())),
            _ => None,
        })
        .collect()
}

/// Pooling the same samples twice narrows the intervals with no new evidence: refuse two
/// directories holding one run (the same one twice, or a copy), a run with samples `--reuse`
/// took from another in the pool, and a directory holding one measured sample twice.
fn refuse_double_counting(runs: &[(&PathBuf, Vec<Record>)]) -> Result<(), Error> {
    let mut owner: BTreeMap<String, &PathBuf> = BTreeMap::new();
    for (dir, records) in runs {
        for run in measured_in(records) {
            if let Some(first) = owner.insert(run.clone(), dir) {
                return Err(Error::Input(format!(
                    "cannot pool: {} and {} both hold samples of run {run}; each run counts once",
                    first.display(),
                    dir.display()
                )));
            }
        }
        let mut keys = BTreeSet::new();
        for record in records {
            let Record::Sample(s) = record else { continue };
            let Some(round) = s.round else { continue };
            if !keys.insert((&s.run_id, &s.cell, round, s.position)) {
                return Err(Error::Input(format!(
                    "cannot pool {}: it holds two samples of {} {} round {round}; each sample counts once",
                    dir.display(),
                    s.cell.backend,
                    s.cell.op
                )));
            }
        }
    }
    Ok(())
}
