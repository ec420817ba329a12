//! Measuring: the balanced schedule of every sample (by group, never pooled), the adaptive
//! stopper seeded with what a resumed run holds, and the loop that takes each sample in order,
//! with its progress estimated from the stopping rule.

use super::cell::Cell;
use super::identity::{clock_resolution, schedule_hash};
use super::state::Runner;
use super::{forecast, stopping};
use crate::plan::CacheState;
use crate::progress::{detail, say, Progress};
use crate::results::{Record, ScheduleRecord, ScheduleSlot};
use crate::Error;
use formatbench_protocol::Op;
use std::collections::BTreeMap;
use std::time::Instant;

impl Runner<'_> {
    /// The groups samples are compared within, by (dataset, op, cache): never pooled.
    fn groups(&self, cells: &[Cell]) -> Vec<Vec<usize>> {
        let mut groups: BTreeMap<(usize, Op, Option<CacheState>), Vec<usize>> = BTreeMap::new();
        for (i, cell) in cells.iter().enumerate() {
            groups
                .entry((cell.dataset, cell.op, cell.cache))
                .or_default()
                .push(i);
        }
        groups.into_values().collect()
    }

    /// The balanced order of every measured sample: (round, group, position, cell).
    fn schedule(&self, groups: &[Vec<usize>]) -> Vec<(u32, usize, u32, usize)> {
        let mut slots = Vec::new();
        for (g, members) in groups.iter().enumerate() {
            let cap = self.plan.max_rounds.unwrap_or(u32::MAX);
            for slot in crate::plan::slots(members.len(), self.blocks_of(members.len()))
                .into_iter()
                .filter(|s| s.round <= cap)
            {
                slots.push((
                    slot.round,
                    g,
                    slot.position as u32,
                    members[slot.competitor],
                ));
            }
        }
        slots.sort_unstable();
        slots
    }

    /// Balanced blocks a group of `competitors` takes: the plan's, and for an adaptive plan as
    /// many more as it needs to reach [`stopping::MIN_ROUNDS`] rounds (a block is 2n rounds,
    /// so only a group of two competitors needs a second).
    fn blocks_of(&self, competitors: usize) -> u32 {
        let per_block = 2 * competitors.max(1) as u32;
        match self.plan.stopping {
            Some(_) => self
                .plan
                .blocks
                .max(stopping::MIN_ROUNDS.div_ceil(per_block)),
            None => self.plan.blocks,
        }
    }

    /// The adaptive stopper of an adaptive plan, seeded with what a resumed run holds.
    fn stopper(
        &self,
        cells: &[Cell],
        groups: Vec<Vec<usize>>,
        slots: &[(u32, usize, u32, usize)],
    ) -> Option<stopping::Stopper> {
        let rules = self.plan.stopping?;
        let plans = groups
            .into_iter()
            .enumerate()
            .map(|(g, members)| stopping::GroupPlan {
                members,
                planned_rounds: slots
                    .iter()
                    .filter(|s| s.1 == g)
                    .map(|s| s.0)
                    .max()
                    .unwrap_or(0),
            })
            .collect();
        let keys: Vec<&crate::results::CellKey> = cells.iter().map(|c| &c.key).collect();
        let mut stopper = stopping::Stopper::new(rules, &keys, plans, clock_resolution());
        stopper.resume(&self.resumed_stops);
        for (slot, wall) in &self.resumed_walls {
            if let Some(index) = cells.iter().position(|c| c.key == slot.cell) {
                stopper.record(index, slot.round, *wall, 0.0);
            }
        }
        Some(stopper)
    }

    pub(super) fn measure(&mut self, cells: &[Cell]) -> Result<(), Error> {
        let groups = self.groups(cells);
        let slots = self.schedule(&groups);
        let mut stopper = self.stopper(cells, groups, &slots);
        let keys: Vec<&crate::results::CellKey> = cells.iter().map(|c| &c.key).collect();
        let mut current_round = 0;
        let listed: Vec<ScheduleSlot> = slots
            .iter()
            .map(|&(round, _, position, index)| ScheduleSlot {
                cell: cells[index].key.clone(),
                round,
                position,
            })
            .collect();
        let hash = schedule_hash(&listed)?;
        if let Some(previous) = &self.resumed_schedule {
            if previous != &hash {
                return Err(Error::Input(format!(
                    "cannot resume: the schedule changed ({previous} then, {hash} now)"
                )));
            }
        } else {
            self.results.append(&Record::Schedule(ScheduleRecord {
                run_id: self.run_id.clone(),
                hash,
                blocks: self.plan.blocks,
                slots: listed.clone(),
            }))?;
        }
        let total = slots.len();
        let skipped = listed.iter().filter(|s| self.done.contains(*s)).count();
        // An adaptive run takes a share of its slots: the stopping rule says how many.
        let up_to = if stopper.is_some() { "up to " } else { "" };
        say(&format!(
            "measuring {up_to}{} samples ({} balanced block(s) of 2n rounds){}",
            total - skipped,
            self.plan.blocks,
            if skipped > 0 {
                format!("; {skipped} already done")
            } else {
                String::new()
            }
        ));
        let mut progress = Progress::new("measure", total - skipped);
        let mut costs = forecast::Costs::default();
        for (at, (&(round, group, position, index), key)) in slots.iter().zip(&listed).enumerate() {
            if round != current_round {
                if let Some(stopper) = stopper.as_mut() {
                    for stop in stopper.after_round(current_round, &keys, &self.run_id) {
                        detail(&format!(
                            "{} {} {}: {}",
                            stop.dataset, stop.op, stop.cache, stop.detail
                        ));
                        self.results.append(&Record::Stop(stop))?;
                    }
                }
                current_round = round;
            }
            if self.done.contains(key) {
                continue;
            }
            let cell = &cells[index];
            if stopper.as_ref().is_some_and(|s| s.skips(index, round)) {
                continue;
            }
            let last_rounds = stopper.as_ref().map(|s| s.expected_last_rounds());
            let (to_go, left_s) = forecast::left(&slots[at..], &costs, last_rounds.as_ref(), |i| {
                let slot = &listed[at + i];
                match (self.done.contains(slot), self.reusable.contains_key(slot)) {
                    (true, _) => None,
                    (false, reused) => Some(reused),
                }
            });
            progress.begin(&format!("{} round {round}", cell.label()), to_go, left_s);
            let started = Instant::now();
            if let Some(reused) = self.reusable.remove(key) {
                let mut record = reused;
                record.reused_from = Some(record.run_id.clone());
                record.run_id = self.run_id.clone();
                self.reused += 1;
                // A reused sample counts toward its group's precision like a new one; it cost
                // this run nothing.
                if let Some(stopper) = stopper.as_mut() {
                    stopper.record(index, round, stopping::ranked_time(&record, self.call), 0.0);
                }
                self.results.append(&Record::Sample(Box::new(record)))?;
                progress.end_item();
                continue;
            }
            self.measure_sample(cell, (round, position, index), stopper.as_mut(), started)?;
            costs.record(index, group, started.elapsed().as_secs_f64());
            progress.end_item();
        }
        progress.finish();
        if let Some(stopper) = stopper.as_mut() {
            for stop in stopper.finish(&self.run_id) {
                self.results.append(&Record::Stop(stop))?;
            }
        }
        if self.reused > 0 {
            say(&format!(
                "took {} samples with identical keys from earlier runs (--reuse)",
                self.reused
            ));
        }
        Ok(())
    }
}
