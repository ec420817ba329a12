//! Whether a run holds every sample it planned: a run stopped by Ctrl-C, a crash of the runner
//! or a full disk leaves cells short, and a report of it must say so rather than rank them.

use crate::results::{CellKey, SampleRecord, ScheduleRecord, ScheduleSlot, StopRecord};
use std::collections::{BTreeMap, BTreeSet};

/// A cell the schedule gave more samples than the run holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ShortCell {
    pub cell: CellKey,
    pub measured: usize,
    pub planned: usize,
}

/// How much of its schedule a run measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completeness {
    /// The schedule was written: measuring began (it is written before the first sample).
    pub scheduled: bool,
    pub planned: usize,
    pub measured: usize,
    /// Cells short of their samples, in schedule order.
    pub short: Vec<ShortCell>,
}

impl Completeness {
    /// What `samples` hold of `schedule`; the rounds an adaptive run's group chose not to take
    /// (`stops`) were not planned.
    pub fn of(
        schedule: Option<&ScheduleRecord>,
        stops: &[StopRecord],
        samples: &[&SampleRecord],
    ) -> Self {
        let Some(schedule) = schedule else {
            return Completeness::default();
        };
        let taken: BTreeSet<ScheduleSlot> = samples
            .iter()
            .filter_map(|s| {
                Some(ScheduleSlot {
                    cell: s.cell.clone(),
                    round: s.round?,
                    position: s.position?,
                })
            })
            .collect();
        let mut per_cell: BTreeMap<&CellKey, (usize, usize)> = BTreeMap::new();
        let mut order = Vec::new();
        for slot in &schedule.slots {
            // A pool's schedule is its runs' schedules on shifted rounds; each run's stops
            // hold for its own rounds only.
            let left_out = stops
                .iter()
                .filter(|s| s.run_id == schedule.run_id || s.round_offset > 0)
                .filter(|s| s.holds_round(slot.round))
                .find_map(|s| s.last_round_of(&slot.cell))
                .is_some_and(|last| slot.round > last);
            if left_out {
                continue;
            }
            let entry = per_cell.entry(&slot.cell).or_insert_with(|| {
                order.push(&slot.cell);
                (0, 0)
            });
            entry.1 += 1;
            if taken.contains(slot) {
                entry.0 += 1;
            }
        }
        let short = order
            .into_iter()
            .filter_map(|cell| {
                let (measured, planned) = per_cell.get(cell).copied()?;
                (measured < planned).then(|| ShortCell {
                    cell: cell.clone(),
                    measured,
                    planned,
                })
            })
            .collect();
        let (measured, planned) = per_cell
            .values()
            .fold((0, 0), |(m, p), (cm, cp)| (m + cm, p + cp));
        Completeness {
            scheduled: true,
            planned,
            measured,
            short,
        }
    }

    pub fn complete(&self) -> bool {
        self.scheduled && self.short.is_empty()
    }

    /// One sentence on what is missing; `None` for a complete run.
    pub fn describe(&self) -> Option<String> {
        if self.complete() {
            return None;
        }
        Some(if !self.scheduled {
            "the run stopped before measuring began: no cell was timed".to_string()
        } else {
            format!(
                "the run stopped after {} of {} scheduled samples: {} of its cells are short",
                self.measured,
                self.planned,
                self.short.len()
            )
        })
    }

    /// The note a partial cell carries in the tables.
    pub fn flag_of(&self, cell: &CellKey) -> Option<String> {
        self.short.iter().find(|s| &s.cell == cell).map(|s| {
            format!(
                "partial: {} of {} samples (the run stopped)",
                s.measured, s.planned
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::SampleStatus;

    fn key(backend: &str) -> CellKey {
        CellKey {
            dataset: "d".into(),
            dataset_fingerprint: "fp".into(),
            backend: backend.into(),
            profile: "default".into(),
            layout: "default".into(),
            target: "file".into(),
            op: "read".into(),
            threads: 1,
            cache: "warm".into(),
            storage: "local".into(),
            network: "n/a".into(),
            row_group_rows: None,
            parquet_files: None,
            sort_by: None,
            executors: None,
        }
    }

    #[test]
    fn counts_the_scheduled_slots_a_run_holds() {
        let slot = |b: &str, round, position| ScheduleSlot {
            cell: key(b),
            round,
            position,
        };
        let schedule = ScheduleRecord {
            run_id: "r".into(),
            hash: "h".into(),
            blocks: 1,
            slots: vec![
                slot("a", 1, 0),
                slot("b", 1, 1),
                slot("b", 2, 0),
                slot("a", 2, 1),
            ],
        };
        let sample = |b: &str, round, position| {
            let mut s = SampleRecord::bare("r", key(b), Some(round), SampleStatus::Ok, None);
            s.position = Some(position);
            s
        };
        let held = [sample("a", 1, 0), sample("b", 1, 1), sample("a", 2, 1)];
        let refs: Vec<&SampleRecord> = held.iter().collect();
        let c = Completeness::of(Some(&schedule), &[], &refs);
        assert_eq!((c.measured, c.planned), (3, 4));
        assert_eq!(c.short.len(), 1);
        assert_eq!((c.short[0].measured, c.short[0].planned), (1, 2));
        assert!(!c.complete());
        assert_eq!(
            c.flag_of(&key("b")).as_deref(),
            Some("partial: 1 of 2 samples (the run stopped)")
        );
        assert!(Completeness::of(Some(&schedule), &[], &[])
            .describe()
            .is_some());
        assert!(!Completeness::of(None, &[], &refs).complete());
        let all: Vec<SampleRecord> = schedule
            .slots
            .iter()
            .map(|s| sample(&s.cell.backend, s.round, s.position))
            .collect();
        let refs: Vec<&SampleRecord> = all.iter().collect();
        assert!(Completeness::of(Some(&schedule), &[], &refs).complete());
    }
}
