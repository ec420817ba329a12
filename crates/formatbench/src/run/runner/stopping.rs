//! Adaptive stopping (`--precision`, `--budget`). A group (one operation on one dataset under
//! one cache state) takes its balanced rounds in order; after each complete round, so that what
//! was measured is still whole permutations, it stops once every competitor's paired ratio to
//! the group's fastest has a 95 % interval within ±precision, or once its share of the time
//! budget is spent, never before [`MIN_ROUNDS`] rounds. It decides on the figures the reports
//! show: the call the run ranks by (`--call`), the fastest format by the reports' own rule
//! ([`crate::stats::fastest`], the memory-copy floor never the base) and the same t intervals.
//! A cell whose samples cost far more than the group's is held to [`MIN_ROUNDS`] samples.
//! Every group's outcome is written as a stop record, so reports say the stopping was adaptive
//! and completeness counts only the rounds a group was to take.

use crate::plan::Stopping;
use crate::results::{CappedCell, CellKey, SampleRecord, SampleStatus, StopRecord};
use crate::stats::{fastest, median, paired_ratio, CallMode, MIN_TICKS};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Complete rounds every group of an adaptive run takes before its precision or its budget can
/// stop it: enough paired rounds that a t interval is narrow enough to mean something (at 5
/// rounds its half-width is 1.24 standard deviations of a round's log ratio), and the floor the
/// default suite is designed to reach within its minute.
pub const MIN_ROUNDS: u32 = 5;
/// A cell whose sample costs this many times the group's median is capped…
const COSTLY: f64 = 8.0;
/// …at this many samples: still enough for its interval.
pub(super) const CAPPED_SAMPLES: u32 = MIN_ROUNDS;

/// The time a sample decides by: the call the run ranks by, as the reports read it; `None` for
/// a sample that did not measure.
pub(super) fn ranked_time(sample: &SampleRecord, call: CallMode) -> Option<f64> {
    (sample.status == SampleStatus::Ok)
        .then(|| call.wall_of(sample))
        .flatten()
        .map(|(wall, _)| wall)
}

/// A group's competitors (indices of cells) and how many rounds its design has.
pub(super) struct GroupPlan {
    pub members: Vec<usize>,
    pub planned_rounds: u32,
}

struct Group {
    key: CellKey,
    members: Vec<usize>,
    planned_rounds: u32,
    share_s: Option<f64>,
    walls: HashMap<usize, BTreeMap<u32, f64>>,
    costs: HashMap<usize, Vec<f64>>,
    spent_s: f64,
    capped: BTreeMap<usize, CappedCell>,
    stopped_after: Option<u32>,
}

pub(super) struct Stopper {
    rules: Stopping,
    groups: Vec<Group>,
    group_of: HashMap<usize, usize>,
    /// Cells of reference backends (the memory-copy floor): shown against the fastest format,
    /// never its base, as in the reports.
    references: HashSet<usize>,
    /// Medians below this are too close to the clock's resolution to rank (the reports give
    /// them no ratio), so they neither decide nor serve as the base of a stop.
    min_median_s: f64,
}

impl Stopper {
    /// `keys[i]` is cell i's key; each group plan lists its cells; `clock_resolution_s` is the
    /// run's.
    pub fn new(
        rules: Stopping,
        keys: &[&CellKey],
        plans: Vec<GroupPlan>,
        clock_resolution_s: f64,
    ) -> Self {
        let references = keys
            .iter()
            .enumerate()
            .filter(|(_, k)| crate::stats::is_reference(&k.backend))
            .map(|(i, _)| i)
            .collect();
        let total: usize = plans.iter().map(|p| p.members.len()).sum();
        let mut group_of = HashMap::new();
        let groups = plans
            .into_iter()
            .enumerate()
            .filter_map(|(g, plan)| {
                let key = keys.get(*plan.members.first()?).copied()?.clone();
                for &m in &plan.members {
                    group_of.insert(m, g);
                }
                let share_s = rules
                    .budget_s
                    .map(|b| b * plan.members.len() as f64 / total.max(1) as f64);
                Some(Group {
                    key,
                    members: plan.members,
                    planned_rounds: plan.planned_rounds,
                    share_s,
                    walls: HashMap::new(),
                    costs: HashMap::new(),
                    spent_s: 0.0,
                    capped: BTreeMap::new(),
                    stopped_after: None,
                })
            })
            .collect();
        Stopper {
            rules,
            groups,
            group_of,
            references,
            min_median_s: MIN_TICKS * clock_resolution_s,
        }
    }

    /// Takes up where an interrupted run stopped: its groups' stop records and samples.
    pub fn resume(&mut self, stops: &[StopRecord]) {
        for group in &mut self.groups {
            if let Some(stop) = stops.iter().find(|s| s.covers(&group.key)) {
                group.stopped_after = Some(stop.after_round);
            }
        }
    }

    /// Whether cell `cell`'s sample of `round` is left out: its group stopped before that
    /// round, or the cell was capped.
    pub fn skips(&self, cell: usize, round: u32) -> bool {
        let Some(group) = self.group_of.get(&cell).and_then(|&g| self.groups.get(g)) else {
            return false;
        };
        group.stopped_after.is_some_and(|after| round > after)
            || group.capped.get(&cell).is_some_and(|c| round > c.samples)
    }

    /// The last round each cell is expected to take, as far as the stopping rule can tell now
    /// ([`Group::expected_rounds`], a capped cell's cap); for the progress estimate.
    pub fn expected_last_rounds(&self) -> HashMap<usize, u32> {
        let mut out = HashMap::new();
        for group in &self.groups {
            let rounds = group.expected_rounds(self.rules, self.min_median_s, &self.references);
            for &m in &group.members {
                let cap = group
                    .capped
                    .get(&m)
                    .map_or(rounds, |c| c.samples.min(rounds));
                out.insert(m, cap);
            }
        }
        out
    }

    /// One sample taken: its ranked time when it was measured, and what it cost the run.
    pub fn record(&mut self, cell: usize, round: u32, wall_s: Option<f64>, cost_s: f64) {
        let Some(group) = self
            .group_of
            .get(&cell)
            .and_then(|&g| self.groups.get_mut(g))
        else {
            return;
        };
        group.spent_s += cost_s;
        group.costs.entry(cell).or_default().push(cost_s);
        if let Some(wall) = wall_s.filter(|w| *w > 0.0) {
            group.walls.entry(cell).or_default().insert(round, wall);
        }
    }

    /// Round `round` is complete in every group: the groups that stop after it, as records.
    pub fn after_round(&mut self, round: u32, keys: &[&CellKey], run_id: &str) -> Vec<StopRecord> {
        let (rules, min_median_s, references) = (self.rules, self.min_median_s, &self.references);
        let mut out = Vec::new();
        for group in &mut self.groups {
            if group.stopped_after.is_some() || round >= group.planned_rounds {
                continue;
            }
            if round == 1 {
                group.cap_costly(keys);
            }
            let reason = if group.known_to(rules.precision, round, min_median_s, references) {
                Some((
                    "precision",
                    format!(
                        "stopped after {round} of {} rounds: every ratio to the fastest known \
                         to ±{} (95 % intervals)",
                        group.planned_rounds,
                        percent(rules.precision)
                    ),
                ))
            } else if round >= MIN_ROUNDS
                && group.share_s.is_some_and(|share| group.spent_s >= share)
            {
                Some((
                    "budget",
                    format!(
                        "stopped after {round} of {} rounds: its share of the time budget ({}) \
                         was spent",
                        group.planned_rounds,
                        crate::units::duration(group.share_s.unwrap_or_default())
                    ),
                ))
            } else {
                None
            };
            if let Some((reason, detail)) = reason {
                group.stopped_after = Some(round);
                out.push(group.record(run_id, round, reason, detail));
            }
        }
        out
    }

    /// The groups that ran their whole design: their records say so (and name capped cells).
    pub fn finish(&mut self, run_id: &str) -> Vec<StopRecord> {
        let precision = percent(self.rules.precision);
        self.groups
            .iter_mut()
            .filter(|g| g.stopped_after.is_none())
            .map(|group| {
                let rounds = group.planned_rounds;
                group.stopped_after = Some(rounds);
                let detail = format!(
                    "ran all {rounds} rounds of its design: not every ratio was known to \
                     ±{precision} before"
                );
                group.record(run_id, rounds, "design", detail)
            })
            .collect()
    }
}

/// `0.05` as "5 %", `0.025` as "2.5 %".
fn percent(p: f64) -> String {
    let text = crate::units::significant(p * 100.0, 2).1;
    format!("{} %", text.strip_suffix(".0").unwrap_or(&text))
}

impl Group {
    /// After the first round: cells whose sample cost far more than the group's median are
    /// held to a few samples, so one slow format does not decide how long the group takes.
    fn cap_costly(&mut self, keys: &[&CellKey]) {
        let costs: Vec<(usize, f64)> = self
            .members
            .iter()
            .filter_map(|m| Some((*m, *self.costs.get(m)?.first()?)))
            .collect();
        let all: Vec<f64> = costs.iter().map(|(_, c)| *c).collect();
        let Some(group_median) = median(&all) else {
            return;
        };
        if self.planned_rounds <= CAPPED_SAMPLES {
            return;
        }
        for (cell, cost) in costs {
            if cost > COSTLY * group_median {
                if let Some(key) = keys.get(cell) {
                    self.capped.insert(
                        cell,
                        CappedCell {
                            cell: (*key).clone(),
                            samples: CAPPED_SAMPLES,
                            cost_s: cost,
                            group_median_s: group_median,
                        },
                    );
                }
            }
        }
    }

    /// Whether every competitor's ratio to the fastest is known to ±`precision` after `round`
    /// (competitors whose median is under `min_median_s` are left out, as the reports leave
    /// out their ratios). The fastest is the reports' ([`fastest`] over the formats).
    fn known_to(
        &self,
        precision: f64,
        round: u32,
        min_median_s: f64,
        references: &HashSet<usize>,
    ) -> bool {
        if precision <= 0.0 || round < MIN_ROUNDS {
            return false;
        }
        self.widest(min_median_s, references)
            .is_some_and(|(width, rounds)| rounds >= MIN_ROUNDS as usize && width <= precision)
    }

    /// The widest relative half-width of a competitor's 95 % interval of its ratio to the
    /// fastest, and the fewest rounds such an interval rests on; `None` while some competitor
    /// has no interval yet. Zero when there is nothing to tell apart.
    fn widest(&self, min_median_s: f64, references: &HashSet<usize>) -> Option<(f64, usize)> {
        let measured: Vec<(usize, &BTreeMap<u32, f64>)> = self
            .members
            .iter()
            .filter_map(|m| {
                let walls = self.walls.get(m)?;
                let values: Vec<f64> = walls.values().copied().collect();
                (median(&values)? >= min_median_s).then_some((*m, walls))
            })
            .collect();
        let formats: Vec<&(usize, &BTreeMap<u32, f64>)> = measured
            .iter()
            .filter(|(m, _)| !references.contains(m))
            .collect();
        let pool: Vec<&BTreeMap<u32, f64>> = formats.iter().map(|(_, w)| *w).collect();
        let &&(best_cell, best) = fastest(&pool).and_then(|i| formats.get(i))?;
        // The formats decide; a reference is shown with whatever interval its rounds give.
        let mut widest = (0.0_f64, usize::MAX);
        for &&(cell, walls) in &formats {
            if cell == best_cell || self.capped.contains_key(&cell) {
                continue;
            }
            let r = paired_ratio(walls, best)?;
            let width = f64::max(r.hi / r.estimate - 1.0, 1.0 - r.lo / r.estimate);
            widest = (widest.0.max(width), widest.1.min(r.rounds));
        }
        Some(widest)
    }

    /// How many rounds this group is expected to take, for the progress estimate: its design's,
    /// or fewer where the stopping rule will end it sooner. An interval's half-width shrinks
    /// as 1/√rounds, so the rounds its precision needs are today's × (width ÷ precision)²; a
    /// budget share ends it once the rounds it affords are spent; never below
    /// [`MIN_ROUNDS`].
    fn expected_rounds(
        &self,
        rules: Stopping,
        min_median_s: f64,
        references: &HashSet<usize>,
    ) -> u32 {
        if let Some(after) = self.stopped_after {
            return after;
        }
        let planned = self.planned_rounds;
        let done = self
            .walls
            .values()
            .filter_map(|w| w.keys().max())
            .max()
            .copied()
            .unwrap_or(0);
        let floor = MIN_ROUNDS.min(planned);
        let by_precision = match self.widest(min_median_s, references) {
            _ if rules.precision <= 0.0 => planned,
            Some((width, rounds)) if rounds >= 2 && rounds != usize::MAX => {
                let needed = rounds as f64 * (width / rules.precision).powi(2);
                (needed.ceil() as u32).clamp(floor, planned)
            }
            Some((_, usize::MAX)) => floor,
            _ => planned,
        };
        let by_budget = match self.share_s {
            Some(share) if done > 0 && self.spent_s > 0.0 => {
                let per_round = self.spent_s / f64::from(done);
                ((share / per_round).ceil() as u32).clamp(floor, planned)
            }
            _ => planned,
        };
        by_precision.min(by_budget).max(done.min(planned))
    }

    fn record(&self, run_id: &str, after: u32, reason: &str, detail: String) -> StopRecord {
        StopRecord {
            run_id: run_id.to_string(),
            dataset: self.key.dataset.clone(),
            op: self.key.op.clone(),
            threads: self.key.threads,
            cache: self.key.cache.clone(),
            after_round: after,
            planned_rounds: self.planned_rounds,
            reason: reason.to_string(),
            detail,
            capped: self.capped.values().cloned().collect(),
            round_offset: 0,
        }
    }
}

#[cfg(test)]
mod tests;
