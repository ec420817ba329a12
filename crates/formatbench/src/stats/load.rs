//! How busy the machine was over a run, from each sample's [`MachineLoad`]: the warning every
//! summary and report prints when other work competed with the samples, the Environment
//! table's line, and what `compare` and `calibrate` say of it.

use crate::results::{SampleRecord, SampleStatus, BUSY_FLAG};
use std::collections::BTreeMap;

/// A sample's parallelism below this share of its cell's in quiet samples fell short: it got
/// fewer cores than it used when the machine was quiet.
pub const SHORT_PARALLELISM: f64 = 0.75;

/// The share of a run's samples that must have been busy for the run to warn first.
pub const WARN_SHARE: f64 = 0.05;

/// The machine's load over the samples of a run (or a pool of runs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadSummary {
    /// Measured samples that recorded the machine's load, and those taken while it was busy.
    pub samples: usize,
    pub busy: usize,
    /// The CPUs the kernel counted.
    pub cpus: u32,
    /// The lowest and highest 1-minute load average read before or after a sample.
    pub load1: Option<(f64, f64)>,
    /// The median and highest share of the CPUs other processes used during a sample.
    pub other_cpu_share: Option<(f64, f64)>,
    /// The highest share of the CPUs' time the hypervisor stole during a sample.
    pub max_steal_share: Option<f64>,
    /// Why the first busy sample was busy, for the warning.
    pub first_reason: Option<String>,
    /// Busy samples whose parallelism fell below [`SHORT_PARALLELISM`] of the median of their
    /// cell's quiet samples.
    pub parallelism_short: usize,
}

fn range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
    })
}

impl LoadSummary {
    /// The load over `samples` (only measured, ok samples count).
    pub fn of<'a>(samples: impl IntoIterator<Item = &'a SampleRecord>) -> LoadSummary {
        let measured: Vec<&SampleRecord> = samples
            .into_iter()
            .filter(|s| s.status == SampleStatus::Ok && s.machine_load.is_some())
            .collect();
        let loads: Vec<_> = measured.iter().filter_map(|s| s.machine_load).collect();
        let busy: Vec<Option<String>> = loads.iter().map(|l| l.busy()).collect();
        let mut shares: Vec<f64> = loads.iter().filter_map(|l| l.other_cpu_share).collect();
        shares.sort_by(f64::total_cmp);
        LoadSummary {
            samples: measured.len(),
            busy: busy.iter().flatten().count(),
            cpus: loads.iter().map(|l| l.cpus).max().unwrap_or(0),
            load1: range(loads.iter().flat_map(|l| [l.load1_before, l.load1_after])),
            other_cpu_share: shares
                .last()
                .map(|max| (super::median(&shares).unwrap_or(*max), *max)),
            max_steal_share: loads
                .iter()
                .filter_map(|l| l.steal_share)
                .max_by(f64::total_cmp),
            first_reason: busy.into_iter().flatten().next(),
            parallelism_short: parallelism_short(&measured),
        }
    }

    /// The warning a busy run prints first, or `None` when fewer than [`WARN_SHARE`] of its
    /// samples were busy (those few are flagged in their cells, and counted in the
    /// Environment table).
    pub fn warning(&self) -> Option<String> {
        if self.busy == 0 || (self.busy as f64) < WARN_SHARE * self.samples as f64 {
            return None;
        }
        let mut text = format!(
            "the machine was busy during {} of {} samples ({}",
            self.busy,
            self.samples,
            self.first_reason.as_deref().unwrap_or("other work")
        );
        if let Some((_, max)) = self.load1 {
            text.push_str(&format!(
                "; load average up to {max:.1} on {} CPUs",
                self.cpus
            ));
        }
        text.push(')');
        if self.parallelism_short > 0 {
            text.push_str(&format!(
                "; {} of them ran on fewer cores than the same cell did in quiet samples",
                self.parallelism_short
            ));
        }
        text.push_str(
            ": their times are slower and noisier than a quiet machine's; rerun on a quiet one \
             before trusting them",
        );
        Some(text)
    }

    /// A few words for a list of runs: `quiet`, or `busy in 3 of 40 samples`; `None` for
    /// results that recorded no load.
    pub fn short(&self) -> Option<String> {
        (self.samples > 0).then(|| match self.busy {
            0 => "quiet".to_string(),
            busy => format!("busy in {busy} of {} samples", self.samples),
        })
    }

    /// One line for the Environment table, `calibrate` and `compare`: how busy the machine
    /// was. `None` for results that recorded no load.
    pub fn describe(&self) -> Option<String> {
        if self.samples == 0 {
            return None;
        }
        let mut parts = vec![format!(
            "busy during {} of {} samples",
            self.busy, self.samples
        )];
        if let Some((lo, hi)) = self.load1 {
            parts.push(format!(
                "load average {lo:.1}–{hi:.1} on {} CPUs",
                self.cpus
            ));
        }
        if let Some((median, max)) = self.other_cpu_share {
            parts.push(format!(
                "other processes' share of the CPUs {:.0} % median, {:.0} % most",
                100.0 * median,
                100.0 * max
            ));
        }
        if let Some(steal) = self.max_steal_share.filter(|s| *s > 0.0) {
            parts.push(format!("steal up to {:.0} %", 100.0 * steal));
        }
        Some(parts.join("; "))
    }
}

/// How many busy samples ran with less parallelism than their cell's quiet samples had.
fn parallelism_short(samples: &[&SampleRecord]) -> usize {
    let mut by_cell: BTreeMap<&crate::results::CellKey, (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for s in samples {
        let (Some(load), Some(p)) = (s.machine_load, s.parallelism) else {
            continue;
        };
        let entry = by_cell.entry(&s.cell).or_default();
        match load.busy() {
            Some(_) => entry.1.push(p),
            None => entry.0.push(p),
        }
    }
    by_cell
        .values()
        .filter_map(|(quiet, busy)| {
            let quiet = super::median(quiet)?;
            Some(
                busy.iter()
                    .filter(|p| **p < SHORT_PARALLELISM * quiet)
                    .count(),
            )
        })
        .sum()
}

/// A cell's flag for its busy samples, counted, in place of each sample's own flag.
pub fn cell_flag(ok: &[&SampleRecord]) -> Option<String> {
    let busy = ok
        .iter()
        .filter(|s| s.flags.iter().any(|f| f == BUSY_FLAG))
        .count();
    (busy > 0).then(|| {
        format!(
            "measured while the machine was busy in {busy} of {} samples",
            ok.len()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CellKey, MachineLoad};

    fn sample(backend: &str, share: f64, parallelism: f64) -> SampleRecord {
        let mut s = SampleRecord::bare(
            "r",
            CellKey::example(backend),
            Some(1),
            SampleStatus::Ok,
            None,
        );
        s.parallelism = Some(parallelism);
        s.machine_load = Some(MachineLoad {
            cpus: 2,
            load1_before: 0.5 + 4.0 * share,
            load1_after: 0.6 + 4.0 * share,
            other_cpu_share: Some(share),
            ..MachineLoad::default()
        });
        if s.machine_load.and_then(|l| l.busy()).is_some() {
            s.flags.push(BUSY_FLAG.into());
        }
        s
    }

    #[test]
    fn a_quiet_run_has_no_warning_but_says_its_load() {
        let samples = [sample("a", 0.01, 1.9), sample("a", 0.03, 1.9)];
        let load = LoadSummary::of(&samples);
        assert_eq!(load.warning(), None);
        assert_eq!(
            load.describe().as_deref(),
            Some(
                "busy during 0 of 2 samples; load average 0.5–0.7 on 2 CPUs; other processes' \
                 share of the CPUs 2 % median, 3 % most"
            )
        );
    }

    #[test]
    fn a_busy_sample_or_two_in_a_long_run_is_flagged_but_not_a_warning() {
        let mut samples: Vec<SampleRecord> = (0..40).map(|_| sample("a", 0.02, 1.9)).collect();
        samples.push(sample("a", 0.7, 1.0));
        let load = LoadSummary::of(&samples);
        assert_eq!((load.samples, load.busy), (41, 1));
        assert_eq!(load.warning(), None);
        assert!(load
            .describe()
            .unwrap()
            .starts_with("busy during 1 of 41 samples"));
    }

    #[test]
    fn busy_samples_warn_and_count_the_parallelism_they_lost() {
        let samples = [
            sample("a", 0.02, 1.9),
            sample("a", 0.70, 1.0),
            sample("b", 0.60, 0.9),
        ];
        let load = LoadSummary::of(&samples);
        assert_eq!((load.samples, load.busy), (3, 2));
        // Cell b had no quiet sample to compare with; cell a's busy one ran on half the cores.
        assert_eq!(load.parallelism_short, 1);
        let warning = load.warning().unwrap();
        assert!(warning.starts_with("the machine was busy during 2 of 3 samples (other processes used 70 % of the CPUs; load average up to 3.4 on 2 CPUs); 1 of them ran on fewer cores"), "{warning}");
        let refs: Vec<&SampleRecord> = samples.iter().take(2).collect();
        assert_eq!(
            cell_flag(&refs).as_deref(),
            Some("measured while the machine was busy in 1 of 2 samples")
        );
    }
}
